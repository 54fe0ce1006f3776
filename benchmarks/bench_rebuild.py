"""Benchmark: full rebuild of N URLs in moto, against merely paging through the same items.

Prints
  * the full rebuild's wall time as a ratio to a plain boto3 Scan paging loop (target <= 1.5),
  * the peak memory the full rebuild allocates (tracemalloc, target < 250 MB) and the
    process's RSS high-water mark (which also holds moto's in-memory table),
  * for a 1-URL change afterwards: the DynamoDB items read and the objects written.

    .venv/bin/python benchmarks/bench_rebuild.py [--urls 200000] [--segments 8] [--cap 40000]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

import boto3  # noqa: E402
from moto import mock_aws  # noqa: E402

from sitemap_updater.config import RebuildConfig  # noqa: E402
from sitemap_updater.protocol import Entry  # noqa: E402
from sitemap_updater.rebuild import RebuildService, RunReport  # noqa: E402
from sitemap_updater.store.items import live_item  # noqa: E402
from sitemap_updater.store.keys import hash_bits, shard_key, url_hash  # noqa: E402

SITE = "https://www.example.com"
TABLE = "bench-sitemap"
BUCKET = "bench-sitemap-bucket"
REGION = "us-east-1"


def _setup() -> tuple[Any, Any]:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket=BUCKET)
    return dynamodb, s3


def _entry(i: int, day: int = 1) -> Entry:
    return Entry(
        loc=f"{SITE}/products/{i}/item-{i * 7919 % 100_003}",
        lastmod=f"2024-05-{day:02d}",
        changefreq="weekly",
        priority=0.5,
    )


def _item(entry: Entry) -> dict[str, Any]:
    digest = hashlib.sha256(repr(entry).encode()).hexdigest()
    return live_item(entry, f"20240501T000000.000000Z#0#{digest}", digest)


def _populate(dynamodb: Any, n: int) -> None:
    batch: list[dict[str, Any]] = []
    for i in range(n):
        batch.append({"PutRequest": {"Item": _item(_entry(i))}})
        if len(batch) == 25 or i == n - 1:
            request: dict[str, Any] = {TABLE: batch}
            while request:
                request = dynamodb.batch_write_item(RequestItems=request).get(
                    "UnprocessedItems", {}
                )
            batch = []


def _plain_scan(dynamodb: Any) -> int:
    count = 0
    kwargs: dict[str, Any] = {"TableName": TABLE}
    while True:
        page = dynamodb.scan(**kwargs)
        count += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            return count
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _service(dynamodb: Any, s3: Any, segments: int, cap: int) -> RebuildService:
    config = RebuildConfig.from_env(
        {
            "TABLE_NAME": TABLE,
            "SITE_URL": SITE,
            "BUCKET_NAME": BUCKET,
            "FULL_REBUILD_SEGMENTS": str(segments),
            "RETIRE_GRACE_SECONDS": "86400",
            "MAX_URLS_PER_SITEMAP": str(cap),
        }
    )
    return RebuildService(
        config,
        dynamodb=dynamodb,
        s3=s3,
        cloudfront=None,
        owner=f"bench-{time.monotonic_ns()}",
        remaining_seconds=lambda: 900.0,
    )


def _rss_mb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=200_000, help="URLs in the table")
    parser.add_argument("--segments", type=int, default=8, help="parallel Scan segments")
    parser.add_argument("--cap", type=int, default=40_000, help="MAX_URLS_PER_SITEMAP (shard cap)")
    parser.add_argument(
        "--no-memory", action="store_true", help="skip the tracemalloc pass (it is slower)"
    )
    args = parser.parse_args(argv)
    for name, value in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        os.environ.setdefault(name, value)

    with mock_aws():
        dynamodb, s3 = _setup()
        started = time.perf_counter()
        _populate(dynamodb, args.urls)
        print(f"populated {args.urls:,} URLs in {time.perf_counter() - started:.1f} s")

        started = time.perf_counter()
        scanned = _plain_scan(dynamodb)
        scan_seconds = time.perf_counter() - started
        print(f"plain Scan paging loop: {scanned:,} items in {scan_seconds:.2f} s")

        started = time.perf_counter()
        full: RunReport = _service(dynamodb, s3, args.segments, args.cap).run(full=True)
        full_seconds = time.perf_counter() - started
        print(
            f"full rebuild: {full.files} files, {full.urls_published:,} URLs, "
            f"{full.shards_split} splits, {full.dynamodb_items_read:,} items read "
            f"in {full_seconds:.2f} s"
        )
        print(
            f"RATIO full rebuild / plain scan = {full_seconds / scan_seconds:.2f} (target <= 1.5)"
        )

        if not args.no_memory:
            tracemalloc.start()
            _service(dynamodb, s3, args.segments, args.cap).run(full=True)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print(f"PEAK MEMORY allocated by a full rebuild: {peak / 2**20:.1f} MB (target < 250)")
        print(f"process RSS high-water mark (includes moto's table): {_rss_mb():.0f} MB")

        changed = _entry(12345, day=20)
        dynamodb.put_item(TableName=TABLE, Item=_item(changed))
        uh = url_hash(changed.loc)
        shard_map = _service(dynamodb, s3, args.segments, args.cap).store.load_map()
        leaf = next(s for s in shard_map.leaves if hash_bits(uh, len(s) - 1) == s[1:])
        dynamodb.update_item(
            TableName=TABLE,
            Key={k: {"S": v} for k, v in shard_key(leaf).items()},
            UpdateExpression="ADD dirty_seq :one SET marked_at = :now",
            ExpressionAttributeValues={":one": {"N": "1"}, ":now": {"N": "0"}},
        )
        started = time.perf_counter()
        one = _service(dynamodb, s3, args.segments, args.cap).run()
        print(
            f"1-URL change: {one.dynamodb_items_read:,} items read, objects written "
            f"{one.objects_written} in {time.perf_counter() - started:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
