"""The few statistics the observer reports: a proportion's Wilson interval and quantiles."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

#: the normal quantile of a two-sided 95% interval
Z_95: Final = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes`` out of ``trials`` (95% by default), or None
    for no trial. Unlike the normal approximation it stays within [0, 1] and is sound for a
    share near 0 or 1 and for small samples, the observer's usual case."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} of trials {trials}: need 0 <= successes <= trials")
    if trials == 0:
        return None
    share = successes / trials
    z2 = z * z
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (
        z * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    )
    # at 0 or all successes the bound is exactly 0 or 1 (rounding would leave it a hair inside)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def quantile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` by linear interpolation between the closest ranks (the
    median is ``q = 0.5``); None for no value."""
    if not 0 <= q <= 1:
        raise ValueError(f"quantile {q}: must be between 0 and 1")
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
