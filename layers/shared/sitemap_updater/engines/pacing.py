"""A per-host rate limit for the URL health check's fetches."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
Sleeper = Callable[[float], None]


class HostPacer:
    """Lets at most ``per_second`` requests per second go to each host: :meth:`wait` returns
    when the next request to ``host`` may start, sleeping (``sleep``) for what is left of the
    interval. ``clock`` and ``sleep`` are injectable so tests need no real waiting."""

    def __init__(
        self,
        per_second: float,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleeper = time.sleep,
    ) -> None:
        raise NotImplementedError

    def wait(self, host: str) -> None:
        """Block until a request to ``host`` keeps within the rate, and count it."""
        raise NotImplementedError
