"""The records a source gives: listings of pages, JSONL lines, problems and notes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

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
    """An element or field of a record (an alternate, image, video or news object, or one of
    the page's single values, ``page.model.PROTOCOL_VALUES``) that breaks a rule, left out or
    repaired (``outcome`` says which): the record itself is kept. A warning, not a skipped
    record."""

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
class Listing:
    """A page as a reader found it in a sitemap or a spreadsheet: where it is, and its raw
    fields in the names and forms of the producer contract (``page.model``: ``url``, ``lastmod``,
    alternates as ``{"hreflang", "href"}``, ...), not yet judged."""

    where: str
    fields: dict[str, Any]
    #: ``(field, name)`` of each field the source calls by a name of its own (a CSV header)
    names: tuple[tuple[str, str], ...] = ()

    @property
    def url(self) -> object:
        return self.fields.get("url")

    def name_of(self, field: str) -> str:
        """What the source calls ``field`` (``url``, ``lastmod``, ...)."""
        head = field.partition("[")[0].partition(".")[0]
        for known, name in self.names:
            if known == head:
                return name + field[len(head) :]
        return field


@dataclass(frozen=True, slots=True)
class BodyLine:
    """One non-blank line of a JSONL file (a raw SQS message body)."""

    where: str
    line: int
    text: str


def listing(file: str, line: int, url: str, lastmod: str | None = None, **fields: Any) -> Listing:
    """The listing of a page at ``file:line``: its url, its lastmod and other raw fields (absent
    ones left out)."""
    values = {"url": url, "lastmod": lastmod, **fields}
    return Listing(f"{file}:{line}", {k: v for k, v in values.items() if v is not None})


def quote(value: object) -> str:
    """``repr`` of ``value``, cut to :data:`QUOTE_LIMIT` characters."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 3] + "..."
