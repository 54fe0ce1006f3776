"""What the observer keeps in the state table: one item per observed URL, the figures, their
history.

- ``observe#url#<scope>`` / ``<URL hash>``: the last that was seen of a sampled URL
  (:class:`Observation`, the URL itself in ``url``), kept :data:`WINDOW_DAYS` (``ttl``); a
  section's figures are computed from the items of its partition;
- ``observe#figures`` / ``<scope>``: the figures of a host's section as the last run computed
  them (``data``, JSON; ``origin`` and ``section`` as attributes; the host's own under the
  section ``""``), read by ``sitemap-updater coverage``;
- ``observe#history#<scope>`` / ``<UTC date>``: a short entry of each run's figures of that day
  (``entries``), kept :data:`HISTORY_DAYS`.

A scope is a hash of the host's origin and the section's name, and a URL's key the hash of the
URL (``store.keys.url_hash``): a key never grows with what it names, however long a URL or a
host is. Every text stored is capped (:data:`TEXT_CHARS`, :data:`REASON_CHARS`) and every item
sized (``store.items.item_size``) before it is written. The items live beside the rebuild's
bookkeeping under partition keys of their own (``observe#``), which no rebuild reads or deletes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from sitemap_updater.store.items import MAX_ITEM_BYTES, item_size
from sitemap_updater.store.keys import url_hash

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

OBSERVED_PK: Final = "observe#url#"
FIGURES_PK: Final = "observe#figures"
HISTORY_PK: Final = "observe#history#"
#: how long an observation counts (and is kept): the figures are over this window
WINDOW_DAYS: Final = 14
#: how long a day's history is kept
HISTORY_DAYS: Final = 30
#: most characters of a URL or other text from outside that the observer stores (a URL ingest
#: accepts is at most 2,048 bytes; a redirect's Location may be anything)
TEXT_CHARS: Final = 2_048
#: most characters of a reason (what went wrong) stored
REASON_CHARS: Final = 300
#: most characters of one history entry (JSON): with a run every 5 minutes, a day's item stays
#: under 288 entries of it, far below DynamoDB's 400 KB
HISTORY_ENTRY_CHARS: Final = 1_000
#: most entries a day's history item takes (a run every 5 minutes is 288 a day): more runs in a
#: day (invoked by hand) leave their entry out rather than grow the item past its size
HISTORY_DAY_ENTRIES: Final = 300
_DAY: Final = 86_400


class ItemTooLarge(ValueError):
    """An item that would not fit DynamoDB's limit even with its lists cut."""


def scope_key(origin: str, section: str) -> str:
    """The key of a host's section (``section=""``: the host itself) in the observer's items."""
    return hashlib.sha256(f"{origin}\n{section}".encode()).hexdigest()[:32]


def capped(text: str | None, limit: int = TEXT_CHARS) -> str | None:
    """``text`` cut to ``limit`` characters (the cut marked with ``...``); None stays None."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 3] + "..."


def checked_size(item: dict[str, Any]) -> dict[str, Any]:
    """``item``, once measured to fit DynamoDB's item limit; :class:`ItemTooLarge` if not."""
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise ItemTooLarge(f"an item of {size} bytes is over the limit of {MAX_ITEM_BYTES}")
    return item


@dataclass(frozen=True, slots=True)
class Observation:
    """The last that was seen of one sampled URL (times in epoch seconds; None: not known)."""

    url: str
    #: ``recent`` (drawn among the section's newest changes) or ``random`` (drawn uniformly)
    stratum: str
    #: the URL's lastmod when it was last drawn (the time of its last change)
    changed_at: float | None = None
    #: the last inspection that Google answered, and what it said
    inspected_at: float | None = None
    #: URL Inspection's verdict (``PASS``: on Google) and its words for the coverage
    verdict: str | None = None
    coverage_state: str | None = None
    google_canonical: str | None = None
    user_canonical: str | None = None
    crawled_at: float | None = None
    #: why the last inspection gave no answer (None: it answered)
    inspection_error: str | None = None
    #: the crawl latency of the current change (``latency``): the first inspection after it,
    #: the last that saw no crawl since, the first crawl since; and the sample of the change
    #: it replaced (seconds, and whether that crawl was seen or the time is censored)
    looked_at: float | None = None
    uncrawled_at: float | None = None
    first_crawl_at: float | None = None
    earlier_latency: float | None = None
    earlier_crawled: bool | None = None
    #: the last health check
    checked_at: float | None = None
    status: int | None = None
    redirect_to: str | None = None
    #: what the health check found wrong (``engines.health.PROBLEMS``), None when healthy, and
    #: why, when no usable answer came
    problem: str | None = None
    health_reason: str | None = None
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

    def capped(self) -> Observation:
        """This observation with every text from outside cut to its cap."""
        return replace(
            self,
            coverage_state=capped(self.coverage_state, REASON_CHARS),
            google_canonical=capped(self.google_canonical),
            user_canonical=capped(self.user_canonical),
            inspection_error=capped(self.inspection_error, REASON_CHARS),
            redirect_to=capped(self.redirect_to),
            health_reason=capped(self.health_reason, REASON_CHARS),
        )


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
        return f"{OBSERVED_PK}{scope_key(origin, section)}"

    def load(self, origin: str, section: str, now: float) -> dict[str, Observation]:
        """The section's observations of the window, by URL."""
        found: dict[str, Observation] = {}
        for item in partition_items(self._client, self._table, self.partition(origin, section)):
            if int(item.get("ttl", {}).get("N", "0")) <= now or "url" not in item:
                continue  # expired (DynamoDB deletes it within days), or of another form
            url = item["url"]["S"]
            found[url] = _observation(url, json.loads(item["data"]["S"]))
        return found

    def save(self, origin: str, section: str, observation: Observation, now: float) -> None:
        """Write ``observation`` (its texts capped, the item sized first)."""
        seen = observation.capped()
        data = {k: v for k, v in asdict(seen).items() if k != "url" and v is not None}
        item = {
            "pk": {"S": self.partition(origin, section)},
            "sk": {"S": url_hash(seen.url)},
            "url": {"S": seen.url},
            "data": {"S": json.dumps(data, sort_keys=True)},
            "ttl": {"N": str(int(now) + WINDOW_DAYS * _DAY)},
        }
        self._client.put_item(TableName=self._table, Item=checked_size(item))


#: the lists of a figures object cut, longest first, when its item would not fit
_CUTTABLE: Final = ("problems", "exclusions")


def _figures_item(origin: str, section: str, figures: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "pk": {"S": FIGURES_PK},
        "sk": {"S": scope_key(origin, section)},
        "origin": {"S": origin},
        "section": {"S": section},
        "data": {"S": json.dumps(figures, sort_keys=True)},
    }


def fitted(origin: str, section: str, figures: Mapping[str, Any]) -> dict[str, Any]:
    """The figures item, its lists cut by half (worst URLs first) until it fits."""
    kept = dict(figures)
    item = _figures_item(origin, section, kept)
    while item_size(item) > MAX_ITEM_BYTES:
        longest = max(
            (name for name in _CUTTABLE if isinstance(kept.get(name), list) and kept[name]),
            key=lambda name: len(json.dumps(kept[name])),
            default=None,
        )
        if longest is None:
            raise ItemTooLarge(f"the figures of {section or 'the host'} do not fit an item")
        kept[longest] = kept[longest][: len(kept[longest]) // 2]
        kept["cut"] = True
        item = _figures_item(origin, section, kept)
    return item


class FiguresStore:
    """The figures items: one JSON object per host (section ``""``) and per section."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        #: the keys of the items of an earlier version (keyed by origin) :meth:`load_all` met
        self.legacy: list[dict[str, Any]] = []

    def save(self, origin: str, section: str, figures: Mapping[str, Any]) -> None:
        self._client.put_item(TableName=self._table, Item=fitted(origin, section, figures))

    def load_all(self) -> dict[tuple[str, str], dict[str, Any]]:
        """Every figures item, by (origin, section); the section is ``""`` for a host's own."""
        found: dict[tuple[str, str], dict[str, Any]] = {}
        self.legacy = []
        for item in partition_items(self._client, self._table, FIGURES_PK):
            if "origin" not in item or "section" not in item:
                self.legacy.append({"pk": item["pk"], "sk": item["sk"]})
                continue  # an item of an earlier version, keyed by its origin: replaced
            found[(item["origin"]["S"], item["section"]["S"])] = json.loads(item["data"]["S"])
        return found

    def delete_legacy(self) -> None:
        """Delete the items of an earlier version that :meth:`load_all` met."""
        for key in self.legacy:
            self._client.delete_item(TableName=self._table, Key=key)
        self.legacy = []


def day_of(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


class HistoryStore:
    """A short entry of each run's figures per section, one item per section and UTC day."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    @staticmethod
    def partition(origin: str, section: str) -> str:
        return f"{HISTORY_PK}{scope_key(origin, section)}"

    def append(self, origin: str, section: str, entry: Mapping[str, Any], now: float) -> None:
        """Add ``entry`` (its JSON at most :data:`HISTORY_ENTRY_CHARS`) to the day's item."""
        text = json.dumps(entry, sort_keys=True)
        if len(text) > HISTORY_ENTRY_CHARS:
            raise ItemTooLarge(f"a history entry of {len(text)} characters is over the limit")
        try:
            self._client.update_item(
                TableName=self._table,
                Key={"pk": {"S": self.partition(origin, section)}, "sk": {"S": day_of(now)}},
                UpdateExpression=(
                    "SET entries = list_append(if_not_exists(entries, :none), :entry), "
                    "origin = :origin, #section = :section, #ttl = :ttl"
                ),
                ConditionExpression="attribute_not_exists(entries) OR size(entries) < :most",
                ExpressionAttributeNames={"#section": "section", "#ttl": "ttl"},
                ExpressionAttributeValues={
                    ":none": {"L": []},
                    ":entry": {"L": [{"S": text}]},
                    ":origin": {"S": origin},
                    ":section": {"S": section},
                    ":ttl": {"N": str(int(now) + HISTORY_DAYS * _DAY)},
                    ":most": {"N": str(HISTORY_DAY_ENTRIES)},
                },
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise

    def load(self, origin: str, section: str, since: float, now: float) -> list[dict[str, Any]]:
        """The entries from ``since`` on, oldest first."""
        entries: list[dict[str, Any]] = []
        for item in partition_items(self._client, self._table, self.partition(origin, section)):
            if item["sk"]["S"] < day_of(since) or int(item.get("ttl", {}).get("N", "0")) <= now:
                continue
            for value in item.get("entries", {}).get("L", []):
                entry = json.loads(value["S"])
                if entry.get("at", 0) >= since:
                    entries.append(entry)
        return sorted(entries, key=lambda e: e.get("at", 0))
