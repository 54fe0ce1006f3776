"""Ingest function: SQS batch of content-change events -> URL table (thin handler).

Wiring only: configuration from the environment, boto3 clients created on first use and
reused across invocations, Powertools batch processing. The logic is in
``sitemap_updater.ingest``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import boto3
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.typing import LambdaContext

from sitemap_updater.config import IngestConfig
from sitemap_updater.ingest.intake import IngestService, process_batch
from sitemap_updater.observability import logger, metrics, traced_handler

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_sqs.client import SQSClient

processor = BatchProcessor(event_type=EventType.SQS)

_clients: dict[str, Any] = {}
#: Epoch seconds now. Lambda keeps the system clock; the local deployment sets its own here to
#: replay waves at chosen times (``sitemap-updater simulate --start``).
clock: Callable[[], float] = time.time


def _now() -> datetime:
    return datetime.fromtimestamp(clock(), UTC)


def _service() -> IngestService:
    """The service, with clients from the default boto3 session, created on first use."""
    config = IngestConfig.from_env()
    if _clients.get("config") != config:
        dynamodb: DynamoDBClient = _clients.get("dynamodb") or boto3.client("dynamodb")
        sqs: SQSClient = _clients.get("sqs") or boto3.client("sqs")
        _clients.update(
            dynamodb=dynamodb,
            sqs=sqs,
            config=config,
            service=IngestService(dynamodb=dynamodb, sqs=sqs, config=config, clock=_now),
        )
    service: IngestService = _clients["service"]
    return service


@logger.inject_lambda_context
@traced_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_batch(event, context, processor=processor, service=_service())
