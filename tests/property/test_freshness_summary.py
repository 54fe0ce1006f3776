"""The bounded summary of a run's lags (``rebuild.freshness.Lags``) against the exact figures
computed from every lag: the maximum always agrees, the median agrees while the buckets are 1 ms
wide and is off by at most half a bucket once they had to widen."""

from __future__ import annotations

import statistics

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.rebuild.freshness import Lags

PUBLISHED_AT = 1_767_225_600.0
_TIMES = st.lists(
    st.integers(int(PUBLISHED_AT * 1000) - 86_400_000, int(PUBLISHED_AT * 1000) + 5_000),
    min_size=1,
    max_size=300,
)


def _exact(times: list[int]) -> tuple[float, float]:
    lags = [max(0.0, PUBLISHED_AT - t / 1000) for t in times]
    return max(lags), statistics.median(lags)


@given(_TIMES)
def test_few_distinct_times_give_the_exact_figures(times: list[int]) -> None:
    lags = Lags()
    for t in times:  # one at a time, the way the widening is hardest
        lags.add_times([t])
    measured = lags.measure(PUBLISHED_AT)
    most, median = _exact(times)
    assert measured.changes == len(times)
    assert measured.max_seconds == round(most, 3)
    assert abs(measured.median_seconds - median) <= 0.001


@given(_TIMES, st.integers(2, 16))
def test_widened_buckets_keep_the_max_and_a_median_within_half_a_bucket(
    times: list[int], buckets: int
) -> None:
    lags = Lags(max_buckets=buckets)
    half = len(times) // 2
    lags.add_times(times[:half])  # a batch, then one at a time
    for t in times[half:]:
        lags.add_times([t])
    measured = lags.measure(PUBLISHED_AT)
    most, median = _exact(times)
    span_ms = max(times) - min(times)
    assert measured.max_seconds == round(most, 3)
    # the width w is the first power of two with at most `buckets` keys: w < 2 * span / (b - 1)
    assert abs(measured.median_seconds - median) <= span_ms / (buckets - 1) / 1000 + 0.001
