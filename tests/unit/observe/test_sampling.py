"""The stratified sample: the newest changes, a uniform draw, and nothing observed lately."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.observe.records import Observation
from sitemap_updater.observe.sampling import (
    RANDOM,
    RECENT,
    RECHECK_SECONDS,
    Listed,
    draw,
    lastmod_seconds,
    pick_files,
    split_evenly,
)

NOW = 1_800_000_000.0


def _listed(n: int, prefix: str = "a") -> list[Listed]:
    return [Listed(f"https://www.example.com/{prefix}{i}", NOW - i * 3600) for i in range(n)]


def test_half_of_the_sample_is_the_newest_changes() -> None:
    entries = _listed(100)
    drawn = draw(entries, entries, 10, {}, NOW, random.Random(1))
    recent = [d.url for d in drawn if d.stratum == RECENT]
    assert recent == [e.url for e in entries[:5]]
    assert Counter(d.stratum for d in drawn) == {RECENT: 5, RANDOM: 5}
    assert len({d.url for d in drawn}) == 10


def test_strata_alternate_so_a_short_budget_sees_both() -> None:
    entries = _listed(50)
    drawn = draw(entries, entries, 6, {}, NOW, random.Random(2))
    assert [d.stratum for d in drawn[:2]] == [RECENT, RANDOM]


def test_a_url_observed_lately_is_not_drawn_again_unless_it_changed() -> None:
    entries = _listed(4)
    lately = NOW - 1800  # within RECHECK_SECONDS
    assert RECHECK_SECONDS > 1800
    observed = {
        entries[0].url: Observation(entries[0].url, RECENT, inspected_at=lately),  # changed after
        entries[3].url: Observation(entries[3].url, RANDOM, checked_at=lately),  # not since
    }
    drawn = {d.url for d in draw(entries, entries, 4, observed, NOW, random.Random(3))}
    assert entries[0].url in drawn  # it changed NOW, after the observation
    assert entries[3].url not in drawn


@given(st.integers(0, 60), st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_the_sample_is_never_larger_than_asked_nor_repeats(n: int, size: int, seed: int) -> None:
    entries = _listed(n)
    drawn = draw(entries, entries, size, {}, NOW, random.Random(seed))
    assert len(drawn) == min(size, n)
    assert len({d.url for d in drawn}) == len(drawn)


def test_files_are_drawn_in_proportion_to_their_urls() -> None:
    files = {"big": ("2026-01-01", 900), "small": ("2026-06-01", 100), "empty": (None, 0)}
    rng = random.Random(4)
    drawn = Counter(pick_files(files, rng)[1] for _ in range(5_000))
    assert drawn["empty"] == 0
    assert 0.87 < drawn["big"] / 5_000 < 0.93
    assert pick_files(files, rng)[0] == "small"  # the newest lastmod
    assert pick_files({}, rng) == (None, None)


@given(st.integers(0, 10_000), st.integers(1, 50))
def test_split_evenly_sums_to_the_total_and_differs_by_one_at_most(total: int, parts: int) -> None:
    shares = split_evenly(total, parts)
    assert sum(shares) == total and max(shares) - min(shares) <= 1


def test_lastmod_forms() -> None:
    assert lastmod_seconds("2026-01-02") == lastmod_seconds("2026-01-02T00:00:00+00:00")
    assert lastmod_seconds("2026-01-02T01:00:00+01:00") == lastmod_seconds("2026-01-02")
    assert lastmod_seconds("not a date") is None and lastmod_seconds(None) is None
