"""The durable set of URLs waiting for IndexNow, and its submission after a publish.

A run feeds the set with :meth:`PendingSet.add` (the locs whose fragment its publish
added, changed or removed; any other publisher of fragments may feed it the same way), stores the
set with :meth:`PendingSet.persist` before the run's publish record and checkpoint are saved,
and sends it with :meth:`PendingSet.submit` once they are. The set lives in one private object,
``state/indexnow-pending.json.gz`` (CloudFront never serves ``state/``), with the attempt count and
the time before which no request is sent (backoff, or the endpoint's ``Retry-After``).

The set is bounded: above :data:`MAX_PENDING` URLs, or above :data:`MAX_PENDING_BYTES` of URLs,
URLs are dropped by :func:`fair_trim`, counted in the report (metric ``IndexNowDropped``) and a
warning log line: the URLs are grouped by their first path segment (a site's sections), and the
largest group loses its newest URL until the set fits, so a flood of changes in one section drops
only its own newest URLs, never what the other sections have waiting. A stored set that cannot be
read (any bytes someone else wrote there) is logged, counted (``ObjectsRepaired``) and replaced
by an empty one: a run never fails on it. A URL leaves the set when the endpoint
accepts it (200, 202) or refuses its request for good (400, 403, 422: metric ``IndexNowRejected``
and an error log line with the answer); 429, 5xx, timeouts and broken connections keep it for a
later run.
"""

from __future__ import annotations

import gzip
import heapq
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from sitemap_updater.indexnow import (
    MAX_URLS_PER_POST,
    AnswerKind,
    IndexNowClient,
    key_file_name,
)
from sitemap_updater.observability import logger
from sitemap_updater.protocol.gzipio import inflate
from sitemap_updater.protocol.lastmod import format_w3c_epoch
from sitemap_updater.protocol.limits import MAX_READ_BACK_BYTES
from sitemap_updater.rebuild.outputs.bucket import KEY_FILE, read_bounded

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client


def pending_key(prefix: str) -> str:
    """The pending set of the host whose objects live under the key ``prefix``."""
    return f"state/{prefix}indexnow-pending.json.gz"


#: the primary host's pending set
PENDING_KEY: Final = pending_key("")


#: Most URLs the pending set holds (10 POSTs).
MAX_PENDING: Final = 100_000
#: Most bytes of URLs the pending set holds: its object stays within the read-back bound.
MAX_PENDING_BYTES: Final = MAX_READ_BACK_BYTES - (1 << 16)
#: Most POSTs one run sends: the whole bounded set.
MAX_REQUESTS_PER_RUN: Final = MAX_PENDING // MAX_URLS_PER_POST
#: Backoff after a failed attempt without ``Retry-After``: 5 minutes, doubled per attempt,
#: at most 6 hours; a ``Retry-After`` is honoured up to a day.
BACKOFF_BASE_SECONDS: Final = 300.0
BACKOFF_MAX_SECONDS: Final = 6 * 3600.0
RETRY_AFTER_MAX_SECONDS: Final = 86_400.0


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
    #: URLs dropped because the set was full (the newest of the largest section first)
    urls_dropped: int = 0
    #: URLs waiting after the run
    pending: int = 0
    #: no POST before this time (UTC), when the last attempt failed
    next_attempt_at: str | None = None
    #: the submission failed on an unexpected error (logged); the URLs stay pending
    error: str | None = None
    #: why the stored set could not be read, when the run started a new one
    state_reset: str | None = None

    def add(self, other: IndexNowReport) -> None:
        """Count another host's report in this one (the first error or reason is kept)."""
        counts = ("urls_added", "urls_submitted", "requests", "urls_rejected", "requests_failed")
        for name in (*counts, "urls_dropped", "pending"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("next_attempt_at", "error", "state_reset"):
            if getattr(self, name) is None:
                setattr(self, name, getattr(other, name))


def _section(url: str) -> str:
    """The group of a URL for :func:`fair_trim`: its first path segment."""
    path = url.split("://", 1)[-1].partition("/")[2]
    return path.split("/", 1)[0].split("?", 1)[0]


def _size(url: str) -> int:
    """Bytes ``url`` takes in the stored set."""
    return len(json.dumps(url)) + 1


def fair_trim(urls: dict[str, None], max_urls: int, max_bytes: int) -> int:
    """Drop URLs from ``urls`` (oldest first) until it holds at most ``max_urls`` URLs and
    ``max_bytes`` bytes: each time, the newest URL of the largest section (first path segment)
    goes, largest by URLs while there are too many, then by bytes while they take too much
    (ties by name). Returns how many were dropped."""
    sections: dict[str, list[str]] = {}
    for url in urls:
        sections.setdefault(_section(url), []).append(url)
    before = len(urls)
    _drop_largest(urls, sections, len, lambda: len(urls) > max_urls)
    total = [sum(map(_size, urls))]

    def weight(members: list[str]) -> int:
        return sum(map(_size, members))

    def over() -> bool:
        return total[0] > max_bytes

    if over():
        _drop_largest(urls, sections, weight, over, total)
    return before - len(urls)


def _drop_largest(
    urls: dict[str, None],
    sections: dict[str, list[str]],
    weight: Callable[[list[str]], int],
    over: Callable[[], bool],
    total: list[int] | None = None,
) -> None:
    """While ``over()``, drop the newest URL of the section of the largest ``weight``."""
    heap = [(-weight(members), name) for name, members in sections.items() if members]
    heapq.heapify(heap)
    sizes = {name: -size for size, name in heap}
    while heap and over():
        _, name = heapq.heappop(heap)
        members = sections[name]
        newest = members.pop()
        del urls[newest]
        if total is not None:
            total[0] -= _size(newest)
        sizes[name] -= weight([newest])
        if members:
            heapq.heappush(heap, (-sizes[name], name))


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
        """The stored set; raises ``ValueError`` for anything that is not one this class
        encoded (the inflated text is bounded by :data:`MAX_READ_BACK_BYTES`)."""
        doc: Any = json.loads(inflate(body, MAX_READ_BACK_BYTES))
        if not isinstance(doc, dict):
            raise ValueError("the stored set is not a JSON object")
        urls, key_file = doc.get("urls", []), doc.get("key_file")
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise ValueError("urls is not a list of strings")
        if key_file is not None and not isinstance(key_file, str):
            raise ValueError("key_file is not a string")
        return cls(
            urls=dict.fromkeys(urls),
            attempts=int(doc.get("attempts", 0)),
            next_attempt_at=float(doc.get("next_attempt_at", 0.0)),
            key_file=key_file,
        )


def waiting_urls(s3: S3Client, bucket: str, prefix: str = "") -> int | None:
    """How many URLs wait in the pending set of a host (None: there is none, IndexNow is off
    or has had nothing to send yet)."""
    try:
        body = s3.get_object(Bucket=bucket, Key=pending_key(prefix))["Body"].read()
    except s3.exceptions.NoSuchKey:
        return None
    return len(_Pending.decode(body).urls)


class PendingSet:
    """The pending set of one host and its submission through one client; the host's objects
    (its key file) live under the key ``prefix``."""

    def __init__(
        self,
        s3: S3Client,
        bucket: str,
        client: IndexNowClient,
        *,
        prefix: str = "",
        max_pending: int = MAX_PENDING,
        max_requests: int = MAX_REQUESTS_PER_RUN,
    ) -> None:
        self._s3 = s3
        self._bucket = bucket
        self.client = client
        self.pending_key = pending_key(prefix)
        self.key_file = prefix + key_file_name(client.key)
        self._max_pending = max_pending
        self._max_requests = max_requests
        self._added: dict[str, None] = {}
        self._state: _Pending | None = None
        self.report = IndexNowReport()

    # -- the interface a run feeds -------------------------------------------------------------

    def add(self, locs: Iterable[str]) -> None:
        """URLs whose fragment was added, changed or removed by the current publish; a
        URL off the site's host (one a file written behind the rebuild's back held) is left
        out, since the endpoint would refuse the whole request it is in."""
        for loc in locs:
            if urlsplit(loc).hostname != self.client.host:
                continue
            self._added.pop(loc, None)
            self._added[loc] = None

    def retired_key_file(self) -> str | None:
        """The key file the stored set names when it is no longer the key's (the key changed):
        the run retires it before :meth:`persist` publishes the new one."""
        stored = self._load().key_file
        return stored if stored not in (None, self.key_file) else None

    def persist(self) -> list[str]:
        """Merge what was added into the stored set and publish the key file if it is not yet;
        returns the keys written. Raises on an S3 error (the run then fails before its
        checkpoint, and the next run publishes, and adds, the same changes again)."""
        state = self._load()
        written: list[str] = []
        key_file = self.key_file
        if state.key_file != key_file:
            self._s3.put_object(
                Bucket=self._bucket,
                Key=key_file,
                Body=self.client.key.encode("utf-8"),
                ContentType=KEY_FILE.content_type,
                CacheControl=KEY_FILE.cache_control,
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
        dropped = fair_trim(state.urls, self._max_pending, MAX_PENDING_BYTES)
        if dropped:
            self.report.urls_dropped += dropped
            logger.warning(
                "IndexNow pending set is full; the newest URLs of its largest sections were "
                "dropped without being sent",
                dropped=dropped,
                max_pending=self._max_pending,
            )
        self._save(state)
        written.append(self.pending_key)
        self.report.pending = len(state.urls)
        return written

    def submit(self, now: float, time_left: Callable[[], float]) -> list[str]:
        """Send the pending URLs, oldest first, 10,000 per POST, unless a backoff is running,
        while the run has time left (``time_left``, seconds; no POST outlasts it); returns the
        keys written (the pending object when it changed)."""
        state = self._load()
        report = self.report
        report.pending = len(state.urls)
        if not state.urls:
            return []
        if now < state.next_attempt_at:
            report.next_attempt_at = format_w3c_epoch(state.next_attempt_at)
            return []
        changed = False
        while state.urls and report.requests < self._max_requests and time_left() > 0:
            batch = list(state.urls)[:MAX_URLS_PER_POST]
            answer = self.client.post(batch, now, budget=time_left())
            report.requests += 1
            if answer.outcome is AnswerKind.RETRY:
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
            if answer.outcome is AnswerKind.ACCEPTED:
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
        return [self.pending_key]

    # -- storage -------------------------------------------------------------------------------

    def _load(self) -> _Pending:
        """The stored set; one that cannot be read is replaced by an empty one, and why is kept
        in the report (``state_reset``) for the run to log and count."""
        if self._state is None:
            try:
                body = read_bounded(self._s3, self._bucket, self.pending_key, MAX_READ_BACK_BYTES)
                self._state = _Pending() if body is None else _Pending.decode(body)
            except (ValueError, TypeError, RecursionError) as error:  # any bytes at all
                self.report.state_reset = f"{type(error).__name__}: {error}"
                self._state = _Pending()
        return self._state

    def _save(self, state: _Pending) -> None:
        self._s3.put_object(
            Bucket=self._bucket,
            Key=self.pending_key,
            Body=state.encode(),
            ContentType="application/gzip",
        )
