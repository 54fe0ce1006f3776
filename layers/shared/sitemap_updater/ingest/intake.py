"""The batch flow: judge each SQS record, apply its changes, dead-letter what can never apply.

Per record (the record handler given to Powertools' ``BatchProcessor``):

* valid changes are written with a conditional ``PutItem`` each (``apply.UrlWriter``);
* rejected changes (a bad message, or the bad changes of an array) go to the DLQ in one message;
  the record then counts as processed, it is never retried; so does a body the judge fails on
  for any reason (the judge is pure, so a retry would fail the same way), with the failure as
  its reason;
* any exception (throttling, a timeout, DynamoDB or SQS unavailable, or anything unexpected)
  propagates, so Powertools reports the record as a batch item failure and SQS retries it.

After the records, ``finish_batch`` publishes the batch's metrics. Nothing else is written: the
table's stream tells the rebuild which URLs changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from botocore.exceptions import ClientError, ConnectionError, HTTPClientError, ReadTimeoutError

from sitemap_updater.config import IngestConfig
from sitemap_updater.ingest.apply import Applied, ApplyResult, UrlWriter
from sitemap_updater.ingest.dlq import (
    FIRST_SENT_ATTRIBUTE,
    DeadLetterQueue,
    describe,
    named_url,
)
from sitemap_updater.ingest.judge import Change, judge_message, unjudgeable
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.observability import logger, metrics, traced_method
from sitemap_updater.printable import printable
from sitemap_updater.sites import Sites

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_sqs.client import SQSClient

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
#: Longest URL written into a log line (a loc may have at most 2,048 characters).
MAX_LOGGED_URL_CHARS: Final = 2_100

#: Error codes of a ClientError that a retry can cure.
TRANSIENT_CODES: Final = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "InternalServerError",
        "InternalFailure",
        "ServiceUnavailable",
        "TransactionInProgressException",
        "RequestThrottled",
    }
)


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure that retrying the record can cure (throttling, 5xx, I/O)."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        return error.get("Code", "") in TRANSIENT_CODES or status >= 500
    return isinstance(exc, ConnectionError | HTTPClientError | ReadTimeoutError)


def url_of(raw: object) -> str | None:
    """The URL a rejected change named (for the log line), printable, if it named one."""
    url = named_url(raw)
    return None if url is None else printable(url[:MAX_LOGGED_URL_CHARS])


def _epoch_ms_time(raw: object) -> datetime | None:
    try:
        return _EPOCH + timedelta(milliseconds=int(str(raw)))
    except (TypeError, ValueError, OverflowError):
        return None


def sent_at_of(record: SQSRecord) -> datetime | None:
    """When the record's changes were first sent (the ``occurred_at`` of a change without one):
    the SQS SentTimestamp, or the earlier time ``redrive`` kept in the
    :data:`~sitemap_updater.ingest.dlq.FIRST_SENT_ATTRIBUTE` attribute of a message it moved
    back from the dead-letter queue. Never later than the SentTimestamp, so the attribute can
    only keep a change in its place, never move it ahead. ``None`` if neither is sane."""
    sent = _epoch_ms_time(record.attributes.sent_timestamp)
    first = (record.raw_event.get("messageAttributes") or {}).get(FIRST_SENT_ATTRIBUTE)
    first_sent = _epoch_ms_time(first.get("stringValue")) if isinstance(first, dict) else None
    if sent is None or first_sent is None:
        return sent
    return min(sent, first_sent)


@dataclass(slots=True)
class Tally:
    """Per-invocation counts, published as EMF metrics (unit Count).

    ``AcceptedRecords``: changes written (newer than what the table held; an array's change
    counts as one change). ``StaleRecords``: changes that wrote nothing because the table
    already held a newer event for the URL, or this very event (a redelivery).
    ``RejectedRecords``: changes (or whole bodies) that can never apply, sent to the DLQ.
    ``FailedRecords``: SQS records reported as batch item failures, to be retried.
    """

    accepted: int = 0
    stale: int = 0
    rejected: int = 0
    failed: int = 0

    def publish(self) -> None:
        for name, value in (
            ("AcceptedRecords", self.accepted),
            ("StaleRecords", self.stale),
            ("RejectedRecords", self.rejected),
            ("FailedRecords", self.failed),
        ):
            if value:
                metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What one SQS record did: outcome of each valid change, and how many were rejected."""

    message_id: str
    outcomes: tuple[Applied, ...]
    rejected: int
    reason: str | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def _epoch_ms(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)


class IngestService:
    """Applies SQS records of changes to the table. Clients are injected."""

    def __init__(
        self,
        *,
        dynamodb: DynamoDBClient,
        sqs: SQSClient,
        config: IngestConfig,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self._sites = Sites.parse(
            config.site_url, config.media_hosts, alternates_any_host=config.alternates_any_host
        )
        self._writer = UrlWriter(dynamodb, config.table_name, config.tombstone_ttl_days)
        self._dlq = DeadLetterQueue(sqs, config.dlq_url)
        self._clock = clock
        self._tally = Tally()

    # -- batch lifecycle ----------------------------------------------------------------------

    def begin_batch(self) -> None:
        """Forget the previous batch."""
        self._tally = Tally()

    @traced_method
    def handle_record(self, record: SQSRecord) -> RecordResult:
        """Record handler for ``BatchProcessor``: raises only when the record must be retried."""
        logger.append_keys(message_id=record.message_id)
        try:
            return self._handle(record)
        except Exception as exc:
            self._tally.failed += 1
            if is_transient(exc):
                logger.warning("transient failure, record will be retried", exc_info=exc)
            else:
                logger.exception("unexpected failure, record will be retried")
            raise
        finally:
            logger.remove_keys(["message_id", "url"])

    @traced_method
    def finish_batch(self) -> None:
        """Publish the batch's metrics (every write happens inside the record handler, so a
        record's outcome is final when its handler returns)."""
        self._tally.publish()

    # -- one record -----------------------------------------------------------------------------

    def _handle(self, record: SQSRecord) -> RecordResult:
        now = self._clock()
        body: str = record.body or ""
        try:
            sent_at = sent_at_of(record) or now
            judged = judge_message(body, sent_at=sent_at, sites=self._sites, now=now)
        except Exception as exc:  # the judge touches no AWS: a retry would fail the same way
            logger.exception("message could not be judged, sent to the dead-letter queue")
            judged = unjudgeable(body, exc)
        outcomes = tuple(self._apply(change, record.message_id) for change in judged.changes)
        reason = None
        rejections = judged.rejections
        if rejections:
            reason = self._reject(record, body, rejections, array_body=judged.kind == "array")
        return RecordResult(record.message_id, outcomes, len(rejections), reason)

    def _apply(self, change: Change, message_id: str) -> Applied:
        logger.append_keys(url=change.url)
        result = self._writer.apply(change, now_ms=_epoch_ms(self._clock()))
        self._note(result, message_id)
        logger.info(
            "change applied" if result.outcome is Applied.ACCEPTED else "change had no effect",
            outcome=str(result.outcome),
            action=change.action,
            event_key=change.key,
        )
        return result.outcome

    def _note(self, result: ApplyResult, message_id: str) -> None:
        if result.outcome in {Applied.ACCEPTED, Applied.UNCHANGED}:
            self._tally.accepted += 1
        else:
            self._tally.stale += 1

    def _reject(
        self, record: SQSRecord, body: str, rejections: list[Rejection], *, array_body: bool
    ) -> str:
        logger.remove_keys(["url"])
        reason = self._dlq.reject(
            original_body=body,
            rejections=rejections,
            source_message_id=record.message_id,
            array_body=array_body,
        )
        self._tally.rejected += len(rejections)
        for rejection in rejections:
            where: dict[str, Any] = {"field": rejection.field}
            if rejection.index is not None:
                where["index"] = rejection.index
            url = url_of(rejection.raw)
            if url is not None:
                where["url"] = url
            logger.warning(
                "change rejected and sent to the dead-letter queue",
                reason=describe(rejection),
                **where,
            )
        return reason


def process_batch(
    event: dict[str, Any],
    context: LambdaContext | None,
    *,
    processor: BatchProcessor,
    service: IngestService,
) -> PartialItemFailureResponse:
    """Run one SQS batch through ``processor`` and return the partial batch response.

    The batch's metrics are published inside the processor's context, after every record.
    """
    records: list[dict[str, Any]] = event["Records"]
    with processor(records, service.handle_record, lambda_context=context):
        service.begin_batch()
        try:
            processor.process()
        finally:
            service.finish_batch()
    return processor.response()
