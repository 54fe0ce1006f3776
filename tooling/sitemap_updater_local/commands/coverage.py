"""``sitemap-updater coverage``: what the search engines did with the sitemaps, per section.

Usage::

    sitemap-updater coverage --stack-name NAME [--region REGION] [--endpoint-url URL] [--json]

Finds the stack as ``status`` does and reads the figures the observer function wrote to its
state table (``sitemap_updater.observe.records``). It prints, per host: the index's Search
Console status (errors, warnings, pending, hours since Google downloaded it), the submissions
and their outcome; then one row per section:

- ``published``: URLs the section's files list; ``submitted``: URLs Search Console found in the
  files it read (``-``: none read yet);
- ``inspected``: URLs inspected in the window (14 days); ``indexed``: the share on Google among
  those drawn uniformly, with its 95% Wilson interval;
- ``crawl p50/p90``: hours from a URL's change (its lastmod) to Google's next crawl;
- ``unhealthy``: the share of checked URLs that redirect, are missing, noindex or name another
  canonical; ``excluded``: URLs left out of the sitemaps for that (``ExcludeUnhealthy``);

and the worst URLs, worst first. ``--json`` prints the figures as one JSON object. What each
figure means, and what it cannot tell: docs/search-engines.md. Exit status: 0; 1 when an AWS
call fails; 2 when the stack does not exist or lacks an output the command needs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from sitemap_updater.observe.records import FiguresStore
from sitemap_updater.printable import printable
from sitemap_updater_local.commands.status import add_arguments, show, stack_outputs

__all__ = ["add_arguments", "collect", "render", "run"]


def collect(clients: Callable[[str], Any], stack_name: str) -> dict[str, Any]:
    """The figures of ``stack_name``'s observer, by host, as one JSON-ready object."""
    outputs = stack_outputs(clients("cloudformation"), stack_name)
    return figures_of(
        FiguresStore(clients("dynamodb"), outputs["StateTableName"]).load_all(), stack_name
    )


def figures_of(found: Mapping[tuple[str, str], dict[str, Any]], stack: str) -> dict[str, Any]:
    hosts: dict[str, dict[str, Any]] = {}
    for (origin, section), figures in sorted(found.items()):
        host = hosts.setdefault(origin, {"url": origin, "index": None, "sections": []})
        if section:
            host["sections"].append({"name": section, **figures})
        else:
            host["index"] = figures
    return {"stack": stack, "hosts": list(hosts.values())}


def _share(share: float | None, interval: list[float] | None) -> str:
    if share is None:
        return "-"
    if interval is None:
        return f"{share:.0%}"
    return f"{share:.0%} ({interval[0]:.0%}-{interval[1]:.0%})"


def _hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:.1f}h"


def _count(value: Any) -> str:
    return "-" if value is None else str(value)


COLUMNS = (
    ("section", 12),
    ("published", 9),
    ("submitted", 9),
    ("inspected", 9),
    ("indexed (95% CI)", 18),
    ("crawl p50/p90", 13),
    ("unhealthy", 9),
    ("excluded", 8),
)


def _row(cells: list[str]) -> str:
    return "  " + "  ".join(
        cell.rjust(width) if i else cell.ljust(width)
        for i, (cell, (_, width)) in enumerate(zip(cells, COLUMNS, strict=True))
    )


def _section_row(s: Mapping[str, Any]) -> str:
    median, p90 = s.get("crawl_latency_median_seconds"), s.get("crawl_latency_p90_seconds")
    latency = f"{_hours(median)}/{_hours(p90)}"
    unhealthy = s.get("unhealthy_share")
    return _row(
        [
            s["name"],
            _count(s.get("published")),
            _count(s.get("submitted")),
            _count(s.get("inspected")),
            _share(s.get("indexed_share"), s.get("indexed_interval")),
            "-" if latency == "-/-" else latency,
            "-" if unhealthy is None else f"{unhealthy:.0%} of {s.get('checked', 0)}",
            _count(s.get("excluded", 0)),
        ]
    )


def _index_line(index: Mapping[str, Any] | None) -> list[str]:
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
    for sub in index.get("submissions", []):
        reason = f" ({sub['reason']})" if sub.get("reason") else ""
        lines.append(
            f"  submitted to {sub['engine']}: {sub['state']} "
            f"after {sub['attempts']} attempt(s){reason}"
        )
    lines += [f"  problem: {problem}" for problem in index.get("problems", [])]
    return lines


def render(coverage: Mapping[str, Any]) -> list[str]:
    """The figures as lines of text; what AWS or a site answered has its control characters
    escaped (``sitemap_updater.printable``)."""
    lines = [f"stack {coverage['stack']}"]
    if not coverage["hosts"]:
        lines.append("no figures yet: the observer has not run")
    for host in coverage["hosts"]:
        lines.append(f"site {host['url']}")
        lines += _index_line(host["index"])
        lines.append(_row([name for name, _ in COLUMNS]))
        lines += [_section_row(section) for section in host["sections"]]
        worst = [w for s in host["sections"] for w in s.get("worst", [])]
        if worst:
            lines.append("  worst URLs:")
            lines += [f"    {_worst(w)}" for w in worst[:20]]
    return [printable(line) for line in lines]


def _worst(w: Mapping[str, Any]) -> str:
    detail = ""
    if w.get("redirect_to"):
        detail = f" -> {w['redirect_to']}"
    elif w.get("google_canonical"):
        detail = f", Google's canonical {w['google_canonical']}"
    status = f" (HTTP {w['status']})" if w.get("status") is not None else ""
    return f"{w['problem']}{status}: {w['url']}{detail}"


def run(args: argparse.Namespace) -> int:
    return show(args, collect, render)
