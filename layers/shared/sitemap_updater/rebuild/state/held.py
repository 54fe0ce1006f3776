"""The branches that hold leaves back for a later run: one small item each under
``held#<layout>``, so that a run finds them with one Query, without reading every branch.

A mark is put before the branch that holds the leaves is saved and removed after the branch that
no longer holds any is, so a run that dies between the two leaves a mark too many (the next run
reads the branch, finds nothing held and removes it), never a held leaf no run looks for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitemap_updater.store.keys import HELD_PK_PREFIX, key_attributes

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


class HeldStore:
    """Marks of the branches (by top) holding leaves back, per layout."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        #: items read (each counts in the run's report)
        self.items_read = 0

    def load(self, layout: str) -> list[str]:
        """The tops of the marked branches of the layout named ``layout``."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": HELD_PK_PREFIX + layout}},
            "ConsistentRead": True,
        }
        tops: list[str] = []
        while True:
            page = self._client.query(**kwargs)
            tops += [str(item["sk"]["S"]) for item in page.get("Items", [])]
            last = page.get("LastEvaluatedKey")
            if not last:
                self.items_read += len(tops)
                return tops
            kwargs["ExclusiveStartKey"] = last

    def _key(self, layout: str, top: str) -> dict[str, Any]:
        return key_attributes({"pk": HELD_PK_PREFIX + layout, "sk": top})

    def mark(self, layout: str, top: str) -> None:
        self._client.put_item(TableName=self._table, Item=self._key(layout, top))

    def clear(self, layout: str, top: str) -> None:
        self._client.delete_item(TableName=self._table, Key=self._key(layout, top))
