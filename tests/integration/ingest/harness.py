"""Shared test harness for the ingest function: moto table + DLQ, SQS-shaped events, handler.

Used by the integration tests here and by tests/property/test_ingest_ordering.py. Everything
runs against moto (the caller holds ``mock_aws``); the handler is the real
``functions/ingest/app.py``, loaded by file path as the local deployment does.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import logging
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import boto3

from sitemap_updater_local.deployment import DEFAULT_TEMPLATE
from sitemap_updater_local.deployment.stack.tables import create_template_table

ROOT = Path(__file__).resolve().parents[3]
APP_PATH = ROOT / "functions" / "ingest" / "app.py"
SITE = "https://www.example.com"
REGION = "us-east-1"
ACCOUNT = "123456789012"
SENT_MS = 1_795_176_000_000  # 2026-11-20T12:00:00Z, a fixed SQS SentTimestamp

BASE_ENV = {
    "AWS_DEFAULT_REGION": REGION,
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "SITE_URL": SITE,
    "TOMBSTONE_TTL_DAYS": "7",
    "POWERTOOLS_SERVICE_NAME": "sitemap-ingest",
    "POWERTOOLS_METRICS_NAMESPACE": "SitemapUpdaterTest",
    "POWERTOOLS_LOG_LEVEL": "INFO",
}

_handler_module: ModuleType | None = None


def load_handler() -> ModuleType:
    """``functions/ingest/app.py`` as a module (loaded once, by path)."""
    global _handler_module
    if _handler_module is None:
        spec = importlib.util.spec_from_file_location("ingest_function_app", APP_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _handler_module = module
    return _handler_module


@dataclass
class LambdaContext:
    """The attributes of the Lambda context object that Powertools reads."""

    function_name: str = "sitemap-ingest"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:sitemap-ingest"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def get_remaining_time_in_millis(self) -> int:
        return 60_000


def sqs_record(
    body: str,
    *,
    message_id: str | None = None,
    sent_ms: int = SENT_MS,
    receive_count: int = 1,
) -> dict[str, Any]:
    """One record as Lambda's SQS event source delivers it."""
    return {
        "messageId": message_id or str(uuid.uuid4()),
        "receiptHandle": "AQEB" + hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest(),
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": str(receive_count),
            "SentTimestamp": str(sent_ms),
            "SenderId": "AIDAEXAMPLE",
            "ApproximateFirstReceiveTimestamp": str(sent_ms + 5),
        },
        "messageAttributes": {},
        "md5OfBody": hashlib.md5(body.encode("utf-8", "surrogatepass")).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": f"arn:aws:sqs:{REGION}:{ACCOUNT}:sitemap-changes",
        "awsRegion": REGION,
    }


def sqs_event(*records: dict[str, Any]) -> dict[str, Any]:
    return {"Records": list(records)}


def upsert(path: str, occurred_at: str = "2026-11-20T10:00:00Z", **extra: Any) -> dict[str, Any]:
    return {"action": "upsert", "url": SITE + path, "occurred_at": occurred_at, **extra}


def delete(path: str, occurred_at: str = "2026-11-20T10:00:00Z") -> dict[str, Any]:
    return {"action": "delete", "url": SITE + path, "occurred_at": occurred_at}


def create_table(client: Any, name: str) -> None:
    """The URL table as template.yaml declares it (keys, billing, TTL, NEW_IMAGE stream)."""
    create_template_table(client, DEFAULT_TEMPLATE, "Table", name)


@dataclass
class IngestStack:
    """A table and a DLQ on moto, and the environment the handler reads."""

    table_name: str
    dlq_url: str
    dynamodb: Any
    sqs: Any
    #: environment variables to set (a value) or to leave unset (``None``) for the handler
    env_overrides: dict[str, str | None] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return {**BASE_ENV, "TABLE_NAME": self.table_name, "DLQ_URL": self.dlq_url}

    def invoke(
        self, *records: dict[str, Any], context: LambdaContext | None = None
    ) -> dict[str, Any]:
        """Call the real handler with one SQS batch; returns its response."""
        with mock.patch.dict(os.environ, self.env):
            for name, value in self.env_overrides.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            response: dict[str, Any] = load_handler().lambda_handler(
                sqs_event(*records), context or LambdaContext()
            )
        return response

    def failed_ids(self, response: dict[str, Any]) -> list[str]:
        return [f["itemIdentifier"] for f in response["batchItemFailures"]]

    def dlq_messages(self) -> list[dict[str, Any]]:
        """Every message in the DLQ (received once, then deleted)."""
        out: list[dict[str, Any]] = []
        while True:
            got = self.sqs.receive_message(
                QueueUrl=self.dlq_url,
                MaxNumberOfMessages=10,
                MessageAttributeNames=["All"],
                VisibilityTimeout=0,
            ).get("Messages", [])
            if not got:
                return out
            for message in got:
                self.sqs.delete_message(
                    QueueUrl=self.dlq_url, ReceiptHandle=message["ReceiptHandle"]
                )
            out.extend(got)

    def items(self) -> list[dict[str, Any]]:
        pages = self.dynamodb.get_paginator("scan").paginate(TableName=self.table_name)
        return [item for page in pages for item in page["Items"]]

    def url_items(self) -> dict[str, dict[str, Any]]:
        """URL items by their ``url``."""
        return {i["url"]["S"]: i for i in self.items() if i["pk"]["S"].startswith("u#")}

    def stream_records(self) -> list[tuple[str, str]]:
        """(event name, loc) of every record in the table's stream, in order: what the rebuild
        reads as its change feed."""
        streams = boto3.client("dynamodbstreams", region_name=REGION)
        arn = self.dynamodb.describe_table(TableName=self.table_name)["Table"]["LatestStreamArn"]
        found: list[tuple[str, str]] = []
        for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
            iterator = streams.get_shard_iterator(
                StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
            while iterator:
                page = streams.get_records(ShardIterator=iterator)
                if not page["Records"]:
                    break
                for record in page["Records"]:
                    image = record["dynamodb"].get("NewImage", {})
                    found.append((record["eventName"], image.get("url", {}).get("S", "")))
                iterator = page.get("NextShardIterator")
        return found


def make_stack(table_name: str = "sitemap-urls", queue_name: str = "sitemap-dlq") -> IngestStack:
    """Create the table and DLQ (a ``mock_aws`` context must be active)."""
    with mock.patch.dict(os.environ, BASE_ENV):
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        sqs = boto3.client("sqs", region_name=REGION)
    create_table(dynamodb, table_name)
    dlq_url = sqs.create_queue(QueueName=queue_name)["QueueUrl"]
    stack = IngestStack(table_name, dlq_url, dynamodb, sqs)
    # Powertools reads POWERTOOLS_METRICS_NAMESPACE when sitemap_updater.observability is first
    # imported, which in a test run may be before any fixture set the environment.
    metrics = load_handler().metrics
    if not metrics.namespace:
        metrics.namespace = BASE_ENV["POWERTOOLS_METRICS_NAMESPACE"]
    # The handler builds its clients on first use and keeps them; hand it these two, so that
    # a test can watch or disturb the calls it makes (botocore event hooks on the client).
    cache = load_handler()._clients
    cache.clear()
    cache.update(dynamodb=dynamodb, sqs=sqs)
    return stack


@contextmanager
def dynamodb_calls(client: Any) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Record every DynamoDB API call made by ``client`` (operation name, request body).

    The body is the JSON the client is about to send, after parameter validation.
    """
    calls: list[tuple[str, dict[str, Any]]] = []

    def record(params: dict[str, Any], model: Any, **_: Any) -> None:
        calls.append((model.name, json.loads(params["body"])))

    client.meta.events.register("before-call.dynamodb.*", record)
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-call.dynamodb.*", record)


@contextmanager
def log_lines() -> Iterator[list[dict[str, Any]]]:
    """Every line the function's Powertools logger writes, as the JSON objects it emits."""
    handler_logger = load_handler().logger
    stream = io.StringIO()
    sink = logging.StreamHandler(stream)
    sink.setFormatter(handler_logger.registered_formatter)
    handler_logger.addHandler(sink)
    lines: list[dict[str, Any]] = []
    try:
        yield lines
    finally:
        handler_logger.removeHandler(sink)
        lines.extend(json.loads(line) for line in stream.getvalue().splitlines() if line)


def emitted_metrics(stdout: str) -> dict[str, float]:
    """Metric values of the CloudWatch EMF documents printed on ``stdout``, summed by name.

    Checks each document's structure: every value named in ``_aws.CloudWatchMetrics`` has
    unit Count and lies in the function's namespace.
    """
    totals: dict[str, float] = {}
    for line in stdout.splitlines():
        if not line.startswith('{"_aws"'):
            continue
        document = json.loads(line)
        (directive,) = document["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == BASE_ENV["POWERTOOLS_METRICS_NAMESPACE"]
        for metric in directive["Metrics"]:
            assert metric["Unit"] == "Count"
            values = document[metric["Name"]]
            values = values if isinstance(values, list) else [values]
            totals[metric["Name"]] = totals.get(metric["Name"], 0.0) + sum(values)
    return totals


def body(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
