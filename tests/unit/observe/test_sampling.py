"""The stratified sample: the newest changes of the section, a uniform draw over its files, no
section skipped while any file has a URL to draw, and nothing observed lately."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.observe.records import Observation
from sitemap_updater.observe.sampling import (
    RANDOM,
    RECENT,
    RECHECK_SECONDS,
    UNIFORM_CLUSTERS,
    Drawn,
    Listed,
    draw,
    lastmod_seconds,
    newest_changes,
    split_evenly,
    uniform_draw,
)

NOW = 1_800_000_000.0


def _listed(n: int, prefix: str = "a", start: float = NOW) -> list[Listed]:
    return [Listed(f"https://www.example.com/{prefix}{i}", start - i * 3600) for i in range(n)]


def _stamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Files:
    """A section's files (key -> entries) as the sampler sees them, each read counted."""

    def __init__(self, files: dict[str, list[Listed]]) -> None:
        self.entries = files
        self.reads: Counter[str] = Counter()

    @property
    def listing(self) -> dict[str, tuple[str | None, int]]:
        return {
            key: (
                _stamp(max(e.changed_at or 0 for e in entries)) if entries else None,
                len(entries),
            )
            for key, entries in self.entries.items()
        }

    def read(self, key: str) -> list[Listed]:
        self.reads[key] += 1
        return self.entries[key]


def _one(entries: list[Listed]) -> Files:
    return Files({"only": entries})


def _draw(
    files: Files,
    size: int,
    observed: dict[str, Observation] | None = None,
    seed: int = 1,
    **kw: object,
) -> list[Drawn]:
    return draw(files.listing, files.read, size, observed or {}, NOW, random.Random(seed), **kw)  # type: ignore[arg-type]


def test_half_of_the_sample_is_the_newest_changes() -> None:
    entries = _listed(100)
    drawn = _draw(_one(entries), 10)
    recent = [d.url for d in drawn if d.stratum == RECENT]
    assert recent == [e.url for e in entries[:5]]
    assert Counter(d.stratum for d in drawn) == {RECENT: 5, RANDOM: 5}
    assert len({d.url for d in drawn}) == 10


def test_strata_alternate_so_a_short_budget_sees_both() -> None:
    entries = _listed(50)
    drawn = _draw(_one(entries), 6, seed=2)
    assert [d.stratum for d in drawn[:2]] == [RECENT, RANDOM]


def test_a_url_observed_lately_is_not_drawn_again_unless_it_changed() -> None:
    entries = _listed(4)
    lately = NOW - 1800  # within RECHECK_SECONDS
    assert RECHECK_SECONDS > 1800
    observed = {
        entries[0].url: Observation(entries[0].url, RECENT, inspected_at=lately),  # changed after
        entries[3].url: Observation(entries[3].url, RANDOM, checked_at=lately),  # not since
    }
    drawn = {d.url for d in _draw(_one(entries), 4, observed, seed=3)}
    assert entries[0].url in drawn  # it changed NOW, after the observation
    assert entries[3].url not in drawn


@given(st.integers(0, 60), st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_the_sample_is_never_larger_than_asked_nor_repeats(n: int, size: int, seed: int) -> None:
    entries = _listed(n)
    drawn = _draw(_one(entries), size, seed=seed)
    assert len(drawn) == min(size, n)
    assert len({d.url for d in drawn}) == len(drawn)


def test_the_uniform_draws_fall_on_the_files_in_proportion_to_their_urls() -> None:
    files = Files({"big": _listed(900, "b"), "small": _listed(100, "s"), "empty": []})
    rng = random.Random(4)
    drawn: Counter[str] = Counter()
    for _ in range(2_000):
        for entry in uniform_draw(files.listing, files.read, 3, lambda e: True, rng):
            drawn[entry.url.rsplit("/", 1)[1][0]] += 1
    assert 0.87 < drawn["b"] / sum(drawn.values()) < 0.93
    assert files.reads["empty"] == 0


def test_a_run_reads_few_files_for_its_uniform_draws() -> None:
    files = Files({f"f{n}": _listed(1_000, f"f{n}-") for n in range(50)})
    drawn = uniform_draw(files.listing, files.read, 40, lambda e: True, random.Random(5))
    assert len(drawn) == 40 and len({d.url for d in drawn}) == 40
    assert len(files.reads) <= UNIFORM_CLUSTERS


def test_the_newest_changes_come_from_every_file_that_may_hold_one() -> None:
    # the newest file holds the newest change, but the second newest change is in another
    files = Files(
        {
            "a": [
                Listed("https://www.example.com/a0", NOW),
                Listed("https://www.example.com/a1", NOW - 9_000),
            ],
            "b": [Listed("https://www.example.com/b0", NOW - 3_600)],
            "c": [Listed("https://www.example.com/c0", NOW - 86_400)],
        }
    )
    found = newest_changes(files.listing, files.read, 2, lambda e: True)
    assert [e.url.rsplit("/", 1)[1] for e in found] == ["a0", "b0"]
    assert files.reads["c"] == 0  # it cannot hold a change newer than the second found


@given(st.lists(st.integers(0, 30), min_size=1, max_size=8), st.integers(0, 2**32 - 1))
def test_a_section_is_never_skipped_while_any_file_has_a_url_to_draw(
    sizes: list[int], seed: int
) -> None:
    changed = NOW - 7_200  # every URL changed before it was last observed
    files = Files({f"f{n}": _listed(size, f"f{n}-", changed) for n, size in enumerate(sizes)})
    every = [e for entries in files.entries.values() for e in entries]
    rng = random.Random(seed)
    # every URL but a few observed an hour ago: those few must be drawn, wherever they are
    left = {e.url for e in rng.sample(every, min(3, len(every)))}
    observed = {
        e.url: Observation(e.url, RANDOM, changed_at=e.changed_at, checked_at=NOW - 3_600)
        for e in every
        if e.url not in left
    }
    drawn = {d.url for d in _draw(files, 10, observed, seed=seed)}
    assert drawn == left


def test_the_pages_awaiting_their_crawl_take_at_most_half_the_recent_stratum() -> None:
    entries = _listed(100)
    waiting = [Drawn(f"https://www.example.com/w{n}", NOW - 86_400, RECENT) for n in range(20)]
    drawn = _draw(_one(entries), 20, awaiting=waiting)
    recent = [d for d in drawn if d.stratum == RECENT]
    assert len(recent) == 10 and sum(1 for d in recent if "example.com/w" in d.url) == 5


@given(st.integers(0, 10_000), st.integers(1, 50))
def test_split_evenly_sums_to_the_total_and_differs_by_one_at_most(total: int, parts: int) -> None:
    shares = split_evenly(total, parts)
    assert sum(shares) == total and max(shares) - min(shares) <= 1


def test_lastmod_forms() -> None:
    assert lastmod_seconds("2026-01-02") == lastmod_seconds("2026-01-02T00:00:00+00:00")
    assert lastmod_seconds("2026-01-02T01:00:00+01:00") == lastmod_seconds("2026-01-02")
    assert lastmod_seconds("not a date") is None and lastmod_seconds(None) is None
