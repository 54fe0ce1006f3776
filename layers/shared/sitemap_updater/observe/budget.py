"""The daily budget of Search Console calls per property, spread over the day's runs.

Every call a run makes to Search Console for a property (an inspection, a sitemap read, a
submission) counts against that property's budget of ``daily`` calls per UTC day, which
template.yaml holds under URL Inspection's quota of 2,000 a day. A run may spend its share of
what is left today: what is left divided by the runs left today (so a run that spent less, or
failed, leaves more to the next), rounded up. Each call is added to the day's item
(``observe#budget`` / ``<property>#<date>``) as it is made, so a run that ends early, however
it ends, has counted every call it made.

A run also keeps what the property's calls met (:class:`RunBudget`): the answers, the quota
refusals (429) by window, the waits a per-minute refusal asked for, and the stop, if any, that
ended its calls for the run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.observe.records import day_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from mypy_boto3_dynamodb.client import DynamoDBClient

BUDGET_PK: Final = "observe#budget"
_DAY: Final = 86_400


def runs_left_today(now: float, interval_seconds: int) -> int:
    """The runs still to come today, this one included, one every ``interval_seconds``."""
    left = _DAY - (int(now) % _DAY)
    return max(1, math.ceil(left / interval_seconds))


def share_of_run(daily: int, used: int, now: float, interval_seconds: int) -> int:
    """The calls one run may make: what is left of ``daily`` over the runs left today."""
    remaining = max(0, daily - used)
    return min(remaining, math.ceil(remaining / runs_left_today(now, interval_seconds)))


class RunBudget:
    """The calls one run may still make for one property; :meth:`take` counts one (and
    ``record``, when given, records it at once)."""

    def __init__(self, allowed: int, record: Callable[[], None] | None = None) -> None:
        self.allowed = allowed
        self.spent = 0
        self.answered = 0
        #: quota refusals (429 or a quota error) by window (``per-minute``, ``daily``, ``unknown``)
        self.refused: dict[str, int] = {}
        #: seconds waited on the refusals' ``Retry-After``
        self.waited = 0.0
        #: why the property's calls ended for this run (None: they did not), and its words
        self.stopped_on: str | None = None
        self.stop_reason: str | None = None
        self._record = record

    @property
    def left(self) -> int:
        return 0 if self.stopped_on is not None else self.allowed - self.spent

    def take(self) -> bool:
        """Count a call if the run's share allows it; False when it is spent or stopped."""
        if self.left <= 0:
            return False
        self.spent += 1
        if self._record is not None:
            self._record()
        return True

    def stop(self, why: str, reason: str) -> None:
        """End the property's calls for this run (``why``: ``daily``, ``per-minute``, ...)."""
        if self.stopped_on is None:
            self.stopped_on, self.stop_reason = why, reason

    def report(self) -> dict[str, Any]:
        """What the run's calls of the property did, as ``coverage`` shows it."""
        return {
            "allowed": self.allowed,
            "calls": self.spent,
            "answered": self.answered,
            "refused": dict(sorted(self.refused.items())),
            "waited_seconds": round(self.waited, 1),
            "stopped_on": self.stopped_on,
            "stop_reason": self.stop_reason,
        }


class BudgetLedger:
    """The calls spent per property and UTC day, in the state table."""

    def __init__(
        self, client: DynamoDBClient, table: str, daily: int, interval_seconds: int
    ) -> None:
        self._client = client
        self._table = table
        self.daily = daily
        self.interval_seconds = interval_seconds

    def _key(self, prop: str, now: float) -> dict[str, Any]:
        return {"pk": {"S": BUDGET_PK}, "sk": {"S": f"{prop}#{day_of(now)}"}}

    def used(self, prop: str, now: float) -> int:
        item = self._client.get_item(
            TableName=self._table, Key=self._key(prop, now), ConsistentRead=True
        ).get("Item")
        return int(item["used"]["N"]) if item else 0

    def open(self, prop: str, now: float) -> RunBudget:
        """This run's budget for ``prop``, each call it counts recorded as it is made."""
        allowed = share_of_run(self.daily, self.used(prop, now), now, self.interval_seconds)
        return RunBudget(allowed, lambda: self.record(prop, now))

    def record(self, prop: str, now: float, calls: int = 1) -> None:
        """Add ``calls`` to the day's count (kept two days)."""
        self._client.update_item(
            TableName=self._table,
            Key=self._key(prop, now),
            UpdateExpression="ADD used :n SET #ttl = :ttl",
            ExpressionAttributeNames={"#ttl": "ttl"},
            ExpressionAttributeValues={
                ":n": {"N": str(calls)},
                ":ttl": {"N": str(int(now) + 2 * _DAY)},
            },
        )
