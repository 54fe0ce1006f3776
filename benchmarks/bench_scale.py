"""Benchmark: a full rebuild of 1,000,000 (and 10,000,000) URLs through the real rebuild path.

The URL items come from ``tests.helpers.synthetic.SyntheticSource`` in place of the
DynamoDB Scan; everything after the read is production code: ``RebuildService.run(full=True)``
spools the items to disk per shard, splits shards over the cap, renders and gzips every file,
puts them into S3 through the real publisher, writes the index and records the shard states,
lease and publish record in a DynamoDB table.

S3 and DynamoDB are a moto server in a process of its own (``moto.server.ThreadedMotoServer``
on 127.0.0.1, a free port), reached over HTTP as a Lambda reaches the real services, so the
bucket's objects are not counted as the rebuild's memory. Each size runs in a fresh measured
subprocess with a fresh server, so its peak memory (``ru_maxrss``) is its own and not inherited
from an earlier size.

    .venv/bin/python benchmarks/bench_scale.py                  # 1,000,000 URLs
    .venv/bin/python benchmarks/bench_scale.py --with-10m       # 1,000,000 then 10,000,000
    .venv/bin/python benchmarks/bench_scale.py --urls 200000 --urls 400000 [--cap 40000]

Prints one line per size (wall time, URLs/s, peak RSS of the measured process, files) and, when
several sizes ran, the peak-memory difference between the largest and the smallest (target: within
50 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "layers" / "shared", ROOT / "tooling", ROOT / "benchmarks"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from bench_rebuild import CREDENTIALS, client, moto_server, peak_rss_mb  # noqa: E402

from sitemap_updater.config import DEFAULT_MAX_URLS_PER_SITEMAP  # noqa: E402

SITE = "https://www.example.com"
TABLE = "bench-scale"
BUCKET = "bench-scale-bucket"
MEMORY_TOLERANCE_MB = 50.0


def _child(urls: int, cap: int, endpoint: str) -> dict[str, Any]:
    """One full rebuild of ``urls`` generated URLs in this process against the moto server at
    ``endpoint``; returns its figures."""
    os.environ.update({**CREDENTIALS, "POWERTOOLS_TRACE_DISABLED": "true"})
    from sitemap_updater.config import RebuildConfig
    from sitemap_updater.rebuild.runner import RebuildService
    from sitemap_updater_local.deployment import DEFAULT_TEMPLATE
    from sitemap_updater_local.deployment.stack.tables import create_template_table
    from tests.helpers.synthetic import SyntheticSource

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as spool:
        dynamodb = client("dynamodb", endpoint)
        create_template_table(dynamodb, DEFAULT_TEMPLATE, "Table", TABLE)
        s3 = client("s3", endpoint)
        s3.create_bucket(Bucket=BUCKET)
        config = RebuildConfig.from_env(
            {
                "TABLE_NAME": TABLE,
                "SITE_URL": SITE,
                "BUCKET_NAME": BUCKET,
                "MAX_URLS_PER_SITEMAP": str(cap),
                "TABLE_STREAM_ARN": dynamodb.describe_table(TableName=TABLE)["Table"][
                    "LatestStreamArn"
                ],
            }
        )
        source = SyntheticSource(urls, SITE)
        service = RebuildService(
            config,
            dynamodb=dynamodb,
            s3=s3,
            streams=client("dynamodbstreams", endpoint),
            cloudfront=None,
            owner="bench-scale",
            remaining_seconds=lambda: 1e9,
            source=source,
            spool_root=spool,
        )
        rss_before = peak_rss_mb()
        started = time.perf_counter()
        report = service.run(full=True)
        seconds = time.perf_counter() - started
        rss_peak = peak_rss_mb()
        keys = 0
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
            keys += len(page.get("Contents", []))
    if not report.complete or report.urls_published != urls:
        raise RuntimeError(f"incomplete rebuild: {report.to_dict()}")
    return {
        "urls": urls,
        "cap": cap,
        "seconds": round(seconds, 1),
        "urls_per_second": round(urls / seconds) if seconds else None,
        "files": report.files,
        "objects": keys,
        "shards_split": report.shards_split,
        "rss_before_mb": round(rss_before, 1),
        "peak_rss_mb": round(rss_peak, 1),
    }


def _run_size(urls: int, cap: int) -> dict[str, Any]:
    with moto_server() as endpoint:
        command = [sys.executable, __file__, "--child", "--urls", str(urls), "--cap", str(cap)]
        out = subprocess.run(
            [*command, "--endpoint", endpoint],
            check=True,
            capture_output=True,
            text=True,
        )
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--urls", type=int, action="append", help="URLs to rebuild (repeat for several sizes)"
    )
    parser.add_argument("--with-10m", action="store_true", help="also run 10,000,000 URLs")
    parser.add_argument(
        "--cap", type=int, default=DEFAULT_MAX_URLS_PER_SITEMAP, help="MAX_URLS_PER_SITEMAP"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--endpoint", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes: list[int] = args.urls or [1_000_000]
    if args.with_10m and 10_000_000 not in sizes:
        sizes.append(10_000_000)
    if args.child:
        print(json.dumps(_child(sizes[0], args.cap, args.endpoint)))
        return 0
    results = []
    for urls in sizes:
        figures = _run_size(urls, args.cap)
        results.append(figures)
        print(
            f"{urls:>11,} URLs: {figures['seconds']:8.1f} s wall "
            f"({figures['urls_per_second']:,} URLs/s), measured-process peak RSS "
            f"{figures['peak_rss_mb']:.1f} MB, "
            f"{figures['files']:,} sitemap files ({figures['shards_split']} splits), "
            f"cap {figures['cap']:,} (RSS {figures['rss_before_mb']:.1f} MB before the run)",
            flush=True,
        )
    if len(results) > 1:
        low = min(results, key=lambda r: r["urls"])
        high = max(results, key=lambda r: r["urls"])
        delta = high["peak_rss_mb"] - low["peak_rss_mb"]
        verdict = "flat" if delta <= MEMORY_TOLERANCE_MB else "NOT flat"
        print(
            f"peak RSS {high['urls']:,} vs {low['urls']:,} URLs: {delta:+.1f} MB "
            f"({verdict}; target within {MEMORY_TOLERANCE_MB:.0f} MB)"
        )
        return 0 if delta <= MEMORY_TOLERANCE_MB else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
