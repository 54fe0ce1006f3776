"""Backfilling what this project published, then building from the events, gives the same
files byte for byte, on two hosts whose pages name each other as hreflang alternates: one
upsert per page, its News article and videos in it, its lastmod kept.

The published site is what ``build`` writes: each host's regular files (videos included), its
News files (the articles of the last 48 hours, as the rebuild writes them) and its index. Each
host's index is backfilled with both sites listed, and the events of both built again.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.page.model import News
from sitemap_updater.sites import Sites
from sitemap_updater_local.inputs.source_records import Note
from sitemap_updater_local.pipeline.backfill_changes import Backfill
from sitemap_updater_local.pipeline.static_build import build_static
from tests.property.strategies import NOW

ROUND_TRIP = settings(max_examples=25, deadline=None)
CAP = 4  # URLs per file: several files, so that an index lists them
SITES = Sites.parse("https://www.example.com,https://www.example.de")
COM, DE = (site.origin for site in SITES)

videos = st.fixed_dictionaries(
    {
        "thumbnail_loc": st.just("https://cdn.example.net/t.jpg"),
        "title": st.sampled_from(["T", "A & B <c>"]),
        "description": st.sampled_from(["D", "Long " * 50]),
        "content_loc": st.just("https://cdn.example.net/v.mp4"),
    },
    optional={
        "player_loc": st.just("https://www.example.com/player?v=1&x=2"),
        "duration": st.integers(1, 28_800),
        "publication_date": st.just("2024-05-01T10:00:00+02:00"),
        "expiration_date": st.just("2030-01-01"),
        "tag": st.lists(st.sampled_from(["a", "b c"]), min_size=1, max_size=3),
        "family_friendly": st.booleans(),
        "requires_subscription": st.booleans(),
        "live": st.booleans(),
        "restriction": st.fixed_dictionaries(
            {"relationship": st.sampled_from(["allow", "deny"]), "countries": st.just(["IE", "GB"])}
        ),
        "platform": st.fixed_dictionaries(
            {"relationship": st.sampled_from(["allow", "deny"]), "platforms": st.just(["web"])}
        ),
        "uploader": st.sampled_from(
            [{"name": "Ann"}, {"name": "Bo", "info": "https://www.example.com/bo"}]
        ),
    },
)
news = st.fixed_dictionaries(
    {
        "publication": st.just({"name": "The Times", "language": "en"}),
        # inside the window of 48 hours before NOW, at its edge, and before it
        "publication_date": st.sampled_from(
            ["2026-11-20T08:00:00Z", "2026-11-19", "2026-11-18T12:00:00Z", "2026-11-10"]
        ),
        "title": st.sampled_from(["A & B", "Plain"]),
    }
)


@st.composite
def pages(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 12))
    # a page on each host (a host without one publishes its home file, which is no page)
    out: list[dict[str, Any]] = [{"action": "upsert", "url": f"{h}/about"} for h in (COM, DE)]
    for i in range(count):
        host = draw(st.sampled_from([COM, DE]))
        event: dict[str, Any] = {"action": "upsert", "url": f"{host}/p/{i}"}
        if draw(st.booleans()):
            event["lastmod"] = draw(st.sampled_from(["2024-01-02", "2024-01-02T03:04:05Z"]))
        if draw(st.booleans()):
            event["priority"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
        if draw(st.booleans()):  # the page's twin on the other host, each naming both
            twin = f"{DE if host == COM else COM}/t/{i}"
            langs = {COM: "en", DE: "de"}
            links = [
                {"hreflang": langs[host], "href": event["url"]},
                {"hreflang": langs[DE if host == COM else COM], "href": twin},
            ]
            event["alternates"] = links
            out.append({"action": "upsert", "url": twin, "alternates": links})
        if draw(st.booleans()):
            event["videos"] = draw(st.lists(videos, min_size=1, max_size=2))
        if draw(st.booleans()):
            event["news"] = draw(news)
        out.append(event)
    return out


def _files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("sitemap*.xml*")}


def _backfilled(published: Path) -> list[str]:
    """The event lines of a backfill of each host's index, with both sites listed."""
    lines: list[str] = []
    problems: list[str] = []
    for index in (published / "sitemap.xml", published / "www.example.de" / "sitemap.xml"):
        if not index.exists():
            continue
        run = Backfill(
            lambda url, line: lines.append(line),
            sites=SITES,
            now=NOW,
            on_problem=lambda p: problems.append(str(p)) if not isinstance(p, Note) else None,
        )
        run.run([str(index)])
    assert problems == []
    return lines


def _article(event: dict[str, Any]) -> News | None:
    """The News article of an upsert, as the ingest judge reads it."""
    (change,) = judge_message(json.dumps(event), sent_at=NOW, sites=SITES, now=NOW).items
    assert isinstance(change, Change) and change.page is not None
    return change.page.news


@ROUND_TRIP
@given(pages())
def test_backfill_then_build_gives_the_same_files(events: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as held:
        root = Path(held)
        source = root / "events.jsonl"
        source.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        published = root / "published"
        first = build_static([str(source)], SITES, str(published), max_urls=CAP, now=NOW)
        lines = _backfilled(published)
        backfilled = [json.loads(line) for line in lines]
        # one upsert per page, its lastmod and its article (if in the News files) in it
        assert sorted(e["url"] for e in backfilled) == sorted(e["url"] for e in events)
        by_url = {e["url"]: e for e in backfilled}
        for event in events:
            assert by_url[event["url"]].get("lastmod") == event.get("lastmod")
            if "news" not in event:
                continue
            if by_url[event["url"]].get("news") is not None:
                assert _article(by_url[event["url"]]) == _article(event)
        assert len([e for e in backfilled if "news" in e]) == first.news_articles
        again = root / "events-again.jsonl"
        again.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        rebuilt = root / "rebuilt"
        second = build_static([str(again)], SITES, str(rebuilt), max_urls=CAP, now=NOW)
        assert second.news_files == first.news_files
        assert _files(published) == _files(rebuilt)
