"""Time in the local deployment: a clock that starts at a chosen moment, and the event an
EventBridge schedule delivers."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from sitemap_updater.protocol.lastmod import format_w3c
from sitemap_updater_local.deployment.stack.template import ACCOUNT_ID, REGION


class SimulatedClock:
    """A clock that starts at a chosen moment and runs at the pace of the system clock;
    :meth:`advance` moves it on (a gap between waves)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError(f"start {start.isoformat()!r} must carry a time zone")
        self._offset = start.timestamp() - time.time()

    def __call__(self) -> float:
        return time.time() + self._offset

    def advance(self, seconds: float) -> None:
        self._offset += seconds


def scheduled_event(now: datetime | None = None) -> dict[str, Any]:
    """The event an EventBridge schedule delivers to a Lambda target."""
    moment = format_w3c(now or datetime.now(UTC))
    return {
        "version": "0",
        "id": "00000000-0000-0000-0000-000000000000",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT_ID,
        "time": moment,
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/sitemap-updater-local"],
        "detail": {},
    }
