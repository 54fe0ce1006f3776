"""The lease lock in meta/lease against moto."""

from __future__ import annotations

from sitemap_updater.rebuild.state.lease import Lease
from tests.integration.rebuild.conftest import TABLE, Aws


def test_one_holder_at_a_time_until_expiry(aws: Aws) -> None:
    first = Lease(aws.dynamodb, TABLE, "run-1", seconds=60)
    second = Lease(aws.dynamodb, TABLE, "run-2", seconds=60)
    assert first.acquire(now=1000)
    assert not second.acquire(now=1059)
    assert second.acquire(now=1061)  # the first holder died: its lease expired
    assert not first.release()  # it can no longer release what the second holds
    assert second.release()
    assert first.acquire(now=1062)


def test_release_frees_the_lease_at_once(aws: Aws) -> None:
    lease = Lease(aws.dynamodb, TABLE, "run-1", seconds=600)
    assert lease.acquire(now=1000)
    assert lease.release()
    assert Lease(aws.dynamodb, TABLE, "run-2", seconds=600).acquire(now=1001)
