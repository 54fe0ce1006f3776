"""Apply one change event to its URL item with a conditional write.

The write is the whole of ingest's work: the table's stream carries every item it changes to
the rebuild (docs/architecture.md, "Change feed"), so ingest marks nothing and reads nothing.

One ``PutItem`` per event, ``attribute_not_exists(sk) OR ev < :ev``, returning the old item
both on success (``ReturnValues``) and on a failed condition
(``ReturnValuesOnConditionCheckFailure``), so no read is needed and no two writers can race.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, cast

from botocore.exceptions import ClientError

from sitemap_updater.ingest.judge import Change
from sitemap_updater.store.items import Item, live_item, tombstone_item
from sitemap_updater.store.keys import (
    ATTR_DIGEST,
    ATTR_EVENT_KEY,
    ATTR_STATE,
    ATTR_WRITTEN_AT,
    STATE_LIVE,
    url_hash,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_CONDITION: Final = "attribute_not_exists(sk) OR ev < :ev"


class Applied(StrEnum):
    """What one event did to the table."""

    #: written, and what the sitemap shows for the URL changed
    ACCEPTED = "accepted"
    #: written (newer), but the published content is the same
    UNCHANGED = "unchanged"
    #: not written: the table already holds a newer event for the URL
    STALE = "stale"
    #: not written: the table already holds this very event (a redelivery)
    DUPLICATE = "duplicate"


@dataclass(frozen=True, slots=True)
class ApplyResult:
    outcome: Applied
    #: identity hash of the URL
    uh: str
    #: for a duplicate: when the stored item was written (epoch ms), if recorded
    stored_written_at: int | None = None


def _visible(state: str | None, digest: str | None) -> str | None:
    """What the sitemap shows for a URL: its live digest, or nothing."""
    return digest if state == STATE_LIVE else None


def visible_change(old: Item | None, new: Item) -> bool:
    """Whether replacing ``old`` by ``new`` changes what the sitemap shows."""
    before = (
        None
        if old is None
        else _visible(old.get(ATTR_STATE, {}).get("S"), old.get(ATTR_DIGEST, {}).get("S"))
    )
    after = _visible(new[ATTR_STATE]["S"], new[ATTR_DIGEST]["S"])
    return before != after


def item_for(change: Change, *, now_ms: int, tombstone_ttl_days: int) -> Item:
    """The URL item a change writes: live page or tombstone, stamped with ``wt``."""
    if change.page is not None:
        item = live_item(change.page, change.key, change.digest, change.section)
    else:
        expires_at = now_ms // 1000 + tombstone_ttl_days * 86_400
        item = tombstone_item(change.url, change.key, change.digest, expires_at)
    item[ATTR_WRITTEN_AT] = {"N": str(now_ms)}
    return item


class UrlWriter:
    """Conditional writes of URL items."""

    def __init__(self, client: DynamoDBClient, table_name: str, tombstone_ttl_days: int) -> None:
        self._client = client
        self._table = table_name
        self._ttl_days = tombstone_ttl_days

    def apply(self, change: Change, *, now_ms: int) -> ApplyResult:
        item = item_for(change, now_ms=now_ms, tombstone_ttl_days=self._ttl_days)
        uh = url_hash(change.url)
        try:
            response = self._client.put_item(
                TableName=self._table,
                Item=item,
                ConditionExpression=_CONDITION,
                ExpressionAttributeValues={":ev": {"S": change.key}},
                ReturnValues="ALL_OLD",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return self._refused(exc, change, uh)
        old = cast(Item | None, response.get("Attributes") or None)
        outcome = Applied.ACCEPTED if visible_change(old, item) else Applied.UNCHANGED
        return ApplyResult(outcome, uh)

    @staticmethod
    def _refused(exc: ClientError, change: Change, uh: str) -> ApplyResult:
        # ReturnValuesOnConditionCheckFailure puts the stored item in the error response.
        stored: Item = cast(dict[str, Any], exc.response).get("Item") or {}
        stored_ev = stored.get(ATTR_EVENT_KEY, {}).get("S")
        if stored_ev != change.key:
            return ApplyResult(Applied.STALE, uh)
        written = stored.get(ATTR_WRITTEN_AT, {}).get("N")
        return ApplyResult(Applied.DUPLICATE, uh, int(written) if written is not None else None)
