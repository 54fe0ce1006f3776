"""The stream feed and its checkpoint item against moto's table stream (NEW_IMAGE).

moto keeps one open shard per table and never closes, splits or trims it; lineage, closed
shards and trimming are covered in tests/unit/rebuild/test_feed_shapes.py.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest.mock import ANY

import boto3
import pytest
from moto import mock_aws

from sitemap_updater.page.model import Page
from sitemap_updater.rebuild.inputs.feed import FeedGapError, FeedRead, StreamFeed
from sitemap_updater.rebuild.state.checkpoint import Checkpoint, CheckpointStore
from sitemap_updater.rebuild.state.publication import Publication, PublicationStore
from sitemap_updater.store.items import Item, live_item, tombstone_item
from sitemap_updater.store.keys import url_hash, url_key
from tests.integration.rebuild.conftest import create_tables

TABLE = "sitemap-feed-test"
SITE = "https://www.example.com"

_events = itertools.count()


@dataclass
class Stream:
    dynamodb: Any
    streams: Any
    arn: str
    now: list[float]

    def feed(self) -> StreamFeed:
        return StreamFeed(self.streams, self.arn, clock=lambda: self.now[0])

    def upsert(self, n: int, lastmod: str = "2024-05-01") -> Item:
        entry = Page(url=f"{SITE}/page/{n}", lastmod=lastmod)
        digest = hashlib.sha256(repr(entry).encode()).hexdigest()
        item = live_item(entry, f"20240501T120000.{next(_events):06d}Z#0#{digest}", digest)
        self.dynamodb.put_item(TableName=TABLE, Item=item)
        return item

    def tombstone(self, n: int) -> Item:
        loc = f"{SITE}/page/{n}"
        digest = hashlib.sha256(loc.encode()).hexdigest()
        ev = f"20240501T120000.{next(_events):06d}Z#1#{digest}"
        item = tombstone_item(loc, ev, digest, 2_000_000_000)
        self.dynamodb.put_item(TableName=TABLE, Item=item)
        return item

    def expire(self, n: int) -> None:
        """What TTL does to a tombstone: the item is deleted."""
        key = url_key(url_hash(f"{SITE}/page/{n}"))
        self.dynamodb.delete_item(TableName=TABLE, Key={k: {"S": v} for k, v in key.items()})

    def read(self, checkpoint: Checkpoint, max_records: int = 10_000) -> FeedRead:
        return self.feed().read(checkpoint, max_records=max_records, out_of_time=lambda: False)


def sk(n: int) -> str:
    return url_hash(f"{SITE}/page/{n}")


@pytest.fixture
def stream(env: pytest.MonkeyPatch) -> Iterator[Stream]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_tables(dynamodb, TABLE, f"{TABLE}-state")
        streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        yield Stream(dynamodb, streams, arn, [1_700_000_000.0])


def test_read_gives_the_last_image_per_url_and_skips_every_other_item(stream: Stream) -> None:
    start = stream.feed().tip(None)
    stream.upsert(1, "2024-01-01")
    kept = stream.upsert(2)
    PublicationStore(stream.dynamodb, TABLE).save(Publication(), held=None)  # a state item
    stream.upsert(1, "2024-02-02")
    latest_1 = stream.upsert(1, "2024-03-03")
    stream.upsert(3)
    stream.tombstone(3)
    stream.expire(3)
    tombstone_4 = stream.tombstone(4)

    got = stream.read(start)

    assert got.changes == {sk(1): latest_1, sk(2): kept, sk(3): None, sk(4): tombstone_4}
    assert got.records == 9
    assert got.complete


def test_a_read_from_the_returned_checkpoint_sees_only_later_writes(stream: Stream) -> None:
    start = stream.feed().tip(None)
    stream.upsert(1)
    stream.upsert(2)
    first = stream.read(start)
    assert set(first.changes) == {sk(1), sk(2)}

    again = stream.read(first.checkpoint)
    assert again.changes == {}
    assert again.records == 0

    changed = stream.upsert(2, "2024-06-06")
    added = stream.upsert(5)
    second = stream.read(first.checkpoint)
    assert second.changes == {sk(2): changed, sk(5): added}
    assert second.records == 2


def test_bounded_reads_continue_without_loss_or_duplication(stream: Stream) -> None:
    start = stream.feed().tip(None)
    for n in (1, 2, 3, 1, 2, 4, 1, 5, 3, 2, 6):
        stream.upsert(n, f"2024-05-{n:02d}")
    stream.tombstone(4)
    PublicationStore(stream.dynamodb, TABLE).save(Publication(), held=None)
    whole = stream.read(start)

    merged: dict[str, Item | None] = {}
    checkpoint, records, steps = start, 0, 0
    while True:
        part = stream.read(checkpoint, max_records=3)
        merged.update(part.changes)
        records += part.records
        checkpoint = part.checkpoint
        steps += 1
        if part.complete:
            break
        assert part.records == 3
    assert merged == whole.changes
    assert records == whole.records == 13
    assert steps == 5  # four full steps of 3 records, then one that finds the last record


def test_out_of_time_stops_before_any_record_and_keeps_the_position(stream: Stream) -> None:
    start = stream.feed().tip(None)
    stream.upsert(1)
    got = stream.feed().read(start, max_records=100, out_of_time=lambda: True)
    assert (got.changes, got.records, got.requests, got.complete) == ({}, 0, 0, False)
    assert got.checkpoint.positions == start.positions
    assert set(stream.read(got.checkpoint).changes) == {sk(1)}


def test_tip_then_read_sees_only_writes_after_the_tip(stream: Stream) -> None:
    stream.upsert(1)
    stream.upsert(2)
    first_tip = stream.feed().tip(None)
    assert first_tip.positions  # the open shard was drained up to its last record

    later = stream.upsert(3)
    assert stream.read(first_tip).changes == {sk(3): later}

    # a tip from an earlier checkpoint of the same stream lands at the same end
    assert stream.feed().tip(first_tip) == stream.feed().tip(None)


def test_a_tip_reads_sequence_numbers_only_and_ends_where_a_full_read_ends(
    stream: Stream,
) -> None:
    start = stream.feed().tip(None)
    for n in range(30):
        stream.upsert(n % 7, f"2024-05-{n % 28 + 1:02d}")
    stream.tombstone(3)
    records: list[dict[str, Any]] = []

    def keep(parsed: dict[str, Any], **_: Any) -> None:
        records.extend(parsed.get("Records", []))

    stream.streams.meta.events.register("after-call.dynamodb-streams.GetRecords", keep)
    tip = stream.feed().tip(start)
    read_by_tip, records[:] = list(records), []
    whole = stream.read(start)
    stream.streams.meta.events.unregister("after-call.dynamodb-streams.GetRecords", keep)

    assert tip.positions == whole.checkpoint.positions
    assert len(read_by_tip) == whole.records == 31
    assert all(record == {"dynamodb": {"SequenceNumber": ANY}} for record in read_by_tip)
    assert all("Keys" in record["dynamodb"] for record in records)
    assert len(whole.changes) == 7  # the images are back once the tip is taken


def test_checkpoint_store_round_trips_and_its_own_item_is_skipped(stream: Stream) -> None:
    store = CheckpointStore(stream.dynamodb, TABLE)
    assert store.load() is None

    start = stream.feed().tip(None)
    stream.upsert(1)
    read = stream.read(start)
    store.save(read.checkpoint)
    loaded = store.load()
    assert loaded == read.checkpoint

    # the checkpoint item is written to the table too: its record is read and skipped
    after_save = stream.read(read.checkpoint)
    assert after_save.changes == {}
    assert after_save.records == 1

    made_up = Checkpoint(
        stream_arn=stream.arn,
        positions={"shardId-00000001414576573621-f55eea83": "820400000000000001192334"},
        finished=frozenset({"shardId-00000001414562045508-2bac9cd2"}),
        saved_at=1_700_000_123,
    )
    store.save(made_up)
    assert store.load() == made_up


def test_gap_rules_against_the_stream(stream: Stream) -> None:
    with pytest.raises(FeedGapError, match="no checkpoint yet"):
        stream.read(None)  # type: ignore[arg-type]

    start = stream.feed().tip(None)
    other = Checkpoint(stream.arn.replace(TABLE, "another"), {}, frozenset(), start.saved_at)
    with pytest.raises(FeedGapError, match="stream changed"):
        stream.read(other)

    stream.now[0] += 86400 - 3600 + 1
    with pytest.raises(FeedGapError, match="checkpoint too old") as raised:
        stream.read(start)
    assert str(start.saved_at) in raised.value.reason

    # tip never raises a gap: it is what a full rebuild starts from
    assert stream.feed().tip(start).saved_at == int(stream.now[0])
