"""Every widget of the template's dashboard names a metric that the functions emit, in the
namespace and with the dimensions they emit it with.

The emitted metrics are not listed by hand: both functions of template.yaml run on the local
deployment (with IndexNow on, a change accepted, a stale one, a rejected one, a scheduled run
and a full rebuild) and their CloudWatch embedded-metric output is read back.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from tests.template.cfn import load_template

#: (namespace, metric name, dimensions as sorted (name, value) pairs)
Metric = tuple[str, str, tuple[tuple[str, str], ...]]


def emitted_metrics(lines: list[str]) -> set[Metric]:
    """The metrics of every EMF document among ``lines``."""
    found: set[Metric] = set()
    for line in lines:
        if not line.startswith('{"_aws"'):
            continue
        document = json.loads(line)
        for directive in document["_aws"]["CloudWatchMetrics"]:
            for names in directive["Dimensions"]:
                dimensions = tuple(sorted((name, str(document[name])) for name in names))
                for metric in directive["Metrics"]:
                    found.add((directive["Namespace"], metric["Name"], dimensions))
    return found


def dashboard_widgets() -> list[dict[str, Any]]:
    body = load_template()["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    # a parameter substituted into a number position: any number keeps the JSON valid
    document = json.loads(body.replace("${FreshnessAlarmSeconds}", "600"))
    widgets: list[dict[str, Any]] = document["widgets"]
    return widgets


def dashboard_rows() -> list[list[Any]]:
    """The metric rows of every metric widget of the dashboard, its ``${...}`` left as text
    (a row of one search expression aside: ``dashboard_searches``)."""
    return [
        row
        for widget in dashboard_widgets()
        for row in widget["properties"].get("metrics", [])
        if not isinstance(row[0], dict)
    ]


def dashboard_searches() -> list[tuple[str, set[str]]]:
    """(metric name, dimension names) of each ``SEARCH`` expression of the dashboard."""
    found = []
    for widget in dashboard_widgets():
        for row in widget["properties"].get("metrics", []):
            if isinstance(row[0], dict):
                expression = row[0]["expression"]
                schema = re.search(r"\{SitemapUpdater,([^}]*)\}", expression)
                name = re.search(r'MetricName="(\w+)"', expression)
                assert schema and name, expression
                found.append((name[1], set(schema[1].split(","))))
    return found


#: Run in a process of its own: Powertools reads the namespace and the service (the dimension)
#: when the shared package is first imported, which must happen under the template's settings,
#: as in Lambda (this test process imported it under the tests' namespace).
DEPLOYMENT_RUN = """
import json, sys
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.indexnow_endpoint import RecordingEndpoint

site = "https://www.example.com"

def event(path, at):
    return json.dumps({"action": "upsert", "url": site + path, "occurred_at": at})

with RecordingEndpoint() as endpoint:
    parameters = {
        "PublicBaseUrl": site,
        "IndexNowKey": "dashboard-key-01",
        "IndexNowEndpoint": endpoint.url,
    }
    with LocalDeployment(DEFAULT_TEMPLATE, site, parameters=parameters) as dep:
        dep.send([event("/a", "2026-01-05T08:00:00Z")])
        dep.drain()
        dep.rebuild()
        older = event("/a", "2026-01-05T07:00:00Z")
        rejected = json.dumps({"action": "upsert", "url": "ftp://elsewhere/x"})
        dep.send([older, event("/b", "2026-01-05T08:01:00Z"), rejected])
        dep.drain()
        dep.rebuild()
        dep.rebuild(full=True)
        lines = list(dep.output.tail)

# the observer, on the stand-ins of the site and the engines, with its section metrics on
from datetime import UTC, datetime, timedelta
from sitemap_updater_local.deployment.observed import observed_site
from sitemap_updater_local.standins.search_console import indexed

crawled = indexed(last_crawl=datetime.now(UTC) + timedelta(minutes=5))

with observed_site(articles=5, parameters={"SectionMetrics": "true"}) as observed:
    observed.console.default_inspection = lambda url: crawled
    observed.deployment.send(observed.page_changes(datetime.now(UTC)))
    observed.deployment.drain()
    observed.deployment.rebuild()
    observed.deployment.observe()
    lines += list(observed.deployment.output.tail)
sys.stdout.write(json.dumps(lines))
"""


@pytest.fixture(scope="module")
def emitted() -> set[Metric]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("POWERTOOLS_")}
    done = subprocess.run(
        [sys.executable, "-c", DEPLOYMENT_RUN],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    return emitted_metrics(json.loads(done.stdout))


def test_every_dashboard_widget_names_a_metric_the_functions_emit(emitted: set[Metric]) -> None:
    ours = {(ns, name, dims) for ns, name, dims in emitted if not ns.startswith("AWS/")}
    assert {name for _, name, _ in ours} >= {"AcceptedRecords", "FreshnessMaxSeconds"}
    rows = [row for row in dashboard_rows() if not row[0].startswith("AWS/")]
    assert rows
    for row in rows:
        namespace, name, *rest = row
        pairs = [value for value in rest if not isinstance(value, dict)]
        dimensions = tuple(sorted(zip(pairs[::2], pairs[1::2], strict=True)))
        assert (namespace, name, dimensions) in ours, (row, sorted(ours))


def test_every_search_of_the_dashboard_finds_a_metric_the_observer_emits(
    emitted: set[Metric],
) -> None:
    searches = dashboard_searches()
    assert searches
    for name, dimensions in searches:
        assert any(
            ns == "SitemapUpdater" and found == name and {d for d, _ in dims} == dimensions
            for ns, found, dims in emitted
        ), (name, dimensions)


def test_the_dashboard_has_the_observer_table_from_its_log() -> None:
    (table,) = [w for w in dashboard_widgets() if w["type"] == "log"]
    query = table["properties"]["query"]
    assert query.startswith("SOURCE '${ObserveLogGroup}'")
    assert "filter message = 'section figures'" in query and "by host, section" in query


def test_the_dashboard_shows_what_the_operations_page_promises() -> None:
    names = {row[1] for row in dashboard_rows()}
    assert names >= {
        "ApproximateNumberOfMessagesVisible",
        "ApproximateAgeOfOldestMessage",
        "AcceptedRecords",
        "StaleRecords",
        "RejectedRecords",
        "RunSeconds",
        "UrlsChanged",
        "UrlsPublished",
        "FreshnessMaxSeconds",
        "FeedGapFullRebuilds",
        "DriftRepaired",
        "IndexNowSubmitted",
        "IndexNowRejected",
        "IndexNowDropped",
        "IndexDownloadAgeHoursMax",
        "SearchConsoleErrors",
        "UnhealthyPercentLowerBoundMax",
        "IndexedDropPercentMax",
    }


def test_the_queue_widgets_watch_the_stacks_own_queues() -> None:
    queues = {
        value
        for row in dashboard_rows()
        if row[0] == "AWS/SQS"
        for value in row[2:]
        if isinstance(value, str) and value.startswith("${")
    }
    assert queues == {"${Queue.QueueName}", "${DeadLetterQueue.QueueName}"}
    template = load_template()
    for reference in queues:
        resource = re.fullmatch(r"\$\{(\w+)\.QueueName\}", reference)
        assert resource is not None
        assert template["Resources"][resource.group(1)]["Type"] == "AWS::SQS::Queue"
