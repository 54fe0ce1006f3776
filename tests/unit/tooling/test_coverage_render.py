"""``sitemap-updater coverage`` as text and CSV: problem URLs grouped by kind, the site's own
first; one summing-up line at the end; a CSV a spreadsheet cannot run; an age for --since."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest

from sitemap_updater_local.commands.coverage import render, since_seconds, write_csv
from sitemap_updater_local.errors import CommandError

SITE = "https://www.example.com"


def _worst(kind: str, path: str, source: str = "site", detail: str | None = None) -> dict[str, Any]:
    return {
        "url": SITE + path,
        "kind": kind,
        "source": source,
        "status": 301 if kind == "redirect" else None,
        "detail": detail,
        "failures": 1,
        "seen_at": 1_800_000_000.0,
    }


REPORT = {
    "stack": "s",
    "hosts": [
        {
            "url": SITE,
            "index": {
                "index_url": SITE + "/sitemap.xml",
                "property": SITE + "/",
                "index": None,
                "search_console_calls": {
                    "allowed": 63,
                    "calls": 12,
                    "answered": 10,
                    "refused": {"per-minute": 1, "daily": 1},
                    "waited_seconds": 1.0,
                    "stopped_on": "daily",
                    "stop_reason": "Quota exceeded ... per day per site",
                },
            },
            "sections": [
                {
                    "name": "articles",
                    "not_indexed": {"Crawled - currently not indexed": 4},
                    "worst": [
                        _worst("not-indexed", "/a", "google", "Crawled - currently not indexed"),
                        _worst("google-canonical-elsewhere", "/b", "google", SITE + "/c"),
                    ],
                },
                {
                    "name": "pages",
                    "worst": [
                        _worst("redirect", "/r", detail='=HYPERLINK("http://evil")'),
                        _worst("not-found", "/gone"),
                    ],
                },
            ],
        }
    ],
}


def test_problem_urls_are_grouped_by_kind_the_site_s_own_first() -> None:
    lines = render(REPORT)
    kinds = [m[1] for line in lines if (m := re.fullmatch(r"    ([a-z-]+) \(\d+\):", line))]
    assert kinds == ["not-found", "redirect", "google-canonical-elsewhere", "not-indexed"]
    assert any(
        "refused (429): 1 per-minute, 1 daily, waited 1 s; stopped on daily" in line
        for line in lines
    )
    assert lines[-1] == "coverage: 1 hosts, 2 sections, 4 problem URLs"


def test_the_csv_holds_every_problem_url_and_no_formula(tmp_path: Path) -> None:
    path = tmp_path / "problems.csv"
    assert write_csv(REPORT, str(path)) == 4
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["kind"] for r in rows] == [
        "not-indexed",
        "google-canonical-elsewhere",
        "redirect",
        "not-found",
    ]
    redirect = next(r for r in rows if r["kind"] == "redirect")
    assert redirect["detail"].startswith("'=") and redirect["status"] == "301"


@pytest.mark.parametrize(
    ("age", "seconds"), [("36h", 36 * 3600), ("7d", 7 * 86_400), (" 1.5d ", 1.5 * 86_400)]
)
def test_since_takes_an_age(age: str, seconds: float) -> None:
    assert since_seconds(age) == seconds


@pytest.mark.parametrize("age", ["7", "yesterday", "-1d", "7w"])
def test_since_refuses_what_is_no_age(age: str) -> None:
    with pytest.raises(CommandError, match="must be an age in hours or days"):
        since_seconds(age)
