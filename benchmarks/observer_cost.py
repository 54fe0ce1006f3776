"""Cost of the search engine observer, measured on the local deployment and priced a month.

    .venv/bin/python benchmarks/observer_cost.py [--json] [--sections 5] [--hosts 1]

One observer run of template.yaml's defaults (hourly, 1,500 Search Console calls a day per
property, 1,200 health checks a day per host, Search Console and Bing on) is measured on the
local deployment against the loopback stand-ins (``deployment.observed``): a site of
``--sections`` sections, the run at midnight UTC so that it spends a full 24th of the day's
budget. Counted with botocore events on the functions' session: every AWS request by
``service.Operation``, and the size of every item written and of every Query's answer. What
depends on the site's history (a section's observations of the window) is then taken at its
steady state: the day's distinct observations of a section times the window, at the measured
size of an observation item.

Priced a month (30 days of ``24 * 60 / ObserveIntervalMinutes`` runs), us-east-1 list prices:

* Lambda (arm64, 256 MB): a run waits on its paced health checks (``HealthRequestsPerSecond``,
  1 a second) and on Google's answers; an inspection is taken as :data:`INSPECTION_SECONDS`
  (Google does not publish its latency; the local stand-in answers in milliseconds), plus the
  handler's measured CPU. https://aws.amazon.com/lambda/pricing/
* DynamoDB on-demand: writes by item size (1 KB units; the day's budget counter, one update a
  call, and a section's history item of the day, which a run's entry lengthens: half a day's
  entries on average), Query reads eventually consistent (half a unit per 4 KB).
  https://aws.amazon.com/dynamodb/pricing/on-demand/
* Secrets Manager: $0.40 per secret a month and $0.05 per 10,000 API calls; the secrets are
  the distinct ARNs the deployment's two parameters name (one, shared by both engines, as
  docs/search-engines.md advises). https://aws.amazon.com/secrets-manager/pricing/
* CloudWatch: $0.30 per custom metric a month (the alarms' four; ``SectionMetrics=true`` adds
  11 a section and 3 a host), $0.10 per standard alarm a month (those four and the Errors
  alarm, on a metric Lambda sends for free), logs $0.50 per GB ingested.
  https://aws.amazon.com/cloudwatch/pricing/
* S3 GET: $0.0004 per 1,000. The engines' APIs cost nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tooling"))
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater_local.deployment.runtime import FunctionOutput  # noqa: E402

# the functions' logger binds the stdout of its first import (see cost_model.py)
with FunctionOutput().capture():
    from sitemap_updater.observe.records import WINDOW_DAYS
    from sitemap_updater.observe.signals import ALARM_METRICS, HOST_METRICS, SECTION_METRICS
    from sitemap_updater.store.items import item_size
    from sitemap_updater_local.deployment.clock import SimulatedClock
    from sitemap_updater_local.deployment.observed import observed_site
    from sitemap_updater_local.standins.search_console import indexed

#: Google's answer to one URL inspection, taken as this long (an assumption, see above)
INSPECTION_SECONDS = 0.5
DAYS = 30
MEMORY_GB = 256 / 1024
PRICE = {
    "gb_s": 0.0000133334,
    "lambda_req": 0.20 / 1e6,
    "wru": 0.625 / 1e6,
    "rru": 0.125 / 1e6,
    "secret_month": 0.40,
    "secret_call": 0.05 / 10_000,
    "metric_month": 0.30,
    "alarm_month": 0.10,
    "log_gb": 0.50,
    "s3_get": 0.0004 / 1000,
}
MIDNIGHT = datetime(2026, 11, 27, tzinfo=UTC)
#: the observer's alarms: one on each of its metrics, and its function's Errors alarm
ALARMS = len(ALARM_METRICS) + 1


class _Meter:
    """Requests by operation, bytes written by item, bytes of Query answers, and the history
    entries appended (whose item's size depends on the hour: priced in ``model``)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.write_units = 0.0
        self.query_bytes = 0
        self.history_entries: list[int] = []

    def before(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        name = f"{model.service_model.service_name}.{model.name}"
        self.calls[name] += 1
        if model.name == "PutItem":
            self.write_units += math.ceil(item_size(params["Item"]) / 1024)
        elif model.name == "UpdateItem":
            entry = params.get("ExpressionAttributeValues", {}).get(":entry")
            if entry is not None:
                self.history_entries.append(item_size({"e": entry}))
            else:
                self.write_units += 1  # the day's budget counter and the exclusion marks

    def after(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        if model.name == "Query":
            self.query_bytes += sum(item_size(item) for item in parsed.get("Items", []))


def _events(sections: int, articles: int) -> list[str]:
    """An upsert of each article, an hour apart, spread over ``sections`` sections."""
    return [
        json.dumps(
            {
                "action": "upsert",
                "url": url,
                "occurred_at": (MIDNIGHT - timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "lastmod": (MIDNIGHT - timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "section": f"section-{i % sections}",
            }
        )
        for i, url in enumerate(articles_of(articles))
    ]


def articles_of(count: int) -> list[str]:
    return [f"{_ORIGIN[0]}/articles/{n}" for n in range(1, count + 1)]


_ORIGIN = [""]


def measure(sections: int) -> dict[str, Any]:
    """One run at midnight on a site of ``sections`` sections of 40 articles each."""
    clock = SimulatedClock(MIDNIGHT)
    articles = min(200, 40 * sections)
    with observed_site(articles=articles, clock=clock) as observed:
        _ORIGIN[0] = observed.site.url
        dep = observed.deployment
        dep.send(_events(sections, articles))
        dep.drain()
        dep.rebuild_until_clean()
        observed.console.default_inspection = lambda url: indexed(last_crawl=MIDNIGHT)
        meter = _Meter()
        session = boto3.DEFAULT_SESSION
        assert session is not None
        session.events.register("before-parameter-build", meter.before)
        session.events.register("after-call", meter.after)
        output_before = len(dep.output.tail)
        started = time.process_time()
        report = dep.observe()
        cpu = time.process_time() - started
        log_bytes = sum(len(line) + 1 for line in list(dep.output.tail)[output_before:])
        secrets = {
            dep.parameters.get(name, "") for name in ("SearchConsoleSecretArn", "BingSecretArn")
        }
        observations = [
            item_size(item)
            for item in dep.dynamodb.scan(TableName=dep.stack.tables["StateTable"])["Items"]
            if item["pk"]["S"].startswith("observe#url#")
        ]
    return {
        "sections": sections,
        "secrets": len(secrets - {""}),
        "calls": dict(sorted(meter.calls.items())),
        "write_units": meter.write_units,
        "query_bytes": meter.query_bytes,
        "observation_item_bytes": round(sum(observations) / len(observations)),
        "observations_written": len(observations),
        "inspected": report["inspected"],
        "health_checks": report["health_checks"],
        "search_console_calls": sum(c["calls"] for c in report["search_console_calls"].values()),
        "history_entries": len(meter.history_entries),
        "history_entry_bytes": max(meter.history_entries, default=0),
        "handler_cpu_seconds": round(cpu, 3),
        "log_bytes": log_bytes,
    }


def model(measured: dict[str, Any], hosts: int = 1, interval_minutes: int = 60) -> dict[str, Any]:
    """The monthly cost of ``hosts`` hosts like the measured one."""
    runs = DAYS * 24 * 60 / interval_minutes
    sections = measured["sections"]
    calls = measured["calls"]
    health_seconds = measured["health_checks"] / 1.0  # HealthRequestsPerSecond=1
    run_seconds = (
        health_seconds
        + measured["inspected"] * INSPECTION_SECONDS
        + measured["handler_cpu_seconds"]
    )
    # a section's observations of the window, at steady state: the run's distinct observations
    # of the section, every run of the window (a URL is drawn again after a day at the earliest)
    per_section = measured["observations_written"] / sections * 24 * 60 / interval_minutes
    window_bytes = per_section * WINDOW_DAYS * measured["observation_item_bytes"]
    query_rru = sections * math.ceil(window_bytes / 4096) * 0.5
    # each section's history item of the day grows by an entry a run: half a day of them on
    # average, billed whole at each append
    runs_a_day = 24 * 60 / interval_minutes
    day_item_bytes = measured["history_entry_bytes"] * (runs_a_day + 1) / 2 + 100
    history_wru = measured["history_entries"] * math.ceil(day_item_bytes / 1024)
    secrets = measured["secrets"]
    secret_calls = calls.get("secretsmanager.GetSecretValue", 0)
    usd = {
        "lambda": hosts * runs * run_seconds * MEMORY_GB * PRICE["gb_s"]
        + runs * PRICE["lambda_req"],
        "dynamodb": hosts
        * runs
        * ((measured["write_units"] + history_wru) * PRICE["wru"] + query_rru * PRICE["rru"]),
        "secrets_manager": secrets * PRICE["secret_month"]
        + runs * secret_calls * PRICE["secret_call"],
        "cloudwatch_metrics": len(ALARM_METRICS) * PRICE["metric_month"],
        "cloudwatch_alarms": ALARMS * PRICE["alarm_month"],
        "cloudwatch_logs": hosts * runs * measured["log_bytes"] / 1e9 * PRICE["log_gb"],
        "s3": hosts * runs * calls.get("s3.GetObject", 0) * PRICE["s3_get"],
    }
    section_metrics = hosts * (sections * len(SECTION_METRICS) + len(HOST_METRICS))
    return {
        "hosts": hosts,
        "runs_per_month": runs,
        "run_seconds": round(run_seconds, 1),
        "query_rru_per_run": query_rru,
        "usd_per_month": {k: round(v, 2) for k, v in usd.items()},
        "total_usd_per_month": round(sum(usd.values()), 2),
        "section_metrics_usd_per_month": round(section_metrics * PRICE["metric_month"], 2),
        "measured": measured,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--sections", type=int, default=5, help="sections of the site (5)")
    parser.add_argument("--hosts", type=int, default=1, help="hosts like it (1)")
    args = parser.parse_args()
    priced = model(measure(args.sections), args.hosts)
    if args.json:
        print(json.dumps(priced))
        return 0
    m = priced["measured"]
    print(
        f"observer, {args.hosts} host(s) of {args.sections} sections, hourly: "
        f"{m['search_console_calls']} Search Console calls, {m['health_checks']} health checks "
        f"a run; {priced['run_seconds']} s a run ({INSPECTION_SECONDS} s an inspection assumed)"
    )
    for service, usd in priced["usd_per_month"].items():
        print(f"  {service:<20} ${usd:>6.2f} a month")
    print(f"  {'total':<20} ${priced['total_usd_per_month']:>6.2f} a month")
    print(f"  SectionMetrics=true would add ${priced['section_metrics_usd_per_month']:.2f} a month")
    print("  AWS requests a run: " + ", ".join(f"{k} {v}" for k, v in m["calls"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
