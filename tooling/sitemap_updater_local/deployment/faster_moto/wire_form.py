"""moto's DynamoDB requests and answers without the walk of values already in wire form.

Part of the local deployment's changes to moto (:mod:`.linear_moto` installs and removes them;
``tests/integration/local/test_linear_moto.py`` checks that the answers are moto's own). In
moto 5.2:

* moto writes its answers through a generic JSON serializer (``moto/core/serialize.py``) that
  walks botocore's shape model for every value of every item: over 2 ms of CPU for an item of ten
  attributes, so paging 200,000 items costs minutes. An ``AttributeValue`` is already in its wire
  form in moto (``{"S": ...}``, ``{"N": "1.5"}``, ``{"M": {...}}``), and the serializer writes
  such a value unchanged; here a value whose every part is a string, number, boolean, null,
  list, map or set of strings or numbers, or a map of such values (an item, a key), is written
  as it is. A binary value still goes through the walk.
* ``DynamoDBStreamsHandler.get_records`` (``moto/dynamodbstreams/responses.py``) answers through
  the same serializer, which also walks the two structures around every stream record. Here a
  page whose values are all in wire form is written with ``json.dumps``, the creation times with
  the serializer's own conversion to epoch seconds; a page with a binary value is left to it.
* moto parses every DynamoDB request the same way (``BaseJSONParser`` in ``moto/core/parse.py``,
  a walk of the request's JSON along the input shape), which gives back an ``AttributeValue`` or
  a map of them unchanged unless a part is binary (base64-decoded). Here a value in wire form,
  as above, is kept as it was read from the request's JSON; anything else is left to the walk.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from moto.core.parse import BaseJSONParser, RequestParser
from moto.core.responses import ActionResult
from moto.core.serialize import BaseJSONSerializer, TimestampSerializer
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

_TEXT_KINDS: Final = frozenset({"S", "N"})
_FLAG_KINDS: Final = frozenset({"BOOL", "NULL"})
_SET_KINDS: Final = frozenset({"SS", "NS"})
_IMAGES: Final = ("Keys", "NewImage", "OldImage")


def in_wire_form(value: object) -> bool:
    """Whether an ``AttributeValue`` is one the serializer writes unchanged (no binary part)."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    ((kind, inner),) = value.items()
    if kind in _TEXT_KINDS:
        return isinstance(inner, str)
    if kind in _FLAG_KINDS:
        return isinstance(inner, bool)
    if kind in _SET_KINDS:
        return isinstance(inner, list) and all(isinstance(v, str) for v in inner)
    if kind == "L":
        return isinstance(inner, list) and all(map(in_wire_form, inner))
    if kind == "M":
        return isinstance(inner, dict) and all(map(in_wire_form, inner.values()))
    return False


def _value_as_is(value: Any, shape: Any) -> bool:
    return bool(shape.name == "AttributeValue" and in_wire_form(value))


def _map_as_is(value: Any, shape: Any) -> bool:
    return bool(
        shape.value.name == "AttributeValue"
        and isinstance(value, dict)
        and all(map(in_wire_form, value.values()))
    )


def _written_as_is(
    original: Callable[..., None], as_is: Callable[[Any, Any], bool]
) -> Callable[..., None]:
    """The serializer method ``original``, except for a value ``as_is`` accepts."""

    @functools.wraps(original)
    def serialize(
        self: BaseJSONSerializer, serialized: Any, value: Any, shape: Any, key: str
    ) -> None:
        if key and as_is(value, shape):
            self._default_serialize(serialized, value, shape, key)
        else:
            original(self, serialized, value, shape, key)

    return serialize


def _read_as_is(
    original: Callable[..., Any], as_is: Callable[[Any, Any], bool]
) -> Callable[..., Any]:
    """The parser method ``original``, except for a value ``as_is`` accepts: kept as read."""

    @functools.wraps(original)
    def parse(self: RequestParser, shape: Any, value: Any) -> Any:
        if self.MAP_TYPE is dict and as_is(value, shape):
            return value
        return original(self, shape, value)

    return parse


def _epoch_seconds(value: object) -> float:
    if not isinstance(value, datetime):
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return TimestampSerializer._timestamp_unixtimestamp(value)


def _get_records(self: DynamoDBStreamsHandler) -> str | ActionResult:
    limit = self._get_param("Limit")
    iterator = self._get_param("ShardIterator")
    result = self.backend.get_records(iterator, 1000 if limit is None else limit)
    values = (
        value
        for record in result["Records"]
        for name in _IMAGES
        for value in record["dynamodb"].get(name, {}).values()
    )
    if all(map(in_wire_form, values)):
        return json.dumps(result, default=_epoch_seconds)
    return ActionResult(result)  # a binary value: moto's own serializer, as moto answers


def replacements() -> list[tuple[object, str, Any]]:
    """(owner, attribute, replacement) of every change this module makes."""
    methods = BaseJSONSerializer.__dict__
    return [
        (
            BaseJSONSerializer,
            "_serialize_type_structure",
            _written_as_is(methods["_serialize_type_structure"], _value_as_is),
        ),
        (
            BaseJSONSerializer,
            "_serialize_type_map",
            _written_as_is(methods["_serialize_type_map"], _map_as_is),
        ),
        (DynamoDBStreamsHandler, "get_records", _get_records),
        (
            BaseJSONParser,
            "_parse_structure",
            _read_as_is(BaseJSONParser.__dict__["_parse_structure"], _value_as_is),
        ),
        (
            RequestParser,
            "_parse_map",
            _read_as_is(RequestParser.__dict__["_parse_map"], _map_as_is),
        ),
    ]
