"""What the observer keeps in the state table: one item per observed URL, and the figures.

- ``observe#url#<origin>#<section>`` / ``<url>``: the last inspection and health check of a
  sampled URL (:class:`Observation`), kept :data:`WINDOW_DAYS` (the item's ``ttl``); the
  figures of a section are computed from the items of its partition;
- ``observe#figures`` / ``<origin>#<section>``: the figures of a host's section as the last run
  computed them (JSON), read by ``sitemap-updater coverage``; ``<origin>#`` holds the host's.

The items live beside the rebuild's bookkeeping under their own partition keys, which no rebuild
reads or deletes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

OBSERVED_PK: Final = "observe#url#"
FIGURES_PK: Final = "observe#figures"
#: how long an observation counts (and is kept): the figures are over this window
WINDOW_DAYS: Final = 14
_DAY: Final = 86_400


@dataclass(frozen=True, slots=True)
class Observation:
    """The last that was seen of one sampled URL (times in epoch seconds; None: not known)."""

    url: str
    #: ``recent`` (drawn among the section's newest changes) or ``random`` (drawn uniformly)
    stratum: str
    #: the URL's lastmod when it was drawn (the time of its last change)
    changed_at: float | None = None
    inspected_at: float | None = None
    #: URL Inspection's verdict (``PASS``: on Google) and its words for the coverage
    verdict: str | None = None
    coverage_state: str | None = None
    google_canonical: str | None = None
    user_canonical: str | None = None
    crawled_at: float | None = None
    checked_at: float | None = None
    status: int | None = None
    redirect_to: str | None = None
    #: what the health check found wrong (``engines.health.PROBLEMS``), None when healthy
    problem: str | None = None
    #: health checks in a row that found the URL unhealthy
    failures: int = 0

    @property
    def indexed(self) -> bool | None:
        return None if self.verdict is None else self.verdict == "PASS"

    @property
    def foreign_google_canonical(self) -> bool:
        """Google chose another canonical than the URL itself."""
        return self.google_canonical is not None and self.google_canonical != self.url

    def with_changes(self, **changes: Any) -> Observation:
        return replace(self, **changes)


_FIELDS: Final = {f.name for f in fields(Observation)}


def _observation(url: str, data: Mapping[str, Any]) -> Observation:
    known = {k: v for k, v in data.items() if k in _FIELDS and k != "url"}
    return Observation(url=url, **known)


def partition_items(client: DynamoDBClient, table: str, pk: str) -> Iterator[dict[str, Any]]:
    """Every item of the partition ``pk`` of ``table``, page after page (each of the
    observer's kinds of item has a partition of its own)."""
    paginator = client.get_paginator("query")
    for page in paginator.paginate(
        TableName=table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": pk}},
    ):
        yield from page.get("Items", [])


class ObservationStore:
    """The observation items of the state table ``table``."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    @staticmethod
    def partition(origin: str, section: str) -> str:
        return f"{OBSERVED_PK}{origin}#{section}"

    def load(self, origin: str, section: str, now: float) -> dict[str, Observation]:
        """The section's observations of the window, by URL."""
        found: dict[str, Observation] = {}
        for item in partition_items(self._client, self._table, self.partition(origin, section)):
            if int(item.get("ttl", {}).get("N", "0")) <= now:
                continue  # expired; DynamoDB deletes it within days
            found[item["sk"]["S"]] = _observation(item["sk"]["S"], json.loads(item["data"]["S"]))
        return found

    def save(self, origin: str, section: str, observation: Observation, now: float) -> None:
        data = {k: v for k, v in asdict(observation).items() if k != "url" and v is not None}
        self._client.put_item(
            TableName=self._table,
            Item={
                "pk": {"S": self.partition(origin, section)},
                "sk": {"S": observation.url},
                "data": {"S": json.dumps(data, sort_keys=True)},
                "ttl": {"N": str(int(now) + WINDOW_DAYS * _DAY)},
            },
        )


class FiguresStore:
    """The figures items: one JSON object per host (``<origin>#``) and per section."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def save(self, origin: str, section: str, figures: Mapping[str, Any]) -> None:
        self._client.put_item(
            TableName=self._table,
            Item={
                "pk": {"S": FIGURES_PK},
                "sk": {"S": f"{origin}#{section}"},
                "data": {"S": json.dumps(figures, sort_keys=True)},
            },
        )

    def load_all(self) -> dict[tuple[str, str], dict[str, Any]]:
        """Every figures item, by (origin, section); the section is ``""`` for a host's own."""
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for item in partition_items(self._client, self._table, FIGURES_PK):
            origin, _, section = item["sk"]["S"].rpartition("#")
            found[(origin, section)] = json.loads(item["data"]["S"])
        return found
