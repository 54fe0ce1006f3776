"""The stream feed against DynamoDB Streams answers shaped like the AWS API reference examples
(botocore's Stubber on a real client): shard lineage, closed shards, DescribeStream pages,
trimming, expired iterators, stale checkpoints. moto's stream has a single open shard that is
never closed or trimmed, so none of this can be produced there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.rebuild.inputs.feed import FeedGapError, FeedRead, StreamFeed
from sitemap_updater.rebuild.state.checkpoint import Checkpoint
from sitemap_updater.store.items import Item
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE
from sitemap_updater_local.deployment.stack.tables import table_properties

ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/sitemap/stream/2015-05-20T20:51:10.252"
PARENT = "shardId-00000001414562045508-2bac9cd2"
CHILD_A = "shardId-00000001414576573621-f55eea83"
CHILD_B = "shardId-00000001414592258131-674fd923"
GONE = "shardId-00000001414400000000-0d2a7e11"
NOW = 1_716_000_000
#: Parent numbers have 23 digits, the children's 24: string order is not numeric order.
P0 = 20500000000000000910398
C0 = 820400000000000001192334
D0 = 920400000000000001135967


def iterator_token(shard_id: str, n: int) -> str:
    return f"{ARN}|1|AAAAAAAAAAEvJp6D{shard_id[-8:]}{n:04d}"


def shard(shard_id: str, start: int, end: int | None = None, parent: str | None = None) -> Any:
    numbers = {"StartingSequenceNumber": str(start)}
    if end is not None:
        numbers["EndingSequenceNumber"] = str(end)
    listed: dict[str, Any] = {"ShardId": shard_id, "SequenceNumberRange": numbers}
    if parent is not None:
        listed["ParentShardId"] = parent
    return listed


def url_image(n: int, version: int) -> Item:
    uh = f"{n:032x}"
    return {
        "pk": {"S": f"u#{uh[0]}"},
        "sk": {"S": uh},
        "loc": {"S": f"https://www.example.com/page/{n}"},
        "st": {"S": "live"},
        "ev": {"S": f"20240501T120000.{version:06d}Z#0#{n:064x}"},
        "digest": {"S": f"{version:064x}"},
    }


def stream_record(seq: int, image: Item, event: str = "MODIFY") -> dict[str, Any]:
    """A GetRecords record as the API reference shows it, for a NEW_IMAGE stream."""
    data: dict[str, Any] = {
        "ApproximateCreationDateTime": dt.datetime(2024, 5, 18, 12, 0, tzinfo=dt.UTC),
        "Keys": {"pk": image["pk"], "sk": image["sk"]},
        "SequenceNumber": str(seq),
        "SizeBytes": 41,
        "StreamViewType": "NEW_IMAGE",
    }
    if event != "REMOVE":
        data["NewImage"] = image
    return {
        "awsRegion": "us-east-1",
        "dynamodb": data,
        "eventID": f"{seq:032x}"[-32:],
        "eventName": event,
        "eventSource": "aws:dynamodb",
        "eventVersion": "1.1",
    }


def meta_record(seq: int, sk: str) -> dict[str, Any]:
    return stream_record(seq, {"pk": {"S": "meta"}, "sk": {"S": sk}, "version": {"N": "3"}})


class Api:
    """Queues Stubber answers, each with the exact request it must match."""

    def __init__(self, stubber: Stubber) -> None:
        self.stubber = stubber
        self.issued = 0

    def describe(
        self, shards: list[Any], *, after: str | None = None, last: str | None = None
    ) -> None:
        description: dict[str, Any] = {
            "StreamArn": ARN,
            "StreamLabel": "2015-05-20T20:51:10.252",
            "StreamStatus": "ENABLED",
            "StreamViewType": "NEW_IMAGE",
            "CreationRequestDateTime": dt.datetime(2015, 5, 20, 20, 51, 10, tzinfo=dt.UTC),
            "TableName": "sitemap",
            "KeySchema": table_properties(DEFAULT_TEMPLATE, "Table")["KeySchema"],
            "Shards": shards,
        }
        if last is not None:
            description["LastEvaluatedShardId"] = last
        params: dict[str, Any] = {"StreamArn": ARN}
        if after is not None:
            params["ExclusiveStartShardId"] = after
        self.stubber.add_response("describe_stream", {"StreamDescription": description}, params)

    def iterator(self, shard_id: str, after: int | None = None) -> str:
        params: dict[str, Any] = {"StreamArn": ARN, "ShardId": shard_id}
        if after is None:
            params["ShardIteratorType"] = "TRIM_HORIZON"
        else:
            params.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=str(after))
        self.issued += 1
        token = iterator_token(shard_id, self.issued)
        self.stubber.add_response("get_shard_iterator", {"ShardIterator": token}, params)
        return token

    def records(
        self, token: str, records: list[dict[str, Any]], *, more: bool = True, limit: int = 1000
    ) -> str | None:
        answer: dict[str, Any] = {"Records": records}
        following = None
        if more:
            self.issued += 1
            following = token + f"-{self.issued}"
            answer["NextShardIterator"] = following
        self.stubber.add_response("get_records", answer, {"ShardIterator": token, "Limit": limit})
        return following

    def error(self, operation: str, code: str, params: dict[str, Any]) -> None:
        self.stubber.add_client_error(
            operation, service_error_code=code, service_message=code, expected_params=params
        )


@pytest.fixture
def client() -> Any:
    return boto3.client(
        "dynamodbstreams",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


@pytest.fixture
def api(client: Any) -> Iterator[Api]:
    with Stubber(client) as stubber:
        yield Api(stubber)
        stubber.assert_no_pending_responses()


def feed(client: Any, clock: Callable[[], float] = lambda: NOW) -> StreamFeed:
    return StreamFeed(client, ARN, clock=clock)


def read(client: Any, checkpoint: Checkpoint | None, max_records: int = 10_000) -> FeedRead:
    return feed(client).read(checkpoint, max_records=max_records, out_of_time=lambda: False)


def fresh(positions: dict[str, str] | None = None, finished: set[str] | None = None) -> Checkpoint:
    return Checkpoint(ARN, positions or {}, frozenset(finished or ()), NOW - 600)


def split_stream(api: Api) -> None:
    """DescribeStream in two pages: a child before its closed parent, the other child after."""
    api.describe([shard(CHILD_A, C0, parent=PARENT), shard(PARENT, P0, P0 + 9)], last=PARENT)
    api.describe([shard(CHILD_B, D0, parent=PARENT)], after=PARENT)


# -- lineage, closed shards, pages ----------------------------------------------------------


def test_parent_is_read_to_its_end_before_its_children(client: Any, api: Api) -> None:
    split_stream(api)
    it = api.iterator(PARENT)
    it = api.records(it, [stream_record(P0 + 1, url_image(1, 1), "INSERT")])
    api.records(
        it, [meta_record(P0 + 2, "shardmap"), stream_record(P0 + 5, url_image(2, 1))], more=False
    )
    it = api.iterator(CHILD_A)
    it = api.records(it, [stream_record(C0 + 3, url_image(1, 2)), meta_record(C0 + 4, "lease")])
    api.records(it, [])
    it = api.iterator(CHILD_B)
    api.records(it, [])

    got = read(client, fresh())

    assert got.changes == {
        url_image(1, 2)["sk"]["S"]: url_image(1, 2),
        url_image(2, 1)["sk"]["S"]: url_image(2, 1),
    }
    assert got.checkpoint.finished == {PARENT}
    assert got.checkpoint.positions == {CHILD_A: str(C0 + 4)}
    assert (got.records, got.requests, got.complete) == (5, 5, True)


def test_finished_shards_are_skipped_and_dropped_once_unlisted(client: Any, api: Api) -> None:
    split_stream(api)
    it = api.iterator(CHILD_A, after=C0 + 4)
    it = api.records(it, [stream_record(C0 + 8, url_image(7, 1), "INSERT")])
    api.records(it, [])
    it = api.iterator(CHILD_B)
    api.records(it, [])

    got = read(client, fresh({CHILD_A: str(C0 + 4)}, {PARENT, GONE}))

    assert got.changes == {url_image(7, 1)["sk"]["S"]: url_image(7, 1)}
    assert got.checkpoint.finished == {PARENT}
    assert got.checkpoint.positions == {CHILD_A: str(C0 + 8)}


def test_a_closed_shard_at_its_ending_number_is_finished_without_a_call(
    client: Any, api: Api
) -> None:
    api.describe([shard(PARENT, P0, P0 + 9), shard(CHILD_A, C0, parent=PARENT)])
    it = api.iterator(CHILD_A)
    api.records(it, [])

    got = read(client, fresh({PARENT: str(P0 + 9)}))

    assert got.checkpoint.finished == {PARENT}
    assert got.checkpoint.positions == {}
    assert got.requests == 1


def test_positions_compare_as_integers_not_strings(client: Any, api: Api) -> None:
    # "99..." sorts after "100..." as text, but is before the shard's end as a number
    ending, position = 10**23 + 10, 10**23 - 1
    api.describe([shard(PARENT, 10**23 - 50, ending)])
    it = api.iterator(PARENT, after=position)
    api.records(it, [stream_record(ending, url_image(3, 1))], more=False)

    got = read(client, fresh({PARENT: str(position)}))

    assert got.changes == {url_image(3, 1)["sk"]["S"]: url_image(3, 1)}
    assert got.checkpoint.finished == {PARENT}


def test_a_child_waits_while_its_parent_is_unfinished(client: Any, api: Api) -> None:
    split_stream(api)
    it = api.iterator(PARENT)
    api.records(
        it,
        [stream_record(P0 + 1, url_image(1, 1)), stream_record(P0 + 2, url_image(2, 1))],
        limit=2,
    )

    got = read(client, fresh(), max_records=2)

    assert got.complete is False
    assert got.records == 2
    assert got.checkpoint.positions == {PARENT: str(P0 + 2)}
    assert got.checkpoint.finished == frozenset()


def test_a_child_of_a_parent_that_aged_out_is_read_from_its_trim_horizon(
    client: Any, api: Api
) -> None:
    api.describe([shard(CHILD_A, C0, parent=GONE)])
    it = api.iterator(CHILD_A)
    following = api.records(it, [stream_record(C0 + 1, url_image(4, 1))])
    assert following is not None
    api.records(following, [])

    got = read(client, fresh())

    assert got.changes == {url_image(4, 1)["sk"]["S"]: url_image(4, 1)}


def test_a_remove_gives_none_and_a_record_without_new_image_is_a_gap(client: Any, api: Api) -> None:
    api.describe([shard(PARENT, P0)])
    it = api.iterator(PARENT)
    it = api.records(
        it,
        [stream_record(P0 + 1, url_image(5, 1)), stream_record(P0 + 2, url_image(5, 1), "REMOVE")],
    )
    keys_only = stream_record(P0 + 3, url_image(6, 1))
    del keys_only["dynamodb"]["NewImage"]
    keys_only["dynamodb"]["StreamViewType"] = "KEYS_ONLY"
    api.records(it, [keys_only])

    with pytest.raises(FeedGapError, match="NewImage") as raised:
        read(client, fresh())
    assert str(P0 + 3) in raised.value.reason


# -- gaps ------------------------------------------------------------------------------------


def test_trimmed_iterator_position_is_a_gap(client: Any, api: Api) -> None:
    api.describe([shard(PARENT, P0)])
    api.error(
        "get_shard_iterator",
        "TrimmedDataAccessException",
        {
            "StreamArn": ARN,
            "ShardId": PARENT,
            "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
            "SequenceNumber": str(P0 + 1),
        },
    )
    with pytest.raises(FeedGapError) as raised:
        read(client, fresh({PARENT: str(P0 + 1)}))
    assert "TrimmedDataAccessException" in raised.value.reason
    assert PARENT in raised.value.reason and str(P0 + 1) in raised.value.reason


def test_records_trimmed_under_an_iterator_are_a_gap(client: Any, api: Api) -> None:
    api.describe([shard(PARENT, P0)])
    it = api.iterator(PARENT)
    api.error("get_records", "TrimmedDataAccessException", {"ShardIterator": it, "Limit": 1000})
    with pytest.raises(FeedGapError, match="TrimmedDataAccessException from GetRecords"):
        read(client, fresh())


def test_an_unfinished_checkpointed_shard_that_is_no_longer_listed_is_a_gap(
    client: Any, api: Api
) -> None:
    api.describe([shard(CHILD_A, C0, parent=GONE)])
    with pytest.raises(FeedGapError, match="no longer listed") as raised:
        read(client, fresh({GONE: str(P0 + 3)}))
    assert GONE in raised.value.reason


@pytest.mark.parametrize(
    ("checkpoint", "rule"),
    [
        (None, "no checkpoint yet"),
        (Checkpoint(ARN, {}, frozenset(), NOW - 86400 + 3600 - 1), "checkpoint too old"),
        (Checkpoint(ARN.replace("20:51", "21:07"), {}, frozenset(), NOW), "stream changed"),
    ],
)
def test_checkpoints_that_cannot_be_read_from_fail_before_any_call(
    client: Any, api: Api, checkpoint: Checkpoint | None, rule: str
) -> None:
    with pytest.raises(FeedGapError, match=rule):
        read(client, checkpoint)


def test_a_checkpoint_just_inside_the_window_is_read(client: Any, api: Api) -> None:
    api.describe([])
    got = read(client, Checkpoint(ARN, {}, frozenset(), NOW - 86400 + 3600))
    assert got.complete and got.checkpoint.saved_at == NOW


# -- expired iterators, time, saved_at -------------------------------------------------------


def test_an_expired_iterator_is_renewed_after_the_last_record_read(client: Any, api: Api) -> None:
    api.describe([shard(PARENT, P0, P0 + 9)])
    it = api.iterator(PARENT)
    it = api.records(it, [stream_record(P0 + 1, url_image(1, 1))])
    assert it is not None
    api.error("get_records", "ExpiredIteratorException", {"ShardIterator": it, "Limit": 1000})
    it = api.iterator(PARENT, after=P0 + 1)
    api.records(it, [stream_record(P0 + 4, url_image(1, 2))], more=False)

    got = read(client, fresh())

    assert got.changes == {url_image(1, 2)["sk"]["S"]: url_image(1, 2)}
    assert got.checkpoint.finished == {PARENT}
    assert got.requests == 3


def test_saved_at_is_taken_before_describe_stream(client: Any, api: Api) -> None:
    clock = [float(NOW)]

    def later(**_: Any) -> None:
        clock[0] += 500

    client.meta.events.register("before-parameter-build.dynamodb-streams.*", later)
    api.describe([])
    got = feed(client, lambda: clock[0]).read(fresh(), max_records=10, out_of_time=lambda: False)
    assert got.checkpoint.saved_at == NOW
    assert clock[0] == NOW + 500


def test_out_of_time_stops_between_calls(client: Any, api: Api) -> None:
    api.describe([shard(PARENT, P0)])
    it = api.iterator(PARENT)
    api.records(it, [stream_record(P0 + 1, url_image(1, 1))], limit=100)
    calls = iter([False, True])

    got = feed(client).read(fresh(), max_records=100, out_of_time=lambda: next(calls))

    assert got.complete is False
    assert got.checkpoint.positions == {PARENT: str(P0 + 1)}


# -- tip -------------------------------------------------------------------------------------


def test_tip_finishes_closed_shards_unread_and_drains_open_ones(client: Any, api: Api) -> None:
    split_stream(api)
    it = api.iterator(CHILD_A)
    it = api.records(it, [stream_record(C0 + 1, url_image(1, 1)), meta_record(C0 + 6, "lease")])
    api.records(it, [])
    it = api.iterator(CHILD_B)
    api.records(it, [])

    tip = feed(client).tip(None)

    assert tip == Checkpoint(ARN, {CHILD_A: str(C0 + 6)}, frozenset({PARENT}), NOW)


def test_tip_from_a_trimmed_position_restarts_at_the_trim_horizon(client: Any, api: Api) -> None:
    api.describe([shard(CHILD_A, C0)])
    api.error(
        "get_shard_iterator",
        "TrimmedDataAccessException",
        {
            "StreamArn": ARN,
            "ShardId": CHILD_A,
            "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
            "SequenceNumber": str(C0 + 1),
        },
    )
    it = api.iterator(CHILD_A)
    it = api.records(it, [stream_record(C0 + 40, url_image(2, 1))])
    api.records(it, [])

    stale = Checkpoint(ARN, {CHILD_A: str(C0 + 1)}, frozenset(), NOW - 5 * 86400)
    tip = feed(client).tip(stale)

    assert tip.positions == {CHILD_A: str(C0 + 40)}


# -- property: bounded steps add up to one read ----------------------------------------------


class Recording:
    """A recorded split stream replayed through the Stubber: before each request, the answer
    the recording holds for it (a slice of one shard's records) is queued with that request."""

    def __init__(self, shards: list[Any], records: dict[str, list[dict[str, Any]]]) -> None:
        self.shards = shards
        self.records = records
        self.closed = {
            s["ShardId"] for s in shards if "EndingSequenceNumber" in s["SequenceNumberRange"]
        }

    def client(self) -> Any:
        client = boto3.client(
            "dynamodbstreams",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        stubber = Stubber(client)

        def queue(params: dict[str, Any], model: Any, **_: Any) -> None:
            name, answer = self.answer(model.name, params)
            stubber.add_response(name, answer, params)

        # registered before the Stubber activates, so it runs before the Stubber's own check
        client.meta.events.register_first("before-parameter-build.*.*", queue)
        stubber.activate()
        return client

    def answer(self, operation: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if operation == "DescribeStream":
            description = {"StreamArn": ARN, "Shards": self.shards}
            return "describe_stream", {"StreamDescription": description}
        if operation == "GetShardIterator":
            shard_id = params["ShardId"]
            index = 0
            if params["ShardIteratorType"] == "AFTER_SEQUENCE_NUMBER":
                after = int(params["SequenceNumber"])
                seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in self.records[shard_id]]
                index = sum(1 for seq in seqs if seq <= after)
            return "get_shard_iterator", {"ShardIterator": f"{ARN}|1|{shard_id}|{index}"}
        shard_id, index_text = params["ShardIterator"].split("|")[2:]
        index = int(index_text)
        page = self.records[shard_id][index : index + params["Limit"]]
        answer: dict[str, Any] = {"Records": page}
        end = index + len(page)
        if shard_id not in self.closed or end < len(self.records[shard_id]):
            answer["NextShardIterator"] = f"{ARN}|1|{shard_id}|{end}"
        return "get_records", answer


WRITE = st.tuples(st.integers(0, 5), st.sampled_from(["put", "put", "remove", "meta"]))


def recorded_split(
    parent: list[tuple[int, str]], children: list[tuple[int, str]]
) -> tuple[Recording, dict[str, Item | None], int]:
    """``parent`` writes recorded in the closed parent, then ``children`` writes in the two
    open children (even keys in one, odd keys in the other, as a split divides the key range);
    with the final state per URL key and the number of records."""
    records: dict[str, list[dict[str, Any]]] = {PARENT: [], CHILD_A: [], CHILD_B: []}
    final: dict[str, Item | None] = {}
    bases = {PARENT: P0, CHILD_A: C0, CHILD_B: D0}
    placed = [(PARENT, w) for w in parent] + [
        (CHILD_A if w[0] % 2 == 0 else CHILD_B, w) for w in children
    ]
    for version, (shard_id, (key, kind)) in enumerate(placed):
        seq = bases[shard_id] + 3 * len(records[shard_id]) + 1
        if kind == "meta":
            records[shard_id].append(meta_record(seq, f"k{key}"))
            continue
        image = url_image(key, version)
        event = "REMOVE" if kind == "remove" else "MODIFY"
        records[shard_id].append(stream_record(seq, image, event))
        final[image["sk"]["S"]] = None if kind == "remove" else image
    end = P0 + 3 * len(records[PARENT])
    shards = [
        shard(CHILD_B, D0, parent=PARENT),
        shard(PARENT, P0, end),
        shard(CHILD_A, C0, parent=PARENT),
    ]
    return Recording(shards, records), final, sum(len(r) for r in records.values())


@settings(max_examples=60, deadline=None)
@given(
    parent=st.lists(WRITE, max_size=10),
    children=st.lists(WRITE, max_size=10),
    steps=st.lists(st.integers(1, 4), min_size=1, max_size=4),
)
def test_reads_in_small_steps_end_in_the_state_of_one_read(
    parent: list[tuple[int, str]], children: list[tuple[int, str]], steps: list[int]
) -> None:
    recording, final, total = recorded_split(parent, children)
    whole = read(recording.client(), fresh())
    assert whole.changes == final
    assert whole.records == total

    client = recording.client()
    merged: dict[str, Item | None] = {}
    checkpoint, records, complete = fresh(), 0, False
    for step in range(total + 10):
        part = read(client, checkpoint, max_records=steps[step % len(steps)])
        merged.update(part.changes)
        records += part.records
        checkpoint = part.checkpoint
        complete = part.complete
        if complete:
            break
    assert complete
    assert merged == final
    assert records == total
    assert checkpoint.finished == {PARENT}
