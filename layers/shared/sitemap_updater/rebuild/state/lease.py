"""A lease lock with expiry in the ``meta/lease`` item, so two runs never publish at once.

The function also runs with reserved concurrency 1; the lease covers a manual invoke that
overlaps a scheduled run. ``LEASE_SECONDS`` must exceed the function timeout, so a lease is never
taken over while its holder is still running, and a holder that died is replaced after expiry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from sitemap_updater.store.keys import LEASE_SK, key_attributes, meta_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def _condition_failed(error: ClientError) -> bool:
    return bool(error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException")


class Lease:
    """The lease of one run, identified by ``owner``."""

    def __init__(self, client: DynamoDBClient, table: str, owner: str, seconds: int) -> None:
        if not owner:
            raise ValueError("lease owner must be a non-empty string")
        if seconds < 1:
            raise ValueError(f"lease seconds={seconds} must be >= 1")
        self._client = client
        self._table = table
        self.owner = owner
        self.seconds = seconds
        self.held = False

    def acquire(self, now: float) -> bool:
        """Take the lease if it is free or expired at ``now`` (epoch seconds). False if held."""
        try:
            self._client.put_item(
                TableName=self._table,
                Item={
                    **key_attributes(meta_key(LEASE_SK)),
                    "owner": {"S": self.owner},
                    "expires_at": {"N": str(int(now) + self.seconds)},
                },
                ConditionExpression="attribute_not_exists(pk) OR expires_at < :now",
                ExpressionAttributeValues={":now": {"N": str(int(now))}},
            )
        except ClientError as error:
            if _condition_failed(error):
                return False
            raise
        self.held = True
        return True

    def release(self) -> bool:
        """Give the lease back; False if it had expired and another run took it meanwhile."""
        if not self.held:
            return False
        self.held = False
        try:
            self._client.delete_item(
                TableName=self._table,
                Key=key_attributes(meta_key(LEASE_SK)),
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": {"S": self.owner}},
            )
        except ClientError as error:
            if _condition_failed(error):
                return False
            raise
        return True
