"""The urgent event source mapping: news and deletes on the table's stream start a rebuild.

What is checked here, on the template SAM would deploy: the mapping's wiring and limits, the
rebuild role's grants for it (its own stream and failure queue alone), the failure alarm, and,
on items built by the layer itself, that the filter criteria keep exactly a news article written
and a listed URL deleted (evaluated by the local emulator of Lambda's filters).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitemap_updater.page.model import News, Page, Publication
from sitemap_updater.store.items import Item, live_item, tombstone_item
from sitemap_updater_local.deployment.stream_source import matches
from tests.template.cfn import Template, load_template, resources_of_type, sam_transform

SITE = "https://www.example.com"


@pytest.fixture(scope="module")
def cfn() -> Template:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        return sam_transform(load_template(), {"SiteUrl": SITE})


def mapping(cfn: Template) -> dict[str, Any]:
    (found,) = (
        m
        for m in resources_of_type(cfn, "AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": "RebuildFunction"}
    )
    return found


def statements(cfn: Template) -> list[dict[str, Any]]:
    role = cfn["Resources"]["RebuildFunctionRole"]["Properties"]
    return [s for p in role["Policies"] for s in p["PolicyDocument"]["Statement"]]


def test_the_mapping_reads_the_url_tables_stream_into_the_rebuild(cfn: Template) -> None:
    found = mapping(cfn)
    props = found["Properties"]
    assert found["Condition"] == "PublishesUrgently"
    assert props["EventSourceArn"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert props["StartingPosition"] == "LATEST"
    assert props["MaximumBatchingWindowInSeconds"] == {"Ref": "UrgentBatchingWindowSeconds"}
    # one batch per shard at a time: a run is the whole signal, never two at once
    assert props["ParallelizationFactor"] == 1
    assert props["BisectBatchOnFunctionError"] is False
    assert props["DestinationConfig"] == {
        "OnFailure": {"Destination": {"Fn::GetAtt": ["UrgentRunFailureQueue", "Arn"]}}
    }
    # a throttled batch outlives a full rebuild holding the one concurrent execution
    timeout = cfn["Resources"]["RebuildFunction"]["Properties"]["Timeout"]
    assert props["MaximumRecordAgeInSeconds"] > timeout
    assert props["MaximumRetryAttempts"] >= 1
    assert cfn["Resources"]["RebuildFunction"]["Properties"]["ReservedConcurrentExecutions"] == 1


def test_the_window_keeps_an_urgent_change_within_its_targets(cfn: Template) -> None:
    window = cfn["Parameters"]["UrgentBatchingWindowSeconds"]
    # typical: half the ingest window, the whole urgent window, the run, half the edge caches
    assert window["MaxValue"] <= 15 and window["MinValue"] == 0
    assert window["MinValue"] <= window["Default"] <= window["MaxValue"]


def test_the_mapping_and_its_queue_and_alarm_go_with_the_switch(cfn: Template) -> None:
    for name in ("UrgentChangeMapping", "UrgentRunFailureQueue", "UrgentRunFailureAlarm"):
        assert cfn["Resources"][name]["Condition"] == "PublishesUrgently", name
    alarm = cfn["Resources"]["UrgentRunFailureAlarm"]["Properties"]
    assert alarm["Dimensions"] == [
        {"Name": "QueueName", "Value": {"Fn::GetAtt": ["UrgentRunFailureQueue", "QueueName"]}}
    ]
    queue = cfn["Resources"]["UrgentRunFailureQueue"]["Properties"]
    assert queue["SqsManagedSseEnabled"] is True


def test_its_grants_are_on_its_own_stream_and_failure_queue_alone(cfn: Template) -> None:
    urgent = [s["Fn::If"] for s in statements(cfn) if "Fn::If" in s]
    granted = {json.dumps(s[1]["Resource"]): s[1]["Action"] for s in urgent}
    assert all(s[0] == "PublishesUrgently" and s[2] == {"Ref": "AWS::NoValue"} for s in urgent)
    assert set(granted) == {
        json.dumps({"Fn::GetAtt": ["Table", "StreamArn"]}),
        json.dumps({"Fn::GetAtt": ["UrgentRunFailureQueue", "Arn"]}),
    }
    assert granted[json.dumps({"Fn::GetAtt": ["UrgentRunFailureQueue", "Arn"]})] == (
        "sqs:SendMessage"
    )


def _record(old: Item | None, new: Item | None) -> dict[str, Any]:
    images: dict[str, Any] = {}
    if old is not None:
        images["OldImage"] = old
    if new is not None:
        images["NewImage"] = new
    name = "MODIFY" if old and new else ("INSERT" if new else "REMOVE")
    return {"eventName": name, "eventSource": "aws:dynamodb", "dynamodb": images}


def _urgent(cfn: Template, record: dict[str, Any]) -> bool:
    filters = mapping(cfn)["Properties"]["FilterCriteria"]["Filters"]
    return any(matches(json.loads(f["Pattern"]), record) for f in filters)


ARTICLE = Page(
    url=f"{SITE}/news/a",
    news=News(
        publication=Publication(name="The Example Times", language="en"),
        publication_date="2026-11-20T12:00:00Z",
        title="Markets",
    ),
)
PLAIN = Page(url=f"{SITE}/page/1", lastmod="2026-11-20")


def test_the_filters_keep_news_and_deletes_of_listed_urls_only(cfn: Template) -> None:
    article = live_item(ARTICLE, "e1", "d1")
    edited = live_item(ARTICLE, "e2", "d2")
    plain = live_item(PLAIN, "e1", "d1")
    plain_edit = live_item(PLAIN, "e2", "d2")
    gone = tombstone_item(PLAIN.url, "e3", "d3", 2_000_000_000)
    gone_again = tombstone_item(PLAIN.url, "e4", "d4", 2_000_000_000)

    assert _urgent(cfn, _record(None, article))  # first publication
    assert _urgent(cfn, _record(article, edited))  # a new version of the article
    assert _urgent(cfn, _record(plain, article))  # a page that becomes an article
    assert _urgent(cfn, _record(plain, gone))  # a listed URL deleted
    assert _urgent(cfn, _record(article, tombstone_item(ARTICLE.url, "e3", "d3", 1)))

    assert not _urgent(cfn, _record(None, plain))
    assert not _urgent(cfn, _record(plain, plain_edit))
    assert not _urgent(cfn, _record(None, gone))  # a delete of a URL never listed
    assert not _urgent(cfn, _record(gone, gone_again))
    assert not _urgent(cfn, _record(gone, None))  # the tombstone's TTL expiry
