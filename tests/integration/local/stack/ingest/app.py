"""Test ingest handler: each body is a JSON object whose ``do`` says what happens to the record.

``ok`` stores ``key`` in the table; ``fail`` reports a batch item failure; ``reject`` sends the
body to the DLQ with a ``reason`` attribute; ``raise`` fails the whole invocation.
"""

from __future__ import annotations

import json
import os
from typing import Any

import boto3
from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit

metrics = Metrics()
_clients: dict[str, Any] = {}


def _client(name: str) -> Any:
    if name not in _clients:
        _clients[name] = boto3.client(name)
    return _clients[name]


@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    metrics.add_metric(name="Records", unit=MetricUnit.Count, value=len(event["Records"]))
    failures = []
    accepted = 0
    for record in event["Records"]:
        body = json.loads(record["body"])
        action = body["do"]
        if action == "raise":
            raise RuntimeError("asked to raise")
        if action == "fail":
            failures.append({"itemIdentifier": record["messageId"]})
        elif action == "reject":
            _client("sqs").send_message(
                QueueUrl=os.environ["DLQ_URL"],
                MessageBody=record["body"],
                MessageAttributes={"reason": {"DataType": "String", "StringValue": "asked to"}},
            )
            metrics.add_metric(name="RejectedRecords", unit=MetricUnit.Count, value=1)
        else:
            _client("dynamodb").put_item(
                TableName=os.environ["TABLE_NAME"],
                Item={
                    "pk": {"S": "k"},
                    "sk": {"S": body["key"]},
                    "receives": {"N": record["attributes"]["ApproximateReceiveCount"]},
                    "remaining": {"N": str(context.get_remaining_time_in_millis())},
                },
            )
            accepted += 1
    if accepted:
        metrics.add_metric(name="AcceptedRecords", unit=MetricUnit.Count, value=accepted)
    return {"batchItemFailures": failures}
