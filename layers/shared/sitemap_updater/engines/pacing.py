"""A per-host rate limit for the URL health check's fetches."""

from __future__ import annotations

import time
from collections.abc import Callable

from sitemap_updater.bounded_http import Clock

Sleeper = Callable[[float], None]


class HostPacer:
    """Lets at most ``per_second`` requests per second go to each host: :meth:`wait` returns
    when the next request to ``host`` may start, sleeping (``sleep``) for what is left of the
    interval. Hosts are paced apart: a slow host never holds back another. ``clock`` and
    ``sleep`` are injectable so tests need no real waiting."""

    def __init__(
        self,
        per_second: float,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleeper = time.sleep,
    ) -> None:
        if not per_second > 0:
            raise ValueError(f"per_second={per_second!r} must be a number above 0")
        self.interval = 1.0 / per_second
        self._clock = clock
        self._sleep = sleep
        self._next: dict[str, float] = {}

    def wait(self, host: str) -> None:
        """Block until a request to ``host`` keeps within the rate, and count it."""
        now = self._clock()
        start = max(now, self._next.get(host, now))
        if start > now:
            self._sleep(start - now)
        self._next[host] = start + self.interval
