"""The ``meta``/``feed`` item: the rebuild's checkpoint in the table's stream (``feed``).

The checkpoint is the last thing a run saves, so a run that dies anywhere leaves it where the
next run reads every change again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitemap_updater.store.keys import FEED_SK, key_attributes, meta_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A position in one stream: everything up to it has been applied."""

    stream_arn: str
    #: stream shard id -> last sequence number read (decimal string), for unfinished shards
    positions: Mapping[str, str]
    #: closed stream shards read to their end
    finished: frozenset[str]
    #: epoch seconds when this position was taken
    saved_at: int


class CheckpointStore:
    """The ``meta``/``feed`` item: the rebuild's checkpoint in the stream."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        self._key = key_attributes(meta_key(FEED_SK))

    def load(self) -> Checkpoint | None:
        item = self._client.get_item(TableName=self._table, Key=self._key, ConsistentRead=True).get(
            "Item"
        )
        if not item:
            return None
        return Checkpoint(
            stream_arn=item["stream_arn"]["S"],
            positions={k: v["S"] for k, v in item["positions"]["M"].items()},
            finished=frozenset(v["S"] for v in item["finished"]["L"]),
            saved_at=int(item["saved_at"]["N"]),
        )

    def save(self, checkpoint: Checkpoint) -> None:
        self._client.put_item(
            TableName=self._table,
            Item={
                **self._key,
                "stream_arn": {"S": checkpoint.stream_arn},
                "positions": {"M": {k: {"S": v} for k, v in checkpoint.positions.items()}},
                "finished": {"L": [{"S": s} for s in sorted(checkpoint.finished)]},
                "saved_at": {"N": str(checkpoint.saved_at)},
            },
        )
