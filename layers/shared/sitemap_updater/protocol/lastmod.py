"""``lastmod`` values: W3C Datetime as sitemap.xsd allows it (xsd:date or xsd:dateTime).

Accepted: ``YYYY-MM-DD``, or a date and time with a zone (``Z`` or ``+hh:mm``/``-hh:mm``), with
optional seconds and fraction of a second; also ``date`` and aware ``datetime`` objects.
Normalized to ``YYYY-MM-DD`` or UTC ``YYYY-MM-DDThh:mm:ssZ`` (fractions dropped).
Rejected: a time without a zone (Google ignores those), an offset beyond +/-14:00 (the XML Schema
range), a year outside 0001..9999, an impossible date, a moment before 1970-01-01 in UTC (as for
``occurred_at`` and every other date: no page on the web was changed before it), and a moment
more than one day after ``now``.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Final, cast

from sitemap_updater.protocol.errors import InvalidLastmodError

_DATE: Final = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DATETIME: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]+)?)?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)
#: Shape of an already normalized value (what the writers accept from trusted pages).
NORMALIZED_FORM: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?")
MAX_OFFSET: Final = timedelta(hours=14)
FUTURE_TOLERANCE: Final = timedelta(days=1)
FIELD: Final = "lastmod"
#: The earliest normalized value (a date or a time compares as text with it).
EARLIEST: Final = "1970-01-01"
#: Characters of a normalized date without its time.
DATE_LENGTH: Final = len("YYYY-MM-DD")
_EARLIEST_RULE: Final = "must not be before 1970-01-01 (UTC)"


def _bad(value: object, rule: str) -> InvalidLastmodError:
    return InvalidLastmodError(FIELD, value, rule)


def format_w3c(moment: datetime) -> str:
    """``moment`` in UTC as a W3C Datetime to the second, ``YYYY-MM-DDThh:mm:ssZ``: the one
    formatter of every such text the system writes (lastmods, the index's, the report's)."""
    m = moment.astimezone(UTC)
    # not strftime: its %Y does not pad years before 1000 to four digits on glibc
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}Z"


def format_w3c_epoch(epoch_seconds: float) -> str:
    """:func:`format_w3c` of an epoch time, to the whole second below it."""
    return format_w3c(datetime.fromtimestamp(int(epoch_seconds), UTC))


def _zone(value: str, text: str) -> timezone:
    if text == "Z":
        return UTC
    sign = -1 if text[0] == "-" else 1
    hours, minutes = int(text[1:3]), int(text[4:6])
    offset = timedelta(hours=hours, minutes=minutes)
    if minutes > 59 or offset > MAX_OFFSET:
        raise _bad(value, f"time zone offset {text} must be between -14:00 and +14:00")
    return timezone(sign * offset)


def _parse_text(value: str) -> tuple[str, datetime]:
    """The normalized text and the latest moment it may denote."""
    m = _DATE.fullmatch(value)
    if m is not None:
        try:
            day = date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError as exc:
            raise _bad(value, f"is not a real date ({exc})") from None
        return day.isoformat(), datetime(day.year, day.month, day.day, tzinfo=UTC)
    m = _DATETIME.fullmatch(value)
    if m is None:
        raise _bad(value, "must be YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.fff]] with Z or +hh:mm")
    if m[7] is None:
        raise _bad(value, "a date with a time must have a time zone (Z or +hh:mm)")
    zone = _zone(value, m[7])
    try:
        local = datetime(
            int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6] or 0), tzinfo=zone
        )
        moment = local.astimezone(UTC)
    except (ValueError, OverflowError) as exc:
        raise _bad(value, f"is not a real date and time ({exc})") from None
    if not 1 <= moment.year <= 9999:
        raise _bad(value, "year must be from 0001 to 9999 in UTC")
    return format_w3c(moment), moment


def _moment_if_normalized(value: str) -> datetime | None:
    """The latest moment ``value`` denotes if it is already in normalized form, else ``None``.

    The cheap check: a normalized value is its own result, so only its date (and time) has to be
    real. ``None`` means "not sure" and the full parser decides (and names the rule).
    """
    if NORMALIZED_FORM.fullmatch(value) is None:
        return None
    try:
        if len(value) == DATE_LENGTH:
            day = date.fromisoformat(value)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def normalize_lastmod(value: object, *, now: datetime | None = None) -> str:
    """The normalized ``lastmod``; raises :class:`InvalidLastmodError`."""
    normal = _moment_if_normalized(value) if isinstance(value, str) else None
    if normal is not None:
        text, moment = cast(str, value), normal
    elif isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise _bad(value, "a datetime must be timezone-aware")
        try:
            moment = value.astimezone(UTC)
        except OverflowError:
            raise _bad(value, "is out of range once converted to UTC") from None
        text = format_w3c(moment)
    elif isinstance(value, date):
        text = value.isoformat()
        moment = datetime(value.year, value.month, value.day, tzinfo=UTC)
    elif isinstance(value, str):
        text, moment = _parse_text(value)
    else:
        raise _bad(value, "must be a string (W3C date or datetime)")
    reference = datetime.now(UTC) if now is None else now
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    if moment - reference > FUTURE_TOLERANCE:
        raise _bad(value, "must not be more than one day in the future")
    if text < EARLIEST:
        raise _bad(value, _EARLIEST_RULE)
    return text
