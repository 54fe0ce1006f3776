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


def dashboard_rows() -> list[list[Any]]:
    """The metric rows of every widget of the dashboard, its ``${...}`` left as text."""
    body = load_template()["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    # a parameter substituted into a number position: any number keeps the JSON valid
    document = json.loads(body.replace("${FreshnessAlarmSeconds}", "600"))
    return [row for widget in document["widgets"] for row in widget["properties"]["metrics"]]


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
        sys.stdout.write(json.dumps(list(dep.output.tail)))
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
