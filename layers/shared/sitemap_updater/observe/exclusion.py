"""Leaving unhealthy URLs out of the sitemaps (``ExcludeUnhealthy``, off by default).

A URL is excluded only when :data:`EXCLUDABLE` names its problem, a problem of the URL itself
(missing, redirected, noindex, a canonical elsewhere), and only after that many health checks in
a row, each in another run, found it: a server that is down or failing (``unreachable``,
``error``) never excludes anything, so an outage cannot empty a section.

Excluding sets ``excl`` on the URL's item in the URL table (``store.items.is_live`` then says
no), which the item's stream record carries to the next rebuild like any change; the exclusion
is recorded under ``observe#excluded#<origin>#<section>`` with its reason. Each run checks the
excluded URLs again and restores those that are healthy (removes ``excl``); turning the option
off restores them all. Every exclusion and restoration is counted in the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from sitemap_updater.observe.records import Observation, partition_items
from sitemap_updater.store.keys import (
    ATTR_EXCLUDED,
    ATTR_STATE,
    ATTR_WRITTEN_AT,
    STATE_LIVE,
    key_attributes,
    url_hash,
    url_key,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

EXCLUDED_PK: Final = "observe#excluded#"
#: the problems that may exclude a URL: the URL's own, not the server's
EXCLUDABLE: Final = frozenset({"not-found", "redirect", "noindex", "foreign-canonical"})


@dataclass(frozen=True, slots=True)
class Excluded:
    url: str
    problem: str
    since: int


def should_exclude(seen: Observation, after_failures: int) -> bool:
    """Whether ``seen`` has failed often enough, for a reason of its own, to be left out."""
    return seen.problem in EXCLUDABLE and seen.failures >= after_failures


class Exclusions:
    """The excluded URLs of the URL table ``url_table``, recorded in ``state_table``."""

    def __init__(self, client: DynamoDBClient, url_table: str, state_table: str) -> None:
        self._client = client
        self._urls = url_table
        self._state = state_table

    @staticmethod
    def _partition(origin: str, section: str) -> str:
        return f"{EXCLUDED_PK}{origin}#{section}"

    def load(self, origin: str, section: str) -> dict[str, Excluded]:
        items = partition_items(self._client, self._state, self._partition(origin, section))
        return {
            item["sk"]["S"]: Excluded(
                item["sk"]["S"], item["problem"]["S"], int(item["since"]["N"])
            )
            for item in items
        }

    def _mark(
        self, url: str, expression: str, condition: str, values: dict[str, Any], now: float
    ) -> bool:
        """One conditional update of the URL's item, stamped as written ``now`` (so the
        rebuild's freshness lag counts from the exclusion); False when the condition does not
        hold (the URL is gone, or already in the wanted state)."""
        try:
            self._client.update_item(
                TableName=self._urls,
                Key=key_attributes(url_key(url_hash(url))),
                UpdateExpression=expression,
                ConditionExpression=condition,
                ExpressionAttributeNames={"#ex": ATTR_EXCLUDED, "#wt": ATTR_WRITTEN_AT}
                | ({"#st": ATTR_STATE} if "#st" in condition else {}),
                ExpressionAttributeValues={":wt": {"N": str(int(now * 1000))}, **values},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def exclude(self, origin: str, section: str, seen: Observation, now: float) -> bool:
        """Leave ``seen.url`` out of the sitemaps; False if it is not a live URL any more."""
        done = self._mark(
            seen.url,
            "SET #ex = :now, #wt = :wt",
            "attribute_exists(pk) AND #st = :live AND attribute_not_exists(#ex)",
            {":now": {"N": str(int(now))}, ":live": {"S": STATE_LIVE}},
            now,
        )
        if not done:
            return False
        self._client.put_item(
            TableName=self._state,
            Item={
                "pk": {"S": self._partition(origin, section)},
                "sk": {"S": seen.url},
                "problem": {"S": seen.problem or ""},
                "since": {"N": str(int(now))},
            },
        )
        return True

    def restore(self, origin: str, section: str, url: str, now: float) -> None:
        """Bring ``url`` back into the sitemaps (a no-op for an item a change has rewritten)."""
        self._mark(url, "REMOVE #ex SET #wt = :wt", "attribute_exists(#ex)", {}, now)
        self._client.delete_item(
            TableName=self._state,
            Key={"pk": {"S": self._partition(origin, section)}, "sk": {"S": url}},
        )


def review(
    exclusions: Exclusions,
    origin: str,
    section: str,
    observed: dict[str, Observation],
    *,
    turned_on: bool,
    after_failures: int,
    rechecks: int,
    recheck: Callable[[str], Observation | None],
    now: float,
) -> tuple[dict[str, Any], int]:
    """One run's review of a section: check the excluded URLs (which the sample never draws,
    being out of the files) and the suspects again with ``recheck`` (at most ``rechecks``; it
    answers None when the run is out of time), restore the healthy ones, and exclude the URLs
    checked now that failed ``after_failures`` times in a row. Turned off, it restores every
    excluded URL. Returns the figures and the checks made."""
    excluded = exclusions.load(origin, section)
    if not turned_on:
        for url in excluded:
            exclusions.restore(origin, section, url, now)
        return {"excluded": 0, "restored_this_run": len(excluded), "exclusions": []}, 0
    suspects = [
        o.url
        for o in observed.values()
        if o.problem in EXCLUDABLE and o.checked_at is not None and o.checked_at < now
    ]
    restored = added = checked = 0
    for url in [*excluded, *suspects][:rechecks]:
        seen = recheck(url)
        if seen is None:
            break
        observed[url] = seen
        checked += 1
        if url in excluded and seen.problem is None:
            exclusions.restore(origin, section, url, now)
            del excluded[url]
            restored += 1
    for seen in observed.values():
        fresh = seen.checked_at == now and seen.url not in excluded
        due = fresh and should_exclude(seen, after_failures)
        if due and exclusions.exclude(origin, section, seen, now):
            excluded[seen.url] = Excluded(seen.url, seen.problem or "", int(now))
            added += 1
    figures = {
        "excluded": len(excluded),
        "excluded_this_run": added,
        "restored_this_run": restored,
        "exclusions": [
            {"url": e.url, "problem": e.problem, "since": e.since}
            for e in sorted(excluded.values(), key=lambda e: e.since)[:20]
        ],
    }
    return figures, checked
