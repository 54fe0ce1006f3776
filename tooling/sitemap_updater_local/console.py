"""What a command tells a person on stderr: the line it ends with, and its problems, capped and
grouped by rule.

Every line a command says of itself (why it stopped, what it kept) begins with the same prefix,
:func:`command_line`: ``sitemap-updater COMMAND: ``. A problem of the input begins with where it
is instead (``FILE:LINE: ``).

A mistyped ``--site`` makes every record of an export a problem: printing each would bury the
one line that matters. :class:`ProblemReport` prints the first :data:`SHOWN` problems in full,
counts every problem by the rule it breaks, and at the end prints one count per rule.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import IO, Final

from sitemap_updater.printable import printable
from sitemap_updater_local.inputs.source_records import Dropped, Note, Problem

#: The program's name, which begins every line a command says of itself.
PROGRAM: Final = "sitemap-updater"
#: Problems printed in full before the rest are only counted.
SHOWN: Final = 20
#: Distinct rules counted one by one; problems of further rules are counted together.
RULES_COUNTED: Final = 50
OTHER_RULES: Final = "other rules"


def command_line(command: str, text: str) -> str:
    """``sitemap-updater COMMAND: text``, its control characters escaped."""
    return printable(f"{PROGRAM} {command}: {text}")


class ProblemReport:
    """Call it with each problem; :meth:`summary` gives the closing lines. A :class:`Note`
    (said once per file) is printed, never counted."""

    def __init__(self, stream: IO[str] | None = None, shown: int = SHOWN) -> None:
        self._stream = stream
        self._shown = shown
        self.count = 0
        #: of :attr:`count`, the warnings: elements left out of records that were kept
        self.warnings = 0
        self.by_rule: Counter[str] = Counter()

    def __call__(self, problem: Problem | Note) -> None:
        if isinstance(problem, Note):
            print(problem, file=self._stream or sys.stderr)
            return
        self.count += 1
        self.warnings += isinstance(problem, Dropped)
        rule = problem.rule or problem.reason
        if rule not in self.by_rule and len(self.by_rule) >= RULES_COUNTED:
            rule = OTHER_RULES
        self.by_rule[rule] += 1
        if self.count <= self._shown:
            print(problem, file=self._stream or sys.stderr)

    def summary(self, what: str = "invalid record(s) skipped") -> list[str]:
        """``N what`` (and ``M element(s) left out``, for warnings), and when some were not
        printed, one ``count  rule`` line per rule, the most frequent first."""
        if not self.count:
            return []
        skipped = self.count - self.warnings
        parts = [f"{skipped} {what}"] if skipped else []
        if self.warnings:
            kept = "their pages kept"
            parts.append(f"{self.warnings} invalid element(s) or field(s) left out, {kept}")
        told = ", ".join(parts)
        if self.count <= self._shown:
            return [f"{told} (see above)"]
        lines = [f"{told}, the first {self._shown} shown above; all of them by rule:"]
        width = len(str(self.by_rule.most_common(1)[0][1]))
        lines += [f"  {n:>{width}}  {printable(rule)}" for rule, n in self.by_rule.most_common()]
        return lines
