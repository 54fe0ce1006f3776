"""Faults, nothing lost, with more seeds: the runs of ``test_faults.py`` with seeds 3 and 4.

A file of its own so that pytest-xdist runs these replays on another worker, in parallel with
``test_faults.py``; the replay without faults they are compared with is the one that file
computes (shared through the test run's temporary directory). ``SITEMAP_FAULTS_MORE_RUNS`` sets
the runs (``rate:seed`` pairs, default ``0.1:3,0.3:4``); see ``test_faults.py`` for the rest.
"""

from __future__ import annotations

import pytest

from tests.helpers.replay import FaultRun
from tests.reliability.test_faults import (
    FAULT_RUNS,
    Proof,
    assert_faulted_bytes_equal_clean,
    assert_only_poison_dead_lettered,
    build_proof,
    fault_runs,
)

MORE_RUNS = fault_runs("SITEMAP_FAULTS_MORE_RUNS", "0.1:3,0.3:4")
IDS = [f"rate{r}-seed{s}" for r, s in MORE_RUNS]


@pytest.fixture(scope="module")
def more_seeds_proof(tmp_path_factory: pytest.TempPathFactory) -> Proof:
    return build_proof(MORE_RUNS, tmp_path_factory)


def test_each_rate_runs_with_seeds_of_its_own() -> None:
    assert not set(MORE_RUNS) & set(FAULT_RUNS), "the same (rate, seed) is replayed twice"


@pytest.mark.parametrize("run", MORE_RUNS, ids=IDS)
def test_with_faults_the_published_bytes_equal_the_run_without(
    more_seeds_proof: Proof, run: FaultRun
) -> None:
    assert_faulted_bytes_equal_clean(more_seeds_proof, run)


@pytest.mark.parametrize("run", MORE_RUNS, ids=IDS)
def test_only_the_poison_records_reach_the_dlq_each_with_its_reason(
    more_seeds_proof: Proof, run: FaultRun
) -> None:
    assert_only_poison_dead_lettered(more_seeds_proof, run)
