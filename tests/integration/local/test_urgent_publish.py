"""News and deletes are published by the run the table's stream starts, not by the schedule.

On the repository's template.yaml deployed on moto: the urgent event source mapping
(``UrgentChangeMapping``) is emulated by ``deployment.stream_source`` from the template's own
filter criteria and batching window, on the deployment's clock. No scheduled run is invoked
after the site is built: whatever is published afterwards was published by a triggered run.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from lxml import etree

from sitemap_updater.store.keys import LEASE_SK, key_attributes, meta_key
from sitemap_updater_local.deployment import LocalDeployment, SimulatedClock

SITE = "https://www.example.com"
SM = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
NEWS = {"n": "http://www.google.com/schemas/sitemap-news/0.9"}
START = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)


def page(n: int) -> dict[str, Any]:
    return {"action": "upsert", "url": f"{SITE}/page/{n}", "lastmod": "2026-11-20"}


def article(slug: str, title: str) -> dict[str, Any]:
    return {
        "action": "upsert",
        "url": f"{SITE}/news/{slug}",
        "news": {
            "publication": {"name": "The Example Times", "language": "en"},
            "publication_date": START.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "title": title,
        },
    }


def body_of(dep: LocalDeployment, key: str) -> bytes:
    return gzip.decompress(dep.s3.get_object(Bucket=dep.bucket_name, Key=key)["Body"].read())


def listed(dep: LocalDeployment) -> set[str]:
    """Every loc of the regular files the index lists."""
    found: set[str] = set()
    for key in dep.objects():
        if key.startswith("sitemap-") and key.endswith(".xml.gz") and "news" not in key:
            root = etree.fromstring(body_of(dep, key))
            found |= {e.text or "" for e in root.iterfind("sm:url/sm:loc", SM)}
    return found


def news_titles(dep: LocalDeployment) -> dict[str, str]:
    titles: dict[str, str] = {}
    for key in dep.objects():
        if key.startswith("sitemap-news-"):
            for url in etree.fromstring(body_of(dep, key)).iterfind("sm:url", SM):
                title = url.find("n:news/n:title", NEWS)
                titles[url.findtext("sm:loc", namespaces=SM) or ""] = (
                    "" if title is None else title.text or ""
                )
    return titles


def send(dep: LocalDeployment, *changes: dict[str, Any]) -> None:
    assert not dep.send(json.dumps(c) for c in changes)
    dep.drain()


@pytest.fixture
def clock() -> SimulatedClock:
    return SimulatedClock(START)


@pytest.fixture
def dep(clock: SimulatedClock) -> Any:
    with LocalDeployment(site_url=SITE, clock=clock) as deployment:
        send(deployment, *(page(n) for n in range(20)), article("old", "Yesterday"))
        deployment.rebuild_until_clean()
        # the site's own article started a run too: let it happen, so each test starts idle
        deployment.poll_streams()
        clock.advance(window(deployment))
        assert [len(p.results) for p in deployment.poll_streams()] == [1]
        yield deployment


def mapping_idle(dep: LocalDeployment) -> bool:
    return all(m.waiting == 0 for m in dep.stream_mappings)


def window(dep: LocalDeployment) -> int:
    return int(dep.template.resolve({"Ref": "UrgentBatchingWindowSeconds"}))


def test_a_news_article_and_a_delete_are_published_by_the_triggered_run(
    dep: LocalDeployment, clock: SimulatedClock
) -> None:
    assert window(dep) > 0
    before = dep.rebuild_function.invocations
    send(dep, article("breaking", "Breaking"), {"action": "delete", "url": f"{SITE}/page/3"})

    [first] = dep.poll_streams()
    assert first.records_matched == 2 and not first.results  # the window has not passed
    clock.advance(window(dep))
    [due] = dep.poll_streams()

    [report] = due.results
    assert report["status"] == "published" and report["mode"] == "incremental"
    assert dep.rebuild_function.invocations == before + 1
    assert news_titles(dep)[f"{SITE}/news/breaking"] == "Breaking"
    assert f"{SITE}/page/3" not in listed(dep)
    assert f"{SITE}/news/breaking" in listed(dep)


def test_a_burst_costs_one_run_and_carries_the_other_pending_changes(
    dep: LocalDeployment, clock: SimulatedClock
) -> None:
    before = dep.rebuild_function.invocations
    send(dep, page(100))  # an ordinary change: no run of its own
    send(dep, *(article(f"burst-{i}", f"Story {i}") for i in range(5)))
    clock.advance(window(dep) / 2)
    send(dep, {"action": "delete", "url": f"{SITE}/page/4"})
    dep.poll_streams()
    clock.advance(window(dep))
    [due] = dep.poll_streams()

    assert len(due.results) == 1 and dep.rebuild_function.invocations == before + 1
    assert {f"{SITE}/news/burst-{i}" for i in range(5)} <= set(news_titles(dep))
    published = listed(dep)
    assert f"{SITE}/page/4" not in published and f"{SITE}/page/100" in published


def test_other_changes_wait_for_the_schedule(dep: LocalDeployment, clock: SimulatedClock) -> None:
    before = dep.rebuild_function.invocations
    send(dep, page(200), {"action": "delete", "url": f"{SITE}/never-listed"})
    dep.poll_streams()
    clock.advance(window(dep))
    [poll] = dep.poll_streams()
    assert poll.records_matched == 0 and mapping_idle(dep)
    assert dep.rebuild_function.invocations == before
    assert f"{SITE}/page/200" not in listed(dep)


def test_a_held_lease_fails_the_batch_and_the_retry_publishes(
    dep: LocalDeployment, clock: SimulatedClock
) -> None:
    state = dep.rebuild_function.environment["STATE_TABLE_NAME"]
    lease = key_attributes(meta_key(LEASE_SK))
    assert dep.dynamodb.get_item(TableName=state, Key=lease).get("Item") is None
    dep.dynamodb.put_item(
        TableName=state,
        Item={**lease, "owner": {"S": "a manual run"}, "expires_at": {"N": str(int(clock()) + 60)}},
    )
    send(dep, {"action": "delete", "url": f"{SITE}/page/5"})
    dep.poll_streams()
    clock.advance(window(dep))
    [locked] = dep.poll_streams()
    assert not locked.results and len(locked.errors) == 1
    assert "lease" in str(locked.errors[0])
    assert f"{SITE}/page/5" in listed(dep)

    dep.dynamodb.delete_item(TableName=state, Key=lease)
    [retried] = dep.poll_streams()
    assert [r["status"] for r in retried.results] == ["published"]
    assert f"{SITE}/page/5" not in listed(dep)


def test_a_batch_is_given_up_after_its_retries_into_the_failure_queue(
    dep: LocalDeployment, clock: SimulatedClock
) -> None:
    [mapping] = dep.stream_mappings
    state = dep.rebuild_function.environment["STATE_TABLE_NAME"]
    lease = key_attributes(meta_key(LEASE_SK))
    dep.dynamodb.put_item(
        TableName=state,
        Item={**lease, "owner": {"S": "stuck"}, "expires_at": {"N": str(int(clock()) + 3600)}},
    )
    send(dep, article("stuck", "Stuck"))
    dep.poll_streams()
    clock.advance(window(dep))
    polls = [dep.poll_streams()[0] for _ in range(mapping.spec.max_retries + 1)]
    assert sum(p.abandoned for p in polls) == 1 and mapping.waiting == 0
    assert mapping.spec.failure_queue_arn is not None
    url = dep.stack.queue_arns[mapping.spec.failure_queue_arn]
    [message] = dep.sqs.receive_message(QueueUrl=url)["Messages"]
    info = json.loads(message["Body"])["DDBStreamBatchInfo"]
    assert info["batchSize"] == 1 and info["streamArn"] == mapping.spec.stream_arn


def test_urgent_publish_off_has_no_mapping(clock: SimulatedClock) -> None:
    with LocalDeployment(site_url=SITE, clock=clock, parameters={"UrgentPublish": "false"}) as dep:
        assert dep.stream_mappings == [] and dep.poll_streams() == []
