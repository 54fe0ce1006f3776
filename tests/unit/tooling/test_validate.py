from __future__ import annotations

import gzip
import http.server
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from sitemap_updater.page.model import Alternate, Page
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import render_urlset  # GONE
from sitemap_updater_local import cli
from sitemap_updater_local.validation.document import (
    validate_document,
    validate_path,
    validate_target,
)
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
URLSET = f'{HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
EXTENDED_URLSET = (
    f'{HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
)


def _urlset(*urls: str) -> bytes:
    return (URLSET + "".join(f"<url>{u}</url>" for u in urls) + "</urlset>").encode()


def _good(tmp_path: Path) -> Path:
    data, _ = render_urlset(
        [
            Page(url=ORIGIN + "/a", lastmod="2026-01-01"),
            Page(url=ORIGIN + "/b", alternates=(Alternate("de", ORIGIN + "/de/b"),)),
        ],
        SITE,
    )
    assert_valid_urlset(data)
    path = tmp_path / "sitemap-r.xml.gz"
    path.write_bytes(data)
    return path


def test_written_files_pass(tmp_path: Path) -> None:
    shard = _good(tmp_path)
    index, _ = render_index([(ORIGIN + "/sitemap-r.xml.gz", "2026-01-01")])
    assert_valid_index(index)
    (tmp_path / "sitemap.xml").write_bytes(index)
    reports = validate_path(tmp_path, base_url=ORIGIN + "/")
    assert [r.problems for r in reports] == [[], []]
    assert {r.kind for r in reports} == {"urlset", "sitemapindex"}
    shard_report = next(r for r in reports if r.source == str(shard))
    assert shard_report.gzipped and shard_report.url_count == 2


def test_missing_child_is_reported(tmp_path: Path) -> None:
    index, _ = render_index(
        [(ORIGIN + "/sitemap-r.xml.gz", None), (ORIGIN + "/sitemap-gone.xml.gz", None)]
    )
    _good(tmp_path)
    (tmp_path / "sitemap.xml").write_bytes(index)
    [report] = validate_path(tmp_path / "sitemap.xml")
    assert len(report.problems) == 1
    assert "sitemap-gone.xml.gz" in report.problems[0]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (_urlset("<loc>https://www.example.com/a</loc><priority>1.5</priority>"), "XSD"),
        (_urlset("<lastmod>2026-01-01</lastmod><loc>https://www.example.com/a</loc>"), "XSD"),
        (
            _urlset("<loc>https://www.example.com/a</loc><lastmod>2026-01-01T10:00:00</lastmod>"),
            "time zone",
        ),
        (
            _urlset(
                "<loc>https://www.example.com/a</loc>", "<loc>https://other.example.com/b</loc>"
            ),
            "single-host",
        ),
        (_urlset("<loc>javascript:alert(1)</loc>"), "scheme"),
        (URLSET.encode() + b"<url><loc>x", "not well-formed"),
        (f"{URLSET}</urlset>".encode(), "XSD"),
        (b"<html/>", "is not a sitemap: must be"),
        (b"\x1f\x8b\x08\x00garbage", "gzip"),
    ],
)
def test_problems_are_reported(tmp_path: Path, body: bytes, expected: str) -> None:
    report = validate_document(body, source="f.xml")
    assert not report.ok
    assert any(expected in p for p in report.problems), report.problems


@pytest.mark.parametrize(
    ("extension", "expected"),
    [
        (
            '<xhtml:link rel="next" hreflang="de" href="https://www.example.com/de/a"/>',
            "'next' is not an element of the set",
        ),
        ("<image:image></image:image>", "sitemap-image/1.1}loc"),
    ],
)
def test_extension_schema_errors_are_reported(extension: str, expected: str) -> None:
    body = f"{EXTENDED_URLSET}<url><loc>{ORIGIN}/a</loc>{extension}</url></urlset>".encode()
    report = validate_document(body, source="f.xml")
    [problem] = report.problems
    assert problem.startswith("line 2: ") and problem.endswith("(XSD)")
    assert expected in problem


def test_lastmod_more_than_a_day_ahead_is_reported() -> None:
    now = datetime.now(UTC)
    within = (now + timedelta(hours=23)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ahead = (now + timedelta(hours=25)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = _urlset(
        f"<loc>{ORIGIN}/a</loc><lastmod>{within}</lastmod>",
        f"<loc>{ORIGIN}/b</loc><lastmod>{ahead}</lastmod>",
    )
    report = validate_document(body, source="f.xml")
    assert report.problems == [
        f"line 2: lastmod {ahead!r}: must not be more than one day in the future"
    ]


def test_pretty_printed_values_are_valid_but_inner_whitespace_is_not() -> None:
    pretty = _urlset(
        f"\n  <loc>\n    {ORIGIN}/a\n  </loc>\n  <lastmod> 2026-01-01 </lastmod>\n",
        f'<loc>{ORIGIN}/b</loc><xhtml:link xmlns:xhtml="http://www.w3.org/1999/xhtml" '
        f'rel="alternate" hreflang="de" href=" {ORIGIN}/de/b "/>',
    )
    assert validate_document(pretty, source="f.xml").problems == []
    spaced = validate_document(_urlset(f"<loc>{ORIGIN}/a b</loc>"), source="f.xml")
    [problem] = spaced.problems
    assert f"loc '{ORIGIN}/a b'" in problem
    assert "percent-encoded" in problem and f"{ORIGIN}/a%20b" in problem


def test_an_overlong_url_is_reported_on_one_short_line() -> None:
    loc = f"{ORIGIN}/?" + "a=1&amp;" * 300
    report = validate_document(_urlset(f"<loc>{loc}</loc>"), source="f.xml")
    [problem] = [p for p in report.problems if "XSD" not in p]
    assert "XML-escaped" in problem and len(problem) < 300


def test_location_rule_needs_the_file_url(tmp_path: Path) -> None:
    body = _urlset(
        "<loc>https://www.example.com/a/x</loc>", "<loc>https://www.example.com/b/y</loc>"
    )
    without = validate_document(body, source="f.xml")
    assert without.ok and any("location rule skipped" in n for n in without.notes)
    within = validate_document(body, source="f.xml", file_url=ORIGIN + "/a/sitemap.xml")
    assert len(within.problems) == 1
    assert "https://www.example.com/b/y" in within.problems[0]
    assert "location rule" in within.problems[0]


def test_limits(tmp_path: Path) -> None:
    many = _urlset(*[f"<loc>{ORIGIN}/{i}</loc>" for i in range(50_001)])
    report = validate_document(gzip.compress(many), source="big.xml.gz")
    assert any("50001 entries is over the limit of 50000" in p for p in report.problems)
    # text nodes of 1 KB (libxml2 refuses a single text node over 10 MB on its own)
    unit = f"<url><loc>{ORIGIN}/a</loc></url>".encode() + b" " * 1000
    huge = URLSET.encode() + unit * (52_428_800 // len(unit) + 1) + b"</urlset>"
    report = validate_document(gzip.compress(huge, 1), source="huge.xml.gz")
    assert any("over the limit of 52,428,800 bytes" in p for p in report.problems)


def test_command_exit_code_and_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _good(tmp_path)
    assert cli.main(["validate", str(good), "--base-url", ORIGIN + "/"]) == 0
    assert capsys.readouterr().out.startswith(f"{good}: ok (urlset, 2 entries")
    bad = tmp_path / "bad.xml"
    bad.write_bytes(_urlset("<loc>https://www.example.com/a</loc><changefreq>often</changefreq>"))
    assert cli.main(["validate", str(good), str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    problem_lines = [line for line in lines if line.startswith(f"{bad}: line")]
    assert len(problem_lines) == 1 and "often" in problem_lines[0]
    assert cli.main(["validate", str(tmp_path / "nope.xml")]) == 1
    assert "no such file" in capsys.readouterr().out


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_url_is_fetched_and_location_checked(tmp_path: Path, served: str) -> None:
    body = _urlset(f"<loc>{served}/a</loc>", f"<loc>{served}/sub/b</loc>")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "sitemap.xml").write_bytes(body)
    [report] = validate_target(served + "/sub/sitemap.xml")
    assert report.kind == "urlset"
    assert len(report.problems) == 1 and f"{served}/a " in report.problems[0]
    [missing] = validate_target(served + "/nothing.xml")
    assert "cannot open" in missing.problems[0] and "404" in missing.problems[0]


def test_an_alternate_on_another_host_breaks_no_rule(tmp_path: Path) -> None:
    link = '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.de/a"/>'
    own = f'<xhtml:link rel="alternate" hreflang="en" href="{ORIGIN}/a"/>'
    path = tmp_path / "sitemap.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        f"<url><loc>{ORIGIN}/a</loc>{own}{link}</url>\n</urlset>\n"
    )
    [report] = validate_path(path, base_url=ORIGIN + "/")
    assert report.ok, report.lines()
