"""The Wilson interval and the quantiles the observer reports."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.observe.statistics import quantile, wilson_interval


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


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.floats(0, 1))
def test_a_quantile_lies_between_the_extremes_and_rises_with_q(
    values: list[float], q: float
) -> None:
    found = quantile(values, q)
    assert found is not None
    assert min(values) - 1e-6 <= found <= max(values) + 1e-6
    assert (quantile(values, 0.5) or 0.0) <= (quantile(values, 0.9) or 0.0) + 1e-6


def test_median_and_p90_of_one_to_ten() -> None:
    values = [float(v) for v in range(1, 11)]
    assert quantile(values, 0.5) == 5.5
    assert quantile(values, 0.9) == pytest.approx(9.1)
    assert quantile([], 0.5) is None
