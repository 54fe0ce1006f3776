"""The records a source gives: entries, JSONL lines, problems, and the light row of an entry.

A reader of sitemaps or CSV files yields a :class:`Row` per entry: a named tuple, cheap to make,
which becomes a :class:`RawEntry` (with its ``where``) only when something needs one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from sitemap_updater.printable import printable

#: Characters of an offending value quoted in a problem line.
QUOTE_LIMIT: Final = 200


class SourceError(Exception):
    """A source cannot be opened or read at all (missing file, HTTP error, unknown format)."""


class EmptySource(SourceError):
    """A source that holds nothing (an empty file, a gzip that inflates to nothing)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A record of a source that was skipped: ``where`` (``path:line``) and why; ``rule``, when
    given, is the reason without the offending value (problems are counted by it)."""

    where: str
    reason: str
    rule: str = ""

    def __str__(self) -> str:
        return printable(f"{self.where}: {self.reason}")


@dataclass(frozen=True, slots=True)
class Dropped(Problem):
    """An element or field of a record (an alternate, image, video or news object, a lastmod,
    changefreq or priority) that breaks a rule, left out or repaired (``outcome`` says which):
    the record itself is kept. A warning, not a skipped record."""

    outcome: str = "left out, the page is kept"

    @property
    def text(self) -> str:
        """What was wrong and what was done, without where."""
        return f"{self.reason}; {self.outcome}"

    def __str__(self) -> str:
        return printable(f"{self.where}: warning: {self.text}")


@dataclass(frozen=True, slots=True)
class Note:
    """Something a reader dropped or read in its own way, said once per file: not a problem."""

    where: str
    text: str

    def __str__(self) -> str:
        return printable(f"{self.where}: note: {self.text}")


@dataclass(frozen=True, slots=True)
class RawEntry:
    """An entry as found in a sitemap or CSV: raw text, not yet checked against the protocol."""

    where: str
    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    alternates: tuple[tuple[str, str], ...] = ()
    images: tuple[str, ...] = ()
    #: the videos and the news object of a sitemap ``<url>``, in the producer contract's form
    videos: tuple[dict[str, Any], ...] = ()
    news: dict[str, Any] | None = None
    #: ``(field, name)`` of each field the source calls by a name of its own (a CSV header)
    names: tuple[tuple[str, str], ...] = ()

    def name_of(self, field: str) -> str:
        """What the source calls ``field`` (``loc``, ``lastmod``, ...)."""
        for known, name in self.names:
            if known == field:
                return name
        return field


@dataclass(frozen=True, slots=True)
class BodyLine:
    """One non-blank line of a JSONL file (a raw SQS message body)."""

    where: str
    line: int
    text: str


class Row(NamedTuple):
    """An entry as a reader finds it: the same raw text a :class:`RawEntry` holds, without
    extensions; its ``where`` is ``file:line``."""

    file: str
    line: int
    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    alternates: tuple[tuple[str, str], ...] = ()
    images: tuple[str, ...] = ()


def raw_entry(
    row: Row, names: tuple[tuple[str, str], ...] = (), news: dict[str, Any] | None = None
) -> RawEntry:
    """The :class:`RawEntry` of a row; ``names``: the source's own names of its fields;
    ``news``: the article the page holds."""
    return RawEntry(
        f"{row.file}:{row.line}",
        row.loc,
        row.lastmod,
        row.changefreq,
        row.priority,
        row.alternates,
        row.images,
        news=news,
        names=names,
    )


def quote(value: object) -> str:
    """``repr`` of ``value``, cut to :data:`QUOTE_LIMIT` characters."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 3] + "..."
