"""Leaving unhealthy URLs out of the sitemaps (``ExcludeUnhealthy``, off by default).

A URL is excluded only when :data:`EXCLUDABLE` names its problem, a problem of the URL itself
(missing, redirected, noindex, a canonical elsewhere), and only after that many health checks in
a row, each in another run, found it: a server that is down or failing (``unreachable``,
``error``) never excludes anything, so an outage cannot empty a section.

Excluding sets ``excl`` on the URL's item in the URL table (``store.items.is_live`` then says
no), which the item's stream record carries to the next rebuild like any change; the exclusion
is recorded under ``observe#excluded#<scope>`` / ``<URL hash>`` (``records.scope_key``; the URL
in ``url``) with its reason. Each run checks the
excluded URLs again and restores those that are healthy (removes ``excl``); turning the option
off restores them all. Every exclusion and restoration is counted in the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from sitemap_updater.observe.records import Observation, partition_items, scope_key
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
#: DynamoDB's most bytes of a partition key: a longer legacy key was never written
LEGACY_KEY_BYTES: Final = 2_048
#: the problems that may exclude a URL: the URL's own, not the server's
EXCLUDABLE: Final = frozenset({"not-found", "redirect", "noindex", "foreign-canonical"})
#: the exclusions a section's figures list (the oldest first; ``excluded`` counts them all)
EXCLUSIONS_KEPT: Final = 100


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
        return f"{EXCLUDED_PK}{scope_key(origin, section)}"

    def _put(self, origin: str, section: str, excluded: Excluded) -> None:
        self._client.put_item(
            TableName=self._state,
            Item={
                "pk": {"S": self._partition(origin, section)},
                "sk": {"S": url_hash(excluded.url)},
                "url": {"S": excluded.url},
                "problem": {"S": excluded.problem},
                "since": {"N": str(excluded.since)},
            },
        )

    def load(self, origin: str, section: str) -> dict[str, Excluded]:
        found = {
            item["url"]["S"]: Excluded(
                item["url"]["S"], item["problem"]["S"], int(item["since"]["N"])
            )
            for item in partition_items(self._client, self._state, self._partition(origin, section))
            if "url" in item
        }
        return found | self._moved_from_legacy(origin, section)

    def _moved_from_legacy(self, origin: str, section: str) -> dict[str, Excluded]:
        """The exclusions an earlier version recorded under ``observe#excluded#<origin>#
        <section>`` / ``<url>``, moved to their hashed keys (their URLs stay excluded)."""
        legacy = f"{EXCLUDED_PK}{origin}#{section}"
        if len(legacy.encode()) > LEGACY_KEY_BYTES:
            return {}  # a key no earlier version could have written
        moved: dict[str, Excluded] = {}
        for item in partition_items(self._client, self._state, legacy):
            excluded = Excluded(item["sk"]["S"], item["problem"]["S"], int(item["since"]["N"]))
            self._put(origin, section, excluded)
            self._client.delete_item(
                TableName=self._state, Key={"pk": item["pk"], "sk": item["sk"]}
            )
            moved[excluded.url] = excluded
        return moved

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
        self._put(origin, section, Excluded(seen.url, seen.problem or "", int(now)))
        return True

    def restore(self, origin: str, section: str, url: str, now: float) -> None:
        """Bring ``url`` back into the sitemaps (a no-op for an item a change has rewritten)."""
        self._mark(url, "REMOVE #ex SET #wt = :wt", "attribute_exists(#ex)", {}, now)
        self._client.delete_item(
            TableName=self._state,
            Key={"pk": {"S": self._partition(origin, section)}, "sk": {"S": url_hash(url)}},
        )


def due_again(
    excluded: Mapping[str, Excluded], observed: Mapping[str, Observation], now: float, most: int
) -> list[str]:
    """The URLs to check again this run, at most ``most``: the excluded ones (which the sample
    never draws, being out of the files), then the suspects (checked before with a problem
    that may exclude)."""
    suspects = [
        o.url
        for o in observed.values()
        if o.url not in excluded
        and o.problem in EXCLUDABLE
        and o.checked_at is not None
        and o.checked_at < now
    ]
    return [*excluded, *suspects][:most]


def review(
    exclusions: Exclusions,
    origin: str,
    section: str,
    excluded: dict[str, Excluded],
    observed: Mapping[str, Observation],
    *,
    turned_on: bool,
    after_failures: int,
    now: float,
) -> dict[str, Any]:
    """One run's review of a section, once its URLs were checked (each check of this run has
    ``checked_at == now``): restore the excluded URLs found healthy, and exclude the URLs
    checked now that failed ``after_failures`` times in a row. Turned off, it restores every
    excluded URL. Returns the figures."""
    if not turned_on:
        for url in excluded:
            exclusions.restore(origin, section, url, now)
        restored = len(excluded)
        excluded.clear()
        return {"excluded": 0, "restored_this_run": restored, "exclusions": []}
    restored = added = 0
    for url in list(excluded):
        seen = observed.get(url)
        if seen is not None and seen.checked_at == now and seen.problem is None:
            exclusions.restore(origin, section, url, now)
            del excluded[url]
            restored += 1
    for seen in observed.values():
        fresh = seen.checked_at == now and seen.url not in excluded
        due = fresh and should_exclude(seen, after_failures)
        if due and exclusions.exclude(origin, section, seen, now):
            excluded[seen.url] = Excluded(seen.url, seen.problem or "", int(now))
            added += 1
    return {
        "excluded": len(excluded),
        "excluded_this_run": added,
        "restored_this_run": restored,
        "exclusions": [
            {"url": e.url, "problem": e.problem, "since": e.since}
            for e in sorted(excluded.values(), key=lambda e: e.since)[:EXCLUSIONS_KEPT]
        ],
    }
