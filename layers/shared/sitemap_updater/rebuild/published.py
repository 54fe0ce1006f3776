"""The ``meta/published`` item: what the published index lists, and the hashes last written.

``in_flight`` is set (to the run's owner) before a run's first S3 write and removed when that
run saves its record, after its shard states. A run that finds it set knows the previous run
died between the two: the bucket may hold bytes no record describes, so it rewrites every file
it rebuilds and the index instead of trusting the recorded hashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitemap_updater.store.keys import PUBLISHED_SK, meta_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


@dataclass(frozen=True, slots=True)
class PublishedRecord:
    """``files`` are the keys the published index lists; ``home_*`` describe the empty-site file."""

    index_sha256: str | None = None
    files: tuple[str, ...] = ()
    robots_sha256: str | None = None
    home_sha256: str | None = None
    home_changed_at: str | None = None
    #: owner of a run that started writing objects and has not saved its record (it crashed)
    in_flight: str | None = None


class PublishedStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def load(self) -> PublishedRecord | None:
        """The record of the last publish, or None before the first one."""
        item = self._client.get_item(
            TableName=self._table,
            Key={k: {"S": v} for k, v in meta_key(PUBLISHED_SK).items()},
            ConsistentRead=True,
        ).get("Item")
        if not item:
            return None

        def text(name: str) -> str | None:
            value = item.get(name)
            return str(value["S"]) if value else None

        return PublishedRecord(
            index_sha256=text("index_sha256"),
            files=tuple(str(v["S"]) for v in item.get("files", {}).get("L", [])),
            robots_sha256=text("robots_sha256"),
            home_sha256=text("home_sha256"),
            home_changed_at=text("home_changed_at"),
            in_flight=text("in_flight"),
        )

    def begin(self, owner: str) -> None:
        """Record that ``owner`` is about to write objects (``save`` removes the mark)."""
        self._client.update_item(
            TableName=self._table,
            Key={k: {"S": v} for k, v in meta_key(PUBLISHED_SK).items()},
            UpdateExpression="SET in_flight = :owner",
            ExpressionAttributeValues={":owner": {"S": owner}},
        )

    def save(self, record: PublishedRecord) -> None:
        """Replace the item with ``record`` (which removes the ``in_flight`` mark unless the
        record carries one)."""
        key = meta_key(PUBLISHED_SK)
        item: dict[str, Any] = {
            "pk": {"S": key["pk"]},
            "sk": {"S": key["sk"]},
            "files": {"L": [{"S": f} for f in record.files]},
        }
        names = ("index_sha256", "robots_sha256", "home_sha256", "home_changed_at", "in_flight")
        for name in names:
            value = getattr(record, name)
            if value is not None:
                item[name] = {"S": value}
        self._client.put_item(TableName=self._table, Item=item)
