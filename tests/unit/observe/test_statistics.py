"""The Wilson interval and the Kaplan-Meier quantiles the observer reports."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.observe.estimates.statistics import (
    kaplan_meier,
    survival_quantile,
    wilson_interval,
)


def test_wilson_matches_the_closed_form_of_a_known_case() -> None:
    # 8 of 10: the Wilson 95% interval is (0.4902, 0.9433) (Newcombe 1998, table I method 3)
    low, high = wilson_interval(8, 10) or (0.0, 0.0)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)


def test_no_trial_has_no_interval() -> None:
    assert wilson_interval(0, 0) is None


def test_refuses_more_successes_than_trials() -> None:
    with pytest.raises(ValueError, match="successes 3 of trials 2"):
        wilson_interval(3, 2)


@given(st.integers(1, 5_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_the_interval_holds_the_share_and_stays_in_0_1(case: tuple[int, int]) -> None:
    k, n = case
    low, high = wilson_interval(k, n) or (math.nan, math.nan)
    assert 0.0 <= low <= k / n <= high <= 1.0


@given(st.integers(0, 200), st.integers(1, 200))
def test_more_trials_at_the_same_share_narrow_the_interval(k: int, n: int) -> None:
    k = min(k, n)
    small = wilson_interval(k, n) or (0.0, 1.0)
    large = wilson_interval(4 * k, 4 * n) or (0.0, 1.0)
    assert large[1] - large[0] <= small[1] - small[0] + 1e-12


def test_kaplan_meier_of_a_textbook_case() -> None:
    # times 3, 5+, 6, 6, 8+, 10 (+: censored): S = 5/6 after 3, 5/6 * 2/4 after 6, then 0
    samples = [(3, True), (5, False), (6, True), (6, True), (8, False), (10, True)]
    steps = kaplan_meier(samples)
    assert [s.time for s in steps] == [3, 6, 10]
    assert [round(s.survival, 6) for s in steps] == [round(5 / 6, 6), round(5 / 12, 6), 0.0]
    assert survival_quantile(samples, 0.5).value == 6


def test_censored_samples_are_counted_not_dropped() -> None:
    crawled = [(float(t), True) for t in range(1, 11)]
    waiting = [(2.0, False)] * 10  # ten still waiting after 2: at risk, then gone
    with_them = survival_quantile(crawled + waiting, 0.5).value
    dropped = survival_quantile(crawled, 0.5).value
    assert with_them is not None and dropped is not None and with_them > dropped


def test_a_curve_that_never_falls_far_enough_has_no_quantile() -> None:
    found = survival_quantile([(1.0, True)] + [(5.0, False)] * 20, 0.5)
    assert found.value is None and found.high is None


@pytest.mark.parametrize("q", [0.5, 0.9])
def test_the_interval_holds_the_true_quantile_about_as_often_as_it_says(q: float) -> None:
    """Exponential delays of a known median, censored at random: of 300 samples of 200, the
    95% interval holds the true quantile in close to 95% of them."""
    median = 10.0
    truth = median * math.log(1 / (1 - q)) / math.log(2)
    held = 0
    for seed in range(300):
        rng = random.Random(seed)
        samples = []
        for _ in range(200):
            delay, censor = rng.expovariate(math.log(2) / median), rng.uniform(0, 80)
            samples.append((min(delay, censor), delay <= censor))
        found = survival_quantile(samples, q)
        assert found.low is not None and found.value is not None
        assert found.low <= found.value and (found.high is None or found.value <= found.high)
        held += found.low <= truth and (found.high is None or truth <= found.high)
    assert 0.90 <= held / 300 <= 0.99
