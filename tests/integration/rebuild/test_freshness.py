"""Freshness: the lag from a change's ingest (the URL item's ``wt``) to the publish of the file
that holds it, as the run report, the publish record and the metrics give it.

The handler's clock is a test clock that moves only when a test moves it, so every lag is known
exactly: the time between the write and the run that published it.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.rebuild.state.published import PublishedStore
from sitemap_updater.store.items import live_item, tombstone_item
from sitemap_updater.store.keys import ATTR_WRITTEN_AT
from tests.integration.rebuild.conftest import (
    SITE,
    STATE_TABLE,
    TABLE,
    Aws,
    FakeContext,
    page,
)
from tests.integration.rebuild.test_metrics import emf_documents, metric_values

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z


class StoppedClock:
    """Epoch seconds that stand still until :meth:`advance`."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(aws: Aws) -> StoppedClock:
    stopped = StoppedClock()
    aws.handler_module.clock = stopped
    return stopped


def _ev(at: float, rank: int, digest: str) -> str:
    moment = datetime.fromtimestamp(at, UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{moment}#{rank}#{digest}"


def upsert_at(aws: Aws, at: float, *entries: Page) -> None:
    """Write live URL items as ingest does at ``at`` (epoch seconds), ``wt`` included."""
    for entry in entries:
        digest = hashlib.sha256(repr(entry).encode()).hexdigest()
        item = live_item(entry, _ev(at, 0, digest), digest)
        item[ATTR_WRITTEN_AT] = {"N": str(round(at * 1000))}
        aws.dynamodb.put_item(TableName=TABLE, Item=item)


def delete_at(aws: Aws, at: float, *locs: str) -> None:
    """Write tombstones as ingest does at ``at``, ``wt`` included."""
    for loc in locs:
        digest = hashlib.sha256(loc.encode()).hexdigest()
        item = tombstone_item(loc, _ev(at, 1, digest), digest, int(at) + 86_400)
        item[ATTR_WRITTEN_AT] = {"N": str(round(at * 1000))}
        aws.dynamodb.put_item(TableName=TABLE, Item=item)


def test_upserts_and_deletes_are_measured_from_their_ingest_to_the_publish(
    aws: Aws, clock: StoppedClock, capsys: pytest.CaptureFixture[str]
) -> None:
    upsert_at(aws, clock.now, *(page(i, "2024-05-01") for i in range(6)))
    clock.advance(7)
    first = aws.invoke()
    assert first["freshness"] == {"changes": 6, "max_seconds": 7.0, "median_seconds": 7.0}

    upsert_at(aws, clock.now, page(1, "2024-06-01"))
    clock.advance(40)
    delete_at(aws, clock.now, f"{SITE}/page/2")
    upsert_at(aws, clock.now, page(3, "2024-06-02"))
    clock.advance(20)
    capsys.readouterr()
    second = aws.invoke()

    # ages 60, 20 and 20 seconds: the delete counts like the upserts
    assert second["freshness"] == {"changes": 3, "max_seconds": 60.0, "median_seconds": 20.0}
    (document,) = emf_documents(capsys.readouterr().out)
    metrics = metric_values(document)
    assert metrics["FreshnessMaxSeconds"] == ("Seconds", 60.0)
    assert metrics["FreshnessMedianSeconds"] == ("Seconds", 20.0)
    record = PublishedStore(aws.dynamodb, STATE_TABLE).load()
    assert record is not None and record.published_at == int(clock.now)
    assert record.freshness is not None and record.freshness.max_seconds == 60.0

    capsys.readouterr()
    idle = aws.invoke()
    assert idle["freshness"]["changes"] == 0
    (document,) = emf_documents(capsys.readouterr().out)
    assert "FreshnessMaxSeconds" not in metric_values(document)  # no change, no lag


def test_the_lag_of_a_change_held_back_by_a_pending_leaf_grows_until_it_is_published(
    aws: Aws, clock: StoppedClock
) -> None:
    upsert_at(aws, clock.now, *(page(i, "2024-05-01") for i in range(40)))
    aws.invoke()
    clock.advance(60)
    changed = [page(i, "2024-06-01") for i in range(40)]
    leaves = {aws.leaf_of(e.url) for e in changed}
    assert len(leaves) >= 3
    # deletes too, in the leaves published after the first (the leaves go in order)
    deleted = [e for e in changed if aws.leaf_of(e.url) != min(leaves)][:3]
    upsert_at(aws, clock.now, *(e for e in changed if e not in deleted))
    delete_at(aws, clock.now, *(e.url for e in deleted))
    clock.advance(30)
    puts = aws.record_puts()
    # time until the first shard file is put, then less than the 60 s margin
    partial = aws.invoke(context=FakeContext(lambda: 30_000 if puts else 120_000))
    assert partial["shards_remaining"] == len(leaves) - 1
    published_first = partial["freshness"]["changes"]
    assert 0 < published_first < 40
    assert partial["freshness"]["max_seconds"] == 30.0

    clock.advance(300)  # one schedule period later
    rest = aws.invoke()

    assert rest["complete"] is True
    assert rest["freshness"]["changes"] == 40 - published_first
    assert rest["freshness"]["max_seconds"] == 330.0
    assert rest["freshness"]["median_seconds"] == 330.0


def test_the_lag_of_a_change_a_failed_run_left_unpublished_grows_until_it_is_published(
    aws: Aws, clock: StoppedClock
) -> None:
    upsert_at(aws, clock.now, *(page(i) for i in range(5)))
    aws.invoke()
    clock.advance(60)
    upsert_at(aws, clock.now, page(1, "2024-06-01"))
    clock.advance(15)

    def fail(**_: Any) -> None:
        raise ConnectionError("S3 unreachable")

    s3_events = aws.handler_module._client("s3").meta.events
    s3_events.register("before-call.s3.PutObject", fail)
    with pytest.raises(ConnectionError):
        aws.invoke()
    s3_events.unregister("before-call.s3.PutObject", fail)
    clock.advance(300)

    recovered = aws.invoke()

    assert recovered["freshness"] == {
        "changes": 1,
        "max_seconds": 315.0,
        "median_seconds": 315.0,
    }


def test_a_full_rebuild_counts_the_changes_written_since_the_last_feed_read(
    aws: Aws, clock: StoppedClock
) -> None:
    upsert_at(aws, clock.now, *(page(i) for i in range(5)))
    clock.advance(1)  # the checkpoint a run saves holds whole seconds
    aws.invoke()
    clock.advance(60)
    upsert_at(aws, clock.now, page(2, "2024-06-01"), page(9))
    delete_at(aws, clock.now, f"{SITE}/page/3")
    clock.advance(45)

    full = aws.invoke({"full_rebuild": True})

    assert full["mode"] == "full"
    # the delete counts like the upserts; the pages written before the last feed read do not
    assert full["freshness"] == {"changes": 3, "max_seconds": 45.0, "median_seconds": 45.0}
