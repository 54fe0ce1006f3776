"""The forms of a lastmod that sitemaps and spreadsheets write besides W3C Datetime, read as the
W3C text they stand for, and said once per form and file.

Exports and old sitemaps seldom write only ``2026-11-27`` or ``2026-11-27T10:00:00Z``. Read too:

- a date and a time after a space, ``2026-11-01 10:00:00`` (or ``10:00``);
- a time without a zone, after a space or a ``T``: read as UTC;
- an offset without its colon, ``+0100``: read as ``+01:00``;
- epoch seconds, ``1795000000`` (9 to 11 digits, an optional fraction): the moment in UTC;
- a day-first or month-first date, ``27/11/2026``, ``20.11.2026``, ``11-27-2026`` (``/``, ``.``
  or ``-`` between the parts, a four-digit year last, optionally a time after a space): read
  only when ``--date-order dmy`` or ``mdy`` says which, since ``03/04/2026`` is either.

Each form becomes the W3C text it stands for, which the protocol's one rule then judges
(``sitemap_updater.protocol.lastmod``): a time that does not exist, or a moment out of range,
is reported by it. A day and month that make no date (``31/02/2026``), and any other text, are
passed on unchanged, for the same rule to judge. :class:`LastmodForms` counts the lastmods of
one file read so, and gives one note a form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Final, Literal

from sitemap_updater.protocol.lastmod import format_w3c_epoch
from sitemap_updater_local.inputs.source_records import Note, quote

DateOrder = Literal["dmy", "mdy"]
DATE_ORDERS: Final = ("dmy", "mdy")

_TIME: Final = (
    r"(?:(?P<sep>[ T])(?P<time>[0-9]{1,2}:[0-9]{2}(?P<seconds>:[0-9]{2}(?:\.[0-9]+)?)?)"
    r"(?P<zone>Z|[+-][0-9]{2}:?[0-9]{2})?)?"
)
_ISO: Final = re.compile(r"(?P<ymd>[0-9]{4}-[0-9]{2}-[0-9]{2})" + _TIME)
_EPOCH: Final = re.compile(r"[0-9]{9,11}(?:\.[0-9]+)?")
_DAY_MONTH: Final = re.compile(
    r"(?P<a>[0-9]{1,2})(?P<dsep>[/.-])(?P<b>[0-9]{1,2})(?P=dsep)(?P<year>[0-9]{4})" + _TIME
)


def _w3c(day: str, match: re.Match[str]) -> str:
    time, zone = match["time"], match["zone"]
    if time is None:
        return day
    hours, _, rest = time.partition(":")
    zone = zone or "Z"
    if zone != "Z" and ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    return f"{day}T{int(hours):02d}:{rest}{zone}"


def _time_form(match: re.Match[str]) -> str:
    """How the time part of ``match`` is written, as a pattern (``hh:mm:ss±hhmm``)."""
    if match["time"] is None:
        return ""
    zone = match["zone"]
    form = f"{match['sep']}hh:mm{':ss' if match['seconds'] else ''}"
    if zone is None:
        return form + " (no zone: read as UTC)"
    return form + ("Z" if zone == "Z" else "±hh:mm" if ":" in zone else "±hhmm")


def w3c_lastmod(text: str, order: DateOrder | None = None) -> tuple[str, str | None]:
    """The W3C Datetime text ``text`` stands for (see the module) and the form it was in;
    ``text`` itself and ``None`` when it is W3C already or in none of the forms (or a day and
    month in an ``order`` not given)."""
    match = _ISO.fullmatch(text)
    if match is not None:
        w3c = _w3c(match["ymd"], match)
        return (text, None) if w3c == text else (w3c, "YYYY-MM-DD" + _time_form(match))
    if _EPOCH.fullmatch(text):
        return format_w3c_epoch(float(text)), "epoch seconds"
    match = _DAY_MONTH.fullmatch(text) if order is not None else None
    if match is None:
        return text, None
    day, month = (match["a"], match["b"]) if order == "dmy" else (match["b"], match["a"])
    try:
        moment = date(int(match["year"]), int(month), int(day))
    except ValueError:
        return text, None
    parts = ("DD", "MM") if order == "dmy" else ("MM", "DD")
    form = match["dsep"].join((*parts, "YYYY")) + _time_form(match) + f" (--date-order {order})"
    return _w3c(moment.isoformat(), match), form


@dataclass
class LastmodForms:
    """The lastmods of one file read in a form of their own: each read as W3C, counted by form
    with its first example, and said in one note a form (:meth:`notes`)."""

    order: DateOrder | None = None
    #: form -> (lastmods in it, the first one, what it was read as)
    seen: dict[str, tuple[int, str, str]] = field(default_factory=dict)

    def read(self, text: str) -> str:
        """``text`` as W3C text, counted if it was in a form of its own."""
        w3c, form = w3c_lastmod(text, self.order)
        if form is not None:
            count, first, read = self.seen.get(form, (0, text, w3c))
            self.seen[form] = (count + 1, first, read)
        return w3c

    def notes(self, location: str) -> Iterator[Note]:
        """One note per form read in ``location``."""
        for form, (count, first, read) in self.seen.items():
            pages = f"{count:,} lastmod{'s' if count > 1 else ''}"
            yield Note(
                location,
                f"{pages} in the form {form} read as W3C Datetime (first: {quote(first)} "
                f"as {quote(read)})",
            )
