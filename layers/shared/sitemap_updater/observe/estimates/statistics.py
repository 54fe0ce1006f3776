"""The few statistics the observer reports: a proportion's Wilson interval, and a time-to-event's
quantiles from a Kaplan-Meier curve, with their intervals."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Estimate:
    """A quantile estimated from a survival curve, with its interval (``high`` None: the
    curve never falls far enough for the interval to close, as with much censoring)."""

    value: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class SurvivalStep:
    """The Kaplan-Meier curve just after ``time``: the share not yet crawled ``survival``, and
    Greenwood's sum ``sum d / (n (n - d))`` up to it (for the interval)."""

    time: float
    survival: float
    greenwood: float


def kaplan_meier(samples: Iterable[tuple[float, bool]]) -> list[SurvivalStep]:
    """The Kaplan-Meier estimate of the time to an event from ``samples`` of (time, whether
    the event was seen): a sample not seen (censored) counts as at risk up to its time, then
    leaves without an event. Ties: events before censorings at the same time, as usual. One
    step per time at which an event happened."""
    ordered = sorted(samples, key=lambda s: (s[0], not s[1]))
    at_risk = len(ordered)
    survival, greenwood = 1.0, 0.0
    steps: list[SurvivalStep] = []
    index = 0
    while index < len(ordered):
        time = ordered[index][0]
        events = leaving = 0
        while index < len(ordered) and ordered[index][0] == time:
            events += ordered[index][1]
            leaving += 1
            index += 1
        if events:
            survival *= 1 - events / at_risk
            if at_risk > events:
                greenwood += events / (at_risk * (at_risk - events))
            steps.append(SurvivalStep(time, survival, greenwood))
        at_risk -= leaving
    return steps


def _band(step: SurvivalStep, z: float) -> tuple[float, float]:
    """The pointwise interval of the survival at ``step``, on the log(-log) scale
    (Kalbfleisch and Prentice), which stays within [0, 1]."""
    s = step.survival
    if s <= 0.0:
        return 0.0, 0.0
    if s >= 1.0:
        return 1.0, 1.0
    spread = z * math.sqrt(step.greenwood) / abs(math.log(s))
    return s ** math.exp(spread), s ** math.exp(-spread)


def survival_quantile(samples: Iterable[tuple[float, bool]], q: float, z: float = Z_95) -> Estimate:
    """The time by which a share ``q`` of the events has happened (``q = 0.5``: the median),
    from the Kaplan-Meier curve of ``samples``, and its interval: the times at which the lower
    and the upper bound of the curve's pointwise interval fall to ``1 - q`` (the method of
    Brookmeyer and Crowley on the log(-log) scale). None where the curve does not fall that
    far."""
    if not 0 < q < 1:
        raise ValueError(f"quantile {q}: must be between 0 and 1, both excluded")
    target = 1 - q
    value = low = high = None
    for step in kaplan_meier(samples):
        lower, upper = _band(step, z)
        if value is None and step.survival <= target + 1e-12:
            value = step.time
        if low is None and lower <= target + 1e-12:
            low = step.time
        if high is None and upper <= target + 1e-12:
            high = step.time
    return Estimate(value, low, high)
