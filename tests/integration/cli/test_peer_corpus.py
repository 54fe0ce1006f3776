"""Every fixture of ../shared/corpus/peers through ``backfill`` and ``validate``: no traceback,
no hang, one clear line for what cannot be read, and the URLs of well-formed files; ``validate``
fails a file for what ``backfill`` leaves out of a page, in the same words, and for nothing
Google ignores."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sites import Sites
from sitemap_updater_local import cli
from sitemap_updater_local.commands.validate import NOTHING_READ
from sitemap_updater_local.errors import CommandError
from sitemap_updater_local.inputs.opening import SourcePolicy
from sitemap_updater_local.inputs.source_records import SourceError
from sitemap_updater_local.pipeline.backfill_changes import Backfill
from sitemap_updater_local.pipeline.static_build import build_static
from sitemap_updater_local.validation.document import validate_path

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "peers"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.is_file()) if CORPUS.is_dir() else []
pytestmark = pytest.mark.skipif(not FILES, reason="../shared/corpus/peers is not here")


def backfill(path: Path) -> tuple[list[str], list[str], str | None]:
    """(event URLs, problem and note lines, the source error) of one file."""
    urls: list[str] = []
    lines: list[str] = []
    run = Backfill(lambda url, line: urls.append(url), on_problem=lambda p: lines.append(str(p)))
    try:
        run.run([str(path)])
    except SourceError as exc:
        return urls, lines, str(exc)
    return urls, lines, None


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8")


def expected_locs(path: Path) -> set[str]:
    """The ``<loc>`` of each ``<url>`` of a urlset, read with a regular expression (not the
    reader under test), normalized as the protocol does."""
    found = re.findall(r"<url>\s*<loc>\s*([^<\s]+)\s*</loc>", _text(path))
    return {normalize_url(loc.replace("&amp;", "&")) for loc in found}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_is_read_or_refused_in_lines_naming_it(path: Path) -> None:
    _, lines, error = backfill(path)
    for line in lines + ([error] if error else []):
        assert "Traceback" not in line and "\n" not in line
        assert line.startswith(str(path.parent)), line  # names the file (or a child of it)
    assert len(lines) < 200  # a bomb of text is one line, not one per line of text


#: What ``validate`` must say of the cases the peers' tests refuse, or that Google rejects.
FAILS = {
    "smjs-1100-images": "images: 1,100 items is invalid: must have at most 1000 items",
    "adv-news-nyt": "news.publication.language: 'en-US' is invalid: must be an ISO 639",
    "adv-video-wapo": "videos[0].thumbnail_loc: missing: is required",
    "cc-ext-news": "news.publication.name: '' is invalid",
    "smjs-lastmod-not-a-date": "lastmod: 'not-a-date' is invalid",
    "smjs-50010-urls": "50,010 entries is over the limit of 50,000",
    "gosp-relative-locs": "url: '/page-01' is invalid: must be an absolute http or https URL",
    "cc-atom": "is an Atom feed, not a sitemap",
    "usp-billion-laughs": "not well-formed XML",
    "scrapy-gzip-crc": "not a readable gzip file",
}
#: Cases whose only remarks are tags Google deprecated: warnings, and the file passes.
PASSES_WITH_WARNINGS = {
    "smjs-news-access-invalid": ["news:access"],
    "cc-ext-videos": ["video:gallery_loc", "video:player_loc@allow_embed",
                      "video:player_loc@autoplay", "video:price"],
    "usp-image": ["image:caption", "image:geo_location", "image:license", "image:title"],
}  # fmt: skip


#: Where a line of ``validate`` is (the file, and its line if it has one).
_WHERE = re.compile(r"(.+?)(?::\d+)?: ")
#: A line that is no problem: a warning, a note or the file's ``ok``.
_REMARK = re.compile(r"(?::\d+)?: (warning|note|ok)\b")
_MORE = re.compile(r": \.\.\. and ([\d,]+) more problem\(s\)")


def _urls(said: list[str]) -> str:
    """What the summary says of a file's URLs: the entries its ``ok`` line counts (none for an
    index), or any count for a file that did not pass (its lines do not say)."""
    for line in said:
        ok = re.search(r": ok \((\w+), (\d+) entries", line)
        if ok:
            return f"{int(ok[2]):,}" if ok[1] in ("urlset", "text") else "0"
    return r"[\d,]+"


def test_validate_gives_every_fixture_a_result_naming_the_file_and_the_problem(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each of the 124 cases through the command: every line names the file (with its line
    where there is one), the run ends with its summary line (or, having read nothing, the one
    line that says so) and the exit status says whether the file passed."""
    printed: dict[str, list[str]] = {}  # the lines of each case's files
    for path in FILES:
        status = cli.main(["validate", str(path)])
        out, err = capsys.readouterr()
        lines = out.splitlines()
        name = f"{path.parent.name}/{path.name}"
        if status == 3:  # an empty file: its one line, and the line the command ends with
            assert [line.split(": ", 1)[0] for line in lines] == [str(path)], name
            assert err == f"sitemap-updater validate: {NOTHING_READ}\n", name
            continue
        assert err == "" and status in (0, 1), (name, err)
        *said, summary = lines
        places = [_WHERE.match(line) for line in said]
        assert said and all(m and m[1] == str(path) for m in places), (name, said)
        problems = [line for line in said if not _REMARK.match(line.removeprefix(str(path)))]
        assert (status == 1) == bool(problems), (name, said)
        more = [_MORE.search(line) for line in problems]
        counted = sum(int(m[1].replace(",", "")) if m else 1 for m in more)
        warnings = sum(": warning: " in line for line in said)
        assert re.fullmatch(
            rf"sitemap-updater validate: 1 file\(s\), {_urls(said)} URL\(s\): {counted:,} "
            rf"problem\(s\), {warnings} warning\(s\)",
            summary,
        ), (name, summary)
        printed.setdefault(path.parent.name, []).extend(said)
    assert len({p.parent.name for p in FILES}) == 124
    for case, what in FAILS.items():
        assert any(what in line for line in printed[case]), (case, printed[case])
    for case, tags in PASSES_WITH_WARNINGS.items():
        warnings = [line.split(": warning: ")[1] for line in printed[case] if ": warning: " in line]
        assert [w.split(" in ")[0] for w in warnings] == tags, printed[case]
        assert any(": ok (urlset, " in line for line in printed[case]), printed[case]


@pytest.mark.parametrize(
    "case",
    ["usp-huge-1000", "adv-regular", "adv-zipped", "cc-xml-charref", "derived-mobile-alternate",
     "usp-hreflang", "gosp-loc-2048", "usp-utf8-bom"],
)  # fmt: skip
def test_well_formed_urlsets_give_their_urls(case: str) -> None:
    [path] = (CORPUS / case).iterdir()
    urls, lines, error = backfill(path)
    assert error is None and not [line for line in lines if ": note: " not in line], lines
    assert set(urls) == expected_locs(path) and len(urls) == len(expected_locs(path))


def test_the_1000_url_fixture_with_mobile_links_gives_1000_upserts() -> None:
    urls, lines, _ = backfill(CORPUS / "usp-huge-1000" / "sitemap.xml.gz")
    assert len(urls) == 1000
    assert any("xhtml:link media dropped from 1000 pages" in line for line in lines)


def test_an_index_gives_the_urls_of_its_children() -> None:
    index = CORPUS / "gosp-index-tree" / "sitemapindex-1.xml"
    children = [p for p in index.parent.iterdir() if p != index]
    urls, lines, error = backfill(index)
    assert error is None and lines == []
    assert sorted(urls) == sorted(u for c in children for u in expected_locs(c))


def test_a_text_sitemap_gives_its_urls_and_names_a_line_that_is_no_url() -> None:
    path = CORPUS / "usp-plain-text" / "sitemap_1.txt"
    urls, lines, _ = backfill(path)
    wanted = {line.strip() for line in _text(path).splitlines() if "://" in line}
    assert set(urls) == wanted
    assert lines == [f"{path}:6: {lines[0].split(': ', 1)[1]}"] and "is not a URL" in lines[0]


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("gosp-corrupted-gz", "not a readable gzip file"),
        ("scrapy-truncated-gzip", "not a readable gzip file"),
        ("gosp-empty", "empty file"),
        ("gosp-empty-gz", "empty after gunzip"),
        ("scrapy-gzip-bomb", "not a sitemap (XML or text), CSV or JSONL file"),
        ("adv-robots-txt", "not a sitemap (XML or text), CSV or JSONL file"),
    ],
)
def test_what_cannot_be_read_is_one_line(case: str, reason: str) -> None:
    [path] = (CORPUS / case).iterdir()
    urls, lines, error = backfill(path)
    assert urls == [] and lines == [] and error is not None
    assert error.startswith(str(path)) and reason in error


@pytest.mark.parametrize("case", ["scrapy-xxe", "cc-xxe-local-file"])
def test_a_doctype_costs_nothing_and_an_entry_that_uses_an_entity_is_reported(case: str) -> None:
    path = next(p for p in (CORPUS / case).iterdir() if p.suffix == ".xml")
    urls, lines, error = backfill(path)
    used = [line for line in lines if "uses the entity &" in line]
    assert error is None and used == lines and len(lines) == 1
    text = re.sub(r"<url>\s*<loc>[^<]*&\w+;[^<]*</loc>.*?</url>", "", _text(path), flags=re.S)
    plain = {normalize_url(loc) for loc in re.findall(r"<url>\s*<loc>\s*([^<\s]+)", text)}
    assert set(urls) == plain and len(plain) == (case == "cc-xxe-local-file")
    [report] = validate_path(path)
    [problem] = report.problems
    assert "uses the entity &" in problem.text and "DOCTYPE" not in problem.text


def test_an_entity_is_never_expanded_and_the_url_that_uses_it_is_reported(
    tmp_path: Path,
) -> None:
    path = tmp_path / "entity.xml"
    path.write_text(
        '<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY p "page">]>'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://www.example.com/&p;-1</loc></url>"
        "<url><loc>https://www.example.com/plain</loc></url></urlset>"
    )
    urls, lines, _ = backfill(path)
    assert urls == ["https://www.example.com/plain"]
    assert lines == [f"{path}:1: loc: uses the entity &p;, which is not read; entities are never "
                     "expanded: the entry is skipped"]  # fmt: skip
    [report] = validate_path(path)
    [problem] = report.problems
    assert problem.line == 1 and "&p;" in problem.text


@pytest.mark.parametrize(
    ("case", "scheme"), [("smjs-index-protocols", "javascript"), ("smjs-index-protocols", "ftp")]
)
def test_index_children_on_other_schemes_are_refused_naming_the_scheme(
    case: str, scheme: str
) -> None:
    _, lines, _ = backfill(CORPUS / case / "sitemap-index.xml")
    assert any(f"scheme {scheme!r} is not allowed" in line for line in lines), lines


def test_1100_images_fail_validate_and_backfill_keeps_the_page_by_the_same_rule() -> None:
    path = CORPUS / "smjs-1100-images" / "sitemap.xml"
    urls, lines, _ = backfill(path)
    [report] = validate_path(path)
    rule = "images: 1,100 items is invalid: must have at most 1000 items"
    assert not report.ok and [str(p) for p in report.problems] == [f"3: {rule}"]
    # backfill keeps the page and its first 1,000 images, with a warning of the same rule
    assert urls == ["http://example.com/"]
    assert [line for line in lines if "must have at most 1000 items" in line]


def test_an_unregistered_hreflang_fails_validate_in_the_words_of_backfills_warning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "alternates.xml"
    path.write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://www.example.com/a</loc>'
        '<xhtml:link rel="alternate" hreflang="english" href="https://www.example.com/a"/>'
        "</url></urlset>"
    )
    urls, lines, _ = backfill(path)
    [report] = validate_path(path)
    # backfill keeps the page without the bad alternate; validate fails the file, in its words
    assert urls == ["https://www.example.com/a"]
    [warning] = [x for x in lines if "'english' is not a registered language" in x]
    said = warning.split(": warning: ")[1].rsplit("; ", 1)[0]
    assert [str(p) for p in report.problems] == [f"1: {said}"]


def test_google_video_example_passes_validate_with_rating_and_view_count(tmp_path: Path) -> None:
    path = tmp_path / "video.xml"
    path.write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"><url>'
        "<loc>https://www.example.com/videos/a.html</loc><video:video>"
        "<video:thumbnail_loc>https://www.example.com/t.jpg</video:thumbnail_loc>"
        "<video:title>Grilling</video:title><video:description>Steaks</video:description>"
        "<video:content_loc>https://cdn.example.com/v.mp4</video:content_loc>"
        "<video:duration>600</video:duration>"
        "<video:rating>4.2</video:rating><video:view_count>12345</video:view_count>"
        "<video:publication_date>2007-11-05T19:20:30+08:00</video:publication_date>"
        "</video:video></url></urlset>"
    )
    [report] = validate_path(path)
    assert report.problems == []
    urls, lines, _ = backfill(path)
    assert urls == ["https://www.example.com/videos/a.html"]
    assert any("video:rating dropped" in line for line in lines)


@pytest.mark.parametrize("case", ["usp-no-namespace", "cc-bad-namespace"])
def test_a_missing_or_wrong_namespace_is_named(case: str) -> None:
    path = next(p for p in (CORPUS / case).iterdir() if "index" not in p.name)
    [report] = validate_path(path)
    [problem] = report.problems
    assert "namespace" in problem.text and "sitemaps.org/schemas/sitemap/0.9" in problem.text
    _, lines, _ = backfill(path)
    assert any("namespace" in line and "read anyway" in line for line in lines)


def test_a_gzip_bomb_stops_at_the_cap_in_both_commands(tmp_path: Path) -> None:
    # 64 MiB of XML text (over the protocol's 50 MiB) from a small gzip file, written by streaming
    path = tmp_path / "bomb.xml.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
        # entries of 2 KB: the byte limit comes before the 50,000-entry limit
        block = (b"<url><loc>https://www.example.com/a</loc></url>" + b" " * 2000) * 500
        for _ in range(64 * 2**20 // len(block)):
            out.write(block)
    assert path.stat().st_size < 2**20
    [report] = validate_path(path)
    assert any("over the limit of 52,428,800 bytes" in p.text for p in report.problems)
    _, lines, _ = backfill(path)
    assert any("over the limit of 52,428,800 bytes" in line for line in lines)


def test_a_source_cap_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("".join(f"https://www.example.com/{i}\n" for i in range(1000)))
    run = Backfill(lambda url, line: None, policy=SourcePolicy(max_records=10))
    with pytest.raises(SourceError, match=r"more than 10 records .* --max-records"):
        run.run([str(path)])
    with pytest.raises(SourceError, match=r"more than 100 bytes .* --max-bytes"):
        Backfill(lambda url, line: None, policy=SourcePolicy(max_bytes=100)).run([str(path)])


def test_validate_and_backfill_agree_on_50000_entries() -> None:
    path = CORPUS / "smjs-50010-urls" / "sitemap.xml.gz"
    urls, lines, _ = backfill(path)
    [report] = validate_path(path)
    # every entry lists the same page: the first 50,000 are read, and the page is written once
    assert urls == ["http://example.com/"]
    assert [line for line in lines if "over the limit of 50,000 entries" in line] == lines
    assert len(lines) == 1
    assert [p.text for p in report.problems] == ["50,010 entries is over the limit of 50,000"]


def test_the_peer_copy_of_googles_video_example_passes_validate_and_keeps_its_videos() -> None:
    path = CORPUS / "gosp-video" / "sitemap-video-01.xml"
    [report] = validate_path(path)
    assert report.problems == []
    urls, lines, _ = backfill(path)
    assert set(urls) == expected_locs(path)
    assert all(": note: " in line for line in lines)


def test_a_huge_loc_is_refused_before_it_is_normalized(tmp_path: Path) -> None:
    path = tmp_path / "huge.xml"
    path.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>'
        + "https://www.example.com/"
        + "a" * 100_000
        + "</loc></url><url><loc>https://www.example.com/ok</loc></url></urlset>"
    )
    urls, lines, _ = backfill(path)
    assert urls == ["https://www.example.com/ok"]
    assert lines == [f"{path}:1: loc: 100,024 characters is invalid: must be at most 2,048 "
                     "characters once normalized"]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "name", "backfill_says", "validate_says"),
    [
        ("cc-rss2", "feed.rss", "is an RSS feed, not a sitemap", "is an RSS feed, not a sitemap"),
        ("usp-atom10", "sitemap_atom_1_0.xml", "is an Atom feed", "is an Atom feed"),
        ("usp-plain-text", "sitemap_1.txt", "is not a URL", "is not a URL"),
        ("usp-cyclic", "sitemap_1.xml", "a sitemap index must not list another index", None),
        ("cc-index-unclosed", "sitemapindex.xml", "3 <loc> elements in one <sitemap>", None),
        ("smjs-news-access-invalid", "sitemap.xml", "news:access dropped from 1 page", "access"),
    ],
)
def test_each_policy_is_one_line_in_each_command(
    case: str, name: str, backfill_says: str, validate_says: str | None
) -> None:
    path = CORPUS / case / name
    _, lines, error = backfill(path)
    assert [line for line in [*lines, error or ""] if backfill_says in line], (lines, error)
    if validate_says is not None:
        [report] = validate_path(path)
        said = report.problems + report.warnings  # a deprecated tag is a warning
        assert any(validate_says in p.text for p in said), said


def test_an_empty_lastmod_is_no_lastmod_and_the_page_is_kept() -> None:
    path = CORPUS / "usp-news-index-tree" / "sitemap_news_1.xml"
    events: list[dict[str, object]] = []
    run = Backfill(lambda url, line: events.append(json.loads(line)))
    run.run([str(path)])
    assert {str(e["url"]) for e in events} == expected_locs(path)
    assert all("lastmod" not in e for e in events)
    [report] = validate_path(path)
    assert any("lastmod" in p.text and "(XSD)" in p.text for p in report.problems)


#: What costs a page when a peer's sitemap expects it not to: an extension element or a page
#: field (build and backfill leave them out and keep the page).
_NOT_THE_PAGE = re.compile(
    r": (news\.|videos|images|alternates|lastmod|changefreq|priority)[^ ]*: .* is invalid"
)
#: A tag Google deprecated, as an XSD message names it: validate never fails a file for one.
_DEPRECATED_IN_XSD = re.compile(
    r"'(news:(access|genres|keywords|stock_tickers)|video:(category|gallery_loc|price|tvshow)"
    r"|image:(caption|geo_location|title|license))'"
)


def _built(path: Path, tmp_path: Path) -> list[str]:
    """The skipped-record lines of ``build`` on one fixture (its own site, one process)."""
    urls, _, error = backfill(path)
    if error is not None or not urls:
        return []
    lines: list[str] = []
    site = "/".join(urls[0].split("/", 3)[:3])
    try:
        build_static([str(path)], Sites.parse(site), str(tmp_path / path.parent.name),
                     on_problem=lambda p: lines.append(str(p)), allow_empty=True)  # fmt: skip
    except (SourceError, CommandError) as exc:
        lines.append(str(exc))
    return lines


#: A backfill warning of an element or field it left out (validate lets media and alternates be
#: on any host).
_LEFT_OUT = re.compile(r"(news\.|videos|images|alternates|lastmod|changefreq|priority)"
                       r"[^ ]*: (?!.* must be on ).* is invalid")  # fmt: skip


def _validate_disagrees(path: Path, backfill_lines: list[str]) -> list[str]:
    """Where ``validate`` and ``backfill`` disagree on a file: an element or field backfill
    leaves out that validate does not fail the file for, in the same words; a file validate
    fails for a tag Google deprecated, or for a DOCTYPE."""
    lost: list[str] = []
    reports = validate_path(path)
    said = Counter(p.text.split(" (write ")[0] for r in reports for p in r.problems)
    for line in backfill_lines:
        warned = line.split(": warning: ", 1)[-1].rsplit("; ", 1)[0]
        if ": warning: " in line and _LEFT_OUT.match(warned) and not said[warned]:
            lost.append(f"backfill left it out, validate did not fail the file: {line}")
    for report in reports:
        lost += [str(p) for p in report.problems
                 if _DEPRECATED_IN_XSD.search(p.text) or "DOCTYPE" in p.text]  # fmt: skip
    return lost


def test_every_fixture_is_handled_as_the_peers_expect_by_every_reader(tmp_path: Path) -> None:
    """124 of 124: no page is lost for what is not the page (an extension element, a field,
    a DOCTYPE); validate fails a file for each element backfill leaves out, and for no tag
    Google deprecated."""
    cases = sorted({p.parent.name for p in FILES})
    failed: dict[str, list[str]] = {}
    for path in FILES:
        _, lines, _ = backfill(path)
        lost = [line for line in lines if ": warning: " not in line and ": note: " not in line
                and (_NOT_THE_PAGE.search(line) or "DOCTYPE" in line)]  # fmt: skip
        lost += [line for line in _built(path, tmp_path)
                 if ": warning: " not in line and _NOT_THE_PAGE.search(line)]  # fmt: skip
        lost += _validate_disagrees(path, lines)
        if lost:
            failed.setdefault(path.parent.name, []).extend(lost)
    assert len(cases) == 124
    assert (len(cases) - len(failed), failed) == (124, {})
