"""The alarms mean something: replays of the observer's sampling over two days of hourly runs, on
many seeds, with the sampler, the figures and the alarm figures the observer runs. A site with
3% of unhealthy URLs never sends the unhealthy alarm's metric above 5%, however the draws fall,
while one with 10% does within the two days; a section whose indexed share holds never sends a
drop, one whose share fell by 30 points does."""

from __future__ import annotations

import random

import pytest

from sitemap_updater.observe.figures import DROP_RECENT_DAYS, coverage, health
from sitemap_updater.observe.records import WINDOW_DAYS, Observation
from sitemap_updater.observe.sampling import Listed, draw
from sitemap_updater.observe.signals import alarm_figures

START = 1_800_000_000.0
HOUR = 3600
FILES, PER_FILE = 12, 100  # a section of 1,200 URLs in 12 files
SECTIONS = 5
#: HealthChecksPerDay's default, 1,200 a day at an hourly run, shared by five sections
CHECKS_PER_SECTION = 50 // SECTIONS
THRESHOLD = 5.0  # UnhealthyPercentAlarm's default


def _section(name: str) -> dict[str, list[Listed]]:
    old = START - 90 * 86_400  # no recent change: every draw is uniform
    return {
        f"{name}-{f}": [
            Listed(f"https://www.example.com/{name}/{f}/{n}", old) for n in range(PER_FILE)
        ]
        for f in range(FILES)
    }


def _listing(files: dict[str, list[Listed]]) -> dict[str, tuple[str | None, int]]:
    return {key: ("2026-08-01", len(entries)) for key, entries in files.items()}


def _replay_health(seed: int, share: float, hours: int = 48) -> list[float]:
    """The unhealthy alarm's metric of each run."""
    rng = random.Random(seed)
    sections = [_section(f"s{n}") for n in range(SECTIONS)]
    bad = [
        set(
            rng.sample(
                [e.url for entries in files.values() for e in entries],
                round(FILES * PER_FILE * share),
            )
        )
        for files in sections
    ]
    observed: list[dict[str, Observation]] = [{} for _ in sections]
    sent = []
    for run in range(hours):
        now = START + run * HOUR
        figures = []
        for files, unhealthy, seen in zip(sections, bad, observed, strict=True):
            picked = draw(
                _listing(files), files.__getitem__, 2 * CHECKS_PER_SECTION, seen, now, rng
            )
            for item in picked[:CHECKS_PER_SECTION]:
                problem = "not-found" if item.url in unhealthy else None
                seen[item.url] = Observation(
                    item.url, item.stratum, item.changed_at, checked_at=now, problem=problem
                )
            window = [o for o in seen.values() if (o.checked_at or 0) > now - WINDOW_DAYS * 86_400]
            figures.append(health(window, FILES * PER_FILE))
        sent.append(
            alarm_figures(figures, [], search_console=False)["UnhealthyPercentLowerBoundMax"]
        )
    return sent


def _alarms(sent: list[float], threshold: float, periods: int = 3) -> bool:
    """Whether the alarm (``periods`` in a row above ``threshold``) would fire."""
    return any(
        all(v > threshold for v in sent[i : i + periods]) for i in range(len(sent) - periods + 1)
    )


def test_a_site_with_3_percent_unhealthy_never_crosses_5_percent() -> None:
    worst = max(max(_replay_health(seed, 0.03)) for seed in range(80))
    assert worst <= THRESHOLD, worst


def test_a_site_with_10_percent_unhealthy_alarms_within_two_days() -> None:
    assert all(_alarms(_replay_health(seed, 0.10), THRESHOLD) for seed in range(5))


def _replay_indexed(seed: int, before: float, after: float) -> float:
    """The indexed drop sent after 14 days of inspections: the share ``before`` the last
    week, ``after`` it."""
    rng = random.Random(seed)
    per_day = 150  # of the 1,500 a day, one section's uniform half
    observations = []
    for day in range(WINDOW_DAYS):
        share = before if day < WINDOW_DAYS - DROP_RECENT_DAYS else after
        for n in range(per_day):
            verdict = "PASS" if rng.random() < share else "NEUTRAL"
            at = START + day * 86_400 + n * 60
            observations.append(
                Observation(
                    f"https://www.example.com/{day}/{n}", "random", inspected_at=at, verdict=verdict
                )
            )
    now = START + WINDOW_DAYS * 86_400
    figures = coverage(observations, now)
    return alarm_figures([figures], [], search_console=True)["IndexedDropPercentMax"]


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_an_indexed_share_that_holds_sends_no_drop(share: float) -> None:
    drops = [_replay_indexed(seed, share, share) for seed in range(30)]
    assert max(drops) <= THRESHOLD, drops  # two intervals may part a little by chance, no more


def test_an_indexed_share_that_fell_by_30_points_sends_its_drop() -> None:
    drops = [_replay_indexed(seed, 0.8, 0.5) for seed in range(20)]
    assert all(drop > THRESHOLD for drop in drops), drops
