"""The daily budget of Search Console calls per property, spread over the day's runs.

Every call a run makes to Search Console for a property (an inspection, a sitemap read, a
submission) counts against that property's budget of ``daily`` calls per UTC day, which
template.yaml holds under URL Inspection's quota of 2,000 a day. A run may spend its share of
what is left today: what is left divided by the runs left today (so a run that spent less, or
failed, leaves more to the next), rounded up. The calls spent are added to the day's item
(``observe#budget`` / ``<property>#<date>``) when the run ends.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

BUDGET_PK: Final = "observe#budget"
_DAY: Final = 86_400


def day_of(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def runs_left_today(now: float, interval_seconds: int) -> int:
    """The runs still to come today, this one included, one every ``interval_seconds``."""
    left = _DAY - (int(now) % _DAY)
    return max(1, math.ceil(left / interval_seconds))


def share_of_run(daily: int, used: int, now: float, interval_seconds: int) -> int:
    """The calls one run may make: what is left of ``daily`` over the runs left today."""
    remaining = max(0, daily - used)
    return min(remaining, math.ceil(remaining / runs_left_today(now, interval_seconds)))


class RunBudget:
    """The calls one run may still make for one property; :meth:`take` counts one."""

    def __init__(self, allowed: int) -> None:
        self.allowed = allowed
        self.spent = 0

    @property
    def left(self) -> int:
        return self.allowed - self.spent

    def take(self) -> bool:
        """Count a call if the run's share allows it; False when it is spent."""
        if self.spent >= self.allowed:
            return False
        self.spent += 1
        return True


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
        """This run's budget for ``prop``."""
        return RunBudget(share_of_run(self.daily, self.used(prop, now), now, self.interval_seconds))

    def close(self, prop: str, budget: RunBudget, now: float) -> None:
        """Add what the run spent to the day's count (kept two days)."""
        if budget.spent == 0:
            return
        self._client.update_item(
            TableName=self._table,
            Key=self._key(prop, now),
            UpdateExpression="ADD used :n SET #ttl = :ttl",
            ExpressionAttributeNames={"#ttl": "ttl"},
            ExpressionAttributeValues={
                ":n": {"N": str(budget.spent)},
                ":ttl": {"N": str(int(now) + 2 * _DAY)},
            },
        )
