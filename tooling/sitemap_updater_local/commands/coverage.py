"""``sitemap-updater coverage``: what the search engines did with the sitemaps, per section.

Usage::

    sitemap-updater coverage --stack-name NAME [--region REGION] [--endpoint-url URL] [--json]
        [--since AGE] [--csv FILE]

Finds the stack as ``status`` does and reads what the observer function wrote to its state
table (``sitemap_updater.observe.report``). It prints, per host: the index's Search Console
status (errors, warnings, pending, hours since Google downloaded it), Bing's, the submissions
and their outcome, and the last run's Search Console calls (how many, how many answered, each
quota refusal, and a stop on a per-minute or daily 429); then one row per section:

- ``published``: URLs the section's files list; ``submitted``: URLs Search Console found in the
  files it read (``-``: none read yet); ``bing``: URLs Bing counted in them;
- ``inspected``: URLs inspected in the window (14 days); ``indexed``: the share on Google among
  those drawn uniformly, with its 95% Wilson interval;
- ``crawl p50``: the median time from a page's change to Google's first crawl after it, with
  its 95% interval and the number of changes it comes from;
- ``unhealthy``: the share of checked URLs that redirect, are missing, noindex or name another
  canonical, with its interval; ``excluded``: URLs left out of the sitemaps for that;

then the not-indexed URLs by coverage state, and every problem URL grouped by kind, the site's
own problems first. ``--since`` (``36h``, ``7d``) adds each section's figures run by run from
then on, one line a day; ``--csv FILE`` writes every problem URL to FILE. ``--json`` prints the
report as one JSON object. What each figure means, and what it cannot tell:
docs/search-engines.md. Exit status: 0; 2 when an AWS call fails, the stack does not exist or
lacks an output the command needs, or ``--since`` is not an age.
"""

from __future__ import annotations

import argparse
import csv
import re
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from sitemap_updater.observe.figures import KINDS
from sitemap_updater.observe.report import coverage_report
from sitemap_updater.printable import printable
from sitemap_updater_local.commands.status import add_arguments as add_stack_arguments
from sitemap_updater_local.commands.status import show, stack_outputs
from sitemap_updater_local.errors import CommandError
from sitemap_updater_local.outputs.replaced_file import open_replaced

__all__ = ["add_arguments", "collect", "render", "run"]

#: ``--since``: a number and a unit (hours or days)
_AGE: Final = re.compile(r"(\d+(?:\.\d+)?)\s*([hd])")
#: most URLs of one kind the text shows per section (the CSV and ``--json`` have them all)
SHOWN_PER_KIND: Final = 5
#: the CSV's columns
CSV_COLUMNS: Final = (
    "host",
    "section",
    "kind",
    "source",
    "url",
    "status",
    "detail",
    "failures",
    "seen_at",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_stack_arguments(parser)
    parser.add_argument(
        "--since",
        metavar="AGE",
        help="also show each section's figures from this long ago on (36h, 7d)",
    )
    parser.add_argument("--csv", metavar="FILE", help="write every problem URL to FILE (CSV)")


def since_seconds(age: str) -> float:
    """``--since``'s age (``36h``, ``7d``) in seconds; :class:`CommandError` if it is none."""
    found = _AGE.fullmatch(age.strip().lower())
    if found is None:
        raise CommandError(f"--since {age}: must be an age in hours or days, such as 36h or 7d")
    return float(found[1]) * (3600 if found[2] == "h" else 86_400)


def collect(
    clients: Callable[[str], Any],
    stack_name: str,
    *,
    since: float | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The report of ``stack_name``'s observer, by host, as one JSON-ready object."""
    outputs = stack_outputs(clients("cloudformation"), stack_name)
    return coverage_report(
        clients("dynamodb"), outputs["StateTableName"], stack_name, since=since, now=now
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _share(share: float | None, interval: Sequence[float | None] | None) -> str:
    if share is None:
        return "-"
    if not interval:
        return _pct(share)
    return f"{_pct(share)} ({_pct(interval[0])}-{_pct(interval[1])})"


def _hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:.1f}h"


def _latency(s: Mapping[str, Any]) -> str:
    median = s.get("crawl_latency_median_seconds")
    samples = s.get("crawl_latency_samples") or 0
    if median is None:
        return "-" if not samples else f"- (n={samples})"
    interval = s.get("crawl_latency_median_interval") or [None, None]
    high = "?" if interval[1] is None else _hours(interval[1])
    return f"{_hours(median)} ({_hours(interval[0])}-{high}) n={samples}"


def _count(value: Any) -> str:
    return "-" if value is None else str(value)


COLUMNS = (
    ("section", 12),
    ("published", 9),
    ("submitted", 9),
    ("bing", 6),
    ("inspected", 9),
    ("indexed (95% CI)", 18),
    ("crawl p50 (95% CI)", 26),
    ("unhealthy (95% CI)", 24),
    ("excluded", 8),
)


def _row(cells: list[str]) -> str:
    return "  " + "  ".join(
        cell.rjust(width) if i else cell.ljust(width)
        for i, (cell, (_, width)) in enumerate(zip(cells, COLUMNS, strict=True))
    )


def _section_row(s: Mapping[str, Any]) -> str:
    unhealthy = s.get("unhealthy_share")
    return _row(
        [
            s["name"],
            _count(s.get("published")),
            _count(s.get("submitted")),
            _count(s.get("bing_urls")),
            _count(s.get("inspected")),
            _share(s.get("indexed_share"), s.get("indexed_interval")),
            _latency(s),
            "-"
            if unhealthy is None
            else f"{_share(unhealthy, s.get('unhealthy_interval'))} of {s.get('checked', 0)}",
            _count(s.get("excluded", 0)),
        ]
    )


def _calls_line(calls: Mapping[str, Any] | None) -> str | None:
    if not calls or (not calls.get("allowed") and not calls.get("calls")):
        return None
    line = (
        f"  Search Console calls, last run: {calls['calls']} of {calls['allowed']} allowed, "
        f"{calls['answered']} answered"
    )
    refused = calls.get("refused") or {}
    if refused:
        line += "; refused (429): " + ", ".join(f"{n} {w}" for w, n in refused.items())
        if calls.get("waited_seconds"):
            line += f", waited {calls['waited_seconds']:g} s"
    if calls.get("stopped_on"):
        line += f"; stopped on {calls['stopped_on']}: {calls.get('stop_reason') or ''}"
    return line


def _bing_line(index: Mapping[str, Any]) -> str | None:
    if "bing_index" not in index:
        return None
    bing = index.get("bing_index")
    if bing is None:
        return "  Bing: the index is not among the site's feeds yet"
    crawled = bing.get("last_crawled")
    computed = index.get("computed_at") or 0
    when = "never crawled" if crawled is None else f"crawled {_hours(computed - crawled)} ago"
    return f"  Bing: {bing.get('status') or '-'}, {_count(bing.get('url_count'))} URLs, {when}"


def _index_lines(index: Mapping[str, Any] | None) -> list[str]:
    if index is None:
        return ["  index: not observed yet"]
    status = index.get("index")
    age = index.get("index_download_age_hours")
    lines = [
        f"  index {index.get('index_url') or '(not published yet)'}, "
        f"property {index.get('property')}"
    ]
    if status is None:
        lines.append("  Search Console: no status (off, not submitted yet, or not read)")
    else:
        lines.append(
            f"  Search Console: {status['errors']} errors, {status['warnings']} warnings, "
            f"{'pending' if status['is_pending'] else 'processed'}, "
            + (
                "never downloaded"
                if status.get("last_downloaded") is None
                else f"downloaded {age} h ago"
            )
        )
    lines += [line for line in (_calls_line(index.get("search_console_calls")),) if line]
    lines += [line for line in (_bing_line(index),) if line]
    for sub in index.get("submissions", []):
        reason = f" ({sub['reason']})" if sub.get("reason") else ""
        lines.append(
            f"  submitted to {sub['engine']}: {sub['state']} "
            f"after {sub['attempts']} attempt(s){reason}"
        )
    lines += [f"  problem: {problem}" for problem in index.get("problems", [])]
    return lines


def _not_indexed_lines(sections: Sequence[Mapping[str, Any]]) -> list[str]:
    rows = [
        f"    {s['name']}: " + ", ".join(f"{state} {n}" for state, n in s["not_indexed"].items())
        for s in sections
        if s.get("not_indexed")
    ]
    return ["  not indexed, by Search Console's coverage state:", *rows] if rows else []


def _worst(w: Mapping[str, Any]) -> str:
    detail = w.get("detail")
    status = f" (HTTP {w['status']})" if w.get("status") is not None else ""
    arrow = " -> " if w["kind"] in {"redirect", "google-canonical-elsewhere"} else ": "
    return f"{w['url']}{status}{arrow + detail if detail else ''}"


def _worst_lines(sections: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every section's problem URLs grouped by kind, in the order of ``figures.KINDS``."""
    lines: list[str] = []
    for kind in KINDS:
        found = [(s["name"], w) for s in sections for w in s.get("worst", []) if w["kind"] == kind]
        if not found:
            continue
        lines.append(f"    {kind} ({len(found)}):")
        for name in dict.fromkeys(section for section, _ in found):
            mine = [w for section, w in found if section == name]
            lines += [f"      {name}: {_worst(w)}" for w in mine[:SHOWN_PER_KIND]]
            if len(mine) > SHOWN_PER_KIND:
                lines.append(f"      {name}: ... and {len(mine) - SHOWN_PER_KIND} more (--csv)")
    return ["  worst URLs, by kind, the site's own problems first:", *lines] if lines else []


def _day(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d")


def _history_lines(sections: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each section's history, the last run of each day."""
    lines: list[str] = []
    for s in sections:
        by_day = {_day(e["at"]): e for e in s.get("history", [])}
        for day, e in by_day.items():
            lines.append(
                f"    {s['name']} {day}: inspected {_count(e.get('inspected'))}, indexed "
                f"{_share(e.get('indexed_share'), e.get('indexed_interval'))}, not indexed "
                f"{_count(e.get('not_indexed'))}, crawl p50 "
                f"{_hours(e.get('crawl_latency_median_seconds'))}, unhealthy "
                f"{_pct(e.get('unhealthy_share'))} of {_count(e.get('checked'))}"
            )
    return ["  trend, the last run of each day:", *lines] if lines else []


def render(coverage: Mapping[str, Any]) -> list[str]:
    """The report as lines of text, ending with one line that sums it up; what AWS, an
    engine or a site answered has its control characters escaped (``sitemap_updater.printable``)."""
    lines = [f"stack {coverage['stack']}"]
    problems = sections = 0
    for host in coverage["hosts"]:
        lines.append(f"site {host['url']}")
        lines += _index_lines(host["index"])
        lines.append(_row([name for name, _ in COLUMNS]))
        lines += [_section_row(section) for section in host["sections"]]
        lines += _not_indexed_lines(host["sections"])
        lines += _worst_lines(host["sections"])
        lines += _history_lines(host["sections"])
        sections += len(host["sections"])
        problems += sum(len(s.get("worst", [])) for s in host["sections"])
    if not coverage["hosts"]:
        lines.append("no figures yet: the observer has not run")
    lines.append(
        f"coverage: {len(coverage['hosts'])} hosts, {sections} sections, {problems} problem URLs"
    )
    return [printable(line) for line in lines]


def _cell(value: Any) -> str:
    """A CSV cell a spreadsheet shows as text: one starting like a formula gets a ``'``."""
    text = "" if value is None else printable(value)
    return "'" + text if text[:1] in {"=", "+", "-", "@"} else text


def problem_rows(coverage: Mapping[str, Any]) -> list[list[str]]:
    """Every problem URL of the report, one row each (:data:`CSV_COLUMNS`)."""
    rows = []
    for host in coverage["hosts"]:
        for s in host["sections"]:
            for w in s.get("worst", []):
                seen = w.get("seen_at")
                at = None if seen is None else datetime.fromtimestamp(seen, UTC).isoformat()
                values = [host["url"], s["name"], w["kind"], w["source"], w["url"]]
                values += [w.get("status"), w.get("detail"), w.get("failures"), at]
                rows.append([_cell(v) for v in values])
    return rows


def write_csv(coverage: Mapping[str, Any], path: str) -> int:
    """Write the report's problem URLs to ``path`` (replaced whole); the rows written."""
    rows = problem_rows(coverage)
    with open_replaced(path) as out:
        writer = csv.writer(out.stream)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(rows)
        out.commit()
    return len(rows)


def run(args: argparse.Namespace) -> int:
    since = None if args.since is None else time.time() - since_seconds(args.since)
    written: list[int] = []

    def collected(clients: Callable[[str], Any], stack_name: str) -> dict[str, Any]:
        report = collect(clients, stack_name, since=since)
        if args.csv is not None:
            written.append(write_csv(report, args.csv))
        return report

    def rendered(coverage: Mapping[str, Any]) -> list[str]:
        lines = render(coverage)
        if written:  # the last line says where they went
            lines[-1] += printable(f", written to {args.csv}")
        return lines

    return show(args, collected, rendered)
