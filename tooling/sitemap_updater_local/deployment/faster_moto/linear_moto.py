"""moto with linear-time queue draining and table scans, while a local deployment runs.

moto stays the emulator of record: every request is answered by moto's own code, and the answers
are the same (``tests/integration/local/test_linear_moto.py`` compares them on a small queue and
table, with and without these changes). Only the way moto finds messages and items changes. What
is replaced, in moto 5.2 (``moto/sqs/models.py`` and ``moto/dynamodb/models/table.py``), and why:

SQS
  * ``SQSBackend.is_message_valid_based_on_retention_period`` reads the retention period through
    ``get_queue_attributes``, which builds ``Queue.attributes``: three of its values
    (``approximate_number_of_messages``, ``..._delayed``, ``..._not_visible``) each walk every
    message of the queue, and it is built three times for every message received. Here the
    retention period is read from the queue itself.
  * ``SQSBackend.send_message`` reads ``Queue.attributes`` for ``ContentBasedDeduplication`` once
    per message sent, so it walks the queue three times too. While SendMessage or ReceiveMessage
    runs (neither answers with a count), the three counts read as 0; GetQueueAttributes counts.
  * ``Queue.messages`` (what ``receive_message`` iterates) is a list of every visible message,
    built for each ReceiveMessage that then takes at most ten. Here it is a view that finds the
    visible messages as it is iterated, in queue order; its ``len`` still counts them all.
  * ``Queue.delete_message`` tests every message for the receipt handle, then copies the list of
    every other message. Here the search stops at the first message that had the handle (handles
    are 185 random letters, so it is the only one), and that message is removed in place.
  * ``camelcase_to_underscores``, as ``moto.sqs.models`` calls it to build ``Queue.attributes``,
    is remembered per attribute name (it is a pure function of its argument).

DynamoDB
  * ``Table.all_items`` sorts the whole table on every call, comparing keys as ``DynamoType``
    objects; ``Table.scan`` and ``Table.query`` call it for every page. Here the sorted order is
    kept until the next ``put_item`` or ``delete_item`` of the table (the only writers of
    ``Table.items``), and sorted by the keys' ``cast_value``, which is what ``DynamoType``
    compares, so the order is the same.
  * ``Table.scan`` with an ``ExclusiveStartKey`` walks the sorted table from its start, testing
    each item with ``_item_comes_before_dct`` until it passes the key. Here the items up to the
    key are left out by a binary search before the walk, so the walk starts at the first item
    after the key, where moto's own would have stopped skipping.
  * ``Table.query`` on the table's own key (no index) filters every item of the table by its
    partition key. Here it is given the partition's items only.

Responses
  * moto writes its DynamoDB and DynamoDB Streams answers through a generic serializer that
    walks every value; :mod:`~sitemap_updater_local.deployment.faster_moto.wire_form` writes the
    values that are already in wire form as they are.

Requests
  * :mod:`~sitemap_updater_local.deployment.faster_moto.request_cost` takes out costs moto pays
    on every request (listing a response class's methods, parsing a condition expression seen
    before, drawing random ids one call per character).

The changes are installed on moto's classes by :func:`install` and removed by :func:`uninstall`
(counted: nested deployments share one installation), so anything else using moto in the process
meanwhile sees them too.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterator
from typing import Any

import moto.sqs.models as sqs_models
from moto.core.utils import camelcase_to_underscores, unix_time
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.sqs.exceptions import ReceiptHandleIsInvalid
from moto.sqs.models import Message, Queue, SQSBackend

from sitemap_updater_local.deployment.faster_moto import request_cost, wire_form

_local = threading.local()
_lock = threading.Lock()
_installed = 0
_saved: list[tuple[object, str, Any]] = []
#: unique table versions: a write gives its table a value no earlier read can have seen
_versions = itertools.count(1)


# --- SQS ----------------------------------------------------------------------------------------


class VisibleMessages:
    """The visible, undelayed messages of a queue, found while iterated, in queue order."""

    def __init__(self, queue: Queue) -> None:
        self._queue = queue

    def __iter__(self) -> Iterator[Message]:
        for message in self._queue._messages:
            if message.visible and not message.delayed:
                yield message

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)


def _visible_messages(self: Queue) -> VisibleMessages:
    return VisibleMessages(self)


def _delete_message(self: Queue, receipt_handle: str) -> None:
    if receipt_handle in self.deleted_messages:
        return  # deleted before: moto accepts a second delete
    messages = self._messages
    found = next((i for i, m in enumerate(messages) if m.had_receipt_handle(receipt_handle)), None)
    if found is None:
        raise ReceiptHandleIsInvalid()
    message = messages.pop(found)
    self.pending_messages.discard(message)
    self.deleted_messages.update(message.all_receipt_handles)  # type: ignore[arg-type]


def _retention_valid(self: SQSBackend, queue_name: str, message: Message) -> bool:
    period = int(getattr(self.get_queue(queue_name), "message_retention_period"))  # noqa: B009
    return period + message.sent_timestamp / 1000 > unix_time()  # type: ignore[operator]


def _uncounted(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` with the queues' message counts read as 0 while it runs."""

    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        before = getattr(_local, "uncounted", False)
        _local.uncounted = True
        try:
            return original(*args, **kwargs)
        finally:
            _local.uncounted = before

    return call


def _count(original: property) -> property:
    def read(self: Queue) -> int:
        if getattr(_local, "uncounted", False):
            return 0
        return int(original.fget(self))  # type: ignore[misc]

    return property(read)


# --- DynamoDB -----------------------------------------------------------------------------------


def _written(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (a write of the table's items) followed by a new version of the table."""

    @functools.wraps(original)
    def call(self: Table, *args: Any, **kwargs: Any) -> Any:
        try:
            return original(self, *args, **kwargs)
        finally:
            self.__dict__["_linear_version"] = next(_versions)

    return call


def _sort_key(item: Any) -> tuple[Any, ...]:
    if item.range_key:
        return (item.hash_key.cast_value, item.range_key.cast_value)
    return (item.hash_key.cast_value,)


def _sorted(table: Table) -> tuple[list[Any], list[tuple[Any, ...]]]:
    """The table's items in moto's order and their sort keys, kept until the next write."""
    version = (id(table.items), table.__dict__.get("_linear_version", 0))
    cached = table.__dict__.get("_linear_sorted")
    if cached is not None and cached[0] == version:
        return cached[1], cached[2]
    items: list[Any] = []
    for hash_set in list(table.items.values()):
        items.extend(hash_set.values() if table.range_key_attr else [hash_set])
    items.sort(key=_sort_key)
    keys = [_sort_key(item) for item in items]
    table.__dict__["_linear_sorted"] = (version, items, keys)
    return items, keys


def _all_items(self: Table) -> list[Any]:
    partition = getattr(_local, "partition", None)
    if partition is not None and partition[0] is self:
        hash_set = self.items.get(partition[1], {})
        return sorted(hash_set.values() if self.range_key_attr else [hash_set], key=_sort_key)
    items, keys = _sorted(self)
    after = getattr(_local, "after", None)
    if after is not None and after[0] is self:
        return items[bisect_right(keys, after[1]) :]
    return list(items)


def _start_key(table: Table, key: dict[str, Any]) -> tuple[Any, ...] | None:
    """The sort key of an ExclusiveStartKey, or None if it is not one of this table's keys."""
    try:
        parts = [DynamoType(key[table.hash_key_attr]).cast_value]
        if table.range_key_attr:
            parts.append(DynamoType(key[table.range_key_attr]).cast_value)
    except (KeyError, TypeError, AttributeError):
        return None
    return tuple(parts)


@contextlib.contextmanager
def _narrowed(name: str, value: tuple[Table, Any] | None) -> Iterator[None]:
    before = getattr(_local, name, None)
    setattr(_local, name, value)
    try:
        yield
    finally:
        setattr(_local, name, before)


def _scan(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def call(self: Table, *args: Any, **kwargs: Any) -> Any:
        start = kwargs.get("exclusive_start_key", args[2] if len(args) > 2 else None)
        index = kwargs.get("index_name", args[4] if len(args) > 4 else None)
        key = _start_key(self, start) if start is not None and not index else None
        if key is None:
            return original(self, *args, **kwargs)
        with _narrowed("after", (self, key)):
            try:
                return original(self, *args, **kwargs)
            except TypeError:  # a start key the sorted keys cannot be compared with
                pass
        return original(self, *args, **kwargs)

    return call


def _query(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def call(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if hash_key is None or index:
            return original(self, hash_key, *args, **kwargs)
        with _narrowed("partition", (self, hash_key)):
            return original(self, hash_key, *args, **kwargs)

    return call


# --- installation -------------------------------------------------------------------------------


def _replacements() -> list[tuple[object, str, Any]]:
    sqs = SQSBackend.__dict__
    queue = Queue.__dict__
    table = Table.__dict__
    return [
        (Queue, "messages", property(_visible_messages)),
        (Queue, "delete_message", _delete_message),
        *[
            (Queue, name, _count(queue[name]))
            for name in (
                "approximate_number_of_messages",
                "approximate_number_of_messages_delayed",
                "approximate_number_of_messages_not_visible",
            )
        ],
        (SQSBackend, "is_message_valid_based_on_retention_period", _retention_valid),
        (SQSBackend, "send_message", _uncounted(sqs["send_message"])),
        (SQSBackend, "receive_message", _uncounted(sqs["receive_message"])),
        (
            sqs_models,
            "camelcase_to_underscores",
            functools.lru_cache(maxsize=256)(camelcase_to_underscores),
        ),
        (Table, "all_items", _all_items),
        (Table, "put_item", _written(table["put_item"])),
        (Table, "delete_item", _written(table["delete_item"])),
        (Table, "scan", _scan(table["scan"])),
        (Table, "query", _query(table["query"])),
        *wire_form.replacements(),
        *request_cost.replacements(),
    ]


def install() -> None:
    """Put the replacements in place (once, however many deployments run)."""
    global _installed
    with _lock:
        _installed += 1
        if _installed > 1:
            return
        for owner, name, replacement in _replacements():
            _saved.append((owner, name, vars(owner)[name]))
            setattr(owner, name, replacement)


def uninstall() -> None:
    """Restore moto's own code when the last deployment that installed the replacements ends."""
    global _installed
    with _lock:
        if _installed == 0:
            return
        _installed -= 1
        if _installed:
            return
        while _saved:
            owner, name, original = _saved.pop()
            setattr(owner, name, original)


@contextlib.contextmanager
def linear_moto() -> Iterator[None]:
    """The replacements for the duration of the block."""
    install()
    try:
        yield
    finally:
        uninstall()
