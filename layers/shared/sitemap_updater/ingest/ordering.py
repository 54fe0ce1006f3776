"""The ordering key ``ev`` and the content digest of a change (docs/architecture.md).

``ev = <occurred_at as UTC %Y%m%dT%H%M%S.%fZ>#<rank>#<digest>``, compared as a string.

Tie-breaks, so that the same set of events always ends in the same state whatever the order
in which they are delivered:

* equal ``occurred_at``: a delete (rank ``1``) beats an upsert (rank ``0``);
* equal ``occurred_at``, two upserts: the one with the larger content digest (hex string
  order) wins;
* the same event delivered again has the same key, so its conditional write is a no-op.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any, Final, Literal

import orjson

from sitemap_updater.protocol.entry import EXTRA_FIELDS, NO_EXTRAS, Entry, PlainFields, extras_of
from sitemap_updater.store.items import plain_value

RANK_UPSERT: Final = "0"
RANK_DELETE: Final = "1"
#: How many keys the digest of an entry without extra fields or section has: its plain fields
#: (``protocol.entry``), written in sorted order by :func:`_canonical_fields`.
_PLAIN_KEYS: Final = 6
#: The digested text of each priority at one decimal.
_TENTH_TEXTS: Final = {k / 10: f"{k / 10:.1f}" for k in range(11)}
_IMAGE_LOC: Final = itemgetter(0)


def format_instant(moment: datetime) -> str:
    """``moment`` in UTC as ``YYYYmmddTHHMMSS.ffffffZ`` (fixed width, so it sorts as text).

    Raises ``ValueError`` for a naive datetime: its instant is unknown.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a naive datetime has no defined instant")
    u = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    # isoformat always pads the year to four digits and ends in +00:00 for UTC
    return u.isoformat(timespec="microseconds").replace("-", "").replace(":", "")[:-5] + "Z"


#: The UTC forms of an ISO 8601 instant whose :func:`format_instant` text is a rearrangement of
#: their own: ``YYYY-MM-DDThh:mm:ssZ`` with no, three or six decimals (as ``toISOString`` and
#: most clients write it).
_UTC_FORM: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{3}|\.\d{6})?Z")
#: Characters of that form with six decimals: its text is the instant's, less the separators.
_SIX_DECIMALS: Final = len("YYYY-MM-DDThh:mm:ss.ffffffZ")


def instant_text(raw: str) -> str | None:
    """``format_instant`` of the instant ``raw`` names, read off the text itself, or ``None``
    when ``raw`` is not in one of the common UTC forms (:data:`_UTC_FORM`).

    The caller must already know that ``raw`` is a valid instant (``datetime.fromisoformat``
    read it); this only spares formatting it again.
    """
    if _UTC_FORM.fullmatch(raw) is None:
        return None
    if len(raw) == _SIX_DECIMALS:  # the same digits without the separators
        return raw.replace("-", "").replace(":", "")
    head = raw[:19].replace("-", "").replace(":", "")
    return f"{head}.{raw[20:-1]}000Z" if len(raw) == 24 else f"{head}.000000Z"


def instant_texts(raws: Sequence[str]) -> list[str | None]:
    """:func:`instant_text` of each of ``raws``, the six-decimal form (the commonest) read in
    one pass."""
    return [
        raw.replace("-", "").replace(":", "")
        if len(raw) == _SIX_DECIMALS and matched is not None
        else instant_text(raw)
        for raw, matched in zip(raws, map(_UTC_FORM.fullmatch, raws), strict=True)
    ]


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical_fields(entry: Entry, section: str | None) -> dict[str, Any]:
    """The digested fields of an entry and of the section its change names, by name: its plain
    fields always (``null`` when absent: every stored digest has them so), each extra field
    and the section only when present, so that the digest of an entry without them is what it
    always was. Keys in sorted order when there is neither (the common case)."""
    priority, alternates, images = entry.priority, entry.alternates, entry.images
    fields: dict[str, Any] = {
        # an alternate is its (hreflang, href), an image its (loc,): lists of them, in C
        "alternates": list(map(list, alternates)) if alternates else [],
        "changefreq": entry.changefreq,
        "images": list(map(_IMAGE_LOC, images)) if images else [],
        "lastmod": entry.lastmod,
        "loc": entry.loc,
        # a priority at one decimal (the common case) has its text ready; zero is formatted,
        # since -0.0 equals 0.0 but is written "-0.0"
        "priority": None
        if priority is None
        else (priority and _TENTH_TEXTS.get(priority)) or f"{priority:.1f}",
    }
    if section is not None:
        fields["section"] = section
    extras = extras_of(entry)
    if extras != NO_EXTRAS:
        for field, value in zip(EXTRA_FIELDS, extras, strict=True):
            if value != field.absent:
                fields[field.name] = plain_value(field, value)
    return fields


def canonical_entry_json(entry: Entry, section: str | None = None) -> str:
    """Canonical JSON of the entry fields that end up in the table (and so in the sitemap),
    with the section the change names (it decides which file lists the entry).

    Keys sorted, no spaces, every non-ASCII character escaped. The priority is written with
    one decimal, as the item codec stores it, so two entries that publish the same bytes have
    the same digest.
    """
    fields = _canonical_fields(entry, section)
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def content_digest(entry: Entry, section: str | None = None) -> str:
    """sha256 (hex) of the canonical JSON of a normalized entry and its change's section.

    orjson writes the same bytes as :func:`canonical_entry_json` whenever its output is ASCII
    without DEL (both escape quotes, backslashes and control characters, the same way; only the
    standard library escapes DEL, U+007F), which it is
    for every normalized entry without text fields: URLs, dates, change frequencies and
    language tags are ASCII. Any other entry (a news or video title may not be) takes the
    standard library's path.
    """
    fields = _canonical_fields(entry, section)
    # the six plain fields alone are already in sorted order (the common case)
    data = (
        orjson.dumps(fields)
        if len(fields) == _PLAIN_KEYS
        else orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
    )
    if data.isascii() and b"\x7f" not in data:
        return hashlib.sha256(data).hexdigest()
    return _sha256_hex(canonical_entry_json(entry, section))


def plain_digest(fields: PlainFields, section: str | None = None) -> str:
    """:func:`content_digest` of an entry of plain fields alone, given as its plain values
    (``protocol.entry.PlainFields``), each recognized in normalized form
    (``protocol.normalized``), and of its change's section (a section name).

    Every such value is ASCII without a quote, a backslash or a control character (URLs of the
    normalized characters, dates, table words, language tags, slugs), so its JSON string is
    its text in quotes, and the canonical JSON is written straight, keys in sorted order.
    """
    loc, lastmod, changefreq, priority, alternates, images = fields
    pairs = ",".join([f'["{hreflang}","{href}"]' for hreflang, href in alternates])
    locs = '","'.join(images)
    locs_json = f'"{locs}"' if images else ""
    changefreq_json = "null" if changefreq is None else f'"{changefreq}"'
    lastmod_json = "null" if lastmod is None else f'"{lastmod}"'
    priority_json = "null" if priority is None else f'"{_TENTH_TEXTS[priority]}"'
    text = (
        f'{{"alternates":[{pairs}],"changefreq":{changefreq_json},"images":[{locs_json}],'
        f'"lastmod":{lastmod_json},"loc":"{loc}","priority":{priority_json}'
    )
    if section is not None:
        text += f',"section":"{section}"'
    text += "}"
    return hashlib.sha256(text.encode()).hexdigest()


def delete_digest(loc: str) -> str:
    """sha256 (hex) of a normalized URL: the digest of a delete."""
    return _sha256_hex(loc)


def event_key(
    occurred_at: datetime,
    action: Literal["upsert", "delete"],
    digest: str,
    *,
    instant: str | None = None,
) -> str:
    """The ordering key ``ev`` of one change; ``instant``, when given, is
    ``format_instant(occurred_at)`` already (see :func:`instant_text`)."""
    rank = RANK_DELETE if action == "delete" else RANK_UPSERT
    return f"{instant or format_instant(occurred_at)}#{rank}#{digest}"
