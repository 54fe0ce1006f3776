"""Test rebuild handler: publishes the table's keys as one text object and invalidates it."""

from __future__ import annotations

import os
from typing import Any

import boto3


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    dynamodb = boto3.client("dynamodb")
    s3 = boto3.client("s3")
    items = dynamodb.query(
        TableName=os.environ["TABLE_NAME"],
        KeyConditionExpression="pk = :k",
        ExpressionAttributeValues={":k": {"S": "k"}},
    )["Items"]
    keys = sorted(i["sk"]["S"] for i in items)
    s3.put_object(Bucket=os.environ["BUCKET_NAME"], Key="keys.txt", Body="\n".join(keys).encode())
    boto3.client("cloudfront").create_invalidation(
        DistributionId=os.environ["DISTRIBUTION_ID"],
        InvalidationBatch={
            "Paths": {"Quantity": 1, "Items": ["/keys.txt"]},
            "CallerReference": context.aws_request_id,
        },
    )
    return {
        "status": "ok",
        "complete": True,
        "full": bool(event.get("full_rebuild")),
        "source": event.get("source"),
        "remaining_ms": context.get_remaining_time_in_millis(),
        "function_name": context.function_name,
        "public_base_url": os.environ["PUBLIC_BASE_URL"],
        "robots": os.environ["PUBLISH_ROBOTS_TXT"],
        "dynamodb_items_read": len(items),
        "objects_written": ["keys.txt"],
        "objects_deleted": [],
    }
