"""Skip the SDK's retry waits in a local run, keeping every retry and counting the wait skipped.

botocore decides on a retry in its ``needs-retry`` handler and then sleeps for the delay that
handler chose (``botocore.endpoint.Endpoint._needs_retry`` calls ``time.sleep``; it is the only
sleep in that module). Against moto with injected faults, that sleep is pure waiting: at a 30%
fault rate the legacy DynamoDB policy (up to 10 attempts, 50 ms doubling) waits about 35 ms per
call on average, which for 20,000 writes is over ten minutes of idle time.

:func:`skipped_backoff` replaces the ``time`` module seen by ``botocore.endpoint`` with one whose
``sleep`` only adds the delay to a counter. The number of attempts, the retry decisions and the
errors raised when attempts run out are unchanged: only wall-clock time is saved.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import botocore.endpoint


class SkippedWaits:
    """A stand-in for the ``time`` module whose ``sleep`` records the delay instead of waiting."""

    def __init__(self, real: ModuleType) -> None:
        self._real = real
        self._lock = threading.Lock()
        self.seconds = 0.0
        self.waits = 0

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.seconds += float(seconds)
            self.waits += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextlib.contextmanager
def skipped_backoff() -> Iterator[SkippedWaits]:
    """While active, botocore retries at once; yields the record of the waits it skipped."""
    endpoint: Any = botocore.endpoint
    saved = endpoint.time
    waits = SkippedWaits(time)
    endpoint.time = waits
    try:
        yield waits
    finally:
        endpoint.time = saved
