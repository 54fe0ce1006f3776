"""The one ordering rule of the changes of a page: event time first, then one tie-break.

Every path that meets a page more than once keeps the change with the greatest *ordering key*:
ingest's conditional write (``ev < :ev``), ``build`` and ``backfill`` resolving a file, and the
rebuild trusting what the table holds. The key is a string compared as text::

    <event time as UTC %Y%m%dT%H%M%S.%fZ>#<rank>#<digest>

* the later event time wins;
* at equal times, a delete (rank ``1``) beats an upsert (rank ``0``);
* at equal times, of two upserts the one with the larger content digest wins, whatever the order
  of delivery, so the same changes always end in the same state;
* the same change delivered again has the same key, and its write is a no-op.

A change's event time is its ``occurred_at``, else the time its transport stamps on it
(the SQS SentTimestamp, the EventBridge ``time``, the producer client's clock, :class:`Stamps`;
in a file, :func:`file_time`: ``build``, ``backfill`` and ``simulate`` alike), so of two changes of
one page in one file the later one wins.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Final, Literal

import msgspec

from sitemap_updater.page.model import Page

RANK_UPSERT: Final = "0"
RANK_DELETE: Final = "1"
#: How far ahead of the judge's clock (the time ingest receives the message) an event time may
#: lie: room for a producer's clock skew, no more. A later one would order after every real
#: change of that URL until then (a sender could pin the URL), so it is refused, not clamped.
MAX_FUTURE_SKEW: Final = timedelta(minutes=5)
#: Earliest accepted event time.
EARLIEST: Final = datetime(1970, 1, 1, tzinfo=UTC)
#: The step between two stamped times (the finest the key shows).
TICK: Final = timedelta(microseconds=1)

_encode_sorted: Final = msgspec.json.Encoder(order="sorted").encode


@lru_cache(maxsize=4096)
def format_instant(moment: datetime) -> str:
    """``moment`` in UTC as ``YYYYmmddTHHMMSS.ffffffZ`` (fixed width, so it sorts as text);
    ``ValueError`` for a naive datetime, whose instant is unknown. Remembered: the changes of
    one message, or one batch, share their event time."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a naive datetime has no defined instant")
    utc = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    # isoformat pads the year to four digits and ends in +00:00 for UTC
    return utc.isoformat(timespec="microseconds").replace("-", "").replace(":", "")[:-5] + "Z"


def check_instant(moment: datetime, now: datetime) -> datetime:
    """``moment`` in UTC if it has a zone and lies within [1970, now + MAX_FUTURE_SKEW];
    ``ValueError`` with the rule otherwise."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("must include a time zone (Z or +hh:mm)")
    moment = moment.astimezone(UTC)
    if moment < EARLIEST:
        raise ValueError("must not be before 1970-01-01T00:00:00Z")
    if moment > now + MAX_FUTURE_SKEW:
        minutes = MAX_FUTURE_SKEW.seconds // 60
        raise ValueError(f"must not be more than {minutes} minutes in the future")
    return moment


def parse_instant(raw: str, now: datetime) -> datetime:
    """The instant an ISO 8601 date-time with a zone names, within :func:`check_instant`'s
    bounds; ``ValueError`` with the rule otherwise."""
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError("must be an ISO 8601 date-time with a time zone") from None
    return check_instant(moment, now)


def page_digest(page: Page, section: str | None) -> str:
    """sha256 (hex) of the canonical JSON of a judged page and the section its change names
    (the section decides which file lists it): keys sorted, absent fields left out."""
    return hashlib.sha256(_encode_sorted((page, section))).hexdigest()


def delete_digest(url: str) -> str:
    """sha256 (hex) of a normalized URL: the digest of a delete."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()


def event_key(at: datetime, action: Literal["upsert", "delete"], digest: str) -> str:
    """The ordering key of one change (see the module text)."""
    rank = RANK_DELETE if action == "delete" else RANK_UPSERT
    return f"{format_instant(at)}#{rank}#{digest}"


def key_time(key: str) -> datetime:
    """The event time an ordering key holds."""
    return datetime.strptime(key[: key.index("#")], "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=UTC)


def listing_time(lastmod: str | None, now: datetime) -> datetime:
    """The event time of a page a sitemap or spreadsheet lists: the moment its judged lastmod
    names (a date: its midnight, UTC), as the protocol makes it the time of the page's last
    change, never after ``now``; without a lastmod, the earliest time, so that of two listings
    of a page the newest wins and one without a lastmod loses to any with one."""
    if lastmod is None:
        return EARLIEST
    moment = datetime.fromisoformat(lastmod)
    return min(moment if moment.tzinfo else moment.replace(tzinfo=UTC), now)


def file_time(start: datetime, position: int) -> datetime:
    """The event time of the ``position``-th change (from 1) of a file that names none: the
    start of its run plus one microsecond per change before it, as a queue would stamp the file
    sent in order, so that of two changes of a page in one file the later one wins."""
    return start + TICK * position


def instant_text(moment: datetime) -> str:
    """``moment`` as an ``occurred_at`` a change carries: ISO 8601 in UTC, to the microsecond."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Stamps:
    """Event times for changes that carry none, each later than the one before: the next change
    of a page stamped here orders after the last, even within one tick of the clock."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: datetime | None = None

    def next(self, now: datetime) -> datetime:
        """``now``, or a tick after the last stamp if that is not earlier."""
        if self._last is not None and now <= self._last:
            now = self._last + TICK
        self._last = now
        return now
