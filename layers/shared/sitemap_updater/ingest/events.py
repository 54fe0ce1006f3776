"""From a raw SQS message body to normalized change events, each valid or rejected.

Pure: no AWS, no clock of its own (``now`` and the SQS send time are passed in). Every
rejection names the field, the offending value and the rule it broke. In an array body each
entry is judged on its own.

Two paths give one judgement. The fast path (:func:`decode_body`) decodes the body into typed
structs (``ingest.wire``: msgspec's compiled decoder reads and shape-checks it in one call) and
takes it when every change of it is recognized in normalized form (``ingest.fast``): then the
careful path would accept each unchanged. Any other body (one the wire decoder refuses, an
EventBridge event, a change with an extension, a bad change) is judged by the careful path alone,
:func:`careful_decode_body`: the standard library's decoder, whose messages name the line and
column of a JSON error, the contract's models and the protocol core's normalizers (which it
skips, like the fast path, for values the one recognizer of normalized form accepts). So every
rejection and its reason comes from the careful path, and the fast path only decides bodies the
careful path accepts as they are (a property test compares the two on arbitrary bodies).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from sitemap_updater.ingest.fast import fast_change, fast_changes
from sitemap_updater.ingest.item_size import MAX_ITEM_BYTES, live_item_size
from sitemap_updater.ingest.judged import (
    MISSING,
    WRITER_ALLOWANCE_BYTES,
    ChangeEvent,
    Judged,
    Rejection,
    check_instant,
    delete_change,
    parse_occurred_at,
    upsert_change,
)
from sitemap_updater.ingest.shapes import MAX_ARRAY_ENTRIES, looks_like_eventbridge
from sitemap_updater.ingest.wire import DecodeError, WireChange, decode_changes
from sitemap_updater.protocol.entry import EXTRA_FIELDS, Entry, entry_of
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.normalized import normal_form, recognize
from sitemap_updater.protocol.urls import Site, normalize_url
from sitemap_updater.sections import check_section
from sitemap_updater.sites import Sites, sites_of

if TYPE_CHECKING:
    from pydantic import ValidationError

    from sitemap_updater.ingest.contract import ChangeObject

BodyKind = Literal["object", "eventbridge", "array", "invalid"]


class DecodedBody(NamedTuple):
    """The judgement of one body: its shape and, in order, each change or rejection."""

    kind: BodyKind
    items: tuple[Judged, ...]

    @property
    def events(self) -> list[ChangeEvent]:
        return [i for i in self.items if isinstance(i, ChangeEvent)]

    @property
    def rejections(self) -> list[Rejection]:
        return [i for i in self.items if isinstance(i, Rejection)]


def _field_name(loc: Sequence[int | str], default: str) -> str:
    return ".".join(str(part) for part in loc) or default


def _from_validation_error(
    exc: ValidationError, index: int | None, raw: object, default_field: str
) -> Rejection:
    first = exc.errors(include_url=False)[0]
    field = _field_name(first["loc"], default_field)
    if first["type"] == "missing":
        return Rejection(index, field, MISSING, "is required", raw)
    value = first.get("input")
    rule = str(first["msg"])
    if first["type"] in {"model_type", "model_attributes_type", "dict_type"}:
        rule = "must be a JSON object"
    return Rejection(index, field, value, rule, raw)


def _from_sitemap_error(
    exc: SitemapError, index: int | None, raw: object, prefix: str
) -> Rejection:
    field = "url" if exc.field == "loc" else exc.field
    return Rejection(index, prefix + field, exc.value, exc.rule, raw)


def _recognized_entry(change: ChangeObject, site: Site, now: datetime) -> Entry | None:
    """The entry of a schema-valid change when its values are all plain fields in normalized
    form (the protocol core's one recognizer), built without the normalizers, and without
    converting the change's values first (:meth:`ChangeObject.entry_values` costs more than
    recognizing them, on the judge's every change); ``None``: not sure."""
    given = change.__dict__
    for field in EXTRA_FIELDS:  # an extra field is never recognized
        value = given[field.wire]
        if value is not None and value != []:
            return None
    return recognize(
        normal_form(site, now),
        change.url,
        change.lastmod,
        change.changefreq,
        change.priority,
        [(a.hreflang, a.href) for a in change.alternates] if change.alternates else (),
        [i.loc for i in change.images] if change.images else (),
    )


def _judge(
    change: ChangeObject,
    *,
    index: int | None,
    raw: object,
    default_time: datetime,
    sites: Sites,
    now: datetime,
    prefix: str = "",
) -> Judged:
    """Normalize one schema-valid change with the protocol core's rules, against the listed
    site that owns its URL."""
    occurred_at = default_time
    if change.occurred_at is not None:
        try:
            occurred_at = parse_occurred_at(change.occurred_at, now)
        except ValueError as exc:
            return Rejection(index, prefix + "occurred_at", change.occurred_at, str(exc), raw)
    try:
        loc = normalize_url(change.url, field="loc")
        site = sites.owner(loc, field="loc", value=change.url)
        section = None if change.section is None else check_section(change.section)
        if change.action == "delete":  # a section, checked above, is ignored
            return delete_change(loc, occurred_at, index=index)
        entry = _recognized_entry(change, site, now)
        if entry is None:
            values = change.entry_values()
            values["loc"] = loc
            entry = entry_of(site, values, now=now)
    except SitemapError as exc:
        return _from_sitemap_error(exc, index, raw, prefix)
    event = upsert_change(entry, occurred_at, section, index=index)
    size = live_item_size(entry, event.event_key, event.digest, section) + WRITER_ALLOWANCE_BYTES
    if size > MAX_ITEM_BYTES:
        return Rejection(
            index,
            prefix + "entry",
            f"{size} bytes as stored",
            f"must fit in one table item of at most {MAX_ITEM_BYTES:,} bytes "
            "(send fewer or shorter images, alternates or videos)",
            raw,
        )
    return event


def _judge_object(
    obj: object, *, index: int | None, default_time: datetime, sites: Sites, now: datetime
) -> Judged:
    from pydantic import ValidationError

    from sitemap_updater.ingest.contract import ChangeObject

    try:
        change = ChangeObject.model_validate(obj)
    except ValidationError as exc:
        return _from_validation_error(exc, index, obj, "entry" if index is not None else "body")
    return _judge(change, index=index, raw=obj, default_time=default_time, sites=sites, now=now)


def _judge_eventbridge(obj: dict[str, Any], *, sites: Sites, now: datetime) -> Judged:
    from pydantic import ValidationError

    from sitemap_updater.ingest.contract import ChangeEventBridge

    try:
        event = ChangeEventBridge.model_validate(obj)
    except ValidationError as exc:
        return _from_validation_error(exc, None, obj, "body")
    raw_time = obj.get("time")
    if not isinstance(raw_time, str):
        return Rejection(None, "time", raw_time, "must be an ISO 8601 date-time string", obj)
    try:
        time = check_instant(event.time, now)
    except ValueError as exc:
        return Rejection(None, "time", raw_time, str(exc), obj)
    return _judge(
        event.detail,
        index=None,
        raw=obj,
        default_time=time,
        sites=sites,
        now=now,
        prefix="detail.",
    )


def _invalid(field: str, value: object, rule: str) -> DecodedBody:
    return DecodedBody("invalid", (Rejection(None, field, value, rule),))


def decode_body(body: str, *, sent_at: datetime, site: Site | Sites, now: datetime) -> DecodedBody:
    """Judge every change in one message body.

    ``site`` is the deployment's sites (a :class:`Site` alone: the list of that one); each
    change is judged against the one that owns its URL, and a URL on none is rejected.
    ``sent_at`` (the SQS SentTimestamp) is the default ``occurred_at``; for an EventBridge
    body the event's ``time`` is. A body that is not JSON, or not one of the three shapes, is
    one rejection of field ``body``. The same judgement as :func:`careful_decode_body`, faster
    for the common, valid body (see the module text).
    """
    sites = site if type(site) is Sites else sites_of(site)
    try:
        decoded = decode_changes(body)
    except DecodeError:
        return careful_decode_body(body, sent_at=sent_at, site=sites, now=now)
    fast = _fast_body(decoded, len(body), sent_at, sites, now)
    if fast is not None:
        return fast
    return careful_decode_body(body, sent_at=sent_at, site=sites, now=now)


def _fast_body(
    decoded: WireChange | list[WireChange],
    length: int,
    sent_at: datetime,
    sites: Sites,
    now: datetime,
) -> DecodedBody | None:
    """The judgement of a body whose changes are all already in normalized form
    (``ingest.fast``), or ``None`` when one of them is not."""
    if not isinstance(decoded, list):
        event = fast_change(decoded, None, sent_at, sites, now, length)
        # tuple.__new__ straight: the named tuple's own __new__ is Python code (once an event)
        return None if event is None else tuple.__new__(DecodedBody, ("object", (event,)))
    if not 1 <= len(decoded) <= MAX_ARRAY_ENTRIES:
        return None
    events = fast_changes(decoded, [length] * len(decoded), sent_at, sites, now, first=0)
    if not all(events):  # a change is truthy, None is not
        return None
    return DecodedBody("array", tuple(cast("list[ChangeEvent]", events)))


def careful_decode_body(
    body: str, *, sent_at: datetime, site: Site | Sites, now: datetime
) -> DecodedBody:
    """:func:`decode_body` with the standard library's JSON decoder: the reference judgement."""
    sites = site if type(site) is Sites else sites_of(site)
    try:
        decoded: Any = json.loads(body)
    except json.JSONDecodeError as exc:
        return _invalid(
            "body", body, f"must be JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        )
    except RecursionError:
        return _invalid("body", body, "must be JSON nested less deeply than the decoder allows")
    except ValueError:  # an integer of more digits than Python converts to an int
        most = sys.get_int_max_str_digits()
        return _invalid("body", body, f"must be JSON whose integers have at most {most} digits")
    return _judge_decoded(decoded, body, sent_at=sent_at, sites=sites, now=now)


def undecodable(body: str, exc: Exception) -> DecodedBody:
    """The judgement of a body the judge failed on with ``exc``: one rejection of the body that
    names the failure (a retry would fail the same way)."""
    return _invalid("body", body, f"could not be judged ({type(exc).__name__}: {exc})")


def _judge_decoded(
    decoded: Any, body: str, *, sent_at: datetime, sites: Sites, now: datetime
) -> DecodedBody:
    if isinstance(decoded, list):
        if not decoded:
            return _invalid("body", body, "an array body must hold at least 1 change object")
        if len(decoded) > MAX_ARRAY_ENTRIES:
            return _invalid(
                "body",
                f"array of {len(decoded)} entries",
                f"an array body may hold at most {MAX_ARRAY_ENTRIES} change objects",
            )
        return DecodedBody(
            "array",
            tuple(
                _judge_object(item, index=i, default_time=sent_at, sites=sites, now=now)
                for i, item in enumerate(decoded)
            ),
        )
    if isinstance(decoded, dict):
        if looks_like_eventbridge(decoded):
            return DecodedBody("eventbridge", (_judge_eventbridge(decoded, sites=sites, now=now),))
        return DecodedBody(
            "object",
            (_judge_object(decoded, index=None, default_time=sent_at, sites=sites, now=now),),
        )
    return _invalid(
        "body", decoded, "must be a JSON object, an EventBridge event or an array of objects"
    )
