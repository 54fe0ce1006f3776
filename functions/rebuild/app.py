"""Rebuild handler: an EventBridge schedule runs it incrementally, and so does a batch of the
table's stream records from the urgent event source mapping (news and deletes);
``{"full_rebuild": true}`` rebuilds every shard from a parallel Scan. All logic lives in
``sitemap_updater.rebuild``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import boto3
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.config import Config

from sitemap_updater.config import RebuildConfig
from sitemap_updater.observability import logger, metrics, traced_handler
from sitemap_updater.rebuild.report import record_metrics
from sitemap_updater.rebuild.request import UrgentRunLocked, is_urgent, wants_full_rebuild
from sitemap_updater.rebuild.runner import RebuildService

if TYPE_CHECKING:
    from mypy_boto3_cloudfront.client import CloudFrontClient
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient
    from mypy_boto3_s3.client import S3Client

_CLIENT_CONFIG = Config(retries={"mode": "standard", "max_attempts": 5})
_clients: dict[str, Any] = {}
#: Epoch seconds now. Lambda keeps the system clock; the local deployment sets its own here to
#: replay waves at chosen times (``sitemap-updater simulate --start``).
clock: Callable[[], float] = time.time


def _client(name: str) -> Any:
    """A boto3 client from the default session, created on first use and kept for warm starts."""
    if name not in _clients:
        _clients[name] = boto3.client(name, config=_CLIENT_CONFIG)  # type: ignore[call-overload]
    return _clients[name]


@logger.inject_lambda_context
@traced_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    full = wants_full_rebuild(event)
    urgent = is_urgent(event)
    config = RebuildConfig.from_env()
    dynamodb: DynamoDBClient = _client("dynamodb")
    s3: S3Client = _client("s3")
    streams: DynamoDBStreamsClient = _client("dynamodbstreams")
    cloudfront: CloudFrontClient | None = _client("cloudfront") if config.distribution_id else None
    service = RebuildService(
        config,
        dynamodb=dynamodb,
        s3=s3,
        cloudfront=cloudfront,
        streams=streams,
        owner=context.aws_request_id,
        clock=clock,
        remaining_seconds=lambda: context.get_remaining_time_in_millis() / 1000,
    )
    report = service.run(full=full)
    record_metrics(metrics, report)
    if report.status == "locked" and urgent:
        raise UrgentRunLocked("the rebuild lease is held by another run; the batch is retried")
    logger.info("rebuild run finished", extra={"report": report.to_dict(), "urgent": urgent})
    return report.to_dict()
