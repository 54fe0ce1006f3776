"""The dates spreadsheets write in a CSV export's lastmod column, as W3C Datetime text.

A spreadsheet seldom writes ``2026-11-27`` or ``2026-11-27T10:00:00Z``. It writes:

- a date and a time after a space, ``2026-11-01 10:00:00`` (or ``10:00``, with or without a
  zone after it): a time without a zone is read as UTC;
- epoch seconds, ``1795000000`` (9 to 11 digits, an optional fraction): the moment in UTC;
- a day-first or month-first date, ``27/11/2026``, ``20.11.2026``, ``11-27-2026`` (``/``, ``.``
  or ``-`` between the parts, a four-digit year last, optionally a time after a space): read
  only when ``--date-order dmy`` or ``mdy`` says which, since ``03/04/2026`` is either.

Each form becomes the W3C text it stands for, which the protocol's one rule then judges
(``sitemap_updater.protocol.lastmod``): a time that does not exist, or a moment out of range,
is reported by it. A day and month that make no date (``31/02/2026``), and any other text, are
passed on unchanged, for the same rule to judge.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Final, Literal

from sitemap_updater.protocol.lastmod import format_w3c_epoch

DateOrder = Literal["dmy", "mdy"]
DATE_ORDERS: Final = ("dmy", "mdy")

_TIME: Final = (
    r"(?:[ T](?P<time>[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)"
    r"(?P<zone>Z|[+-][0-9]{2}:?[0-9]{2})?)?"
)
_ISO_SPACE: Final = re.compile(r"(?P<ymd>[0-9]{4}-[0-9]{2}-[0-9]{2})" + _TIME)
_EPOCH: Final = re.compile(r"[0-9]{9,11}(?:\.[0-9]+)?")
_DAY_MONTH: Final = re.compile(
    r"(?P<a>[0-9]{1,2})(?P<sep>[/.-])(?P<b>[0-9]{1,2})(?P=sep)(?P<year>[0-9]{4})" + _TIME
)


def _w3c(day: str, time: str | None, zone: str | None) -> str:
    if time is None:
        return day
    hours, _, rest = time.partition(":")
    zone = zone or "Z"
    if zone != "Z" and ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    return f"{day}T{int(hours):02d}:{rest}{zone}"


def spreadsheet_lastmod(text: str, order: DateOrder | None = None) -> str:
    """The W3C Datetime text a spreadsheet's ``text`` stands for (see the module); ``text``
    itself when it is in none of the forms (or a day and month in an ``order`` not given)."""
    if len(text) >= 10 and text[4] == "-" and (len(text) == 10 or text[10] == "T"):
        return text  # already W3C (or for the protocol's rule to refuse)
    match = _ISO_SPACE.fullmatch(text)
    if match is not None:
        return _w3c(match["ymd"], match["time"], match["zone"])
    if _EPOCH.fullmatch(text):
        return format_w3c_epoch(float(text))
    match = _DAY_MONTH.fullmatch(text) if order is not None else None
    if match is None:
        return text
    day, month = (match["a"], match["b"]) if order == "dmy" else (match["b"], match["a"])
    try:
        moment = date(int(match["year"]), int(month), int(day))
    except ValueError:
        return text
    return _w3c(moment.isoformat(), match["time"], match["zone"])
