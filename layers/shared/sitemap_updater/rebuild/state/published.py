"""The ``meta/published`` item: what the published index lists, and the hashes last written.

``in_flight`` is set (to the run's owner) before a run's first S3 write and removed when that
run saves its record, after its node states. A run that finds it set knows the previous run
died between the two: the bucket may hold bytes no record describes, so it rewrites every file
it rebuilds and the index instead of trusting the recorded hashes.

``generation`` is raised by one in the same write that sets ``in_flight``, so every run that
writes objects publishes under a generation no earlier run used; the CloudFront caller reference
is derived from it (see ``invalidate``). The same write drops ``sent``, the invalidation a run
notes just before sending it: a ``sent`` found at load time was noted after the last object
write of any run, so the bucket still holds the bytes it was about.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitemap_updater.rebuild.freshness import Freshness
from sitemap_updater.store.keys import (
    PUBLISHED_SK,
    key_attributes,
    meta_key,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


@dataclass(frozen=True, slots=True)
class SentBatch:
    """An invalidation a run was about to send: its reference and ``changes_digest``
    (``rebuild.outputs.invalidate``)."""

    reference: str
    changes: str


@dataclass(frozen=True, slots=True)
class PublishedRecord:
    """``files`` are the keys the published indexes list (every host's)."""

    files: tuple[str, ...] = ()
    robots_sha256: str | None = None
    #: (key, sha256) of each host's index and stylesheet and of each empty host's empty-site file
    singles: tuple[tuple[str, str], ...] = ()
    #: owner of a run that started writing objects and has not saved its record (it crashed)
    in_flight: str | None = None
    #: number of runs that have started writing objects
    generation: int = 0
    #: the invalidation of a run that crashed after noting it (and maybe sending it)
    sent: SentBatch | None = None
    #: for each of ``files``: its lastmod in the index and its URL count (None for a record
    #: written before they were kept; the next run then reads every leaf state once)
    lastmods: tuple[str | None, ...] | None = None
    counts: tuple[int, ...] | None = None
    #: leaves a full rebuild ran out of time for; incremental runs rebuild them from the table
    pending: tuple[str, ...] = ()
    #: (key, sha256) of each news file the index lists (None for a record written before they
    #: were kept): a news file read back with other bytes was written by someone else
    news_sha256: tuple[tuple[str, str], ...] | None = None
    #: for each of ``pending``: when the oldest change it holds back was written (epoch ms;
    #: None where unknown); the run that publishes the leaf measures the lag from it
    pending_since: tuple[int | None, ...] = ()
    #: when a run last wrote objects (epoch seconds), and the lag of the changes it published
    published_at: int | None = None
    freshness: Freshness | None = None

    def sha256_of(self, key: str) -> str | None:
        """The recorded hash of an index, stylesheet or empty-site file (None: not written yet)."""
        return dict(self.singles).get(key)

    def held_since(self, leaf: str) -> int | None:
        """The mark of a pending leaf (see ``pending_since``)."""
        marks = dict(zip(self.pending, self.pending_since, strict=False))
        return marks.get(leaf)

    def listing(self) -> dict[str, tuple[str | None, int]] | None:
        """File key -> (index lastmod, URL count), or None if the record does not hold it."""
        if self.lastmods is None or self.counts is None:
            return None
        return {
            key: (lastmod, count)
            for key, lastmod, count in zip(self.files, self.lastmods, self.counts, strict=True)
        }


class PublishedStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def _key(self) -> dict[str, Any]:
        return key_attributes(meta_key(PUBLISHED_SK))

    def load(self) -> PublishedRecord | None:
        """The record of the last publish, or None before the first one."""
        item = self._client.get_item(
            TableName=self._table, Key=self._key(), ConsistentRead=True
        ).get("Item")
        if not item:
            return None

        def text(name: str) -> str | None:
            value = item.get(name)
            return str(value["S"]) if value else None

        reference, changes = text("sent_reference"), text("sent_changes")
        return PublishedRecord(
            files=tuple(str(v["S"]) for v in item.get("files", {}).get("L", [])),
            robots_sha256=text("robots_sha256"),
            singles=_singles(item),
            in_flight=text("in_flight"),
            generation=int(item["generation"]["N"]) if "generation" in item else 0,
            sent=SentBatch(reference, changes) if reference and changes else None,
            lastmods=(
                tuple(v.get("S") for v in item["lastmods"]["L"]) if "lastmods" in item else None
            ),
            counts=(tuple(int(v["N"]) for v in item["counts"]["L"]) if "counts" in item else None),
            pending=tuple(str(v["S"]) for v in item.get("pending", {}).get("L", [])),
            news_sha256=(
                tuple(sorted((k, str(v["S"])) for k, v in item["news_sha256"]["M"].items()))
                if "news_sha256" in item
                else None
            ),
            pending_since=tuple(
                int(v["N"]) if "N" in v else None
                for v in item.get("pending_since", {}).get("L", [])
            ),
            published_at=int(item["published_at"]["N"]) if "published_at" in item else None,
            freshness=_freshness(item.get("freshness")),
        )

    def begin(self, owner: str) -> int:
        """Record that ``owner`` is about to write objects (``save`` removes the mark), drop any
        noted invalidation and raise the generation; returns the run's generation."""
        response = self._client.update_item(
            TableName=self._table,
            Key=self._key(),
            UpdateExpression=(
                "SET in_flight = :owner ADD generation :one REMOVE sent_reference, sent_changes"
            ),
            ExpressionAttributeValues={":owner": {"S": owner}, ":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["generation"]["N"])

    def note_sent(self, batch: SentBatch) -> None:
        """Record the invalidation the run is about to send (before it is sent)."""
        self._client.update_item(
            TableName=self._table,
            Key=self._key(),
            UpdateExpression="SET sent_reference = :reference, sent_changes = :changes",
            ExpressionAttributeValues={
                ":reference": {"S": batch.reference},
                ":changes": {"S": batch.changes},
            },
        )

    def save(self, record: PublishedRecord) -> None:
        """Replace the item with ``record`` (which removes the ``in_flight`` mark and the noted
        invalidation unless the record carries them)."""
        item: dict[str, Any] = {
            **self._key(),
            "files": {"L": [{"S": f} for f in record.files]},
            "generation": {"N": str(record.generation)},
        }
        if record.singles:
            item["singles"] = {"M": {k: {"S": v} for k, v in record.singles}}
        for name in ("robots_sha256", "in_flight"):
            value = getattr(record, name)
            if value is not None:
                item[name] = {"S": value}
        if record.lastmods is not None and record.counts is not None:
            item["lastmods"] = {
                "L": [{"NULL": True} if v is None else {"S": v} for v in record.lastmods]
            }
            item["counts"] = {"L": [{"N": str(c)} for c in record.counts]}
        if record.pending:
            item["pending"] = {"L": [{"S": leaf} for leaf in record.pending]}
            item["pending_since"] = {
                "L": [{"NULL": True} if v is None else {"N": str(v)} for v in record.pending_since]
            }
        if record.news_sha256 is not None:
            item["news_sha256"] = {"M": {k: {"S": v} for k, v in record.news_sha256}}
        if record.published_at is not None:
            item["published_at"] = {"N": str(record.published_at)}
        if record.freshness is not None:
            item["freshness"] = {
                "M": {
                    "changes": {"N": str(record.freshness.changes)},
                    "max_seconds": {"N": str(record.freshness.max_seconds)},
                    "median_seconds": {"N": str(record.freshness.median_seconds)},
                }
            }
        if record.sent is not None:
            item["sent_reference"] = {"S": record.sent.reference}
            item["sent_changes"] = {"S": record.sent.changes}
        self._client.put_item(TableName=self._table, Item=item)


def _singles(item: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The ``singles`` of an item."""
    singles = item.get("singles", {"M": {}})["M"]
    return tuple(sorted((k, str(v["S"])) for k, v in singles.items()))


def _freshness(value: Any) -> Freshness | None:
    if value is None:
        return None
    fields = value["M"]
    return Freshness(
        changes=int(fields["changes"]["N"]),
        max_seconds=float(fields["max_seconds"]["N"]),
        median_seconds=float(fields["median_seconds"]["N"]),
    )
