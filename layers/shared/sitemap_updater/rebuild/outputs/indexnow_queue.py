"""The durable set of URLs waiting for IndexNow, and its submission after a publish.

A run feeds the queue with :meth:`IndexNowQueue.add` (the locs whose published entry its publish
added, changed or removed; any other publisher of entries may feed it the same way), stores the
set with :meth:`IndexNowQueue.persist` before the run's publish record and checkpoint are saved,
and sends it with :meth:`IndexNowQueue.submit` once they are. The set lives in one private object,
``state/indexnow-pending.json.gz`` (CloudFront never serves ``state/``), with the attempt count and
the time before which no request is sent (backoff, or the endpoint's ``Retry-After``).

The set is bounded: above :data:`MAX_PENDING` URLs the oldest are dropped, counted in the report
(metric ``IndexNowDropped``) and a warning log line. A URL leaves the set when the endpoint
accepts it (200, 202) or refuses its request for good (400, 403, 422: metric ``IndexNowRejected``
and an error log line with the answer); 429, 5xx, timeouts and broken connections keep it for a
later run.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.indexnow import (
    MAX_URLS_PER_POST,
    IndexNowClient,
    Outcome,
    key_file_name,
)
from sitemap_updater.observability import logger
from sitemap_updater.protocol.lastmod import format_w3c_epoch

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

PENDING_KEY: Final = "state/indexnow-pending.json.gz"
#: Most URLs the pending set holds (10 POSTs).
MAX_PENDING: Final = 100_000
#: Most POSTs one run sends: the whole bounded set.
MAX_REQUESTS_PER_RUN: Final = MAX_PENDING // MAX_URLS_PER_POST
#: Backoff after a failed attempt without ``Retry-After``: 5 minutes, doubled per attempt,
#: at most 6 hours; a ``Retry-After`` is honoured up to a day.
BACKOFF_BASE_SECONDS: Final = 300.0
BACKOFF_MAX_SECONDS: Final = 6 * 3600.0
RETRY_AFTER_MAX_SECONDS: Final = 86_400.0
KEY_FILE_CONTENT_TYPE: Final = "text/plain; charset=utf-8"


@dataclass(slots=True)
class IndexNowReport:
    """What a run did for IndexNow (part of the run report)."""

    #: URLs this run's publish added to the pending set
    urls_added: int = 0
    #: URLs an endpoint accepted (200 or 202)
    urls_submitted: int = 0
    #: POSTs sent
    requests: int = 0
    #: URLs whose request was refused for good (400, 403, 422) and that left the set
    urls_rejected: int = 0
    #: POSTs that failed for now (429, 5xx, timeout, broken connection)
    requests_failed: int = 0
    #: URLs dropped, oldest first, because the set was full
    urls_dropped: int = 0
    #: URLs waiting after the run
    pending: int = 0
    #: no POST before this time (UTC), when the last attempt failed
    next_attempt_at: str | None = None
    #: the submission failed on an unexpected error (logged); the URLs stay pending
    error: str | None = None


@dataclass(slots=True)
class _Pending:
    #: URL -> None, oldest first
    urls: dict[str, None] = field(default_factory=dict)
    attempts: int = 0
    next_attempt_at: float = 0.0
    key_file: str | None = None

    def encode(self) -> bytes:
        doc = {
            "urls": list(self.urls),
            "attempts": self.attempts,
            "next_attempt_at": self.next_attempt_at,
            "key_file": self.key_file,
        }
        return gzip.compress(json.dumps(doc, separators=(",", ":")).encode("utf-8"), mtime=0)

    @classmethod
    def decode(cls, body: bytes) -> _Pending:
        doc: dict[str, Any] = json.loads(gzip.decompress(body))
        return cls(
            urls=dict.fromkeys(str(u) for u in doc.get("urls", [])),
            attempts=int(doc.get("attempts", 0)),
            next_attempt_at=float(doc.get("next_attempt_at", 0.0)),
            key_file=doc.get("key_file"),
        )


def waiting_urls(s3: S3Client, bucket: str) -> int | None:
    """How many URLs wait in ``bucket``'s pending set (None: there is none, IndexNow is off
    or has had nothing to send yet)."""
    try:
        body = s3.get_object(Bucket=bucket, Key=PENDING_KEY)["Body"].read()
    except s3.exceptions.NoSuchKey:
        return None
    return len(_Pending.decode(body).urls)


class IndexNowQueue:
    """The pending set of one bucket and its submission through one client."""

    def __init__(
        self,
        s3: S3Client,
        bucket: str,
        client: IndexNowClient,
        *,
        max_pending: int = MAX_PENDING,
        max_requests: int = MAX_REQUESTS_PER_RUN,
    ) -> None:
        self._s3 = s3
        self._bucket = bucket
        self.client = client
        self._max_pending = max_pending
        self._max_requests = max_requests
        self._added: dict[str, None] = {}
        self._state: _Pending | None = None
        self.report = IndexNowReport()

    # -- the interface a run feeds -------------------------------------------------------------

    def add(self, locs: Iterable[str]) -> None:
        """URLs whose published entry was added, changed or removed by the current publish."""
        for loc in locs:
            self._added.pop(loc, None)
            self._added[loc] = None

    def persist(self) -> list[str]:
        """Merge what was added into the stored set and publish the key file if it is not yet;
        returns the keys written. Raises on an S3 error (the run then fails before its
        checkpoint, and the next run publishes, and adds, the same changes again)."""
        state = self._load()
        written: list[str] = []
        key_file = key_file_name(self.client.key)
        if state.key_file != key_file:
            self._s3.put_object(
                Bucket=self._bucket,
                Key=key_file,
                Body=self.client.key.encode("utf-8"),
                ContentType=KEY_FILE_CONTENT_TYPE,
                CacheControl="public, max-age=3600",
            )
            state.key_file = key_file
            written.append(key_file)
        if not self._added and not written:
            return written
        for loc in self._added:
            state.urls.pop(loc, None)
            state.urls[loc] = None
        self.report.urls_added = len(self._added)
        self._added = {}
        overflow = len(state.urls) - self._max_pending
        if overflow > 0:
            for loc in list(state.urls)[:overflow]:
                del state.urls[loc]
            self.report.urls_dropped += overflow
            logger.warning(
                "IndexNow pending set is full; the oldest URLs were dropped without being sent",
                dropped=overflow,
                max_pending=self._max_pending,
            )
        self._save(state)
        written.append(PENDING_KEY)
        self.report.pending = len(state.urls)
        return written

    def submit(self, now: float, out_of_time: Callable[[], bool]) -> list[str]:
        """Send the pending URLs, oldest first, 10,000 per POST, unless a backoff is running;
        returns the keys written (the pending object when it changed)."""
        state = self._load()
        report = self.report
        report.pending = len(state.urls)
        if not state.urls:
            return []
        if now < state.next_attempt_at:
            report.next_attempt_at = format_w3c_epoch(state.next_attempt_at)
            return []
        changed = False
        while state.urls and report.requests < self._max_requests and not out_of_time():
            batch = list(state.urls)[:MAX_URLS_PER_POST]
            answer = self.client.post(batch, now)
            report.requests += 1
            if answer.outcome is Outcome.RETRY:
                report.requests_failed += 1
                state.attempts += 1
                delay = min(BACKOFF_BASE_SECONDS * 2 ** (state.attempts - 1), BACKOFF_MAX_SECONDS)
                if answer.retry_after is not None:
                    delay = min(max(answer.retry_after, 0.0), RETRY_AFTER_MAX_SECONDS)
                state.next_attempt_at = now + delay
                report.next_attempt_at = format_w3c_epoch(state.next_attempt_at)
                logger.warning(
                    "IndexNow did not take the URLs now; they stay pending for a later run",
                    status=answer.status,
                    detail=answer.detail,
                    urls=len(batch),
                    attempts=state.attempts,
                    next_attempt_at=report.next_attempt_at,
                )
                changed = True
                break
            for loc in batch:
                del state.urls[loc]
            state.attempts, state.next_attempt_at = 0, 0.0
            changed = True
            if answer.outcome is Outcome.ACCEPTED:
                report.urls_submitted += len(batch)
            else:
                report.urls_rejected += len(batch)
                logger.error(
                    "IndexNow refused the request; its URLs are not sent again",
                    status=answer.status,
                    response=answer.detail,
                    urls=len(batch),
                    first_url=batch[0],
                )
        report.pending = len(state.urls)
        if not changed:
            return []
        self._save(state)
        return [PENDING_KEY]

    # -- storage -------------------------------------------------------------------------------

    def _load(self) -> _Pending:
        if self._state is None:
            try:
                body = self._s3.get_object(Bucket=self._bucket, Key=PENDING_KEY)["Body"].read()
            except self._s3.exceptions.NoSuchKey:
                self._state = _Pending()
            else:
                self._state = _Pending.decode(body)
        return self._state

    def _save(self, state: _Pending) -> None:
        self._s3.put_object(
            Bucket=self._bucket,
            Key=PENDING_KEY,
            Body=state.encode(),
            ContentType="application/gzip",
        )
