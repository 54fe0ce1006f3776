"""The report of one file ``validate`` checked, and the summary of a run: each problem one line
naming the file and, where it has one, the line (``FILE:LINE: problem``), as text and as JSON.

A file's problems are capped per kind of check at :data:`SHOWN` lines; the rest are counted by
the rule they break, in one ``... and N more problem(s): rule`` line per rule, so that a file
with a bad value on every entry gives a short report in bounded memory, while the counts stay
exact.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

from sitemap_updater.printable import printable

#: Problems of one kind of check shown per file before the rest are counted by rule.
SHOWN: Final = 20
#: Rules counted one by one per file; problems of further rules are counted together.
RULES_COUNTED: Final = 50
_OTHER_RULES: Final = "other rules"
#: The kinds of file whose entries are URLs (an index's are files).
URL_KINDS: Final = ("urlset", "text")


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem, warning or note: the line of the file it is on (``None``: the file as a
    whole) and what it says."""

    line: int | None
    text: str

    def where(self, source: str) -> str:
        return source if self.line is None else f"{source}:{self.line}"

    def __str__(self) -> str:
        """``LINE: text`` (the text alone for the file as a whole)."""
        return self.text if self.line is None else f"{self.line}: {self.text}"


def line_of(element: etree._Element) -> int | None:
    """The line an element of a parsed document starts on (``None`` for one made here)."""
    line = element.sourceline
    return line if isinstance(line, int) and line > 0 else None


def _by_line(findings: list[Finding]) -> list[Finding]:
    """``findings`` in the order of their lines; those of the whole file last."""
    return sorted(findings, key=lambda f: (f.line is None, f.line or 0))


@dataclass
class FileReport:
    """The outcome for one file: what it is, and what was found in it."""

    source: str
    kind: str | None = None
    url_count: int = 0
    uncompressed_bytes: int = 0
    gzipped: bool = False
    #: the problems shown (capped per kind of check, see :data:`SHOWN`)
    problems: list[Finding] = field(default_factory=list)
    #: every problem found, those not shown included
    problem_count: int = 0
    #: what Google ignores (the tags it deprecated): said, but the file still passes
    warnings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: nothing was read: an empty file, or a directory without sitemap files
    nothing_read: bool = False
    _shown: Counter[str] = field(default_factory=Counter, repr=False)
    _more: Counter[str] = field(default_factory=Counter, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problem_count

    def problem(self, line: int | None, text: str, kind: str, rule: str | None = None) -> None:
        """A problem found by the check ``kind`` (``XSD``, ``page``, ...): shown while that check
        has shown fewer than :data:`SHOWN`, else counted under ``rule`` (``kind`` by default)."""
        self.problem_count += 1
        if self._shown[kind] < SHOWN:
            self._shown[kind] += 1
            self.problems.append(Finding(line, text))
            return
        key = rule or kind
        if key not in self._more and len(self._more) >= RULES_COUNTED:
            key = _OTHER_RULES
        self._more[key] += 1

    def uncounted(self, count: int, rule: str) -> None:
        """``count`` more problems of ``rule`` that are not shown (a check that keeps only
        the first :data:`SHOWN` of its problems, as it has shown that many already)."""
        if count:
            self.problem_count += count
            known = rule in self._more or len(self._more) < RULES_COUNTED
            self._more[rule if known else _OTHER_RULES] += count

    def finish(self) -> None:
        """Once the file is read: the problems in the order of their lines (those of the file
        as a whole last), then one line per rule of the problems not shown."""
        self.problems = _by_line(self.problems)
        for rule, count in self._more.most_common():
            self.problems.append(Finding(None, f"... and {count:,} more problem(s): {rule}"))
        self._more.clear()

    def lines(self) -> list[str]:
        """One ``FILE:LINE: problem`` line per problem (``FILE: problem`` for the file as a
        whole), then the ``warning:`` and ``note:`` lines, and an
        ``ok`` line if the file passed; the control and format characters of the file's name and
        content escaped."""
        source = self.source
        out = [printable(f"{p.where(source)}: {p.text}") for p in self.problems]
        out += [printable(f"{w.where(source)}: warning: {w.text}") for w in self.warnings]
        out += [printable(f"{source}: note: {n}") for n in self.notes]
        if self.ok:
            out.append(
                printable(
                    f"{source}: ok ({self.kind}, {self.url_count} entries, "
                    f"{self.uncompressed_bytes} bytes uncompressed)"
                )
            )
        return out

    def as_json(self) -> dict[str, Any]:
        """The report as ``--json`` gives it (docs/cli.md)."""
        return {
            "file": self.source,
            "kind": self.kind,
            "gzipped": self.gzipped,
            "entries": self.url_count,
            "uncompressed_bytes": self.uncompressed_bytes,
            "ok": self.ok,
            "problem_count": self.problem_count,
            "problems": [{"line": p.line, "text": p.text} for p in self.problems],
            "warnings": [{"line": w.line, "text": w.text} for w in self.warnings],
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class Summary:
    """What a run checked: its files, the URLs of their urlsets and text sitemaps, every
    problem and warning."""

    files: int
    urls: int
    problems: int
    warnings: int

    @classmethod
    def of(cls, reports: list[FileReport]) -> Summary:
        read = [r for r in reports if not r.nothing_read]
        return cls(
            files=len(read),
            urls=sum(r.url_count for r in read if r.kind in URL_KINDS),
            problems=sum(r.problem_count for r in reports),
            warnings=sum(len(r.warnings) for r in reports),
        )

    def line(self) -> str:
        """``3 file(s), 1,184 URL(s): 13 problem(s), 2 warning(s)``."""
        return (
            f"{self.files:,} file(s), {self.urls:,} URL(s): {self.problems:,} problem(s), "
            f"{self.warnings:,} warning(s)"
        )

    def as_json(self) -> dict[str, int]:
        return {
            "files": self.files,
            "urls": self.urls,
            "problems": self.problems,
            "warnings": self.warnings,
        }
