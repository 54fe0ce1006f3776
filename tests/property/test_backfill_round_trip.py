"""Backfilling what this project published, then building from the events, gives the same
files byte for byte; News articles and videos come through, one upsert per page.

The published site is what ``build`` writes (the regular files, videos included) plus a News
file rendered by the writers the rebuild uses for its News files (``<loc>`` and ``<news:news>``
of each article), listed last by one index, as the rebuild lists them.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.protocol import Entry, make_entry, render_index, render_urlset
from sitemap_updater_local.inputs.records import Note
from sitemap_updater_local.inputs.sources import iter_source_items
from sitemap_updater_local.pipeline.backfill_events import Backfill
from sitemap_updater_local.pipeline.static_build import build_static
from sitemap_updater_local.pipeline.upsert_lines import news_event
from tests.property.strategies import NOW, SITE

ROUND_TRIP = settings(max_examples=25, deadline=None)
CAP = 4  # URLs per file: several files, so that an index lists them

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
        "publication_date": st.sampled_from(["2026-11-20T08:00:00Z", "2026-11-19"]),
        "title": st.sampled_from(["A & B", "Plain"]),
    }
)


@st.composite
def pages(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 12))
    out = []
    for i in range(count):
        event: dict[str, Any] = {"action": "upsert", "url": f"{SITE.origin}/p/{i}"}
        if draw(st.booleans()):
            event["lastmod"] = draw(st.sampled_from(["2024-01-02", "2024-01-02T03:04:05Z"]))
        if draw(st.booleans()):
            event["priority"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
        if draw(st.booleans()):
            event["videos"] = draw(st.lists(videos, min_size=1, max_size=2))
        if draw(st.booleans()):
            event["news"] = draw(news)
        out.append(event)
    return out


def _published(root: Path, events: list[dict[str, Any]]) -> Path:
    """Build the regular files, add a News file of the articles, and index them all."""
    source = root / "events.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    out = root / "published"
    build_static(str(source), SITE, str(out), max_urls=CAP, now=NOW)
    files = sorted(p.name for p in out.glob("sitemap-*.xml.gz"))
    articles = [
        Entry(loc=e["url"], news=make_entry(SITE, loc=e["url"], news=e["news"], now=NOW).news)
        for e in events
        if "news" in e
    ]
    if articles:
        data, _ = render_urlset(articles, SITE)
        (out / "sitemap-news-1.xml.gz").write_bytes(data)
        files.append("sitemap-news-1.xml.gz")
    index, _ = render_index([(f"{SITE.origin}/{name}", None) for name in files])
    (out / "all.xml").write_bytes(index)
    return out


@ROUND_TRIP
@given(pages())
def test_backfill_then_build_gives_the_same_files(events: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as held:
        root = Path(held)
        published = _published(root, events)
        lines: list[str] = []
        problems: list[str] = []
        run = Backfill(
            lambda url, line: lines.append(line),
            site=SITE,
            now=NOW,
            on_problem=lambda p: problems.append(str(p)) if not isinstance(p, Note) else None,
        )
        run.run(iter_source_items(str(published / "all.xml")))
        assert problems == []
        backfilled = [json.loads(line) for line in lines]
        # one upsert per page, its article in it
        assert sorted(e["url"] for e in backfilled) == sorted(e["url"] for e in events)
        by_url = {e["url"]: e for e in backfilled}
        for event in events:
            if "news" in event:
                normalized = make_entry(SITE, loc=event["url"], news=event["news"], now=NOW).news
                assert normalized is not None
                assert by_url[event["url"]]["news"] == news_event(normalized)
        again = root / "events-again.jsonl"
        again.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        rebuilt = root / "rebuilt"
        build_static(str(again), SITE, str(rebuilt), max_urls=CAP, now=NOW)
        first = {p.name: p.read_bytes() for p in published.glob("sitemap*.xml*")}
        second = {p.name: p.read_bytes() for p in rebuilt.glob("sitemap*.xml*")}
        first.pop("sitemap-news-1.xml.gz", None)  # build writes no News files
        assert first == second
