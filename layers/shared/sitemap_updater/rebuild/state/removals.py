"""The ``meta``/``removals`` item: when each page stored under an older spelling was deleted.

A full rebuild removes a page whose newest change, under any spelling of its URL, is a delete
(``rebuild.inputs.identities``). The delete's tombstone expires after ``TombstoneTtlDays``,
while the items of the older spellings stay in the table: without a record of the delete, the
next full rebuild would publish the page again. This item keeps the ordering key of the newest
delete of each such page, by its identity hash, for as long as the table holds another spelling
of it (each full rebuild writes it anew from what its Scan found).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from sitemap_updater.observability import logger
from sitemap_updater.store.keys import key_attributes, meta_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

REMOVALS_SK: Final = "removals"
#: Pages the item holds at most (about 130 bytes each, well within DynamoDB's 400 KB): the
#: newest deletes are kept.
MAX_REMOVALS: Final = 2500


class RemovalStore:
    """The ``meta``/``removals`` item of the rebuild's own table."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        self._key = key_attributes(meta_key(REMOVALS_SK))

    def load(self) -> dict[str, str]:
        """Identity hash -> ordering key of the newest delete of the page."""
        item = self._client.get_item(TableName=self._table, Key=self._key, ConsistentRead=True).get(
            "Item"
        )
        return {} if not item else {uh: ev["S"] for uh, ev in item["pages"]["M"].items()}

    def save(self, removals: Mapping[str, str], before: Mapping[str, str]) -> None:
        """Write ``removals`` where they differ from ``before`` (what :meth:`load` gave)."""
        if dict(removals) == dict(before):
            return
        kept = dict(sorted(removals.items(), key=lambda pair: pair[1])[-MAX_REMOVALS:])
        if len(kept) < len(removals):
            logger.warning(
                "more deleted pages stored under older spellings than the removals record holds",
                pages=len(removals),
                kept=len(kept),
            )
        self._client.put_item(
            TableName=self._table,
            Item={**self._key, "pages": {"M": {uh: {"S": ev} for uh, ev in kept.items()}}},
        )
