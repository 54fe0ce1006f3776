"""IndexNow after a publish, through the real rebuild handler on moto, against a local endpoint
on 127.0.0.1 that plays the API (no test reaches the internet)."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from sitemap_updater.indexnow import IndexNowClient
from sitemap_updater.rebuild.outputs.indexnow import PENDING_KEY, PendingSet
from sitemap_updater.store.spaces import shard_file_key
from tests.helpers.indexnow_endpoint import Reply, ScriptedEndpoint
from tests.integration.rebuild.conftest import BUCKET, SITE, Aws, page

KEY = "5b2d0c6e-indexnow-test"
KEY_FILE = f"sitemap-indexnow-{KEY}.txt"
START = float(int(time.time()))  # published lastmods must not lie in the future


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint() as running:
        yield running


@pytest.fixture
def clock(aws: Aws) -> Clock:
    ticking = Clock()
    aws.handler_module.clock = ticking
    return ticking


@pytest.fixture
def on(aws: Aws, endpoint: ScriptedEndpoint, clock: Clock, env: pytest.MonkeyPatch) -> Aws:
    env.setenv("INDEXNOW_KEY", KEY)
    env.setenv("INDEXNOW_ENDPOINT", endpoint.url)
    return aws


def pending(aws: Aws) -> dict[str, Any]:
    body = aws.s3.get_object(Bucket=BUCKET, Key=PENDING_KEY)["Body"].read()
    doc: dict[str, Any] = json.loads(gzip.decompress(body))
    return doc


def locs(*numbers: int) -> list[str]:
    return [f"{SITE}/page/{n}" for n in numbers]


def test_off_by_default_nothing_is_written_or_sent(aws: Aws, endpoint: ScriptedEndpoint) -> None:
    aws.upsert(*(page(i) for i in range(5)))
    aws.invoke()
    aws.upsert(page(1, "2024-06-01"))
    report = aws.invoke()
    assert report["indexnow"] is None and report["state_objects_written"] == []
    assert not any(k.startswith(("state/", "sitemap-indexnow")) for k in aws.object_keys())
    assert endpoint.requests == []


def test_only_the_urls_the_publish_changed_are_sent(on: Aws, endpoint: ScriptedEndpoint) -> None:
    on.upsert(*(page(i, "2024-05-01") for i in range(20)))
    first = on.invoke()
    # the first publish of the site is not a change crawlers need to hear about one by one
    assert endpoint.requests == [] and first["indexnow"]["urls_added"] == 0
    key_file = on.object(KEY_FILE)
    assert key_file["Body"].read() == KEY.encode() and key_file["ContentType"].startswith(
        "text/plain"
    )

    on.upsert(page(3, "2024-06-01"), page(4, "2024-05-01"), page(25, "2024-06-02"))
    on.delete(f"{SITE}/page/7")
    second = on.invoke()
    assert second["status"] == "published"
    # page 4 was written again with the entry it already had: unchanged, never sent
    assert sorted(endpoint.urls) == sorted(locs(3, 25, 7))
    [request] = endpoint.requests
    assert request.body["host"] == "www.example.com" and request.body["key"] == KEY
    assert request.body["keyLocation"] == f"{SITE}/{KEY_FILE}"
    assert second["indexnow"]["urls_submitted"] == 3 and second["indexnow"]["requests"] == 1
    assert pending(on)["urls"] == []
    assert PENDING_KEY in second["state_objects_written"]

    third = on.invoke()  # nothing changed: nothing is sent
    assert len(endpoint.requests) == 1 and third["indexnow"]["requests"] == 0


def test_429_waits_for_retry_after_then_sends(
    on: Aws, endpoint: ScriptedEndpoint, clock: Clock
) -> None:
    on.upsert(*(page(i) for i in range(10)))
    on.invoke()
    endpoint.script(Reply(429, {"Retry-After": "600"}))
    on.upsert(page(2, "2024-07-01"))
    report = on.invoke()
    assert report["status"] == "published" and report["complete"]
    assert report["indexnow"]["requests_failed"] == 1 and report["indexnow"]["pending"] == 1
    assert pending(on)["next_attempt_at"] == START + 600

    clock.now = START + 599
    assert on.invoke()["indexnow"]["requests"] == 0
    clock.now = START + 600
    later = on.invoke()
    assert later["indexnow"]["urls_submitted"] == 1
    assert endpoint.urls == locs(2, 2) and pending(on)["urls"] == []


def test_5xx_backs_off_longer_each_time_and_nothing_is_lost(
    on: Aws, endpoint: ScriptedEndpoint, clock: Clock
) -> None:
    on.upsert(*(page(i) for i in range(10)))
    on.invoke()
    endpoint.script(Reply(503), Reply(500), Reply(drop=True))
    on.upsert(page(1, "2024-07-01"))
    on.invoke()
    assert pending(on)["next_attempt_at"] == START + 300
    clock.now = START + 300
    on.upsert(page(2, "2024-07-01"))  # joins the waiting set
    on.invoke()
    assert pending(on)["next_attempt_at"] == START + 300 + 600
    clock.now = START + 900
    on.invoke()  # the connection is dropped: still waiting
    assert pending(on)["attempts"] == 3
    clock.now = START + 900 + 1200
    done = on.invoke()
    assert done["indexnow"]["urls_submitted"] == 2 and pending(on)["urls"] == []
    assert sorted(endpoint.requests[-1].body["urlList"]) == locs(1, 2)


def test_a_refusal_is_logged_counted_and_not_sent_again(
    on: Aws,
    endpoint: ScriptedEndpoint,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    on.upsert(*(page(i) for i in range(10)))
    on.invoke()
    capsys.readouterr()
    endpoint.script(Reply(422, body="URLs don't belong to the host"))
    on.upsert(page(5, "2024-07-01"))
    report = on.invoke()
    assert report["status"] == "published"
    assert report["indexnow"]["urls_rejected"] == 1 and report["indexnow"]["pending"] == 0
    out = capsys.readouterr().out
    [logged] = [r for r in caplog.records if r.levelname == "ERROR"]
    assert "refused" in logged.getMessage()
    assert logged.__dict__["status"] == 422
    assert logged.__dict__["response"] == "URLs don't belong to the host"
    emf = [json.loads(line) for line in out.splitlines() if line.startswith('{"_aws"')]
    assert [doc["IndexNowRejected"] for doc in emf if "IndexNowRejected" in doc] == [[1.0]]
    on.invoke()
    assert len(endpoint.requests) == 1


def test_a_publish_never_waits_on_a_dead_endpoint(on: Aws, env: pytest.MonkeyPatch) -> None:
    with ScriptedEndpoint() as gone:
        dead = gone.url
    env.setenv("INDEXNOW_ENDPOINT", dead)
    on.upsert(*(page(i) for i in range(10)))
    on.invoke()
    on.upsert(page(6, "2024-07-01"))
    report = on.invoke()
    assert report["status"] == "published" and report["complete"]
    assert report["indexnow"]["requests_failed"] == 1 and pending(on)["urls"] == locs(6)
    assert f"{SITE}/page/6" in on.crawl()[on_file(on, 6)]


def on_file(aws: Aws, n: int) -> str:
    return shard_file_key(aws.leaf_of(f"{SITE}/page/{n}"))


def test_changes_stored_before_the_checkpoint_survive_a_crash(
    on: Aws, endpoint: ScriptedEndpoint
) -> None:
    on.upsert(*(page(i) for i in range(10)))
    on.invoke()
    on.upsert(page(8, "2024-07-01"))

    def fail_checkpoint(params: dict[str, Any], **_: Any) -> None:
        if params.get("Item", {}).get("sk", {}).get("S") == "feed":
            raise RuntimeError("crash before the checkpoint is saved")

    client = on.handler_module._client("dynamodb")
    client.meta.events.register("before-parameter-build.dynamodb.PutItem", fail_checkpoint)
    with pytest.raises(RuntimeError, match="crash before the checkpoint"):
        on.invoke()
    client.meta.events.unregister("before-parameter-build.dynamodb.PutItem", fail_checkpoint)
    assert endpoint.requests == [] and pending(on)["urls"] == locs(8)
    on.invoke()
    assert endpoint.urls == locs(8)


def test_a_run_recovering_from_a_crash_after_its_writes_sends_those_changes(
    on: Aws, endpoint: ScriptedEndpoint
) -> None:
    on.upsert(*(page(i) for i in range(10)))
    on.invoke()
    on.upsert(page(9, "2024-07-01"))

    def fail_pending(params: dict[str, Any], **_: Any) -> None:
        if params["Key"] == PENDING_KEY:
            raise RuntimeError("crash after the files, before the pending set")

    s3 = on.handler_module._client("s3")
    s3.meta.events.register("before-parameter-build.s3.PutObject", fail_pending)
    with pytest.raises(RuntimeError, match="crash after the files"):
        on.invoke()
    s3.meta.events.unregister("before-parameter-build.s3.PutObject", fail_pending)
    on.invoke()  # the file already holds the change; the recovering run sends it anyway
    assert endpoint.urls == locs(9)


def test_a_reconcile_sends_the_drift_it_repairs_and_nothing_else(
    on: Aws, endpoint: ScriptedEndpoint
) -> None:
    on.upsert(*(page(i) for i in range(12)))
    on.invoke({"full_rebuild": True})
    assert on.invoke({"full_rebuild": True})["indexnow"]["urls_added"] == 0
    assert endpoint.requests == []
    # a published file loses an entry behind the rebuild's back: drift
    key = on_file(on, 4)
    body = gzip.decompress(on.object(key)["Body"].read()).decode()
    start = body.index(f"<url><loc>{SITE}/page/4</loc>")
    end = body.index("</url>\n", start) + len("</url>\n")
    on.s3.put_object(
        Bucket=BUCKET, Key=key, Body=gzip.compress((body[:start] + body[end:]).encode())
    )
    report = on.invoke({"full_rebuild": True})
    assert report["drift_repaired"] == 1
    assert endpoint.urls == locs(4)


def test_the_pending_set_is_bounded_and_counts_what_it_drops(
    endpoint: ScriptedEndpoint,
) -> None:
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        client = IndexNowClient(endpoint.url, KEY, site_url=SITE, public_base_url=SITE)
        endpoint.script(Reply(503))
        queue = PendingSet(s3, BUCKET, client, max_pending=5)
        queue.add(locs(*range(4)))
        queue.persist()
        queue.submit(START, lambda: 60.0)
        later = PendingSet(s3, BUCKET, client, max_pending=5)
        later.add(locs(*range(4, 8)))
        assert later.persist() == [PENDING_KEY]
        assert later.report.urls_dropped == 3 and later.report.pending == 5
        assert later.submit(START + 300, lambda: 60.0) == [PENDING_KEY]
    # one section (/page/) holds them all: its newest go, what waited longest is kept
    assert endpoint.requests[-1].body["urlList"] == locs(*range(5))


def test_more_than_10000_urls_go_in_several_posts(endpoint: ScriptedEndpoint) -> None:
    many = [f"{SITE}/p/{i}" for i in range(10_001)]
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        client = IndexNowClient(endpoint.url, KEY, site_url=SITE, public_base_url=SITE)
        queue = PendingSet(s3, BUCKET, client)
        queue.add(many)
        queue.persist()
        queue.submit(START, lambda: 60.0)
    assert [len(r.body["urlList"]) for r in endpoint.requests] == [10_000, 1]
    assert endpoint.urls == many and queue.report.urls_submitted == 10_001


def test_a_key_file_that_is_no_longer_the_key_is_retired(
    on: Aws, env: pytest.MonkeyPatch, endpoint: ScriptedEndpoint
) -> None:
    on.upsert(*(page(i) for i in range(5)))
    on.invoke()
    assert KEY_FILE in on.object_keys()
    new_key = "7c1e9a40-indexnow-new"
    env.setenv("INDEXNOW_KEY", new_key)
    on.upsert(page(1, "2024-06-01"))

    report = on.invoke()  # the test's grace period is 0: retired and deleted in one run

    keys = on.object_keys()
    assert f"sitemap-indexnow-{new_key}.txt" in keys
    assert KEY_FILE not in keys and KEY_FILE in report["objects_deleted"]
    assert endpoint.requests[-1].body["key"] == new_key

    env.setenv("INDEXNOW_KEY", KEY)  # the old key back: its file is published again, and kept
    on.upsert(page(2, "2024-06-01"))
    on.invoke()
    on.invoke()
    assert KEY_FILE in on.object_keys()
    assert f"sitemap-indexnow-{new_key}.txt" not in on.object_keys()


def test_a_url_off_the_site_host_is_never_queued(endpoint: ScriptedEndpoint) -> None:
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        client = IndexNowClient(endpoint.url, KEY, site_url=SITE, public_base_url=SITE)
        queue = PendingSet(s3, BUCKET, client)
        # what a full rebuild reports as repaired drift of a file someone planted a URL in
        queue.add(["https://evil.example.net/phish", *locs(1), "\udcff garbage"])
        queue.persist()
        queue.submit(START, lambda: 60.0)
    assert endpoint.requests[-1].body["urlList"] == locs(1)
