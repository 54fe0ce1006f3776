"""Cost and freshness model: request counts measured on the local deployment, then scaled.

    python benchmarks/cost_model.py [--site-urls 10000] [--changes 347]

What it measures (every AWS request the real handlers make, counted with botocore events on the
session the handlers use; the emulator's own SQS plumbing is not counted):

1. A site of ``--site-urls`` URLs split into about as many shards as a 1,000,000-URL site has at
   the default cap (1,000,000 / 40,000 -> 32 leaves, since shards are hash prefixes), built once.
2. One five-minute slice of a day with 100,000 changes: ``--changes`` (100,000 / 288 = 347)
   single-change messages, drained through the ingest function, then one scheduled rebuild.

It prints the measured counters per change and per run, then the monthly estimate for a site of
1,000,000 URLs with 100,000 changes a day, at the list prices below (us-east-1, on-demand, checked
against the AWS pricing pages in November 2026):

* DynamoDB on-demand: $0.625 per million write request units, $0.125 per million read request
  units (an eventually consistent read of up to 4 KB is 0.5 RRU); storage $0.25 per GB-month.
* Lambda (arm64): $0.0000133334 per GB-second, $0.20 per million requests.
* S3 Standard: $0.005 per 1,000 PUT/LIST requests, $0.0004 per 1,000 GET requests.
* CloudFront invalidations: the first 1,000 paths a month are free, then $0.005 per path (a
  wildcard path counts as one).
* SQS standard queue: $0.40 per million requests (each 64 KB chunk of a payload is one request).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import boto3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tooling"))
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater_local.deployment import LocalDeployment  # noqa: E402

SITE = "https://www.example.com"
REAL_URLS = 1_000_000
REAL_CHANGES_PER_DAY = 100_000
RUNS_PER_DAY = 24 * 60 // 5
DAYS = 30
DEFAULT_CAP = 40_000
REAL_LEAVES = 2 ** math.ceil(math.log2(REAL_URLS / DEFAULT_CAP))

PRICE = {
    "wru": 0.625 / 1e6,
    "rru": 0.125 / 1e6,
    "ddb_storage_gb": 0.25,
    "gb_s": 0.0000133334,
    "lambda_req": 0.20 / 1e6,
    "s3_put": 0.005 / 1000,
    "s3_get": 0.0004 / 1000,
    "inval_path": 0.005,
    "sqs_req": 0.40 / 1e6,
}


class RequestCounter:
    """Counts every request made through one boto3 session, by ``service.Operation``."""

    def __init__(self, session: boto3.Session) -> None:
        self.counts: Counter[str] = Counter()
        session.events.register("before-call", self._count)

    def _count(self, model: Any, **_: Any) -> None:
        self.counts[f"{model.service_model.service_name}.{model.name}"] += 1

    def take(self) -> Counter[str]:
        taken, self.counts = self.counts, Counter()
        return taken


def _page(i: int, rng: random.Random) -> dict[str, Any]:
    return {
        "action": "upsert",
        "url": f"{SITE}/products/{i}-{rng.choice(['red', 'blue', 'green'])}-shoe",
        "lastmod": f"2026-11-{rng.randint(1, 20):02d}",
        "changefreq": "weekly",
        "priority": 0.5,
    }


def measure(site_urls: int, changes: int) -> dict[str, Any]:
    rng = random.Random(7)
    cap = max(1, math.ceil(site_urls / REAL_LEAVES * 1.25))
    pages = [_page(i, rng) for i in range(site_urls)]
    with LocalDeployment(site_url=SITE, parameters={"MaxUrlsPerSitemap": str(cap)}) as dep:
        counter = RequestCounter(boto3._get_default_session())
        dep.send(json.dumps(pages[i : i + 500]) for i in range(0, site_urls, 500))
        dep.drain()
        dep.rebuild_until_clean()
        leaves = len([k for k in dep.objects() if k.startswith("sitemap-r")])
        counter.take()

        changed = rng.sample(pages, changes)
        for page in changed:
            page["lastmod"] = "2026-11-21"
        started = time.perf_counter()
        dep.send(json.dumps(page) for page in changed)
        dep.drain()
        ingest_seconds = time.perf_counter() - started
        ingest = counter.take()
        started = time.perf_counter()
        run = dep.rebuild()
        rebuild_seconds = time.perf_counter() - started
        rebuild = counter.take()
    return {
        "site_urls": site_urls,
        "cap": cap,
        "leaves": leaves,
        "changes": changes,
        "ingest": dict(ingest),
        "ingest_seconds": ingest_seconds,
        "rebuild": dict(rebuild),
        "rebuild_seconds": rebuild_seconds,
        "run": {k: run[k] for k in ("shards_rebuilt", "dynamodb_items_read", "files")},
        "objects_written": len(run["objects_written"]),
        "invalidated_paths": len(run["invalidated_paths"]),
    }


def monthly(m: dict[str, Any], item_bytes: int, rebuild_s_per_item: float) -> dict[str, float]:
    """Scale the measured slice to 1M URLs / 100k changes a day, for 30 days."""
    runs = RUNS_PER_DAY * DAYS
    changes = REAL_CHANGES_PER_DAY * DAYS
    per_change_writes = (
        m["ingest"].get("dynamodb.PutItem", 0) + m["ingest"].get("dynamodb.UpdateItem", 0)
    ) / m["changes"]
    per_change_reads = m["ingest"].get("dynamodb.GetItem", 0) / m["changes"]
    dirty_share = m["run"]["shards_rebuilt"] / m["leaves"]
    items_per_run = REAL_URLS * dirty_share
    rru_per_run = items_per_run * item_bytes / 4096 * 0.5
    files_per_run = m["objects_written"] * REAL_LEAVES / m["leaves"]
    paths_per_run = m["invalidated_paths"] * REAL_LEAVES / m["leaves"]
    rebuild_gb_s = items_per_run * rebuild_s_per_item * 3008 / 1024
    ingest_gb_s = changes * (m["ingest_seconds"] / m["changes"]) * 512 / 1024
    est = {
        "dynamodb_write_units": changes * per_change_writes,
        "dynamodb_read_units": runs * rru_per_run + changes * per_change_reads * 0.5,
        "lambda_gb_seconds": runs * rebuild_gb_s + ingest_gb_s,
        "s3_puts": runs * files_per_run,
        "invalidation_paths_exact": runs * paths_per_run,
        "invalidation_paths_wildcard": float(runs),
        "sqs_requests": changes * 3.0,  # send + receive + delete
    }
    cost = {
        "dynamodb": est["dynamodb_write_units"] * PRICE["wru"]
        + est["dynamodb_read_units"] * PRICE["rru"]
        + REAL_URLS * item_bytes / 1e9 * PRICE["ddb_storage_gb"],
        "lambda": est["lambda_gb_seconds"] * PRICE["gb_s"]
        + (runs + changes / 20) * PRICE["lambda_req"],
        "s3": est["s3_puts"] * PRICE["s3_put"],
        "cloudfront_exact": max(0.0, est["invalidation_paths_exact"] - 1000) * PRICE["inval_path"],
        "cloudfront_wildcard": max(0.0, est["invalidation_paths_wildcard"] - 1000)
        * PRICE["inval_path"],
        "sqs": est["sqs_requests"] * PRICE["sqs_req"],
    }
    return {**est, **{f"usd_{k}": v for k, v in cost.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site-urls", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=REAL_CHANGES_PER_DAY // RUNS_PER_DAY)
    parser.add_argument(
        "--item-bytes",
        type=int,
        default=260,
        help="average URL item size in DynamoDB (attribute names + values)",
    )
    parser.add_argument(
        "--rebuild-seconds-per-item",
        type=float,
        default=None,
        help="Lambda seconds per URL item rebuilt (default: measured locally, "
        "which includes moto's own serialization and so overestimates)",
    )
    args = parser.parse_args()
    m = measure(args.site_urls, args.changes)
    per_item = args.rebuild_seconds_per_item or m["rebuild_seconds"] / max(
        1, m["run"]["dynamodb_items_read"]
    )
    print(json.dumps(m, indent=2))
    print(f"rebuild seconds per item read: {per_item * 1e6:.1f} us")
    est = monthly(m, args.item_bytes, per_item)
    print(
        f"\nMonthly, {REAL_URLS:,} URLs, {REAL_CHANGES_PER_DAY:,} changes/day, "
        f"{RUNS_PER_DAY} runs/day ({REAL_LEAVES} shards):"
    )
    for key, value in est.items():
        print(f"  {key:<32} {value:>16,.2f}")
    total_exact = sum(v for k, v in est.items() if k.startswith("usd_") and "wildcard" not in k)
    total_wild = sum(v for k, v in est.items() if k.startswith("usd_") and "exact" not in k)
    print(f"  {'usd_total (exact paths)':<32} {total_exact:>16,.2f}")
    print(f"  {'usd_total (InvalidationMaxPaths=1)':<32} {total_wild:>16,.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
