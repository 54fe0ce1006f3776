"""``validate`` as a CI gate: files the writers make pass, each problem is one ``FILE:LINE:``
line (a bad value once, not once from the XSD and once from a rule), the single-host rule is
judged against ``--base-url`` or the origin most entries are on and names the odd ones, and the
run ends with a summary line (or, with ``--json``, one JSON object) and its exit status."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import urlset_of
from sitemap_updater.sites import sites_of
from sitemap_updater_local import cli
from sitemap_updater_local.validation.document import (
    validate_document,
    validate_path,
    validate_target,
)
from sitemap_updater_local.validation.report import SHOWN

ORIGIN = "https://www.example.com"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
URLSET = f'{HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def urlset(*entries: str) -> bytes:
    """A urlset of one ``<url>`` a line: the first entry is on line 3."""
    return (URLSET + "".join(f"<url>{e}</url>\n" for e in entries) + "</urlset>\n").encode()


def written(*pages: dict[str, object]) -> bytes:
    """A urlset as the rebuild writes it: each page judged, then rendered."""
    sites = sites_of(Site.parse(ORIGIN))
    now = datetime.now(UTC)
    fragments = []
    for fields in pages:
        change = judge_listing(fields, sites=sites, now=now, drops=None)
        assert change.page is not None
        fragments.append(url_element(change.page).encode())
    return urlset_of(fragments, stylesheet=False)


def problems(data: bytes, **kwargs: object) -> list[str]:
    """Every problem of a file, as ``LINE: text``."""
    report = validate_document(data, source="f.xml", **kwargs)  # type: ignore[arg-type]
    return [str(p) for p in report.problems]


def test_files_the_writers_make_pass(tmp_path: Path) -> None:
    (tmp_path / "sitemap-r.xml.gz").write_bytes(
        gzip.compress(
            written(
                {"url": f"{ORIGIN}/a", "lastmod": "2026-01-01", "changefreq": "daily"},
                {
                    "url": f"{ORIGIN}/b",
                    "priority": 0.5,
                    "alternates": [{"hreflang": "de", "href": f"{ORIGIN}/de/b"}],
                    "images": [{"loc": "https://cdn.example.net/b.jpg"}],
                },
            )
        )
    )
    index, _ = render_index([(f"{ORIGIN}/sitemap-r.xml.gz", "2026-01-01")])
    (tmp_path / "sitemap.xml").write_bytes(index)

    reports = validate_path(tmp_path, base_url=ORIGIN + "/")

    assert [r.problems for r in reports] == [[], []]
    assert {r.kind for r in reports} == {"urlset", "sitemapindex"}
    shard = next(r for r in reports if r.source.endswith(".gz"))
    assert shard.gzipped and shard.url_count == 2 and shard.ok


@pytest.mark.parametrize(
    ("entry", "line", "said"),
    [
        (f"<loc>{ORIGIN}/a</loc><priority>1.5</priority>", 3, "priority: '1.5' is invalid"),
        (f"<loc>{ORIGIN}/a</loc><changefreq>often</changefreq>", 3, "changefreq: 'often'"),
        (f"<loc>{ORIGIN}/a</loc><lastmod>2026-01-01T10:00:00</lastmod>", 3, "time zone"),
        (f"<loc>{ORIGIN}/a</loc><lastmod>2026-02-30</lastmod>", 3, "not a real date"),
        ("<loc>javascript:alert(1)</loc>", 3, "scheme 'javascript' is not allowed"),
        ("<loc>/relative</loc>", 3, "must be an absolute http or https URL"),
        ("<lastmod>2026-01-01</lastmod>", 3, "every <url> needs a <loc>"),
        (f"<lastmod>2026-01-01</lastmod><loc>{ORIGIN}/a</loc>", 3, "(XSD)"),
        (f"<loc>{ORIGIN}/a</loc><foo>1</foo>", 3, "Element 'foo': This element is not expected"),
    ],
)
def test_each_problem_is_one_line_at_its_line(entry: str, line: int, said: str) -> None:
    found = problems(urlset(f"<loc>{ORIGIN}/ok</loc>", entry))
    [problem] = found
    assert problem.startswith(f"{line + 1}: ") and said in problem, found


def test_what_is_not_a_sitemap_is_one_line() -> None:
    for data, said in (
        (URLSET.encode() + b"<url><loc>x", "not well-formed XML"),
        (f"{URLSET}</urlset>".encode(), "Missing child element"),
        (b"<html/>", "is not a sitemap: must be <urlset> or <sitemapindex>"),
        (b"\x1f\x8b\x08\x00garbage", "not a readable gzip file"),
        (b"hello, world\n", "is neither XML nor a URL"),
    ):
        [problem] = problems(data)
        assert said in problem, (data, problem)


def test_a_bad_value_the_xsd_also_refuses_is_reported_once() -> None:
    # the XSD refuses each of these values too: the judge's line is the one given
    entries = (
        f"<loc>{ORIGIN}/a</loc>\n<lastmod>2026-13-01</lastmod>",
        f"<loc>{ORIGIN}/b</loc><priority>2</priority>",
        f"<loc>{ORIGIN}/c</loc><changefreq>Daily</changefreq>",
    )
    found = problems(urlset(*entries))
    assert [p.split(": ", 2)[:2] for p in found] == [
        ["4", "lastmod"],
        ["5", "priority"],
        ["6", "changefreq"],
    ]
    assert not any("XSD" in p for p in found)


def test_a_lastmod_more_than_a_day_ahead_is_a_problem() -> None:
    now = datetime.now(UTC)
    within = (now + timedelta(hours=23)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ahead = (now + timedelta(hours=25)).strftime("%Y-%m-%dT%H:%M:%SZ")
    found = problems(
        urlset(
            f"<loc>{ORIGIN}/a</loc><lastmod>{within}</lastmod>",
            f"<loc>{ORIGIN}/b</loc><lastmod>{ahead}</lastmod>",
        )
    )
    [problem] = found
    assert problem.startswith(f"4: lastmod: {ahead!r} is invalid: ") and "future" in problem


def test_pretty_printed_values_are_valid() -> None:
    pretty = urlset(
        f"\n  <loc>\n    {ORIGIN}/a\n  </loc>\n  <lastmod> 2026-01-01 </lastmod>\n",
        f'<loc>{ORIGIN}/b</loc><xhtml:link xmlns:xhtml="http://www.w3.org/1999/xhtml" '
        f'rel="alternate" hreflang="de" href=" {ORIGIN}/de/b "/>',
    )
    assert problems(pretty) == []


def test_the_single_host_rule_names_the_entries_off_the_host_most_are_on() -> None:
    # one stray http:// first URL must not blame the https:// entries after it
    entries = ["<loc>http://www.example.com/first</loc>"]
    entries += [f"<loc>{ORIGIN}/p/{i}</loc>" for i in range(30)]
    entries += ["<loc>http://www.example.com/odd</loc>", "<loc>https://other.example/x</loc>"]
    found = problems(urlset(*entries))
    assert [p.split(": ")[0] for p in found] == ["3", "34", "35"]
    assert all("single-host rule" in p and f"not on {ORIGIN}, where 30 of the" in p for p in found)
    assert "'http://www.example.com/first' is on http://www.example.com" in found[0]
    assert "'https://other.example/x' is on https://other.example" in found[2]


def test_with_a_base_url_the_single_host_rule_is_judged_against_it(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset(*(f"<loc>http://www.example.com/{i}</loc>" for i in range(3))))
    [report] = validate_path(path, base_url=ORIGIN)
    assert report.problem_count == 3
    assert all("is on http://www.example.com, not on https://www.example.com" in str(p)
               for p in report.problems)  # fmt: skip


def test_the_entries_off_the_host_are_counted_past_the_lines_shown() -> None:
    entries = [f"<loc>{ORIGIN}/{i}</loc>" for i in range(60)]
    entries += [f"<loc>https://other.example/{i}</loc>" for i in range(SHOWN + 7)]
    report = validate_document(urlset(*entries), source="f.xml")
    assert report.problem_count == SHOWN + 7
    assert len(report.problems) == SHOWN + 1
    assert str(report.problems[-1]).startswith("... and 7 more problem(s): a URL on https://oth")


def test_the_location_rule_needs_the_files_url() -> None:
    body = urlset(f"<loc>{ORIGIN}/a/x</loc>", f"<loc>{ORIGIN}/b/y</loc>")
    without = validate_document(body, source="f.xml")
    assert without.ok and any("location rule skipped" in n for n in without.notes)
    [problem] = problems(body, file_url=f"{ORIGIN}/a/sitemap.xml")
    assert problem.startswith("4: ") and f"{ORIGIN}/b/y" in problem and "location rule" in problem


def test_the_protocol_limits() -> None:
    many = urlset(*(f"<loc>{ORIGIN}/{i}</loc>" for i in range(50_001)))
    assert problems(gzip.compress(many)) == ["50,001 entries is over the limit of 50,000"]
    # text nodes of 10 KB (libxml2 refuses a single text node over 10 MB on its own)
    unit = f"<url><loc>{ORIGIN}/a</loc></url>".encode() + b" " * 10_000
    huge = URLSET.encode() + unit * (52_428_800 // len(unit) + 1) + b"</urlset>"
    found = problems(gzip.compress(huge, 1))
    assert any("over the limit of 52,428,800 bytes" in p for p in found)


def test_a_problem_on_every_entry_is_shown_20_times_then_counted_by_rule() -> None:
    entries = [f"<loc>{ORIGIN}/{i}</loc><changefreq>often</changefreq>" for i in range(50)]
    report = validate_document(urlset(*entries), source="f.xml")
    assert report.problem_count == 50 and len(report.problems) == SHOWN + 1
    assert str(report.problems[-1]) == (
        "... and 30 more problem(s): changefreq: must be one of always, daily, hourly, monthly, "
        "never, weekly, yearly"
    )


def test_an_index_entry_is_judged_by_the_layers_rules(tmp_path: Path) -> None:
    index = (
        f'{HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<sitemap><loc>{ORIGIN}/a.xml</loc><lastmod>not a date</lastmod></sitemap>\n"
        "<sitemap><loc>ftp://www.example.com/b.xml</loc></sitemap>\n"
        "<sitemap><loc>https://elsewhere.example/c.xml</loc></sitemap>\n"
        f"<sitemap><loc>{ORIGIN}/gone.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    )
    (tmp_path / "a.xml").write_bytes(urlset(f"<loc>{ORIGIN}/a</loc>"))
    (tmp_path / "c.xml").write_bytes(urlset(f"<loc>{ORIGIN}/c</loc>"))
    (tmp_path / "sitemap.xml").write_text(index)
    [report] = validate_path(tmp_path / "sitemap.xml", base_url=ORIGIN)
    found = [str(p) for p in report.problems]
    assert [p.split(": ", 2)[:2] for p in found] == [
        ["3", "lastmod"],  # once: the XSD does not repeat it
        ["4", "loc"],
        ["5", "loc 'https://elsewhere.example/c.xml' is not on https://www.example.com, the "
              "index's own site"],
        ["6", "child sitemap 'https://www.example.com/gone.xml' has no file 'gone.xml' in "
              + str(tmp_path)],
    ]  # fmt: skip


def test_a_text_sitemap_is_validated_as_a_urlset_is() -> None:
    text = f"{ORIGIN}/a\n\n{ORIGIN}/b c\nnot a url\nftp://www.example.com/x\nhttp://elsewhere.example/y\n"
    report = validate_document(text.encode(), source="urls.txt")
    assert report.kind == "text" and report.url_count == 4
    assert [str(p).split(": ", 2)[:2] for p in report.problems] == [
        ["4", "'not a url' is not a URL"],
        ["5", "url"],
        ["6", "url 'http://elsewhere.example/y' is on http://elsewhere.example, not on "
              "https://www.example.com, where 2 of the file's 3 URLs are"],
    ]  # fmt: skip


def test_the_command_ends_with_a_summary_line_and_its_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.xml", tmp_path / "bad.xml"
    good.write_bytes(written({"url": f"{ORIGIN}/a"}, {"url": f"{ORIGIN}/b"}))
    bad.write_bytes(
        urlset(
            f"<loc>{ORIGIN}/a</loc><changefreq>often</changefreq>",
            f'<loc>{ORIGIN}/b</loc><image:image xmlns:image="http://www.google.com/schemas/'
            'sitemap-image/1.1"><image:loc>https://cdn.example.net/b.jpg</image:loc>'
            "<image:caption>A</image:caption></image:image>",
        )
    )

    assert cli.main(["validate", str(good), "--base-url", ORIGIN + "/"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{good}: ok (urlset, 2 entries, {good.stat().st_size} bytes uncompressed)",
        "sitemap-updater validate: 1 file(s), 2 URL(s): 0 problem(s), 0 warning(s)",
    ]

    assert cli.main(["validate", str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith(f"{bad}:")][:2] == [
        f"{bad}:3: changefreq: 'often' is invalid: must be one of always, daily, hourly, "
        "monthly, never, weekly, yearly",
        f"{bad}:4: warning: image:caption in 1 place: Google deprecated it in 2022 and ignores it "
        "(remove it; it was not checked)",
    ]
    assert out[-1] == "sitemap-updater validate: 2 file(s), 4 URL(s): 1 problem(s), 1 warning(s)"

    assert cli.main(["validate", str(tmp_path / "nope.xml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{tmp_path / 'nope.xml'}: no such file or directory"


def test_json_gives_the_same_as_one_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_bytes(urlset(f"<loc>{ORIGIN}/a</loc><changefreq>often</changefreq>"))
    good = tmp_path / "good.xml"
    good.write_bytes(written({"url": f"{ORIGIN}/a"}))
    assert cli.main(["validate", str(good), str(bad)]) == 1
    text = capsys.readouterr().out.splitlines()

    assert cli.main(["validate", "--json", str(good), str(bad)]) == 1
    [line] = capsys.readouterr().out.splitlines()
    shown = json.loads(line)

    assert shown["exit_status"] == 1
    assert shown["summary"] == {"files": 2, "urls": 2, "problems": 1, "warnings": 0}
    assert text[-1].endswith("2 file(s), 2 URL(s): 1 problem(s), 0 warning(s)")
    first, second = shown["files"]
    assert (first["file"], first["ok"], first["kind"], first["entries"]) == (
        str(good), True, "urlset", 1
    )  # fmt: skip
    assert second["ok"] is False and second["problem_count"] == 1
    [problem] = second["problems"]
    assert f"{bad}:{problem['line']}: {problem['text']}" in text


def test_a_base_url_that_is_no_url_stops_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "s.xml").write_bytes(urlset(f"<loc>{ORIGIN}/a</loc>"))
    assert cli.main(["validate", str(tmp_path / "s.xml"), "--base-url", "ftp://x/"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("sitemap-updater validate: --base-url: 'ftp://x/' is invalid: ")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_url_is_fetched_and_judged_against_its_own_location(tmp_path: Path, served: str) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "sitemap.xml").write_bytes(
        urlset(f"<loc>{served}/a</loc>", f"<loc>{served}/sub/b</loc>")
    )
    [report] = validate_target(served + "/sub/sitemap.xml")
    assert report.kind == "urlset"
    [problem] = report.problems
    assert problem.line == 3 and f"'{served}/a' is not under {served}/sub/" in problem.text
    [missing] = validate_target(served + "/nothing.xml")
    assert "cannot open" in str(missing.problems[0]) and "404" in str(missing.problems[0])


def test_an_alternate_on_another_host_breaks_no_rule(tmp_path: Path) -> None:
    link = '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.de/a"/>'
    own = f'<xhtml:link rel="alternate" hreflang="en" href="{ORIGIN}/a"/>'
    path = tmp_path / "sitemap.xml"
    path.write_text(
        f'{HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        f"<url><loc>{ORIGIN}/a</loc>{own}{link}</url>\n</urlset>\n"
    )
    [report] = validate_path(path, base_url=ORIGIN + "/")
    assert report.ok, report.lines()
