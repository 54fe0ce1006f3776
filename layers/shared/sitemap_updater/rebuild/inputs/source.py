"""Where a rebuild reads URL items from: one shard by Query, or the whole table by parallel Scan.

Both yield live URL items in low-level attribute-value form. ``items_read`` counts the items
DynamoDB read (``ScannedCount``, before the ``live`` filter), which is what a run is billed for.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from sitemap_updater.store.items import Item, is_live
from sitemap_updater.store.keys import (
    ATTR_STATE,
    BATCH_GET_LIMIT,
    STATE_LIVE,
    URL_PK_PREFIX,
    key_attributes,
    url_key,
)
from sitemap_updater.store.shards import query_ranges

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_LIVE_FILTER = "#st = :live"
_LIVE_NAMES = {"#st": ATTR_STATE}
_LIVE_VALUES = {":live": {"S": STATE_LIVE}}


#: Takes each tombstone a read came across, where a caller asks for them.
Removed = Callable[[Item], None]


def _live(items: list[Item], removed: Removed | None) -> Iterator[Item]:
    """The live items of a page read without the live filter when ``removed`` takes the others
    (with the filter, every item is live)."""
    if removed is None:
        yield from items
        return
    for item in items:
        if is_live(item):
            yield item
        else:
            removed(item)


class ShardSource(Protocol):
    """Live URL items of one shard (in hash order) or of the whole table (in any order)."""

    items_read: int

    def iter_shard(self, shard_id: str, *, removed: Removed | None = None) -> Iterator[Item]: ...

    def scan_all(self, segments: int, *, removed: Removed | None = None) -> Iterator[Item]: ...

    def items_by_hash(self, hashes: Iterable[str]) -> Iterator[Item]: ...


class DynamoShardSource:
    """``ShardSource`` over the table: Query on the shard's key ranges, parallel Scan for all."""

    def __init__(self, client: DynamoDBClient, table: str, page_size: int | None = None) -> None:
        self._client = client
        self._table = table
        self._page_size = page_size
        self._lock = threading.Lock()
        self.items_read = 0

    def _count(self, page: dict[str, Any]) -> None:
        with self._lock:
            self.items_read += int(page.get("ScannedCount", 0))

    def items_by_hash(self, hashes: Iterable[str]) -> Iterator[Item]:
        """The live URL items of the given URL hashes (BatchGetItem, consistent), in any order;
        a hash without a live item is absent."""
        uhs = list(dict.fromkeys(hashes))
        for start in range(0, len(uhs), BATCH_GET_LIMIT):
            keys = [key_attributes(url_key(uh)) for uh in uhs[start : start + BATCH_GET_LIMIT]]
            request: dict[str, Any] = {self._table: {"Keys": keys, "ConsistentRead": True}}
            while request:
                response = self._client.batch_get_item(RequestItems=request)
                items: list[Item] = response.get("Responses", {}).get(self._table, [])  # type: ignore[assignment]
                with self._lock:
                    self.items_read += len(items)
                yield from (item for item in items if is_live(item))
                request = dict(response.get("UnprocessedKeys") or {})

    def iter_shard(self, shard_id: str, *, removed: Removed | None = None) -> Iterator[Item]:
        """The live URL items of ``shard_id``, in hash order. With ``removed``, its tombstones
        are read too and handed to it (DynamoDB bills the items it reads either way)."""
        for rng in query_ranges(shard_id):
            values: dict[str, Any] = {":pk": {"S": rng.pk}}
            condition = "pk = :pk"
            if rng.sk_lo is not None and rng.sk_hi is not None:
                condition += " AND sk BETWEEN :lo AND :hi"
                values[":lo"] = {"S": rng.sk_lo}
                values[":hi"] = {"S": rng.sk_hi}
            kwargs: dict[str, Any] = {
                "TableName": self._table,
                "KeyConditionExpression": condition,
                "ExpressionAttributeValues": values,
                "ConsistentRead": True,
            }
            if removed is None:
                values.update(_LIVE_VALUES)
                kwargs.update(FilterExpression=_LIVE_FILTER, ExpressionAttributeNames=_LIVE_NAMES)
            if self._page_size:
                kwargs["Limit"] = self._page_size
            while True:
                page = self._client.query(**kwargs)
                self._count(dict(page))
                items: list[Item] = page.get("Items", [])  # type: ignore[assignment]
                yield from _live(items, removed)
                last = page.get("LastEvaluatedKey")
                if not last:
                    break
                kwargs["ExclusiveStartKey"] = last

    def _scan_segment(
        self,
        segment: int,
        total: int,
        out: queue.Queue[Any],
        stop: threading.Event,
        live_only: bool,
    ) -> None:
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "Segment": segment,
            "TotalSegments": total,
            "FilterExpression": "begins_with(pk, :u)",
            "ExpressionAttributeValues": {":u": {"S": URL_PK_PREFIX}},
            "ConsistentRead": True,
        }
        if live_only:
            kwargs["FilterExpression"] = f"{_LIVE_FILTER} AND begins_with(pk, :u)"
            kwargs["ExpressionAttributeNames"] = _LIVE_NAMES
            kwargs["ExpressionAttributeValues"].update(_LIVE_VALUES)
        if self._page_size:
            kwargs["Limit"] = self._page_size
        try:
            while not stop.is_set():
                page = self._client.scan(**kwargs)
                self._count(dict(page))
                out.put(page.get("Items", []))
                last = page.get("LastEvaluatedKey")
                if not last:
                    break
                kwargs["ExclusiveStartKey"] = last
        except BaseException as error:  # handed to the consumer, which re-raises it
            out.put(error)
        finally:
            out.put(None)

    def scan_all(self, segments: int, *, removed: Removed | None = None) -> Iterator[Item]:
        """Every live URL item, read by ``segments`` parallel Scan threads; with ``removed``,
        every tombstone is read too and handed to it.

        Pages pass through a queue of one page, so memory stays bounded however large the table
        is: a reader whose page is not taken yet waits holding it, so about ``segments + 2``
        parsed pages (several MB each in Python for a 1 MB page) are alive at once. A deeper
        queue would add memory and no speed: the pages the waiting readers hold are the buffer.
        """
        if segments < 1:
            raise ValueError(f"segments={segments} must be >= 1")
        out: queue.Queue[Any] = queue.Queue(maxsize=1)
        stop = threading.Event()
        threads = [
            threading.Thread(
                target=self._scan_segment,
                args=(s, segments, out, stop, removed is None),
                daemon=True,
                name=f"scan-{s}",
            )
            for s in range(segments)
        ]
        for thread in threads:
            thread.start()
        running = segments
        try:
            while running:
                got = out.get()
                if got is None:
                    running -= 1
                elif isinstance(got, BaseException):
                    raise got
                else:
                    yield from _live(got, removed)
        finally:
            stop.set()
            # Drain so producers blocked on a full queue can finish, then wait for them.
            while any(t.is_alive() for t in threads):
                with contextlib.suppress(queue.Empty):
                    out.get(timeout=0.05)
            for thread in threads:
                thread.join()
