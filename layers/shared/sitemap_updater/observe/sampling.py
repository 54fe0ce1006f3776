"""Which URLs of a section a run looks at: a sample stratified by section, favouring change.

The frame is what the last publish lists, per host and section (``frames``): the publish
record lists every file with its lastmod and URL count, a section's files are found by their
key, and a file is read back as the rebuild reads it to patch it (``read_listed``: cut at the
writer's own markup, no XML parser). Each section's sample has two strata:

- ``recent``: the pages whose crawl the latency still waits for (``latency.awaiting``, at most
  half the stratum), then the URLs with the newest lastmod of the section that changed in the
  last :data:`RECENT_SECONDS` (its files read newest first), which are the ones whose crawl
  latency can be measured and whose fate matters most;
- ``random``: URLs drawn uniformly from the section, the draws shared among its files in
  proportion to their URL counts (so every URL of the section has the same chance), the base
  of the indexed share.

A URL observed less than :data:`RECHECK_SECONDS` ago is not drawn again unless it changed
since; a file that has too few such URLs gives its draws to the others, so a section is never
left out while any of its files has a URL to draw. Draws take an explicit ``random.Random``, so
a test fixes the seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final

from sitemap_updater.observe.estimates.latency import LATENCY_WINDOW_SECONDS
from sitemap_updater.observe.records import Observation
from sitemap_updater.protocol.urlset import fragment_loc, fragments_of, newest_lastmod
from sitemap_updater.rebuild.state.published import PublishedRecord
from sitemap_updater.store.keys import INDEX_KEY
from sitemap_updater.store.spaces import Layout, key_prefix_of, section_of_file

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

RECENT: Final = "recent"
RANDOM: Final = "random"
RECHECK_SECONDS: Final = 86_400
#: a change is recent, and may be drawn in the recent stratum, this long after it (the window
#: in which its crawl latency can be measured: ``latency.LATENCY_WINDOW_SECONDS``)
RECENT_SECONDS: Final = LATENCY_WINDOW_SECONDS
#: a run's uniform draws of a section come from at most this many of its files (more only when
#: those have too few URLs left to draw)
UNIFORM_CLUSTERS: Final = 3


@dataclass(frozen=True, slots=True)
class Listed:
    """One URL as a published file lists it; ``changed_at`` is its lastmod (epoch seconds)."""

    url: str
    changed_at: float | None


@dataclass(frozen=True, slots=True)
class Drawn:
    url: str
    changed_at: float | None
    stratum: str


def lastmod_seconds(lastmod: str | None) -> float | None:
    """A W3C datetime (or date, taken as midnight UTC) as epoch seconds; None if unreadable."""
    if not lastmod:
        return None
    try:
        moment = datetime.fromisoformat(lastmod)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _fresh(entry: Listed, observed: Mapping[str, Observation], now: float) -> bool:
    """Whether ``entry`` may be drawn: not observed lately, or changed since."""
    seen = observed.get(entry.url)
    if seen is None:
        return True
    last = max(seen.inspected_at or 0.0, seen.checked_at or 0.0)
    if entry.changed_at is not None and entry.changed_at > last:
        return True
    return now - last >= RECHECK_SECONDS


Files = Mapping[str, tuple[str | None, int]]
Reader = Callable[[str], Sequence[Listed]]


def newest_changes(
    files: Files,
    read: Reader,
    want: int,
    accept: Callable[[Listed], bool],
    since: float = -math.inf,
) -> list[Listed]:
    """The ``want`` accepted entries changed at ``since`` or later with the newest lastmod in
    the section's ``files``: files are read newest first, until no unread file can hold a newer
    change than the ``want``-th found (a file's lastmod is its newest entry's), and none whose
    lastmod is before ``since``."""
    if want <= 0:
        return []
    order = sorted(
        (
            key
            for key, (lastmod, count) in files.items()
            if count > 0 and (lastmod_seconds(lastmod) or -math.inf) >= since
        ),
        key=lambda key: (-(lastmod_seconds(files[key][0]) or 0.0), key),
    )
    found: list[Listed] = []
    for position, key in enumerate(order):
        found += [
            e for e in read(key) if e.changed_at is not None and e.changed_at >= since and accept(e)
        ]
        found.sort(key=lambda e: (-(e.changed_at or 0.0), e.url))
        found = found[:want]
        later = order[position + 1] if position + 1 < len(order) else None
        bound = lastmod_seconds(files[later][0]) if later is not None else None
        if len(found) >= want and (bound is None or (found[-1].changed_at or 0.0) >= bound):
            break
    return found


def uniform_draw(
    files: Files, read: Reader, want: int, accept: Callable[[Listed], bool], rng: random.Random
) -> list[Listed]:
    """``want`` accepted entries drawn uniformly from the section's ``files``, reading few of
    them: the draws come in at most :data:`UNIFORM_CLUSTERS` clusters, each of a file drawn
    with a chance proportional to its URL count, then URLs at random in it (so each URL of
    the section has the same chance). A file with too few accepted entries leaves what it
    lacks to the files not read yet, drawn the same way, so that no accepted entry of any file
    is out of reach."""
    unread = {key: count for key, (_, count) in files.items() if count > 0}
    drawn: list[Listed] = []
    taken: set[str] = set()
    while len(drawn) < want and unread:
        keys = sorted(unread)
        short = want - len(drawn)
        clusters = split_evenly(short, min(short, UNIFORM_CLUSTERS))
        shares: dict[str, int] = {}
        weights = [unread[k] for k in keys]
        for key, size in zip(
            rng.choices(keys, weights=weights, k=len(clusters)), clusters, strict=True
        ):
            shares[key] = shares.get(key, 0) + size
        for key in sorted(shares):
            pool = [e for e in read(key) if e.url not in taken and accept(e)]
            picked = rng.sample(pool, min(len(pool), shares[key]))
            drawn += picked
            taken |= {e.url for e in picked}
            del unread[key]
    return drawn[:want]


def draw(
    files: Files,
    read: Reader,
    size: int,
    observed: Mapping[str, Observation],
    now: float,
    rng: random.Random,
    awaiting: Sequence[Drawn] = (),
) -> list[Drawn]:
    """``size`` URLs of a section: half (rounded up) of the recent stratum (the pages awaiting
    their crawl, ``awaiting``, at most half of it, then the newest changes of the last
    :data:`RECENT_SECONDS`), the rest drawn uniformly, alternating so that a budget that runs
    out midway still leaves both strata observed. Only URLs not observed lately (or changed
    since) are drawn; when the uniform stratum has too few, the recent one gives more."""
    if size <= 0:
        return []
    # at most half of what the section lists, so the uniform stratum is never left empty
    recent_want = math.ceil(min(size, sum(count for _, count in files.values())) / 2)
    again = list(awaiting[: recent_want // 2])
    taken = {d.url for d in again}
    since = now - RECENT_SECONDS

    def accept(entry: Listed) -> bool:
        return entry.url not in taken and _fresh(entry, observed, now)

    newest = newest_changes(files, read, recent_want - len(again), accept, since)
    taken |= {e.url for e in newest}
    uniform = uniform_draw(files, read, size - len(again) - len(newest), accept, rng)
    if len(again) + len(newest) + len(uniform) < size:  # too few to draw: more of the newest
        taken |= {e.url for e in uniform}
        short = size - len(again) - len(newest) - len(uniform)
        newest += newest_changes(files, read, short, accept, since)
    recent = again + [Drawn(e.url, e.changed_at, RECENT) for e in newest]
    drawn_uniformly = [Drawn(e.url, e.changed_at, RANDOM) for e in uniform]
    out: list[Drawn] = []
    for index in range(max(len(recent), len(drawn_uniformly))):
        if index < len(recent):
            out.append(recent[index])
        if index < len(drawn_uniformly):
            out.append(drawn_uniformly[index])
    return out[:size]


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` shares that differ by at most one (equal allocation over
    the strata, so a small section is measured as well as a large one)."""
    if parts <= 0:
        return []
    base, extra = divmod(max(0, total), parts)
    return [base + (1 if index < extra else 0) for index in range(parts)]


@dataclass(frozen=True, slots=True)
class HostFrame:
    """One host: its origin, its index's key and URL (None before its first publish), and
    each section's files (key -> (lastmod, URL count))."""

    origin: str
    index_key: str
    index_url: str | None
    sections: Mapping[str, Mapping[str, tuple[str | None, int]]]

    def published(self, section: str) -> int:
        return sum(count for _, count in self.sections.get(section, {}).values())


def frames(record: PublishedRecord | None, layout: Layout) -> list[HostFrame]:
    """Each listed host's frame, in list order."""
    listing = (record.listing() if record else None) or {}
    out = []
    for prefix, site in layout.prefixes().items():
        sections: dict[str, dict[str, tuple[str | None, int]]] = {}
        for key, entry in listing.items():
            section = section_of_file(key)
            if section is not None and key_prefix_of(key) == prefix:
                sections.setdefault(section, {})[key] = entry
        index_key = f"{prefix}{INDEX_KEY}"
        written = record is not None and record.sha256_of(index_key) is not None
        out.append(
            HostFrame(
                origin=site.origin,
                index_key=index_key,
                index_url=layout.url_of(index_key) if written else None,
                sections=sections,
            )
        )
    return out


def read_listed(s3: S3Client, bucket: str, key: str) -> list[Listed]:
    """The URLs a published file lists, each with its lastmod."""
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    return [
        Listed(fragment_loc(fragment), lastmod_seconds(newest_lastmod(fragment)))
        for fragment in fragments_of(body)
    ]
