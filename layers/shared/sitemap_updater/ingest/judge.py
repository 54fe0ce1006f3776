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

import re
from collections.abc import Iterable
from datetime import datetime
from functools import cache
from typing import Any, Final, Literal

import msgspec

from sitemap_updater.page.model import (
    MAX_ARRAY_CHANGES,
    Delete,
    EventBridgeEvent,
    Page,
    SentChange,
    decode_changes,
)
from sitemap_updater.page.normalize import Drops, normalize_page
from sitemap_updater.page.order import (
    check_instant,
    delete_digest,
    event_key,
    listing_time,
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
_PATH: Final = re.compile(r" - at `\$(.*)`$")
_INDEX: Final = re.compile(r"\[(\d+)\]")
#: An element of a list named in a rule (``alternates[0] names it already``).
_ELEMENT: Final = re.compile(r"\b[a-z_]+\[\d+\]")
_MISSING_FIELD: Final = re.compile(r"Object missing required field `([^`]+)`")
_EXPECTED: Final = re.compile(r"Expected `([^`]+)`(?:, got `([^`]+)`)?(.*)")
_KINDS: Final = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


#: The value of a rejection for a field that is absent.
MISSING: Final = _Missing()


class Rejection(msgspec.Struct, frozen=True, gc=False):
    """Why a message, or one change of an array message, can never be applied: ``index`` is the
    change's place in an array (``None``: the message, or its one change), ``raw`` the change as
    sent."""

    index: int | None
    field: str
    value: object
    rule: str
    raw: object = None


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
    except (msgspec.DecodeError, msgspec.ValidationError):
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


def _judge_untyped(text: str, *, sent_at: datetime, sites: Sites, now: datetime) -> Judgement:
    try:
        decoded: Any = msgspec.json.decode(text)
    except msgspec.ValidationError:  # a number the decoder cannot hold
        return _invalid(text, "must be JSON whose integers fit in 64 bits")
    except msgspec.DecodeError as error:
        return _invalid(text, _json_rule(text, str(error)))
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
        return _rejection(error, obj, index, "")
    return judge_change(
        sent, default_time=sent_at, sites=sites, now=now, index=index, raw=obj, length=length
    )


def _judge_event(obj: dict[str, Any], sites: Sites, now: datetime, length: int) -> Judged:
    try:
        event = msgspec.convert(obj, EventBridgeEvent)
    except msgspec.ValidationError as error:
        return _rejection(error, obj, None, "")
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


# -- what the decoder said -------------------------------------------------------------------


def _json_rule(text: str, message: str) -> str:
    """The rule a text that is not JSON breaks, at the line and column of msgspec's byte offset."""
    reason = message.removeprefix("JSON is malformed: ")
    found = re.search(r" \(byte (\d+)\)$", reason)
    if found is None:
        return f"must be JSON ({reason[:1].lower()}{reason[1:]})"
    head = text.encode("utf-8")[: int(found[1])].decode("utf-8", "replace")
    line, column = head.count("\n") + 1, len(head) - head.rfind("\n")
    return f"must be JSON ({reason[: found.start()]} at line {line} column {column})"


def _value_at(obj: object, path: Iterable[str | int]) -> object:
    for step in path:
        try:
            obj = obj[step]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return obj


def _steps(path: str) -> list[str | int]:
    """``.alternates[0].href`` as ``["alternates", 0, "href"]``."""
    steps: list[str | int] = []
    for part in filter(None, path.split(".")):
        name, *indexes = _INDEX.split(part)
        if name:
            steps.append(name)
        steps += [int(i) for i in indexes if i]
    return steps


def _field(steps: list[str | int]) -> str:
    text = ""
    for step in steps:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def _rule(message: str) -> str:
    """A decoder's message as the rule a value breaks."""
    expected = _EXPECTED.fullmatch(message)
    if expected is None:
        if message.startswith("Invalid value"):
            return "must be one of the values the contract lists"
        return message[0].lower() + message[1:]
    kinds, got, bound = expected.groups()
    if got is not None:
        names = [_KINDS.get(kind.strip(), kind.strip()) for kind in kinds.split("|")]
        names = [name for name in names if name != "null"] or names
        return f"must be {' or '.join(names)} (not {_KINDS.get(got, got)})"
    bound = bound.strip()
    for sign, words in ((">=", "at least"), ("<=", "at most")):
        if f"of length {sign}" in bound:
            count = bound.rsplit(" ", 1)[1]
            unit = "character" if kinds == "str" else "item"
            return f"must have {words} {count} {unit}{'' if count == '1' else 's'}"
        if bound.startswith(sign):
            return f"must be {words} {bound[len(sign) :].strip()}"
    return f"must be {_KINDS.get(kinds, kinds)} {bound}".strip()


def _rejection(
    error: msgspec.ValidationError, raw: object, index: int | None, prefix: str
) -> Rejection:
    """The rejection of a value the typed decoder refused: its field, its value, its rule."""
    message = str(error)
    located = _PATH.search(message)
    steps = _steps(located[1]) if located else []
    message = message[: located.start()] if located else message
    missing = _MISSING_FIELD.fullmatch(message)
    if missing is not None:
        return Rejection(index, prefix + _field([*steps, missing[1]]), MISSING, "is required", raw)
    field = _field(steps) or "change"
    value = _value_at(raw, steps)
    if steps and steps[-1] == "action":
        return Rejection(index, prefix + field, value, "must be upsert or delete", raw)
    choices = _choices(_declared(), steps) if message.startswith("Invalid enum value") else []
    rule = f"must be one of {', '.join(choices)}" if choices else _rule(message)
    return Rejection(index, prefix + field, value, rule, raw)


@cache
def _declared() -> tuple[msgspec.inspect.Type, ...]:
    """The declarations a decoder's path starts from (read once a rejection needs them)."""
    return msgspec.inspect.multi_type_info([SentChange, EventBridgeEvent])


def _choices(kinds: Iterable[msgspec.inspect.Type], steps: list[str | int]) -> list[str]:
    """The values of the ``Literal`` that one of ``kinds`` declares at ``steps`` (none: no
    literal is declared there)."""
    inspect = msgspec.inspect
    for kind in kinds:
        while isinstance(kind, inspect.Metadata):
            kind = kind.type
        if isinstance(kind, inspect.UnionType):
            found = _choices(kind.types, steps)
        elif not steps:
            found = [str(v) for v in kind.values] if isinstance(kind, inspect.LiteralType) else []
        elif isinstance(kind, inspect.StructType):
            found = _choices([f.type for f in kind.fields if f.encode_name == steps[0]], steps[1:])
        elif isinstance(kind, inspect.ListType | inspect.VarTupleType):
            found = _choices([kind.item_type], steps[1:]) if isinstance(steps[0], int) else []
        else:
            found = []
        if found:
            return found
    return []


#: Where each element a lenient judgement kept was in the list given, by list.
Positions = dict[str, list[int]]


def _lenient_fields(fields: dict[str, Any], drops: Drops) -> tuple[Page, Positions]:
    """The page of a listing's raw fields (the wire names and forms of ``page.model``), each
    field or element of the wrong type or over a bound left out and noted in ``drops``, and
    where each element kept was given; raises the :class:`SitemapError` of a listing without a
    usable url."""
    fields = {name: list(v) if isinstance(v, list) else v for name, v in fields.items()}
    positions = {name: list(range(len(v))) for name, v in fields.items() if isinstance(v, list)}
    while True:
        try:
            # a sitemap's values are text: numbers and flags are read from it (lax)
            return msgspec.convert(fields, Page, strict=False), positions
        except msgspec.ValidationError as error:
            rejection = _rejection(error, fields, None, "")
            located = _PATH.search(str(error))
            steps = _steps(located[1]) if located else []
            if not steps or steps[0] == "url":
                raise SitemapError(rejection.field, rejection.value, rejection.rule) from None
            name = str(steps[0])
            value = fields.get(name)
            field = _renumbered(rejection.field, positions)
            drops.append(SitemapError(field, rejection.value, rejection.rule))
            if isinstance(value, list) and len(steps) == 1 and "length <= " in str(error):
                most = int(str(error).split("length <= ")[1].split()[0])
                fields[name], positions[name] = value[:most], positions[name][:most]
            elif isinstance(value, list) and len(steps) > 1 and isinstance(steps[1], int):
                del value[steps[1]], positions[name][steps[1]]
            else:
                fields.pop(name, None)


def _renumbered(field: str, positions: Positions) -> str:
    """``field`` (``alternates[1].href``) with its index the element's place in the list given."""
    name, bracket, rest = field.partition("[")
    index, _, tail = rest.partition("]")
    if not bracket or not index.isdigit() or name not in positions:
        return field
    kept = positions[name]
    place = int(index)
    return f"{name}[{kept[place] if place < len(kept) else place}]{tail}"


def judge_listing(
    fields: dict[str, Any], *, sites: Sites, now: datetime, drops: Drops | None
) -> Change:
    """A page a reader found in a sitemap or spreadsheet, given as its raw fields (the wire names
    and forms of ``page.model``, values as text where the source has only text). Leniently (a
    ``drops`` list): each field or element that breaks a rule is left out and its error appended
    to ``drops`` (``page.normalize``), the page kept, and only the url's error is raised.
    Strictly (``drops`` ``None``, as ``validate`` judges): the :class:`SitemapError` of the first
    rule broken is raised. Its event time is its lastmod's (``page.order.listing_time``)."""
    if drops is None:
        try:
            given = msgspec.convert(fields, Page, strict=False)
        except msgspec.ValidationError as error:
            rejection = _rejection(error, fields, None, "")
            raise SitemapError(rejection.field, rejection.value, rejection.rule) from None
        positions: Positions = {}
    else:
        given, positions = _lenient_fields(fields, drops)
    url = normalize_url(given.url, field="url")
    site = sites.owner(url, field="url", value=given.url)
    first = len(drops or ())
    page = normalize_page(given, url, site, now, drops)
    for i in range(first, len(drops or ())):
        assert drops is not None
        dropped = drops[i].at(_renumbered(drops[i].field, positions))
        rule = _ELEMENT.sub(lambda found: _renumbered(found[0], positions), dropped.rule)
        drops[i] = (
            dropped if rule == dropped.rule else SitemapError(dropped.field, dropped.value, rule)
        )
    digest = page_digest(page, None)
    at = listing_time(page.lastmod, now)
    return Change(None, "upsert", url, page, at, digest, event_key(at, "upsert", digest))
