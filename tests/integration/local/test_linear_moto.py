"""The local deployment's changes to moto give the same answers as moto on a small queue and table.

Each story runs twice on a fresh moto, once as moto ships and once with
:func:`~sitemap_updater_local.deployment.faster_moto.linear_moto.linear_moto`, and the two
transcripts of every
answer (random ids and clock readings replaced by their order of appearance) must be equal.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from moto.core.serialize import BaseJSONSerializer
from moto.dynamodb.models.table import Table
from moto.sqs.models import Queue

from sitemap_updater_local.deployment import LocalDeployment
from sitemap_updater_local.deployment.faster_moto.linear_moto import linear_moto
from tests.helpers.moto_answers import REGION, create_url_table, same_answers

pytestmark = pytest.mark.usefixtures("moto_credentials")


class Labels:
    """Random strings (message ids, receipt handles) named by their order of appearance."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, value: str) -> str:
        return self.names.setdefault(value, f"#{len(self.names)}")


# --- SQS ----------------------------------------------------------------------------------------

_CLOCK_ATTRIBUTES = {"SentTimestamp", "ApproximateFirstReceiveTimestamp", "SenderId"}


def _received(sqs: Any, url: str, labels: Labels, count: int) -> list[dict[str, Any]]:
    messages = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=count,
        AttributeNames=["All"],
        MessageAttributeNames=["All"],
        WaitTimeSeconds=0,
    ).get("Messages", [])
    return [
        {
            "id": labels(m["MessageId"]),
            "handle": m["ReceiptHandle"],
            "body": m["Body"],
            "md5": m["MD5OfBody"],
            "attributes": {
                k: v for k, v in m.get("Attributes", {}).items() if k not in _CLOCK_ATTRIBUTES
            },
            "message_attributes": m.get("MessageAttributes", {}),
        }
        for m in messages
    ]


def _shown(messages: list[dict[str, Any]], labels: Labels) -> list[dict[str, Any]]:
    return [{**m, "handle": labels(m["handle"])} for m in messages]


def _counts(sqs: Any, url: str, names: list[str]) -> dict[str, str]:
    attributes: dict[str, str] = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)[
        "Attributes"
    ]
    return {
        k: v
        for k, v in attributes.items()
        if k not in {"CreatedTimestamp", "LastModifiedTimestamp"}
    }


def _error(call: Callable[[], Any]) -> str:
    try:
        call()
    except ClientError as exc:
        return str(exc.response["Error"]["Code"])
    return "no error"


def _queue_story(sqs: Any) -> list[Any]:
    labels = Labels()
    out: list[Any] = []
    dlq = sqs.create_queue(QueueName="dead")["QueueUrl"]
    url = sqs.create_queue(
        QueueName="work",
        Attributes={
            "VisibilityTimeout": "30",
            "RedrivePolicy": (
                '{"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:dead",'
                ' "maxReceiveCount": 2}'
            ),
        },
    )["QueueUrl"]
    for start in range(0, 23, 10):
        sqs.send_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(i), "MessageBody": f"m{i:02d}"}
                for i in range(start, min(start + 10, 23))
            ],
        )
    sqs.send_message(QueueUrl=url, MessageBody="late", DelaySeconds=60)
    sqs.send_message(
        QueueUrl=url,
        MessageBody="tagged",
        MessageAttributes={"reason": {"DataType": "String", "StringValue": "why"}},
    )
    out.append(_counts(sqs, url, ["All"]))
    first = _received(sqs, url, labels, 10)
    out.append(_shown(first, labels))
    out.append(
        sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[{"Id": str(i), "ReceiptHandle": m["handle"]} for i, m in enumerate(first[:7])],
        ).get("Failed", [])
    )
    for m in first[7:9]:
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["handle"], VisibilityTimeout=0)
    out.append(
        _counts(sqs, url, ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])
    )
    # deleting again is accepted; a handle never given out is not
    out.append(_error(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle=first[0]["handle"])))
    out.append(_error(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle="not-a-handle")))
    old_handle = first[7]["handle"]
    rounds = 0
    while batch := _received(sqs, url, labels, 4):
        rounds += 1
        out.append(_shown(batch, labels))
        keep, retry = batch[: len(batch) // 2], batch[len(batch) // 2 :]
        for m in keep:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["handle"])
        for m in retry:
            sqs.change_message_visibility(
                QueueUrl=url, ReceiptHandle=m["handle"], VisibilityTimeout=0
            )
        if rounds == 2:  # a handle a message had before its latest receive still deletes it
            out.append(_error(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle=old_handle)))
    out.append(_counts(sqs, url, ["All"]))
    out.append(_counts(sqs, dlq, ["All"]))
    out.append(_shown(_received(sqs, dlq, labels, 10), labels))
    sqs.purge_queue(QueueUrl=url)
    sqs.send_message(QueueUrl=url, MessageBody="after purge")
    out.append(_shown(_received(sqs, url, labels, 10), labels))
    out.append(_counts(sqs, url, ["All"]))
    return out


def test_a_queue_answers_as_moto_does() -> None:
    transcript = same_answers("sqs", _queue_story)
    dead = transcript[-3]
    assert [m["body"] for m in dead] == ["tagged"]  # redriven after its second failed receive
    assert transcript[0]["ApproximateNumberOfMessagesDelayed"] == "1"


# --- DynamoDB -----------------------------------------------------------------------------------


def _create(dynamodb: Any) -> None:
    create_url_table(dynamodb)
    dynamodb.create_table(
        TableName="numbers",
        KeySchema=[{"AttributeName": "n", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "n", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
    )


def _pages(call: Callable[..., dict[str, Any]], **kwargs: Any) -> Iterator[dict[str, Any]]:
    while True:
        page = call(**kwargs)
        yield {k: page.get(k) for k in ("Items", "Count", "ScannedCount", "LastEvaluatedKey")}
        if "LastEvaluatedKey" not in page:
            return
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _put(dynamodb: Any, pk: str, sk: str, size: int = 1) -> None:
    dynamodb.put_item(
        TableName="urls",
        Item={"pk": {"S": pk}, "sk": {"S": sk}, "v": {"S": "x" * size}},
    )


def _table_story(dynamodb: Any) -> list[Any]:
    _create(dynamodb)
    for i in range(90):
        _put(dynamodb, f"u#{i % 5}", f"{(i * 37) % 101:03d}", size=i)
    for n in ("2", "10", "-1", "1.5", "0", "100", "-20"):
        dynamodb.put_item(TableName="numbers", Item={"n": {"N": n}})
    out: list[Any] = []
    pages = _pages(dynamodb.scan, TableName="urls", Limit=7)
    for number, page in enumerate(pages):
        out.append(page)
        if number == 2:  # writes between pages: before, at and after the page boundary
            _put(dynamodb, "u#0", "000")
            _put(dynamodb, "u#9", "999")
            dynamodb.delete_item(TableName="urls", Key={"pk": {"S": "u#1"}, "sk": {"S": "037"}})
            dynamodb.update_item(
                TableName="urls",
                Key={"pk": {"S": "u#2"}, "sk": {"S": "555"}},
                UpdateExpression="SET v = :v",
                ExpressionAttributeValues={":v": {"S": "new"}},
            )
    for segment in range(3):
        out.extend(
            _pages(dynamodb.scan, TableName="urls", Limit=5, Segment=segment, TotalSegments=3)
        )
    out.extend(_pages(dynamodb.scan, TableName="numbers", Limit=2))
    out.extend(
        _pages(
            dynamodb.scan,
            TableName="urls",
            Limit=9,
            ExclusiveStartKey={"pk": {"S": "u#25"}, "sk": {"S": "zzz"}},
        )
    )
    out.extend(
        _pages(
            dynamodb.scan,
            TableName="urls",
            Limit=4,
            FilterExpression="begins_with(sk, :p)",
            ExpressionAttributeValues={":p": {"S": "0"}},
        )
    )
    for forward in (True, False):
        out.extend(
            _pages(
                dynamodb.query,
                TableName="urls",
                Limit=4,
                KeyConditionExpression="pk = :p AND sk BETWEEN :lo AND :hi",
                ExpressionAttributeValues={
                    ":p": {"S": "u#3"},
                    ":lo": {"S": "010"},
                    ":hi": {"S": "080"},
                },
                ScanIndexForward=forward,
            )
        )
    out.extend(
        _pages(
            dynamodb.query,
            TableName="urls",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "u#absent"}},
        )
    )
    return out


def test_a_table_answers_as_moto_does() -> None:
    transcript = same_answers("dynamodb", _table_story)
    assert len(transcript) > 20
    assert any(page["LastEvaluatedKey"] for page in transcript)


_keys = st.tuples(st.sampled_from(["a", "b", "c"]), st.text("xyz", min_size=1, max_size=3))
_operations = st.lists(
    st.one_of(
        st.tuples(st.just("put"), _keys),
        st.tuples(st.just("delete"), _keys),
        st.tuples(st.just("scan"), st.integers(1, 6)),
        st.tuples(st.just("query"), st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 4))),
    ),
    max_size=30,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_operations)
def test_any_writes_and_paged_reads_answer_as_moto_does(operations: list[Any]) -> None:
    def story(dynamodb: Any) -> list[Any]:
        _create(dynamodb)
        out: list[Any] = []
        for kind, argument in operations:
            if kind == "put":
                _put(dynamodb, *argument)
            elif kind == "delete":
                pk, sk = argument
                dynamodb.delete_item(TableName="urls", Key={"pk": {"S": pk}, "sk": {"S": sk}})
            elif kind == "scan":
                out.append(list(_pages(dynamodb.scan, TableName="urls", Limit=argument)))
            else:
                pk, limit = argument
                out.append(
                    list(
                        _pages(
                            dynamodb.query,
                            TableName="urls",
                            Limit=limit,
                            KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": {"S": pk}},
                        )
                    )
                )
        return out

    same_answers("dynamodb", story)


# --- DynamoDB Streams ---------------------------------------------------------------------------


def _streamed_table(dynamodb: Any) -> str:
    """A table with a stream of both images, written with every attribute type (binary ones
    too, which the local serializer leaves to moto's); returns the stream's ARN."""
    dynamodb.create_table(
        TableName="streamed",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    for i in range(12):
        item = {
            "pk": {"S": f"url#{i % 5} é &<>\"'"},
            "n": {"N": str(i * 1.5)},
            "flag": {"BOOL": i % 2 == 0},
            "none": {"NULL": True},
            "list": {"L": [{"S": "a"}, {"N": "2"}, {"M": {"k": {"S": "v"}}}]},
            "map": {"M": {"tags": {"SS": ["x", "y"]}, "sizes": {"NS": ["1", "2.5"]}}},
            **({"bin": {"B": bytes([i, 255])}, "bins": {"BS": [b"a", b"b"]}} if i % 3 else {}),
        }
        dynamodb.put_item(TableName="streamed", Item=item)
        if i % 4 == 3:
            dynamodb.delete_item(TableName="streamed", Key={"pk": item["pk"]})
    return str(dynamodb.describe_table(TableName="streamed")["Table"]["LatestStreamArn"])


def _all_records(streams: Any, arn: str, limit: int) -> list[dict[str, Any]]:
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    pages: list[dict[str, Any]] = []
    while iterator and len(pages) < 40:
        page = streams.get_records(ShardIterator=iterator, Limit=limit)
        pages.append(page["Records"])
        iterator = page.get("NextShardIterator") if page["Records"] else None
    return pages


@pytest.mark.parametrize("limit", [1, 5, 1000])
def test_items_and_stream_records_are_written_as_moto_writes_them(limit: int) -> None:
    """The same items and stream records of one table, answered with moto's serializer and
    with the local one."""

    def read(dynamodb: Any, streams: Any, arn: str) -> list[Any]:
        return [
            _all_records(streams, arn, limit),
            list(_pages(dynamodb.scan, TableName="streamed", Limit=limit)),
        ]

    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        arn = _streamed_table(dynamodb)
        streams = boto3.client("dynamodbstreams", region_name=REGION)
        plain = read(dynamodb, streams, arn)
        with linear_moto():
            linear = read(dynamodb, streams, arn)
    assert linear == plain
    records, pages = plain
    assert sum(len(page) for page in records) == 15
    assert any("bin" in item for page in pages for item in page["Items"])


# --- confinement --------------------------------------------------------------------------------


def test_the_changes_last_as_long_as_the_local_deployment(stack_template: Any) -> None:
    def installed() -> tuple[Any, ...]:
        return (
            Queue.__dict__["messages"],
            Table.__dict__["scan"],
            BaseJSONSerializer.__dict__["_serialize_type_structure"],
        )

    originals = installed()
    with LocalDeployment(stack_template, "https://www.example.com"):
        assert all(now is not before for now, before in zip(installed(), originals, strict=True))
        with linear_moto():
            pass
        assert Table.__dict__["scan"] is not originals[1]
    assert installed() == originals
    assert os.environ.get("AWS_ACCESS_KEY_ID") == "testing"
