"""The per-host pace: requests to one host are spaced by the interval, hosts apart."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.engines.pacing import HostPacer


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds


@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.floats(0, 2, allow_nan=False)),
        max_size=40,
    ),
    st.floats(0.1, 50, allow_nan=False),
)
def test_starts_to_one_host_are_an_interval_apart_and_never_later(
    requests: list[tuple[str, float]], per_second: float
) -> None:
    time = FakeTime()
    pacer = HostPacer(per_second, clock=time.clock, sleep=time.sleep)
    starts: dict[str, list[float]] = {}
    for host, pause in requests:
        time.now += pause  # the caller's own work between requests
        arrived = time.now
        pacer.wait(host)
        previous = starts.get(host, [])
        earliest = max(arrived, previous[-1] + pacer.interval) if previous else arrived
        assert time.now == pytest.approx(earliest)  # waits no longer than the pace needs
        starts.setdefault(host, []).append(time.now)


def test_hosts_are_paced_apart() -> None:
    time = FakeTime()
    pacer = HostPacer(1.0, clock=time.clock, sleep=time.sleep)
    for host in ("a", "b", "c"):
        pacer.wait(host)
    assert time.now == 0.0


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="per_second=0"):
        HostPacer(0)
