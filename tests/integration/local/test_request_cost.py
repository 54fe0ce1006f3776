"""The local deployment's cheaper requests give moto's own answers (request_cost, wire_form).

Stories run twice on a fresh, seeded moto: once as moto ships and once with
:func:`~sitemap_updater_local.deployment.faster_moto.linear_moto.linear_moto`; every answer,
request ids and
receipt handles included, must be the same.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from sitemap_updater_local.deployment import LocalDeployment
from sitemap_updater_local.deployment.faster_moto.linear_moto import linear_moto
from tests.helpers.moto_answers import create_url_table, same_answers

SEED = 20261126


pytestmark = pytest.mark.usefixtures("moto_credentials")


def _answer(call: Callable[[], dict[str, Any]]) -> Any:
    """The answer of a call, or its error (code, message, item), with its request id (the
    rest of the HTTP metadata carries the clock)."""
    try:
        response = call()
    except ClientError as exc:
        error = exc.response
        return ("error", error["Error"], error.get("Item"), error["ResponseMetadata"]["RequestId"])
    return {**response, "ResponseMetadata": response["ResponseMetadata"]["RequestId"]}


_CONDITION = "attribute_not_exists(sk) OR ev < :ev"


def _write_story(dynamodb: Any) -> list[Any]:
    create_url_table(dynamodb)

    def put(sk: str, ev: str, condition: str = _CONDITION, **extra: Any) -> Any:
        item = {
            "pk": {"S": "u#0"},
            "sk": {"S": sk},
            "ev": {"S": ev},
            "n": {"N": "1.50"},
            "tags": {"SS": ["a", "b"]},
            "m": {"M": {"l": {"L": [{"BOOL": True}, {"NULL": True}, {"NS": ["1", "2"]}]}}},
            "b": {"B": b"\x00\xff"},
        }
        arguments: dict[str, Any] = {
            "TableName": "urls",
            "Item": item,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": {":ev": {"S": ev}},
            "ReturnValues": "ALL_OLD",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            **extra,
        }
        return _answer(lambda: dynamodb.put_item(**arguments))

    out: list[Any] = [
        put("a", "2"),  # new
        put("a", "3"),  # newer: replaces, old item returned
        put("a", "3"),  # the same event again: condition fails, stored item returned
        put("a", "1"),  # older: condition fails
        put(
            "b",
            "1",
            "attribute_not_exists(#k) OR #e < :ev",
            ExpressionAttributeNames={"#k": "sk", "#e": "ev"},
        ),
        put(
            "b",
            "0",
            "attribute_not_exists(#k) OR #e < :ev",
            ExpressionAttributeNames={"#k": "sk", "#e": "ev"},
        ),
        put(
            "b",
            "2",
            "attribute_not_exists(#k) OR #e < :ev",
            ExpressionAttributeNames={"#k": "pk", "#e": "ev"},
        ),
        put("c", "1", "((ev < :ev))"),  # redundant parentheses
        put("c", "1", "ev BETWEEN :ev AND :ev OR begins_with(sk, :ev)"),
        put("c", "5", "ev IN (:ev, :ev) OR NOT attribute_exists(n)"),
    ]
    for size in (404_900, 405_100):  # moto's item size limit is 405,000 bytes
        big = {"pk": {"S": "u#1"}, "sk": {"S": str(size)}, "v": {"S": "x" * (size - 10)}}
        out.append(_answer(lambda b=big: dynamodb.put_item(TableName="urls", Item=b)))
    out.append(_answer(lambda: dynamodb.scan(TableName="urls")))
    key = {"pk": {"S": "u#0"}, "sk": {"S": "a"}}
    out.append(_answer(lambda: dynamodb.get_item(TableName="urls", Key=key)))
    return out


def test_conditional_writes_answer_as_moto_does() -> None:
    transcript = same_answers("dynamodb", _write_story, seed=SEED)
    assert transcript[1]["Attributes"]["ev"] == {"S": "2"}
    assert transcript[2][0] == "error" and transcript[2][2]["ev"] == {"S": "3"}
    assert [isinstance(entry, tuple) for entry in transcript[4:8]] == [False, True, False, True]
    assert [isinstance(entry, tuple) for entry in transcript[10:12]] == [False, True]


def _queue_story(sqs: Any) -> list[Any]:
    url = sqs.create_queue(QueueName="work")["QueueUrl"]
    out: list[Any] = []
    for start in range(0, 25, 10):
        entries = [
            {
                "Id": str(i),
                "MessageBody": f"m{i}",
                "MessageAttributes": {"k": {"DataType": "String", "StringValue": "v"}},
            }
            for i in range(start, min(start + 10, 25))
        ]
        out.append(_answer(lambda e=entries: sqs.send_message_batch(QueueUrl=url, Entries=e)))
    while messages := sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
    ).get("Messages", []):
        for m in messages:
            m.get("Attributes", {}).pop("SentTimestamp", None)
            m.get("Attributes", {}).pop("ApproximateFirstReceiveTimestamp", None)
        out.append(messages)
        handles = [
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)
        ]
        out.append(_answer(lambda h=handles: sqs.delete_message_batch(QueueUrl=url, Entries=h)))
    return out


def test_a_seeded_queue_gives_the_same_ids_and_handles_as_moto() -> None:
    transcript = same_answers("sqs", _queue_story, seed=SEED)
    handles = [m["ReceiptHandle"] for page in transcript[3::2] for m in page]
    assert len(set(handles)) == 25
    assert all(len(h) == 185 and h.isalpha() and h.islower() for h in handles)


# --- condition expressions: the kept tree and moto's parse agree --------------------------------

_paths = st.sampled_from(["a", "b", "#x", "m.c", "l[0]"])
_values = st.sampled_from([":v", ":w", ":u"])
_comparisons = st.builds(
    lambda p, op, v: f"{p} {op} {v}",
    _paths,
    st.sampled_from(["=", "<>", "<", "<=", ">", ">="]),
    _values,
)
_functions = st.one_of(
    st.builds(lambda p: f"attribute_exists({p})", _paths),
    st.builds(lambda p: f"attribute_not_exists({p})", _paths),
    st.builds(lambda p, v: f"begins_with({p}, {v})", _paths, _values),
    st.builds(lambda p, v: f"size({p}) > {v}", _paths, _values),
    st.builds(lambda p, v, w: f"{p} BETWEEN {v} AND {w}", _paths, _values, _values),
    st.builds(lambda p, v, w: f"{p} IN ({v}, {w})", _paths, _values, _values),
)
_conditions = st.recursive(
    st.one_of(_comparisons, _functions),
    lambda inner: st.one_of(
        st.builds(lambda c, d: f"{c} AND {d}", inner, inner),
        st.builds(lambda c, d: f"{c} OR {d}", inner, inner),
        st.builds(lambda c: f"NOT {c}", inner),
        st.builds(lambda c: f"({c})", inner),
    ),
    max_leaves=5,
)
_attribute_values = st.one_of(
    st.builds(lambda s: {"S": s}, st.sampled_from(["", "a", "ab", "b"])),
    st.builds(lambda n: {"N": str(n)}, st.integers(-2, 2)),
)
_ITEMS = [
    None,
    Item(
        DynamoType({"S": "h"}), None, {"a": {"S": "ab"}, "b": {"N": "1"}, "l": {"L": [{"S": "a"}]}}
    ),
    Item(DynamoType({"S": "h"}), None, {"a": {"N": "2"}, "m": {"M": {"c": {"S": ""}}}}),
]


def _parsed(expression: str, names: dict[str, str], values: dict[str, Any]) -> Any:
    parser = ConditionExpressionParser(expression, names, values)
    try:
        op = parser.parse()
    except Exception as exc:  # moto's own errors, compared as they are
        return ("error", type(exc).__name__, str(exc))
    outcomes = []
    for item in _ITEMS:
        try:
            outcomes.append(op.expr(item))
        except Exception as exc:
            outcomes.append(("error", type(exc).__name__, str(exc)))
    return outcomes, parser.expr_attr_names_found, parser.expr_attr_values_found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _conditions,
    st.sampled_from([{"#x": "a"}, {"#x": "b"}, {}]),
    st.lists(
        st.dictionaries(st.sampled_from([":v", ":w", ":u"]), _attribute_values),
        min_size=2,
        max_size=3,
    ),
)
def test_a_kept_condition_tree_evaluates_as_moto_parses_it(
    expression: str, names: dict[str, str], requests: list[dict[str, Any]]
) -> None:
    """The same expression and names with other values (the second parse reuses the tree)."""
    plain = [_parsed(expression, names, values) for values in requests]
    with linear_moto():
        kept = [_parsed(expression, names, values) for values in requests]
    assert kept == plain


# --- the local deployment's clients ---------------------------------------------------------------


def test_the_local_clients_sign_only_s3(stack_template: Any) -> None:
    seen: dict[str, dict[str, str]] = {}

    def record(request: Any, event_name: str, **_: Any) -> None:
        seen[event_name.split(".")[1]] = dict(request.headers)

    with LocalDeployment(stack_template, "https://www.example.com"):
        session = boto3.DEFAULT_SESSION
        assert session is not None
        session.events.register_first("before-send", record)
        boto3.client("dynamodb").list_tables()
        boto3.client("sqs").list_queues()
        boto3.client("s3").list_buckets()
    assert "Authorization" not in seen["dynamodb"] and "Authorization" not in seen["sqs"]
    assert "Authorization" in seen["s3"]
    agents = [str(headers["User-Agent"]) for headers in seen.values()]
    assert all("sitemap-updater-local" in agent and "ua/2.1" not in agent for agent in agents)


def test_the_deployment_collects_garbage_less_often_while_it_runs(stack_template: Any) -> None:
    before = gc.get_threshold()
    with LocalDeployment(stack_template, "https://www.example.com"):
        during = gc.get_threshold()
    assert during[0] > before[0] and during[2] > before[2]
    assert gc.get_threshold() == before
