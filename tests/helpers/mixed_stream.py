"""A reproducible stream of changes that exercises every ordering case, with its answer.

``mixed_stream(events=20_000, site=..., seed=...)`` builds message bodies for the ingest queue:

* every page gets a history of upserts (each with different fields) and deletes at distinct
  instants; some pages end deleted, some are deleted and then published again;
* a share of the events is sent twice (a duplicate, in another message);
* the order of delivery is shuffled, so many events arrive after a newer event of their page;
* a few pages end with two events at the same instant: an upsert and a delete (the delete must
  win), or two different upserts (either may win, the same one every time);
* a handful of poison records: bodies that are not valid at all, and arrays holding one broken
  change among valid ones.

Valid changes are packed into JSON arrays of up to 500 (the contract's maximum), which keeps the
number of SQS messages low. The generator knows the answer without running any of the system's
code: for each page, the change with the latest instant (a delete at the same instant as an
upsert wins). :attr:`MixedStream.expected` holds it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sitemap_updater.protocol.lastmod import format_w3c

#: Most change objects in one array body (ingest contract, ``MAX_ARRAY_ENTRIES``).
ARRAY_MAX = 500
BASE_TIME = datetime(2026, 10, 1, 6, 0, tzinfo=UTC)
_FREQS = ("daily", "weekly", "monthly", "yearly")
_LANGS = ("de", "fr", "it")


@dataclass(frozen=True, slots=True)
class PageState:
    """What the sitemap must say about one page: its fields, as the producer sent them."""

    url: str
    lastmod: str
    changefreq: str
    priority: float
    alternates: tuple[tuple[str, str], ...]
    images: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Poison:
    """A record that must be dead-lettered, and what is wrong with it."""

    body: str
    problem: str
    #: for an array body: the index of its broken change; None for a body rejected whole
    bad_index: int | None = None


@dataclass
class MixedStream:
    bodies: list[str]
    #: valid changes in ``bodies``, duplicates counted
    changes: int
    duplicates: int
    #: changes delivered after a newer change of the same page
    out_of_order: int
    poison: list[Poison]
    #: url -> its final state, or None when the page must not be listed
    expected: dict[str, PageState | None]
    #: url -> the two states that tie at the same instant (either may be published)
    ties: dict[str, tuple[PageState, PageState]] = field(default_factory=dict)

    def live(self) -> dict[str, PageState]:
        """The pages that must be listed, with their fields (a tied page: its first option)."""
        return {url: state for url, state in self.expected.items() if state is not None}


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _upsert(
    site: str, url: str, at: datetime, rng: random.Random
) -> tuple[dict[str, Any], PageState]:
    slug = url.rsplit("/", 1)[-1]
    state = PageState(
        url=url,
        lastmod=format_w3c(at - timedelta(seconds=rng.randrange(0, 3600))),
        changefreq=rng.choice(_FREQS),
        priority=rng.randrange(1, 11) / 10,
        alternates=tuple(
            (lang, f"{site}/{lang}/{slug}") for lang in _LANGS[: rng.choice((0, 0, 1, 3))]
        ),
        images=tuple(
            f"{site}/media/{slug}-{rng.randrange(10**6)}.jpg" for _ in range(rng.choice((0, 1, 2)))
        ),
    )
    event: dict[str, Any] = {
        "action": "upsert",
        "url": url,
        "occurred_at": _stamp(at),
        "lastmod": state.lastmod,
        "changefreq": state.changefreq,
        "priority": state.priority,
    }
    if state.alternates:
        event["alternates"] = [{"hreflang": h, "href": href} for h, href in state.alternates]
    if state.images:
        event["images"] = [{"loc": loc} for loc in state.images]
    return event, state


def _delete(url: str, at: datetime) -> dict[str, Any]:
    return {"action": "delete", "url": url, "occurred_at": _stamp(at)}


def poison_records(site: str) -> list[Poison]:
    """Bodies with nothing valid in them, each rejected whole."""
    return [
        Poison('[{"action": "upsert", "url": ', "not JSON (truncated array)"),
        Poison(
            json.dumps({"action": "upsert", "url": "https://other.example.net/x"}),
            "URL on another host",
        ),
        Poison(
            json.dumps({"action": "upsert", "url": f"{site}/p/x", "priority": "0.5"}),
            "priority as a string",
        ),
        Poison(json.dumps({"action": "publish", "url": f"{site}/p/y"}), "unknown action"),
        Poison(json.dumps({"url": f"{site}/p/z"}), "no action"),
        Poison(json.dumps({"action": "upsert", "url": "javascript:alert(1)"}), "javascript URL"),
    ]


def _broken_change(site: str, k: int) -> tuple[dict[str, Any], str]:
    if k % 2 == 0:
        return {"action": "upsert", "url": f"{site}/p/broken-{k}", "priority": 7}, "priority 7"
    return (
        {"action": "upsert", "url": f"{site}/p/broken-{k}", "lastmod": "2026-13-40"},
        "lastmod 2026-13-40",
    )


def _histories(
    site: str, pages: int, changes: int, rng: random.Random
) -> Iterator[tuple[str, list[tuple[datetime, dict[str, Any], PageState | None]]]]:
    """Per page: its changes in time order, with the state each one leaves."""
    per_page = [1] * pages
    for _ in range(changes - pages):
        per_page[rng.randrange(pages)] += 1
    for p in range(pages):
        url = f"{site}/p/{p:06d}-{rng.choice(('oak', 'elm', 'ash', 'fir'))}"
        at = BASE_TIME + timedelta(seconds=rng.randrange(0, 86_400))
        history: list[tuple[datetime, dict[str, Any], PageState | None]] = []
        for _ in range(per_page[p]):
            at += timedelta(seconds=rng.randrange(1, 3600), microseconds=rng.randrange(10**6))
            if history and rng.random() < 0.2:
                history.append((at, _delete(url, at), None))
            else:
                event, state = _upsert(site, url, at, rng)
                history.append((at, event, state))
        yield url, history


def mixed_stream(
    events: int = 20_000,
    *,
    site: str = "https://www.example.com",
    seed: int = 1,
    duplicate_share: float = 0.1,
    tie_share: float = 0.01,
    events_per_page: int = 5,
    array_size: int = ARRAY_MAX,
) -> MixedStream:
    """``events`` valid changes (duplicates included) plus the poison records."""
    if not 1 <= array_size <= ARRAY_MAX:
        raise ValueError(f"array_size={array_size} must be from 1 to {ARRAY_MAX}")
    rng = random.Random(seed)
    duplicates = int(events * duplicate_share)
    distinct = events - duplicates
    pages = max(1, distinct // events_per_page)
    changes: list[tuple[datetime, dict[str, Any]]] = []
    expected: dict[str, PageState | None] = {}
    ties: dict[str, tuple[PageState, PageState]] = {}
    tie_pages = int(pages * tie_share)
    for n, (url, history) in enumerate(_histories(site, pages, distinct, rng)):
        last_at, _, last_state = history[-1]
        if n < tie_pages and len(history) >= 2:
            # the last two changes of the page share one instant
            if n % 2 == 0:
                event, state = _upsert(site, url, last_at, rng)
                history[-2] = (last_at, event, state)
                if last_state is not None:  # two different upserts: either may win
                    ties[url] = (last_state, state)
            else:
                history[-2] = (last_at, _delete(url, last_at), None)
                last_state = None  # a delete wins over an upsert at the same instant
        expected[url] = last_state
        changes += [(at, event) for at, event, _ in history]
    order = [event for _, event in changes]
    rng.shuffle(order)
    for _ in range(duplicates):
        order.insert(rng.randrange(len(order) + 1), dict(rng.choice(changes)[1]))
    newest: dict[str, str] = {}
    late = 0
    for event in order:
        url, stamp = event["url"], event["occurred_at"]
        if stamp < newest.get(url, ""):
            late += 1
        else:
            newest[url] = stamp
    bodies = [
        json.dumps(order[i : i + array_size], separators=(",", ":"))
        for i in range(0, len(order), array_size)
    ]
    poison = poison_records(site)
    for k in range(2):  # arrays with one broken change among valid ones
        bad, problem = _broken_change(site, k)
        at = BASE_TIME + timedelta(days=3, seconds=k)
        good, state = _upsert(site, f"{site}/p/next-to-broken-{k}", at, rng)
        expected[good["url"]] = state
        poison.append(Poison(json.dumps([good, bad]), problem, bad_index=1))
    for item in poison:
        bodies.insert(rng.randrange(len(bodies) + 1), item.body)
    return MixedStream(
        bodies=bodies,
        changes=events + 2,
        duplicates=duplicates,
        out_of_order=late,
        poison=poison,
        expected=expected,
        ties=ties,
    )
