"""Problems are printed capped and counted by rule (``console.ProblemReport``)."""

from __future__ import annotations

import io

from sitemap_updater_local.console import OTHER_RULES, RULES_COUNTED, ProblemReport
from sitemap_updater_local.inputs.source_records import Problem


def test_the_first_problems_are_printed_and_all_are_counted_by_rule() -> None:
    stream = io.StringIO()
    report = ProblemReport(stream, shown=3)
    for n in range(10):
        report(Problem(f"f:{n}", f"url: 'x{n}' is invalid: off site", "url: off site"))
    report(Problem("f:11", "row is not valid UTF-8"))

    assert stream.getvalue().splitlines() == [
        "f:0: url: 'x0' is invalid: off site",
        "f:1: url: 'x1' is invalid: off site",
        "f:2: url: 'x2' is invalid: off site",
    ]
    assert report.summary() == [
        "11 invalid record(s) skipped, the first 3 shown above; all of them by rule:",
        "  10  url: off site",
        "   1  row is not valid UTF-8",
    ]


def test_few_problems_need_no_counts() -> None:
    report = ProblemReport(io.StringIO())
    assert report.summary() == []
    report(Problem("f:1", "bad"))
    assert report.summary() == ["1 invalid record(s) skipped (see above)"]


def test_the_rules_counted_are_bounded_whatever_the_problems() -> None:
    report = ProblemReport(io.StringIO(), shown=0)
    for n in range(RULES_COUNTED + 500):
        report(Problem(f"f:{n}", f"malformed CSV: odd thing number {n}"))
    assert len(report.by_rule) == RULES_COUNTED + 1
    assert report.by_rule[OTHER_RULES] == 500
    assert len(report.summary()) == RULES_COUNTED + 2
