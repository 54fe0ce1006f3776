"""``sitemap-updater demo --urls 500``: the whole flow, checked through its output files."""

from __future__ import annotations

import gzip
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from sitemap_updater_local import cli, demo_changes
from sitemap_updater_local.commands.demo import (
    DEMO_CHANGES,
    DEMO_DELETES,
    DEMO_MAX_URLS_PER_SITEMAP,
    SITE,
    TWIN_SITE,
)
from sitemap_updater_local.validation.document import validate_path
from tests.e2e.published import published_urls

TWIN_FOLDER = "www.example.de"


def section_of(name: str) -> str:
    return name.removeprefix("sitemap-").rsplit("-r", 1)[0]


def test_demo_publishes_valid_files_with_exactly_the_live_urls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    log = tmp_path / "demo.log"
    status = cli.main(["demo", "--urls", "500", "--out", str(out), "--log-file", str(log)])
    printed = capsys.readouterr().out
    assert status == 0, printed

    assert f"The functions' log lines: {log}" in printed and log.is_file()

    # every downloaded file of each host passes the validator against the host it is served
    # from, and each host's index lists them all
    reports = validate_path(out, base_url=SITE)
    twin_reports = validate_path(out / TWIN_FOLDER, base_url=TWIN_SITE)
    for got in (reports, twin_reports):
        assert got and all(r.ok and not r.warnings for r in got), [r.lines() for r in got]
    assert (out / "sitemap.xml").is_file() and (out / TWIN_FOLDER / "sitemap.xml").is_file()

    # the published URLs are the ones sent minus the deleted ones, each once, on its own host
    pages = demo_changes.make_pages(500, SITE)
    twins = demo_changes.twins(pages, SITE, TWIN_SITE)
    _, changed, deleted = demo_changes.follow_up(pages, SITE, DEMO_CHANGES, DEMO_DELETES)
    urls = published_urls(out)
    twin_urls = published_urls(out / TWIN_FOLDER)
    extra = {f"{SITE}/news/{slug}" for slug, _, _ in demo_changes.NEWS_ARTICLES}
    extra.add(f"{SITE}/videos/walnut-table-care")
    expected = ({p.url for p in pages} | extra) - {p.url for p in deleted}
    assert len(deleted) > 0 and twins
    assert len(urls) == len(set(urls)) == len(expected)
    assert set(urls) == expected
    assert sorted(twin_urls) == sorted(p.url for p in twins)

    # three sections on each host: by path rule, by the category pages' own field, the rest
    names = {Path(r.source).name for r in reports + twin_reports if r.kind == "urlset"}
    sections = {section_of(n) for n in names if not n.startswith("sitemap-news-")}
    assert sections == {"products", "articles", "pages"}
    category = next(p for p in pages if p.section == "category" and p not in deleted)
    holding = [n for n in names if category.url.encode() in _inflated(out, n)]
    assert [section_of(n) for n in holding] == ["products"]

    # a translated page and its twin list each other, and themselves
    twin = twins[0]
    english = SITE + twin.url[len(TWIN_SITE) :]
    for host_out, url in ((out, english), (out / TWIN_FOLDER, twin.url)):
        xml = b"".join(_inflated(host_out, n) for n in sorted(names) if (host_out / n).exists())
        entry = xml.split(f"<loc>{url}</loc>".encode(), 1)[1].split(b"</url>", 1)[0]
        assert f'hreflang="en" href="{english}"'.encode() in entry
        assert f'hreflang="de" href="{twin.url}"'.encode() in entry

    # the news file lists the articles of the last 48 hours (dated from the demo's own clock),
    # and the regular files carry the video
    news = [r for r in reports if Path(r.source).name.startswith("sitemap-news-")]
    assert [(Path(r.source).name, r.url_count) for r in news] == [("sitemap-news-1.xml.gz", 3)]
    news_xml = gzip.decompress((out / "sitemap-news-1.xml.gz").read_bytes())
    assert b"<news:title>A new &lt;studio&gt; opens in the garden district</news:title>" in news_xml
    assert b"last-week-sale" not in news_xml  # 80 hours old: in the regular files only
    assert "sitemap-news-1.xml.gz (3 articles)" in printed
    assert "videos in the regular files: 1" in printed

    # the shard cap was applied: several files, none above it
    urlsets = [r for r in reports if r.kind == "urlset" and r not in news]
    assert len(urlsets) >= 2
    assert all(r.url_count <= DEMO_MAX_URLS_PER_SITEMAP for r in urlsets)

    # the summary reports the numbers and every poison message with its reason
    sent = 505 + len(twins)
    published = len(expected) + len(twins)
    assert f"URLs: {sent} sent, {len(deleted)} deleted, {published} published" in printed
    assert "Rejected messages (4)" in printed
    for field in ("field message", "field url", "field priority", "field action"):
        assert field in printed
    # the incremental run read the changes from the stream and rewrote the index
    assert "Incremental run after the changes:" in printed
    assert "sitemap.xml" in printed.split("Incremental run after the changes:")[1]
    # IndexNow (to a local endpoint): exactly the changed and the deleted pages, in one POST
    touched = len({p.url for p in changed} | {p.url for p in deleted})
    assert f"IndexNow: {touched} URLs in 1 POSTs would have been sent to" in printed
    assert "All files valid." in printed
    # the coverage table from the loopback stand-ins, labelled as such
    engines = printed.split("Search engines, from LOCAL STAND-INS on 127.0.0.1")[1]
    assert "(not Google or Bing)" in engines.splitlines()[0]
    assert "submitted to google: submitted" in engines
    assert "submitted to bing: submitted" in engines
    # published, submitted, Bing's count, inspected, the indexed share and its interval
    assert re.search(r"\n\s+articles\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+% \(\d+%-\d+%\)", engines)
    assert re.search(r"crawl p50 \(95% CI\)", engines)
    assert re.search(r"pages: http://127\.0\.0\.1:\d+/redirect-301 \(HTTP 301\) -> ", engines)
    # it ends by naming the local preview of what it wrote, which the download holds
    assert printed.rstrip().splitlines()[-1] == f"Browse it: sitemap-updater serve {out}"
    assert {"sitemap.html", "sitemap.js", "sitemap.css"} <= {p.name for p in out.iterdir()}


def _inflated(directory: Path, name: str) -> bytes:
    path = directory / name
    return gzip.decompress(path.read_bytes()) if path.exists() else b""


def test_demo_refuses_a_non_positive_url_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["demo", "--urls", "0", "--out", str(tmp_path)]) == 2
    assert "--urls 0: must be at least 1" in capsys.readouterr().err


def test_demo_as_run_keeps_the_log_lines_in_a_file_and_ends_with_a_runnable_command(
    tmp_path: Path,
) -> None:
    """Run as a project's ``make demo`` runs it (the program by its path from the project's
    root): the terminal shows the summary only, the functions' JSON log lines are in
    ``sitemap-demo.log``, and the last line serves the download as printed."""
    program = Path(sys.executable).parent / "sitemap-updater"
    local = tmp_path / ".venv" / "bin"
    local.mkdir(parents=True)
    (local / "sitemap-updater").symlink_to(program)
    done = subprocess.run(
        [".venv/bin/sitemap-updater", "demo", "--urls", "40"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [line for line in done.stdout.splitlines() if line.lstrip().startswith("{")]
    logged = [json.loads(line) for line in (tmp_path / "sitemap-demo.log").read_text().splitlines()]
    messages = {line["message"] for line in logged if "level" in line}  # besides metric lines
    assert {"change applied", "rebuild run finished", "observer run finished"} <= messages
    last = done.stdout.rstrip().splitlines()[-1]
    assert last == "Browse it: .venv/bin/sitemap-updater serve sitemap-out"
    serve = shlex.split(last.removeprefix("Browse it: "))
    helped = subprocess.run(
        [*serve, "--help"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert helped.returncode == 0 and "usage: sitemap-updater serve" in helped.stdout
