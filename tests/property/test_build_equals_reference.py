"""``build`` gives what a record-by-record reference gives, on arbitrary event files.

The build reads a JSONL file in blocks of lines on worker processes, spools each change as the
URL item ingest would write, resolves each page's newest change on disk and renders the leaves
on the pool. The reference here takes the long way through the same public parts, one record at
a time: ``iter_source_rows`` records, each judged by the ingest judge (``judge_message``, a line
without a time of its own stamped by its place, ``page.order.file_time``) into the item it
writes (``store.items``), the greatest ordering key winning in a dictionary, the space the
rebuild's ``Layout.space_of`` gives each item (its host and section), the shard tree
``split_counts`` gives from each space's root, the rebuild's own ``render_shard`` over the items
of each leaf with the site of the leaf's host, the News files a full rebuild makes of the live
items (``NewsDesk.replace_all``), and an index per host listing that host's files (its
empty-site file when it has none), its News files last. The two must write the same files, byte
for byte, and report the same problems in the same order, over two hosts with path rules and
named sections, and over one host.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.page.order import file_time
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.rebuild.news import NewsDesk
from sitemap_updater.rebuild.render import render_home, render_shard
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, is_live, live_item, tombstone_item, url_hash_of
from sitemap_updater.store.keys import ATTR_EVENT_KEY, EMPTY_SITE_KEY, INDEX_KEY, ROOT_SHARD
from sitemap_updater.store.shards import split_counts
from sitemap_updater.store.spaces import Layout, key_prefix_of, shard_file_key
from sitemap_updater.view import view_files
from sitemap_updater_local.inputs.source_records import BodyLine, Problem
from sitemap_updater_local.inputs.sources import iter_source_rows
from sitemap_updater_local.pipeline.judging import rejected
from sitemap_updater_local.pipeline.static_build import build_static
from tests.property.strategies import some_of

SITES = Sites.parse("https://www.example.com,https://www.example.de")
RULES = SectionRules.parse("/p/=products,/blog/=articles")
TWO_HOSTS = Layout(SITES, RULES)
SITE = SITES.primary
ONE_HOST = Layout(Sites.parse(SITE.origin), SectionRules())
NOW = datetime.now(UTC)
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

pages = st.sampled_from(
    [f"{site.origin}/{top}/{i}" for site in SITES for top in ("p", "blog", "x") for i in range(4)]
    + [f"{SITE.origin}/a'b&c", f"{SITES.all[1].origin}/"]
)
instants = st.integers(0, 5).map(lambda s: datetime(2025, 3, 1, tzinfo=UTC) + timedelta(seconds=s))
instant_texts = st.one_of(
    instants.map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")),
    instants.map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    instants.map(lambda d: d.isoformat()),
    st.just((NOW + timedelta(days=3)).isoformat()),  # too far ahead: refused
)


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    event: dict[str, Any] = {"action": draw(st.sampled_from(["upsert", "upsert", "delete"]))}
    event["url"] = draw(
        pages
        | st.sampled_from(
            ["https://other.example/x", "HTTPS://WWW.EXAMPLE.COM/p/1", "https://WWW.example.de/x/1"]
        )
    )
    if draw(st.integers(0, 3)) == 0:  # a section of its own (or a name that breaks the rule)
        event["section"] = draw(st.sampled_from(["news-x", "pages", "products", "Bad Name"]))
    if draw(st.booleans()):
        event["occurred_at"] = draw(instant_texts)
    if event["action"] == "upsert":
        optional: dict[str, st.SearchStrategy[Any]] = {
            "lastmod": st.sampled_from(["2024-01-02", "2024-01-02T03:04:05Z", "2024-1-2", "x"]),
            "changefreq": st.sampled_from(["daily", "weekly", "Weekly"]),
            "priority": st.sampled_from([0.5, 0.25, 1.0, 2.0]),
            "alternates": st.lists(
                st.fixed_dictionaries(
                    {"hreflang": st.sampled_from(["de", "x-default", "d e"]), "href": pages}
                ),
                max_size=2,
            ),
            "images": st.lists(
                st.fixed_dictionaries(
                    {"loc": st.sampled_from(["https://cdn.example.net/i.jpg", "http://x/ a.png"])}
                ),
                max_size=2,
            ),
            "news": st.fixed_dictionaries(
                {
                    "publication": st.just({"name": "The Times", "language": "en"}),
                    # before the window of 48 hours, and inside it
                    "publication_date": st.sampled_from(
                        [
                            "2025-03-01T00:00:00Z",
                            (NOW - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                            (NOW - timedelta(hours=47)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        ]
                    ),
                    "title": st.sampled_from(["A & B", "Plain"]),
                }
            ),
            "videos": st.lists(
                st.fixed_dictionaries(
                    {
                        "thumbnail_loc": st.just("https://cdn.example.net/t.jpg"),
                        "title": st.just("T"),
                        "description": st.sampled_from(["D", "x" * 3000]),
                        "content_loc": st.just("https://cdn.example.net/v.mp4"),
                    }
                ),
                max_size=1,
            ),
            "mine": st.just("a producer's own field"),
        }
        some_of(draw, event, optional)
    return event


lines = st.one_of(
    events().map(json.dumps),
    st.lists(events(), min_size=1, max_size=3).map(json.dumps),
    st.sampled_from(["", "   ", "{not json", "[]", '"text"']),
)


def _reference(
    source: Path, layout: Layout, max_urls: int, max_bytes: int, stylesheet: bool = True
) -> tuple[dict[str, bytes], list[str]]:
    problems: list[str] = []
    winners: dict[str, Item] = {}
    position = 0
    for record in iter_source_rows(str(source)):
        if isinstance(record, Problem):
            problems.append(str(record))
            continue
        assert isinstance(record, BodyLine)
        position += 1
        stamp = file_time(NOW, position)
        judgement = judge_message(record.text, sent_at=stamp, sites=layout.sites, now=NOW)
        for judged in judgement.items:
            if not isinstance(judged, Change):
                at = record.where if judged.index is None else f"{record.where}[{judged.index}]"
                problems.append(str(rejected(at, judged.field, judged.value, judged.rule)))
                continue
            if judged.page is None:
                item = tombstone_item(judged.url, judged.key, judged.digest, 0)
            else:
                item = live_item(judged.page, judged.key, judged.digest, judged.section)
            uh = url_hash_of(item)
            if uh not in winners or _key(winners[uh]) < _key(item):
                winners[uh] = item
    live = sorted((uh, item) for uh, item in winners.items() if is_live(item))
    spaces: dict[str, list[tuple[str, Item]]] = {}
    for uh, item in live:
        spaces.setdefault(layout.space_of(item), []).append((uh, item))
    files: dict[str, bytes] = {}
    listed: list[tuple[str, str, str | None]] = []  # (shard id, file key, lastmod)
    for space, in_space in sorted(spaces.items()):
        for leaf in split_counts([uh for uh, _ in in_space], space + ROOT_SHARD, max_urls):
            bits = leaf[len(space) + 1 :]
            items = [item for uh, item in in_space if _bits(uh).startswith(bits)]
            site = layout.site_of_shard(leaf)
            parts = render_shard(
                leaf, items, site, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet
            )
            for part in parts:
                problems += [f"{skipped}, left out" for skipped in part.skipped]
                if part.body is not None:
                    key = shard_file_key(part.shard_id)
                    files[key] = part.body
                    listed.append((part.shard_id, key, part.newest_lastmod))
    desk = NewsDesk(
        layout.sites,
        window_hours=48,
        now=NOW.timestamp(),
        max_bytes=max_bytes,
        stylesheet=stylesheet,
    )
    desk.replace_all(item for _, item in live)
    news = desk.render()
    problems += [f"{skipped}: left out of the News files" for skipped in desk.skipped]
    files.update((news_file.key, news_file.body) for news_file in news)
    listed = sorted(listed) + [("", news_file.key, None) for news_file in news]
    files.update(_indexes(layout, listed, max_urls, max_bytes, stylesheet))
    return files, problems


def _indexes(
    layout: Layout,
    listed: list[tuple[str, str, str | None]],
    max_urls: int,
    max_bytes: int,
    stylesheet: bool,
) -> dict[str, bytes]:
    """Each host's index of its own files, or of its empty-site file (also given) if none, and
    with ``stylesheet`` its ``sitemap.xsl``."""
    files: dict[str, bytes] = {}
    for prefix, site in layout.prefixes().items():
        own = [(key, lastmod) for _, key, lastmod in listed if key_prefix_of(key) == prefix]
        if not own:
            own = [(prefix + EMPTY_SITE_KEY, None)]
            home = render_home(site, stylesheet=stylesheet)
            files[own[0][0]] = home
        urls = [(f"{site.origin}/{key[len(prefix) :]}", lm) for key, lm in own]
        files[prefix + INDEX_KEY] = render_index(urls, stylesheet=stylesheet)[0]
        if stylesheet:
            files[prefix + STYLESHEET_NAME] = stylesheet_body()
        files.update((prefix + name, body) for name, body in view_files())
    return files


def _key(item: Item) -> str:
    return str(item[ATTR_EVENT_KEY]["S"])


def _bits(uh: str) -> str:
    return "".join(format(int(c, 16), "04b") for c in uh)


def _built(
    source: Path,
    layout: Layout,
    out: Path,
    max_urls: int,
    max_bytes: int,
    jobs: int,
    stylesheet: bool = True,
) -> tuple[dict[str, bytes], list[str]]:
    problems: list[str] = []
    build_static(
        [str(source)],
        layout.sites,
        str(out),
        section_rules=layout.rules,
        max_urls=max_urls,
        max_bytes=max_bytes,
        on_problem=lambda p: problems.append(str(p)),
        jobs=jobs,
        now=NOW,
        allow_empty=True,  # the reference publishes an empty site too
        stylesheet=stylesheet,
    )
    # the build's manifest (a hidden file) is its bookkeeping, not a published file
    files = {
        str(path.relative_to(out)): path.read_bytes()
        for path in out.rglob("*")
        if path.is_file() and not path.name.startswith(".")
    }
    return files, problems


@pytest.mark.parametrize("layout", [TWO_HOSTS, ONE_HOST], ids=["two hosts", "one host"])
@SETTINGS
@given(
    # the first line is a change object, so that the file is read as JSONL
    st.tuples(events().map(json.dumps), st.lists(lines, max_size=40)).map(lambda t: [t[0], *t[1]]),
    st.integers(1, 6),
    st.sampled_from([1200, 4000, 50_000]),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_build_writes_what_the_reference_writes(
    tmp_path_factory: pytest.TempPathFactory,
    layout: Layout,
    body: list[str],
    max_urls: int,
    max_bytes: int,
    newline: str,
    stylesheet: bool,
) -> None:
    work = tmp_path_factory.mktemp("build")
    source = work / "events.jsonl"
    source.write_bytes(newline.join(body).encode("utf-8"))
    expected_files, expected_problems = _reference(source, layout, max_urls, max_bytes, stylesheet)
    files, problems = _built(source, layout, work / "out", max_urls, max_bytes, 1, stylesheet)
    assert problems == expected_problems
    assert files == expected_files


def test_blocks_processes_and_odd_lines_change_nothing(tmp_path: Path) -> None:
    """Many blocks on two processes, a byte order mark, a line that is not UTF-8 and events
    without a time of their own (ordered by their place in the file) give the reference."""
    rows = [
        b"\xef\xbb\xbf" + json.dumps({"action": "upsert", "url": f"{SITE.origin}/bom"}).encode()
    ]
    for i in range(30_000):
        event: dict[str, Any] = {"action": "upsert", "url": f"{SITE.origin}/p/{i % 9000}"}
        if i % 3:
            event["occurred_at"] = f"2025-03-01T00:00:{i % 60:02d}.{i % 1000:03d}Z"
        event["lastmod"] = f"2024-01-{1 + i % 28:02d}"
        if i % 97 == 0:
            event = {"action": "delete", "url": event["url"]}
        rows.append(json.dumps(event).encode())
        if i == 20_000:
            rows.append(b'{"action": "upsert", "url": "\xff"}')
            rows.append(b"   ")
    source = tmp_path / "events.jsonl"
    source.write_bytes(b"\n".join(rows) + b"\n")
    expected = _reference(source, ONE_HOST, 4000, 50_000_000)
    assert _built(source, ONE_HOST, tmp_path / "one", 4000, 50_000_000, jobs=1) == expected
    assert _built(source, ONE_HOST, tmp_path / "two", 4000, 50_000_000, jobs=2) == expected
