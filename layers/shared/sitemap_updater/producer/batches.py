"""Message bodies to an SQS queue with ``SendMessageBatch``, the failed entries sent again.

Bodies (and their string attributes, if any) are sent as they are, in calls of at most
:data:`BATCH_SIZE` entries and :data:`MAX_BATCH_BYTES`. ``SendMessageBatch`` may accept some entries
of a batch and fail others: entries that failed on the service's side are sent again, at most
:data:`MAX_ATTEMPTS` times in all, with a short backoff; entries refused as the sender's fault
(say, a character SQS does not allow) are reported at once. If SQS refuses a whole batch, its
entries are sent one by one so that one bad body cannot hold back the nine others. Every
failure is reported with the line it came from.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Self

from botocore.exceptions import ClientError

from sitemap_updater.ingest.dlq import message_bytes

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient
    from mypy_boto3_sqs.type_defs import (
        MessageAttributeValueTypeDef,
        SendMessageBatchRequestEntryTypeDef,
    )

#: Entries per SendMessageBatch call (the SQS maximum).
BATCH_SIZE: Final = 10
#: Total body bytes per batch: "the sum of the individual lengths of all of the batched
#: messages" may reach 1 MiB (the SendMessageBatch API reference). A region that still refuses
#: such a batch answers ``BatchRequestTooLong``, and its bodies are then sent one by one.
MAX_BATCH_BYTES: Final = 1024 * 1024
#: Attempts per entry (the first send included) for failures on the service's side.
MAX_ATTEMPTS: Final = 4
BACKOFF_SECONDS: Final = 0.2
#: Error codes (last dotted part) for which SQS refuses a whole batch because of what one of
#: its bodies holds; any other error of a whole batch stops the command.
CONTENT_ERRORS: Final = frozenset(
    {"BatchRequestTooLong", "InvalidMessageContents", "InvalidParameterValue", "MessageTooLong"}
)


@dataclass(frozen=True, slots=True)
class SendFailure:
    """A message that was not sent: where it came from, and SQS's code and message."""

    where: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: not sent: {self.code}: {self.message}"


#: String message attributes of one message, by name.
Attributes = dict[str, str]


@dataclass(slots=True)
class _Unsent:
    where: str
    body: str
    attributes: Attributes | None = None
    attempts: int = 0

    def entry(self, index: int) -> SendMessageBatchRequestEntryTypeDef:
        entry: SendMessageBatchRequestEntryTypeDef = {"Id": str(index), "MessageBody": self.body}
        if self.attributes:
            entry["MessageAttributes"] = _typed(self.attributes)
        return entry


def _typed(attributes: Attributes) -> dict[str, MessageAttributeValueTypeDef]:
    return {k: {"DataType": "String", "StringValue": v} for k, v in attributes.items()}


@dataclass(slots=True)
class SendStats:
    sent: int = 0
    batches: int = 0
    failures: list[SendFailure] = field(default_factory=list)


class BatchSender:
    """Buffers message bodies and sends them with ``SendMessageBatch``; use as a context
    manager (the last partial batch is sent on exit) or call :meth:`flush`."""

    def __init__(
        self,
        sqs: SQSClient,
        queue_url: str,
        *,
        max_attempts: int = MAX_ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
        on_failure: Callable[[SendFailure], None] = lambda f: None,
        on_sent: Callable[[list[str]], None] = lambda wheres: None,
    ) -> None:
        self._sqs = sqs
        self._url = queue_url
        self._max_attempts = max_attempts
        self._sleep = sleep
        self._on_failure = on_failure
        self._on_sent = on_sent
        self._buffer: list[_Unsent] = []
        self._buffer_bytes = 0
        self.stats = SendStats()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_rest: object) -> None:
        if exc_type is None:
            self.flush()

    def add(self, where: str, body: str, attributes: Attributes | None = None) -> None:
        size = message_bytes(body, attributes or {})
        if self._buffer and self._buffer_bytes + size > MAX_BATCH_BYTES:
            self.flush()
        self._buffer.append(_Unsent(where, body, attributes))
        self._buffer_bytes += size
        if len(self._buffer) >= BATCH_SIZE:
            self.flush()

    def flush(self) -> None:
        pending, self._buffer, self._buffer_bytes = self._buffer, [], 0
        while pending:
            pending = self._send_batch(pending)
            if pending:
                self._sleep(BACKOFF_SECONDS * 2 ** (pending[0].attempts - 1))

    def _fail(self, entry: _Unsent, code: str, message: str) -> None:
        failure = SendFailure(entry.where, code, message)
        self.stats.failures.append(failure)
        self._on_failure(failure)

    def _sent(self, entries: list[_Unsent]) -> None:
        self.stats.sent += len(entries)
        self._on_sent([e.where for e in entries])

    def _send_batch(self, batch: list[_Unsent]) -> list[_Unsent]:
        """Send one batch; returns the entries to try again."""
        entries = [e.entry(i) for i, e in enumerate(batch)]
        for entry in batch:
            entry.attempts += 1
        self.stats.batches += 1
        try:
            response = self._sqs.send_message_batch(QueueUrl=self._url, Entries=entries)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code.rsplit(".", 1)[-1] not in CONTENT_ERRORS:
                raise
            # One body made SQS refuse the whole batch (too large, or a character SQS does not
            # allow): send each body on its own, so only the culprit fails.
            for entry in batch:
                self._send_one(entry)
            return []
        self._sent([batch[int(done["Id"])] for done in response.get("Successful", [])])
        retry: list[_Unsent] = []
        for failed in response.get("Failed", []):
            entry = batch[int(failed["Id"])]
            code, message = failed["Code"], failed.get("Message", "")
            if failed["SenderFault"] or entry.attempts >= self._max_attempts:
                self._fail(entry, code, message)
            else:
                retry.append(entry)
        return retry

    def _send_one(self, entry: _Unsent) -> None:
        try:
            self._sqs.send_message(
                QueueUrl=self._url,
                MessageBody=entry.body,
                MessageAttributes=_typed(entry.attributes or {}),
            )
        except ClientError as exc:
            error: Any = exc.response.get("Error", {})
            self._fail(entry, str(error.get("Code", "Error")), str(error.get("Message", exc)))
            return
        self._sent([entry])


#: ``https://sqs.<region>.amazonaws.com/...`` (also ``sqs-fips.`` and ``.amazonaws.com.cn``)
#: and the legacy ``https://<region>.queue.amazonaws.com/...``.
_QUEUE_HOST = re.compile(
    r"https://(?:sqs(?:-fips)?\.(?P<region>[a-z0-9-]+)|(?P<legacy>[a-z0-9-]+)\.queue)"
    r"\.amazonaws\.com(?:\.cn)?/"
)


def region_of_queue_url(queue_url: str) -> str | None:
    """The AWS region an SQS queue URL names, or ``None`` (an emulator's URL names none)."""
    match = _QUEUE_HOST.match(queue_url)
    if match is None:
        return None
    return match.group("region") or match.group("legacy")
