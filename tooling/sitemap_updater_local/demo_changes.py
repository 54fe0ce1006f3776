"""Realistic, reproducible page changes for the demo: a shop-and-magazine site of N pages.

Every event follows the ingest contract: ``{"action": "upsert", "url", "occurred_at", ...}`` with
the optional ``lastmod``, ``changefreq``, ``priority``, ``section``, ``alternates`` (hreflang
links that list the page itself too, as Google asks; on the same site, or on a second host that
holds the German twin of each translated page), ``images``, ``videos`` and ``news``; or
``{"action": "delete", "url", "occurred_at"}``. The same seed always gives the same events (the
news articles are dated from a given ``now``). Category pages name their section (``products``);
the others are placed by the deployment's path rules.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sitemap_updater.protocol.lastmod import format_w3c

_SECTIONS: tuple[tuple[str, str, float, float], ...] = (
    # path, changefreq, priority, share of pages
    ("products", "daily", 0.8, 0.55),
    ("blog", "weekly", 0.6, 0.25),
    ("category", "daily", 0.7, 0.12),
    ("help", "monthly", 0.4, 0.08),
)
_WORDS = (
    "oak", "linen", "walnut", "ceramic", "copper", "wool", "slate", "amber", "cotton", "maple",
    "lamp", "chair", "table", "mug", "rug", "shelf", "vase", "desk", "sofa", "bowl",
    "guide", "tips", "care", "review", "ideas", "autumn", "small", "studio", "garden", "kitchen",
)  # fmt: skip
_LANGUAGES = ("de", "fr", "es")
#: the section category pages name in their events (the others come from the path rules)
CATEGORY_SECTION = "products"
BASE_TIME = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True)
class DemoPage:
    """One page of the demo site: its URL, section, change frequency and priority, whether it
    has a German twin, and how many images it shows."""

    url: str
    section: str
    changefreq: str
    priority: float
    translated: bool
    images: int


def _section(pick: float) -> tuple[str, str, float]:
    for path, freq, prio, share in _SECTIONS:
        if pick < share:
            return path, freq, prio
        pick -= share
    path, freq, prio, _ = _SECTIONS[-1]
    return path, freq, prio


def make_pages(n: int, site: str, seed: int = 2026) -> list[DemoPage]:
    """``n`` distinct pages across the site's sections."""
    rng = random.Random(seed)
    pages: list[DemoPage] = []
    for i in range(n):
        path, freq, prio = _section(rng.random())
        slug = "-".join(rng.sample(_WORDS, 2))
        url = f"{site}/{path}/{slug}-{i}"
        images = rng.choice((0, 0, 1, 2, 3)) if path in {"products", "blog"} else 0
        pages.append(DemoPage(url, path, freq, prio, rng.random() < 0.2, images))
    return pages


def page_at(i: int, site: str) -> DemoPage:
    """DemoPage ``i`` of a generated site: always the same for the same ``i``, made without the
    others (for event streams too large to hold in memory). A multiplicative hash of ``i``
    spreads the pages over the sections in their shares."""
    path, freq, prio = _section((i * 2_654_435_761) % 100 / 100)
    slug = f"{_WORDS[(i * 7) % len(_WORDS)]}-{_WORDS[(i * 13 + 5) % len(_WORDS)]}"
    images = (0, 0, 1, 2, 3)[i % 5] if path in {"products", "blog"} else 0
    return DemoPage(f"{site}/{path}/{slug}-{i}", path, freq, prio, i % 5 == 0, images)


def twin_url(page: DemoPage, site: str, twin_site: str) -> str:
    """The URL of the German twin of a translated page of ``site`` on ``twin_site``."""
    return twin_site + page.url[len(site) :]


def twins(pages: Sequence[DemoPage], site: str, twin_site: str) -> list[DemoPage]:
    """The German twin, on ``twin_site``, of every translated page."""
    return [
        DemoPage(twin_url(p, site, twin_site), p.section, p.changefreq, p.priority, True, 0)
        for p in pages
        if p.translated
    ]


def _alternates(page: DemoPage, site: str, twin_site: str | None) -> list[dict[str, str]]:
    """hreflang links of a translated page, itself among them: to its German twin on
    ``twin_site`` (from both sides), or else to translations under ``/de/``, ``/fr/``, ``/es/``."""
    if twin_site is None:
        path = page.url[len(site) :]
        own = [{"hreflang": "en", "href": page.url}]
        return own + [{"hreflang": lang, "href": f"{site}/{lang}{path}"} for lang in _LANGUAGES]
    if page.url.startswith(twin_site + "/"):
        english = site + page.url[len(twin_site) :]
        return [{"hreflang": "en", "href": english}, {"hreflang": "de", "href": page.url}]
    return [
        {"hreflang": "en", "href": page.url},
        {"hreflang": "de", "href": twin_url(page, site, twin_site)},
    ]


def upsert_event(
    page: DemoPage, site: str, moment: datetime, revision: int = 0, twin_site: str | None = None
) -> dict[str, Any]:
    """The upsert of ``page`` (of ``site``, or a twin on ``twin_site``) at ``moment``."""
    event: dict[str, Any] = {
        "action": "upsert",
        "url": page.url,
        "occurred_at": _stamp(moment),
        "lastmod": format_w3c(moment),
        "changefreq": page.changefreq,
        "priority": page.priority,
    }
    if page.section == "category":
        event["section"] = CATEGORY_SECTION
    if page.translated:
        event["alternates"] = _alternates(page, site, twin_site)
    if page.images:
        name = page.url.rsplit("/", 1)[-1]
        event["images"] = [
            {"loc": f"{site}/media/{name}-{k}-v{revision}.jpg"} for k in range(page.images)
        ]
    return event


def delete_event(page: DemoPage, moment: datetime) -> dict[str, Any]:
    return {"action": "delete", "url": page.url, "occurred_at": _stamp(moment)}


def initial_events(pages: Sequence[DemoPage], site: str, twin_site: str | None = None) -> list[str]:
    """One message body per page, published over the first hours of the base day."""
    return [
        json.dumps(upsert_event(p, site, BASE_TIME + timedelta(seconds=7 * i), twin_site=twin_site))
        for i, p in enumerate(pages)
    ]


def follow_up(
    pages: Sequence[DemoPage],
    site: str,
    changes: int,
    deletes: int,
    seed: int = 2026,
    twin_site: str | None = None,
) -> tuple[list[str], list[DemoPage], list[DemoPage]]:
    """Bodies that edit ``changes`` pages and delete ``deletes`` others, a day later."""
    rng = random.Random(seed + 1)
    chosen = rng.sample(list(pages), min(len(pages), changes + deletes))
    changed, deleted = chosen[:changes], chosen[changes:]
    later = BASE_TIME + timedelta(days=1)
    bodies = [
        json.dumps(
            upsert_event(p, site, later + timedelta(seconds=i), revision=1, twin_site=twin_site)
        )
        for i, p in enumerate(changed)
    ]
    bodies += [json.dumps(delete_event(p, later + timedelta(minutes=5))) for p in deleted]
    return bodies, changed, deleted


#: The demo's news articles: slug, title, and how many hours before ``now`` each was published.
#: The last one is older than the two days Google's News sitemaps cover.
NEWS_ARTICLES: tuple[tuple[str, str, int], ...] = (
    ("oak-prices-rise", "Oak prices rise as autumn orders & exports grow", 1),
    ("studio-opens", "A new <studio> opens in the garden district", 6),
    ("linen-review", 'Linen, reviewed: "softer every wash"', 20),
    ("last-week-sale", "Last week's sale in numbers", 80),
)
PUBLICATION = {"name": "Example Home Journal", "language": "en"}


def news_events(site: str, now: datetime) -> list[str]:
    """One upsert per news article (a page of its own, with its ``news`` object)."""
    bodies = []
    for i, (slug, title, hours) in enumerate(NEWS_ARTICLES):
        published = now - timedelta(hours=hours)
        event = {
            "action": "upsert",
            "url": f"{site}/news/{slug}",
            "occurred_at": _stamp(now - timedelta(seconds=len(NEWS_ARTICLES) - i)),
            "lastmod": format_w3c(published),
            "news": {
                "publication": PUBLICATION,
                "publication_date": format_w3c(published),
                "title": title,
            },
        }
        bodies.append(json.dumps(event))
    return bodies


def video_event(site: str, now: datetime) -> str:
    """A page with one video (Google video extension)."""
    return json.dumps(
        {
            "action": "upsert",
            "url": f"{site}/videos/walnut-table-care",
            "occurred_at": _stamp(now),
            "videos": [
                {
                    "thumbnail_loc": f"{site}/media/walnut-table-care.jpg",
                    "title": "Caring for a walnut table",
                    "description": "Oil, wax & patience: three steps, five minutes.",
                    "content_loc": f"{site}/media/walnut-table-care.mp4",
                    "duration": 312,
                    "publication_date": (now - timedelta(days=3)).strftime("%Y-%m-%d"),
                    "family_friendly": True,
                    "tag": ["walnut", "care", "furniture"],
                }
            ],
        }
    )


def poison_messages(site: str) -> list[tuple[str, str]]:
    """Broken messages a real producer might send, each with what is wrong with it."""
    return [
        ('{"action": "upsert", "url": ', "not JSON (truncated body)"),
        (
            json.dumps({"action": "upsert", "url": "https://elsewhere.example.org/x"}),
            "URL on another host",
        ),
        (
            json.dumps({"action": "upsert", "url": f"{site}/products/x", "priority": "high"}),
            "priority is not a number",
        ),
        (json.dumps({"url": f"{site}/help/no-action"}), "no action"),
    ]
