"""Which URLs of a section a run looks at: a sample stratified by section, favouring change.

The frame is what the last publish lists, per host and section (``frames``): the publish
record lists every file with its lastmod and URL count, a section's files are found by their
key, and a file is read back as the rebuild reads it to patch it (``read_listed``: cut at the
writer's own markup, no XML parser). Each section's sample has two strata:

- ``recent``: the URLs with the newest lastmod in the section's most recently changed file,
  which are the ones whose crawl latency can be measured and whose fate matters most;
- ``random``: URLs drawn uniformly from a file drawn with a chance proportional to its URL count
  (so every URL of the section has the same chance), the base of the indexed share.

A URL observed less than :data:`RECHECK_SECONDS` ago is not drawn again unless it changed
since. Draws take an explicit ``random.Random``, so a test fixes the seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final

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


def pick_files(
    files: Mapping[str, tuple[str | None, int]], rng: random.Random
) -> tuple[str | None, str | None]:
    """(the file with the newest lastmod, a file drawn with a chance proportional to its URL
    count) among a section's ``files`` (key -> (lastmod, URL count))."""
    listed = {key: value for key, value in files.items() if value[1] > 0}
    if not listed:
        return None, None
    newest = max(listed, key=lambda key: (listed[key][0] or "", key))
    keys = sorted(listed)
    drawn = rng.choices(keys, weights=[listed[key][1] for key in keys])[0]
    return newest, drawn


def _fresh(entry: Listed, observed: Mapping[str, Observation], now: float) -> bool:
    """Whether ``entry`` may be drawn: not observed lately, or changed since."""
    seen = observed.get(entry.url)
    if seen is None:
        return True
    last = max(seen.inspected_at or 0.0, seen.checked_at or 0.0)
    if entry.changed_at is not None and entry.changed_at > last:
        return True
    return now - last >= RECHECK_SECONDS


def draw(
    recent_file: Sequence[Listed],
    random_file: Sequence[Listed],
    size: int,
    observed: Mapping[str, Observation],
    now: float,
    rng: random.Random,
) -> list[Drawn]:
    """``size`` URLs: half (rounded up) of the newest changes of ``recent_file``, the rest
    drawn uniformly from ``random_file``, alternating so that a budget that runs out midway
    still leaves both strata observed."""
    if size <= 0:
        return []
    eligible = [e for e in recent_file if e.changed_at is not None and _fresh(e, observed, now)]
    pool = [e for e in random_file if _fresh(e, observed, now)]
    # at most half of what can be drawn at all, so the uniform stratum is never left empty
    reachable = min(size, len({e.url for e in eligible} | {e.url for e in pool}))
    newest = sorted(eligible, key=lambda e: (-(e.changed_at or 0.0), e.url))[
        : math.ceil(reachable / 2)
    ]
    taken = {e.url for e in newest}
    pool = [e for e in pool if e.url not in taken]
    uniform = rng.sample(pool, min(len(pool), size - len(newest)))
    if len(uniform) < size - len(newest):  # too few left to draw: more of the newest
        taken |= {e.url for e in uniform}
        newest += sorted(
            (e for e in eligible if e.url not in taken),
            key=lambda e: (-(e.changed_at or 0.0), e.url),
        )[: size - len(newest) - len(uniform)]
    out: list[Drawn] = []
    for index in range(max(len(newest), len(uniform))):
        if index < len(newest):
            out.append(Drawn(newest[index].url, newest[index].changed_at, RECENT))
        if index < len(uniform):
            out.append(Drawn(uniform[index].url, uniform[index].changed_at, RANDOM))
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
