"""What judging a change gives: a valid, normalized :class:`ChangeEvent` or a :class:`Rejection`,
and the time rules of ``occurred_at``.

Pure: no AWS, no clock of its own. Every rejection names the field, the offending value and the
rule it broke.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final, Literal

from sitemap_updater.ingest.ordering import content_digest, delete_digest, event_key
from sitemap_updater.protocol.entry import Entry

#: How far ahead of the judge's clock (the time ingest receives the message) an ``occurred_at``
#: may lie: room for a producer's clock skew, no more. A later one would order after every real
#: change of that URL until then (a sender could pin the URL), so it is rejected, not clamped
#: (docs/producers.md says why).
MAX_FUTURE_SKEW: Final = timedelta(minutes=5)
#: :data:`MAX_FUTURE_SKEW` in words, for the rule a rejection names.
_SKEW_TEXT: Final = f"{MAX_FUTURE_SKEW.seconds // 60} minutes"
#: Earliest accepted ``occurred_at``.
EARLIEST: Final = datetime(1970, 1, 1, tzinfo=UTC)
#: Bytes kept free in a URL item for what the writer adds to it (its write time, ``wt``).
WRITER_ALLOWANCE_BYTES: Final = 32


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


#: The value of a rejection for a field that is absent.
MISSING: Final = _Missing()


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a body, or one entry of an array body, can never be applied.

    ``index`` is the entry's position in an array body, ``None`` for the body as a whole or a
    single change object. ``raw`` is the entry as sent (for an array entry).
    """

    index: int | None
    field: str
    value: object
    rule: str
    raw: object = None


@dataclass(slots=True)
class ChangeEvent:
    """A valid, normalized change to one URL, with its ordering key.

    Treat it as immutable. It is not a frozen dataclass because the judge builds one per event
    and a frozen one costs twice the time (``benchmarks/bench_judge.py``); nothing changes it
    after the judge.
    """

    index: int | None
    action: Literal["upsert", "delete"]
    loc: str
    entry: Entry | None
    occurred_at: datetime
    digest: str
    event_key: str
    #: the section an upsert named (``None``: it named none)
    section: str | None = None


Judged = ChangeEvent | Rejection


def upsert_change(
    entry: Entry,
    occurred_at: datetime,
    section: str | None = None,
    *,
    index: int | None = None,
    instant: str | None = None,
) -> ChangeEvent:
    """The upsert of a normalized ``entry`` at ``occurred_at`` in ``section``, with its content
    digest and ordering key (``instant``: ``format_instant(occurred_at)``, when known)."""
    digest = content_digest(entry, section)
    key = event_key(occurred_at, "upsert", digest, instant=instant)
    return ChangeEvent(index, "upsert", entry.loc, entry, occurred_at, digest, key, section)


def delete_change(
    loc: str, occurred_at: datetime, *, index: int | None = None, instant: str | None = None
) -> ChangeEvent:
    """The delete of the normalized URL ``loc`` at ``occurred_at``, with its digest and key."""
    digest = delete_digest(loc)
    key = event_key(occurred_at, "delete", digest, instant=instant)
    return ChangeEvent(index, "delete", loc, None, occurred_at, digest, key)


def check_instant(moment: datetime, now: datetime) -> datetime:
    """``moment`` in UTC if it has a zone and lies within [1970, now + MAX_FUTURE_SKEW].

    Raises ``ValueError`` with the rule otherwise. An event time far in the future would
    make its URL ignore every real change until then, so it is refused.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("must include a time zone (Z or +hh:mm)")
    moment = moment.astimezone(UTC)
    if moment < EARLIEST:
        raise ValueError("must not be before 1970-01-01T00:00:00Z")
    if moment > now + MAX_FUTURE_SKEW:
        raise ValueError(f"must not be more than {_SKEW_TEXT} in the future")
    return moment


def parse_occurred_at(raw: str, now: datetime) -> datetime:
    """An ISO 8601 instant with a zone, within [1970, now + MAX_FUTURE_SKEW]; ``ValueError``
    otherwise."""
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError("must be an ISO 8601 date-time with a time zone") from None
    return check_instant(moment, now)
