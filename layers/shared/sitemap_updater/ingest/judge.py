"""The judge: from a message's text to its changes, each judged or rejected with a reason.

One function decides every change the system meets: the ingest function's, and every command's
(``build``, ``backfill``, ``send``, ``simulate``, ``validate``, the producer client). Pure: no
AWS, no clock of its own (``now`` and the transport's time are passed in).

A message is a change, an EventBridge event whose ``detail`` is one, or an array of 1 to 500
changes. msgspec's decoder reads it into the structs of ``page.model``, checking every type and
bound they declare; each change's values are then normalized field by field
(``page.normalize``), its item measured against DynamoDB's limit, and its digest and ordering key
made (``page.order``). A message the typed decoder refuses is read again untyped, so that each
change of it is judged on its own and each rejection names the field, the value and the rule;
in an array message every change is judged alone.

:func:`judge_listing` judges one page a reader found in a sitemap or a spreadsheet (``build`` and
``backfill``): leniently, a bad field or element left out and noted, the page kept.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final, Literal

import msgspec

from sitemap_updater.ingest.rejection import Rejection, json_rule, rejection_of
from sitemap_updater.page.model import (
    MAX_ARRAY_CHANGES,
    Delete,
    EventBridgeEvent,
    Page,
    SentChange,
    decode_changes,
)
from sitemap_updater.page.normalize import normalize_page
from sitemap_updater.page.order import (
    check_instant,
    delete_digest,
    event_key,
    page_digest,
    parse_instant,
)
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sections import check_section
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import MAX_ITEM_BYTES, item_size, live_item

#: Bytes kept free in a URL item for what the writer adds to it (its write time, ``wt``).
WRITER_ALLOWANCE_BYTES: Final = 32
#: A stored character takes at most this many bytes per character of the message: a URL's
#: character percent-encoded as UTF-8 (``%F0%9F%98%80`` for one code point) is the most.
_MOST_GROWTH: Final = 12
#: More than the item's own attributes (keys, state, ordering key, digest, section) ever take.
_OWN_BYTES: Final = 1024
#: A message this long or shorter never makes an item too large: measured only beyond it.
ROOMY_MESSAGE: Final = (MAX_ITEM_BYTES - WRITER_ALLOWANCE_BYTES - _OWN_BYTES) // _MOST_GROWTH
#: Keys that mark an EventBridge envelope, and those of a change it never has at its top level.
_EVENTBRIDGE_KEYS: Final = frozenset({"detail", "detail-type"})
_CHANGE_KEYS: Final = frozenset({"action", "url"})


class Change(msgspec.Struct, frozen=True, gc=False):
    """A judged change of one page: its normalized ``url``, the judged ``page`` (``None``: a
    delete), the section the upsert named, its event time, digest and ordering key."""

    index: int | None
    action: Literal["upsert", "delete"]
    url: str
    page: Page | None
    at: datetime
    digest: str
    key: str
    section: str | None = None


Judged = Change | Rejection
MessageKind = Literal["object", "eventbridge", "array", "invalid"]


class Judgement(msgspec.Struct, frozen=True):
    """The judgement of one message: its shape and, in order, each change or rejection."""

    kind: MessageKind
    items: tuple[Judged, ...]

    @property
    def changes(self) -> list[Change]:
        return [item for item in self.items if isinstance(item, Change)]

    @property
    def rejections(self) -> list[Rejection]:
        return [item for item in self.items if isinstance(item, Rejection)]


# -- one change ------------------------------------------------------------------------------


def judge_change(
    sent: SentChange,
    *,
    default_time: datetime,
    sites: Sites,
    now: datetime,
    index: int | None = None,
    raw: object = None,
    prefix: str = "",
    length: int = 0,
) -> Judged:
    """One change as sent (``length``: the characters of the message that held it), judged
    against the listed site that owns its URL; ``default_time`` is its event time unless it
    names one."""
    at = default_time
    if sent.occurred_at is not None:
        try:
            at = parse_instant(sent.occurred_at, now)
        except ValueError as error:
            return Rejection(index, prefix + "occurred_at", sent.occurred_at, str(error), raw)
    try:
        url = normalize_url(sent.url, field="url")
        site = sites.owner(url, field="url", value=sent.url)
        section = None if sent.section is None else check_section(sent.section)
        if isinstance(sent, Delete):  # a section, checked above, is ignored
            digest = delete_digest(url)
            return Change(index, "delete", url, None, at, digest, event_key(at, "delete", digest))
        page = normalize_page(sent, url, site, now)
    except SitemapError as error:
        return Rejection(index, prefix + error.field, error.value, error.rule, raw)
    digest = page_digest(page, section)
    key = event_key(at, "upsert", digest)
    if length > ROOMY_MESSAGE:
        size = item_size(live_item(page, key, digest, section)) + WRITER_ALLOWANCE_BYTES
        if size > MAX_ITEM_BYTES:
            return Rejection(
                index,
                prefix + "page",
                f"{size} bytes as stored",
                f"must fit in one table item of at most {MAX_ITEM_BYTES:,} bytes "
                "(send fewer or shorter images, alternates or videos)",
                raw,
            )
    return Change(index, "upsert", url, page, at, digest, key, section)


# -- a message -------------------------------------------------------------------------------


def judge_message(text: str, *, sent_at: datetime, sites: Sites, now: datetime) -> Judgement:
    """Every change of one message. ``sent_at`` (the SQS SentTimestamp) is the event time of a
    change that names none; an EventBridge event's ``time`` is, for its detail. A message that
    is not JSON, or not one of the three shapes, is one rejection of field ``message``."""
    length = len(text)
    try:
        decoded = decode_changes(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return _judge_untyped(text, sent_at=sent_at, sites=sites, now=now)
    if isinstance(decoded, list):
        judgement = Judgement(
            "array",
            tuple(
                judge_change(
                    sent, default_time=sent_at, sites=sites, now=now, index=i, length=length
                )
                for i, sent in enumerate(decoded)
            ),
        )
    else:
        judged = judge_change(decoded, default_time=sent_at, sites=sites, now=now, length=length)
        judgement = Judgement("object", (judged,))
    if any(isinstance(item, Rejection) for item in judgement.items):
        # judged again as decoded untyped: each rejection then carries its change as sent
        return _judge_untyped(text, sent_at=sent_at, sites=sites, now=now)
    return judgement


def unjudgeable(text: str, error: Exception) -> Judgement:
    """The judgement of a message the judge failed on with ``error``: one rejection naming the
    failure (a retry would fail the same way)."""
    rule = f"could not be judged ({type(error).__name__}: {error})"
    return Judgement("invalid", (Rejection(None, "message", text, rule),))


def _invalid(value: object, rule: str) -> Judgement:
    return Judgement("invalid", (Rejection(None, "message", value, rule),))


#: Decodes a message as plain values; a number too large for a float (``1e999``) is infinite, so
#: that its field's judge names it.
_UNTYPED: Final = msgspec.json.Decoder(float_hook=float)


def _judge_untyped(text: str, *, sent_at: datetime, sites: Sites, now: datetime) -> Judgement:
    try:
        decoded: Any = _UNTYPED.decode(text)
    except msgspec.ValidationError:  # the one number a float hook does not take: a huge integer
        return _invalid(text, "must be JSON whose integers have at most 4,300 digits")
    except msgspec.DecodeError as error:
        return _invalid(text, json_rule(text, str(error)))
    except RecursionError:
        return _invalid(text, "must be JSON nested less deeply than the decoder allows")
    length = len(text)
    if isinstance(decoded, list):
        if not decoded:
            return _invalid(text, "an array message must hold at least 1 change")
        if len(decoded) > MAX_ARRAY_CHANGES:
            return _invalid(
                f"array of {len(decoded)} changes",
                f"an array message may hold at most {MAX_ARRAY_CHANGES} changes",
            )
        return Judgement(
            "array",
            tuple(
                _judge_object(item, i, sent_at, sites, now, length)
                for i, item in enumerate(decoded)
            ),
        )
    if isinstance(decoded, dict):
        if is_event(decoded):
            return Judgement("eventbridge", (_judge_event(decoded, sites, now, length),))
        return Judgement("object", (_judge_object(decoded, None, sent_at, sites, now, length),))
    return _invalid(decoded, "must be a JSON object, an EventBridge event or an array of objects")


def is_event(obj: dict[str, Any]) -> bool:
    """Whether a JSON object is meant as an EventBridge event rather than a change: it has
    ``detail`` or ``detail-type``, and neither ``action`` nor ``url`` (a change may carry a field
    of its producer's own named ``detail``)."""
    return _CHANGE_KEYS.isdisjoint(obj) and not _EVENTBRIDGE_KEYS.isdisjoint(obj)


def _judge_object(
    obj: object, index: int | None, sent_at: datetime, sites: Sites, now: datetime, length: int
) -> Judged:
    try:
        sent = msgspec.convert(obj, SentChange)
    except msgspec.ValidationError as error:
        return rejection_of(error, obj, index, "")
    return judge_change(
        sent, default_time=sent_at, sites=sites, now=now, index=index, raw=obj, length=length
    )


def _judge_event(obj: dict[str, Any], sites: Sites, now: datetime, length: int) -> Judged:
    try:
        event = msgspec.convert(obj, EventBridgeEvent)
    except msgspec.ValidationError as error:
        return rejection_of(error, obj, None, "")
    try:
        moment = datetime.fromisoformat(event.time)
    except ValueError:
        return Rejection(None, "time", event.time, "must be an ISO 8601 date-time string", obj)
    try:
        time = check_instant(moment, now)
    except ValueError as error:
        return Rejection(None, "time", event.time, str(error), obj)
    return judge_change(
        event.detail, default_time=time, sites=sites, now=now, raw=obj, prefix="detail.",
        length=length,
    )  # fmt: skip
