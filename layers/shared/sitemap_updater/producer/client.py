"""The producer client: changes in one at a time, array messages out with ``SendMessageBatch``.

Usable from any Python program (a CMS, a job): it needs boto3 and this package's contract,
not the local tooling. Rules (docs/producers.md, "The producer client"):

* **Checked at once.** Each change is judged by the ingest function's judge before it is
  buffered; a change ingest would reject raises ``checks.ChangeRejected`` (field, value, rule)
  in the caller and is not buffered.
* **Ordered.** A change without ``occurred_at`` gets the client's clock at ``add`` (UTC,
  microseconds, strictly increasing per client), so the order of the calls is the order of
  the changes even when several of them share one message.
* **Packed.** Changes go into JSON array bodies of at most 500 changes and 256 KiB, sent with
  ``SendMessageBatch`` (``producer.batches``); entries SQS failed are sent again with backoff,
  a bounded number of times.
* **Flushed** when the buffer holds more than one batch call (10 bodies or 1 MiB: the full
  bodies are sent, the one being filled stays); when its oldest change is ``max_age_seconds``
  old (checked on each ``add``, by ``flush_if_due``, and by an optional background thread); on
  ``flush``; and on ``close`` (the context manager's exit; optionally at interpreter exit).
* **Never dropped silently.** Changes that could not be sent raise ``checks.SendFailed``,
  which holds them. A failure of a background flush is raised by the next call of ``add``,
  ``flush`` or ``close``.
* **Thread-safe.** One lock guards the buffer and another keeps one flush at a time, so any
  number of threads may call ``add`` on one client.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Self

from botocore.exceptions import ClientError

from sitemap_updater.page.model import MAX_ARRAY_CHANGES
from sitemap_updater.page.order import Stamps, instant_text
from sitemap_updater.producer.batches import (
    BATCH_SIZE,
    MAX_ATTEMPTS,
    MAX_BATCH_BYTES,
    BatchSender,
    SendFailure,
    region_of_queue_url,
)
from sitemap_updater.producer.checks import ChangeRejected, SendFailed, check_change
from sitemap_updater.producer.packing import MAX_BODY_BYTES, ArrayPacker, Body, encode_change
from sitemap_updater.sites import Sites

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

#: Default age of the oldest buffered change at which the buffer is sent.
DEFAULT_MAX_AGE_SECONDS: Final = 20.0


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class ChangeStats:
    """What one client has sent so far."""

    changes: int = 0
    messages: int = 0
    batch_calls: int = 0


class ChangeSender:
    """Checks, buffers, packs and sends change objects to the ingest queue (module text).

    ``site`` is the stack's ``SiteUrl`` (one origin or the comma-separated list; the judge needs
    it), and ``alternates_any_host`` its ``AlternatesAnyHost``. Without ``sqs``, a client is made
    for ``queue_url``'s region (or ``region``, or the environment's) and ``endpoint_url``.
    """

    def __init__(
        self,
        queue_url: str,
        *,
        site: str | Sites,
        alternates_any_host: bool = False,
        sqs: SQSClient | None = None,
        region: str | None = None,
        endpoint_url: str | None = None,
        max_age_seconds: float = DEFAULT_MAX_AGE_SECONDS,
        max_changes: int = MAX_ARRAY_CHANGES,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_attempts: int = MAX_ATTEMPTS,
        background_flush: bool = False,
        flush_at_exit: bool = False,
        clock: Callable[[], datetime] = _utc_now,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if max_age_seconds <= 0:
            raise ValueError("max_age_seconds must be more than 0")
        self._sites = (
            site
            if not isinstance(site, str)
            else Sites.parse(site, alternates_any_host=alternates_any_host)
        )
        if sqs is None:
            import boto3  # here: a caller that passes its own client needs no default session

            sqs = boto3.client(
                "sqs",
                region_name=region or region_of_queue_url(queue_url),
                endpoint_url=endpoint_url,
            )
        self._sqs, self._queue_url = sqs, queue_url
        self._max_age = timedelta(seconds=max_age_seconds)
        self._max_attempts, self._clock, self._sleep = max_attempts, clock, sleep
        self._packer = ArrayPacker(max_changes, max_body_bytes)
        self._lock = threading.Lock()  # the buffer, the last stamp, the failures
        self._send_lock = threading.Lock()  # one flush at a time
        self._oldest: datetime | None = None
        self._stamps = Stamps()
        self._unsent: list[dict[str, Any]] = []
        self._failures: list[SendFailure] = []
        self._closed = False
        self.stats = ChangeStats()
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        if background_flush:
            self._timer = threading.Thread(
                target=self._run_timer,
                args=(max_age_seconds / 4,),
                name="sitemap-change-flush",
                daemon=True,
            )
            self._timer.start()
        self._at_exit = flush_at_exit
        if flush_at_exit:
            atexit.register(self.close)

    # -- taking changes -----------------------------------------------------------------------

    def upsert(self, url: str, **fields: Any) -> None:
        """Add an upsert of ``url`` (the fields of ``page.model.Page`` as keyword arguments)."""
        self.add({"action": "upsert", "url": url, **fields})

    def delete(self, url: str, *, occurred_at: str | None = None) -> None:
        """Add a delete of ``url``."""
        change: dict[str, Any] = {"action": "delete", "url": url}
        if occurred_at is not None:
            change["occurred_at"] = occurred_at
        self.add(change)

    def add(self, change: Mapping[str, Any]) -> None:
        """Check one change object and buffer it; send the buffer if it is due.

        Raises :class:`ChangeRejected` (the change is not buffered) or :class:`SendFailed`
        (this change is buffered; the error holds earlier ones that could not be sent).
        """
        now = self._clock()
        stamped = dict(change)
        with self._lock:
            if self._closed:
                raise RuntimeError("the change sender is closed")
            if stamped.get("occurred_at") is None:
                stamped["occurred_at"] = instant_text(self._stamps.next(now))
        text, size = self._checked(stamped, now)
        with self._lock:
            if self._closed:  # closed while this change was checked: its last flush is done
                raise RuntimeError("the change sender is closed")
            self._packer.add(text, size, stamped)
            if self._oldest is None:
                self._oldest = now
            full = len(self._packer.closed) >= BATCH_SIZE or self._packer.size > MAX_BATCH_BYTES
            due = now - self._oldest >= self._max_age
        if due or full:
            self._flush(everything=due)
        self._raise_failures()

    def _checked(self, change: dict[str, Any], now: datetime) -> tuple[str, int]:
        try:
            text = encode_change(change)
        except (TypeError, ValueError) as exc:
            rule = f"must be encodable as JSON ({exc})"
            raise ChangeRejected("message", repr(change), rule) from None
        check_change(text, self._sites, now)
        size = len(text.encode("utf-8"))
        if not self._packer.fits_alone(size):
            raise ChangeRejected(
                "message",
                f"{size} bytes as JSON",
                f"a change must fit in one message body of {self._packer.max_body_bytes:,} bytes",
            )
        return text, size

    # -- flushing -----------------------------------------------------------------------------

    def flush(self) -> None:
        """Send every buffered change now; raises :class:`SendFailed` for any not sent."""
        self._flush()
        self._raise_failures()

    def flush_if_due(self) -> bool:
        """Send the buffer if its oldest change is ``max_age_seconds`` old; whether it was.
        Failures are kept for the next ``add``, ``flush`` or ``close`` to raise."""
        with self._lock:
            due = self._oldest is not None and self._clock() - self._oldest >= self._max_age
        if due:
            self._flush()
        return due

    @property
    def buffered(self) -> int:
        """Changes waiting to be sent."""
        with self._lock:
            return self._packer.changes

    def _flush(self, everything: bool = True) -> None:
        """Send the buffer, or only its full bodies (the oldest change's age then stays)."""
        with self._send_lock:
            with self._lock:
                if everything:
                    bodies = self._packer.take()
                    self._oldest = None
                else:
                    bodies = self._packer.take_closed()
            if bodies:
                self._send(bodies)

    def _send(self, bodies: list[Body]) -> None:
        """Send ``bodies``; keep the changes of those not sent, with SQS's reasons (or, for a
        call that raised, the error's code or class name and its message)."""
        failures: list[SendFailure] = []
        sent: set[str] = set()
        sender = BatchSender(
            self._sqs,
            self._queue_url,
            max_attempts=self._max_attempts,
            sleep=self._sleep,
            on_failure=failures.append,
            on_sent=sent.update,
        )
        try:
            for key, body in enumerate(bodies):
                sender.add(str(key), body.text)
            sender.flush()
        except Exception as exc:  # whatever stopped the sending, no body is lost
            error = exc.response.get("Error", {}) if isinstance(exc, ClientError) else {}
            code = str(error.get("Code", type(exc).__name__))
            message = str(error.get("Message", exc))
            failed = {f.where for f in failures}
            failures += [
                SendFailure(str(key), code, message)
                for key in range(len(bodies))
                if str(key) not in sent and str(key) not in failed
            ]
        unsent = [c for f in failures for c in bodies[int(f.where)].changes]
        with self._lock:
            self.stats.messages += len(sent)
            self.stats.changes += sum(len(bodies[int(key)].changes) for key in sent)
            self.stats.batch_calls += sender.stats.batches
            self._unsent += unsent
            self._failures += failures

    def _raise_failures(self) -> None:
        with self._lock:
            if not self._unsent:
                return
            unsent, failures = self._unsent, self._failures
            self._unsent, self._failures = [], []
        raise SendFailed(unsent, failures)

    def _run_timer(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.flush_if_due()

    # -- closing ------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the background thread, send what is buffered, and take no more changes.

        Raises :class:`SendFailed` for any change not sent. Closing twice does nothing more."""
        with self._lock:
            self._closed = True
        self._stop.set()
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.join()
        if self._at_exit:
            atexit.unregister(self.close)
            self._at_exit = False
        self.flush()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
