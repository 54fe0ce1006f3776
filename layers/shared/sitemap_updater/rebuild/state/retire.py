"""The ledger of files that are (or may become) unlisted, and their deletion after a grace period.

A ``retired/<key>`` item is written *before* a new file is first put (it is removed again once
the index lists the file), and when a file drops out of the index. So a file that a crashed run
wrote but never listed is cleaned up too. An object is deleted only when its grace period has
passed and the published index does not list it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from sitemap_updater.store.keys import RETIRED_PK

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


class RetireLedger:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def _key(self, key: str) -> dict[str, Any]:
        return {"pk": {"S": RETIRED_PK}, "sk": {"S": key}}

    def load(self) -> dict[str, int]:
        """Every ledger entry: S3 key -> ``retired_at`` (epoch seconds)."""
        entries: dict[str, int] = {}
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": RETIRED_PK}},
            "ConsistentRead": True,
        }
        while True:
            page = self._client.query(**kwargs)
            for item in page.get("Items", []):
                entries[str(item["sk"]["S"])] = int(item["retired_at"]["N"])
            last = page.get("LastEvaluatedKey")
            if not last:
                return entries
            kwargs["ExclusiveStartKey"] = last

    def retire(self, key: str, now: int) -> None:
        """Record ``key`` as unlisted since ``now``; an earlier record keeps its time."""
        try:
            self._client.put_item(
                TableName=self._table,
                Item={**self._key(key), "retired_at": {"N": str(now)}},
                ConditionExpression="attribute_not_exists(sk)",
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise

    def forget(self, key: str) -> None:
        self._client.delete_item(TableName=self._table, Key=self._key(key))


def due_for_deletion(entries: dict[str, int], now: int, grace_seconds: int) -> list[str]:
    """Keys whose grace period has passed."""
    return sorted(key for key, retired_at in entries.items() if retired_at + grace_seconds <= now)


def sweep(
    ledger: RetireLedger,
    entries: dict[str, int],
    listed: Callable[[str], bool],
    now: int,
    grace_seconds: int,
    delete_object: Callable[[str], None],
) -> Iterable[str]:
    """Delete the objects that are due and that no index lists (object first, then its ledger
    item); yields their keys. A due key an index lists again leaves the ledger."""
    for key in due_for_deletion(entries, now, grace_seconds):
        if not listed(key):
            delete_object(key)
            yield key
        ledger.forget(key)
        del entries[key]
