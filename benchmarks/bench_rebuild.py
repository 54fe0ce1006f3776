"""Benchmark: full rebuild of N URLs in moto, against merely paging through the same items.

moto runs as a server in a process of its own (``moto.server.ThreadedMotoServer`` on
127.0.0.1, a free port) and the boto3 clients reach it over HTTP, as a Lambda reaches DynamoDB
and S3: the table's items and the bucket's objects are not counted as this process's memory.
The server is moto as shipped.

Prints
  * the full rebuild's wall time as a ratio to a plain boto3 Scan paging loop (target <= 1.5),
  * the peak RSS of this (the measured) process across the full rebuild (target < 250 MB),
  * for a 1-URL change afterwards: the DynamoDB items read and the objects written,
  * unless ``--no-memory``: the peak memory a second full rebuild allocates (tracemalloc),
  * patching one file of the 1M-URL slice (``--slice-urls`` over the files a site of that size
    has at the default cap, ``--slice-changes`` spread over them) against its floor, inflating
    that file and deflating it again at the project's level (target <= 1.5),
  * one scheduled run's CPU on that slice: every touched file patched, plus the 1-URL run's CPU
    outside patching (target <= 1.5 s).

    .venv/bin/python benchmarks/bench_rebuild.py [--urls 200000] [--segments 8] [--cap 40000]
        [--slice-urls 1000000] [--slice-changes 347]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import math
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402
from zlib_ng import zlib_ng  # noqa: E402

from sitemap_updater.config import (  # noqa: E402
    DEFAULT_MAX_BYTES_PER_SITEMAP,
    DEFAULT_MAX_URLS_PER_SITEMAP,
    RebuildConfig,
)
from sitemap_updater.page.model import Page  # noqa: E402
from sitemap_updater.protocol.gzipio import DEFAULT_COMPRESSLEVEL, gzip_bytes  # noqa: E402
from sitemap_updater.protocol.urls import Site  # noqa: E402
from sitemap_updater.rebuild.patch import Recorded, patch_shard  # noqa: E402
from sitemap_updater.rebuild.render import render_shard  # noqa: E402
from sitemap_updater.rebuild.report import RunReport  # noqa: E402
from sitemap_updater.rebuild.runner import RebuildService  # noqa: E402
from sitemap_updater.rebuild.steps import incremental as incremental_step  # noqa: E402
from sitemap_updater.store.items import live_item  # noqa: E402
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE  # noqa: E402
from sitemap_updater_local.deployment.stack.tables import create_template_table  # noqa: E402

SITE = "https://www.example.com"
MAX_BYTES = DEFAULT_MAX_BYTES_PER_SITEMAP
TABLE = "bench-sitemap"
STATE_TABLE = "bench-sitemap-state"
BUCKET = "bench-sitemap-bucket"
REGION = "us-east-1"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": REGION,
}

#: Run in the server process: start moto on a free port, print the port, serve until stdin
#: closes (the benchmark ended or died), then exit at once, whatever request is in progress.
_SERVER_SCRIPT = """
import logging
import os
import sys
from moto.server import ThreadedMotoServer
logging.getLogger("werkzeug").setLevel(logging.ERROR)
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(server.get_host_and_port()[1], flush=True)
sys.stdin.read()
os._exit(0)
"""


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """A moto server in a child process for the duration of the block; yields its endpoint URL.

    The server exits when the block ends (its stdin is closed), or when this process dies.
    """
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER_SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **CREDENTIALS},
    )
    try:
        assert server.stdout is not None
        port = server.stdout.readline().strip()
        if not port.isdigit():
            raise RuntimeError(f"moto server did not start (exit code {server.poll()})")
        yield f"http://127.0.0.1:{port}"
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def client(service: str, endpoint: str) -> Any:
    """A boto3 client of ``service`` on the moto server at ``endpoint``."""
    return boto3.client(
        service,  # type: ignore[call-overload]
        region_name=REGION,
        endpoint_url=endpoint,
        # moto's Scan walks the table from its start for every page: slow pages, not lost ones
        config=Config(
            s3={"addressing_style": "path"}, retries={"mode": "standard"}, read_timeout=3600
        ),
    )


def peak_rss_mb() -> float:
    """This process's RSS high-water mark (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _setup(endpoint: str) -> tuple[Any, Any]:
    """The URL table with its stream and the rebuild's state table, as template.yaml has them."""
    dynamodb = client("dynamodb", endpoint)
    create_template_table(dynamodb, DEFAULT_TEMPLATE, "Table", TABLE)
    create_template_table(dynamodb, DEFAULT_TEMPLATE, "StateTable", STATE_TABLE)
    s3 = client("s3", endpoint)
    s3.create_bucket(Bucket=BUCKET)
    return dynamodb, s3


def _entry(i: int, day: int = 1) -> Page:
    return Page(
        url=f"{SITE}/products/{i}/item-{i * 7919 % 100_003}",
        lastmod=f"2024-05-{day:02d}",
        changefreq="weekly",
        priority=0.5,
    )


def _item(entry: Page) -> dict[str, Any]:
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


def _best_cpu(work: Any, repeat: int = 3) -> float:
    """The least CPU seconds ``work()`` took in ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def patch_against_floor(urls_in_file: int, changes: int) -> tuple[float, float]:
    """CPU seconds (best of 3) of patching one published file of ``urls_in_file`` URLs with
    ``changes`` changed entries, and of its floor: inflating the file and deflating the result
    at the project's level."""
    site = Site.parse(SITE)
    items = sorted((_item(_entry(i)) for i in range(urls_in_file)), key=lambda it: it["sk"]["S"])
    cap = max(DEFAULT_MAX_URLS_PER_SITEMAP, urls_in_file)
    [published] = render_shard("r", items, site, max_urls=cap, max_bytes=MAX_BYTES, stylesheet=True)
    body = published.body
    assert body is not None
    step = max(1, urls_in_file // changes)
    changed = {
        it["sk"]["S"]: it for it in (_item(_entry(i, day=20)) for i in range(0, urls_in_file, step))
    }
    changed = dict(list(changed.items())[:changes])
    patch = _best_cpu(
        lambda: patch_shard(
            "r",
            body,
            changed,
            site,
            max_urls=cap,
            max_bytes=MAX_BYTES,
            stylesheet=True,
            recorded=Recorded(published.url_count, published.newest_lastmod),
        )
    )
    floor = _best_cpu(lambda: gzip_bytes(zlib_ng.decompress(body, 16 + zlib_ng.MAX_WBITS)))
    return patch, floor


@contextlib.contextmanager
def patch_cpu_meter() -> Iterator[list[float]]:
    """CPU seconds of every ``patch_shard`` call an incremental run makes, while active."""
    spent: list[float] = []
    original = getattr(incremental_step, "patch_shard")  # noqa: B009 (not re-exported)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent.append(time.thread_time() - started)

    setattr(incremental_step, "patch_shard", timed)  # noqa: B010
    try:
        yield spent
    finally:
        setattr(incremental_step, "patch_shard", original)  # noqa: B010


def slice_figures(urls: int, changes: int, outside_patching: float) -> None:
    """Print patching against its floor and one scheduled run's CPU on the slice."""
    files = 2 ** max(0, math.ceil(math.log2(urls / DEFAULT_MAX_URLS_PER_SITEMAP)))
    per_file = round(urls / files)
    touched = round(files * (1 - (1 - 1 / files) ** changes))
    per_touched = max(1, round(changes / touched))
    patch, floor = patch_against_floor(per_file, per_touched)
    print(
        f"patching a file of {per_file:,} URLs with {per_touched} changes: {patch * 1000:.1f} ms "
        f"CPU; floor (inflate + deflate at level {DEFAULT_COMPRESSLEVEL}) {floor * 1000:.1f} ms"
    )
    print(f"RATIO patch / floor = {patch / floor:.2f} (target <= 1.5)")
    run_cpu = touched * patch + outside_patching
    print(
        f"scheduled run on the {urls:,}-URL slice ({changes} changes, {touched} of {files} "
        f"files patched): {touched} x {patch:.3f} s + {outside_patching:.3f} s outside patching "
        f"(the 1-URL run's) = {run_cpu:.2f} s CPU (target <= 1.5 s)",
        flush=True,
    )


def _service(dynamodb: Any, s3: Any, segments: int, cap: int) -> RebuildService:
    config = RebuildConfig.from_env(
        {
            "TABLE_NAME": TABLE,
            "SITE_URL": SITE,
            "BUCKET_NAME": BUCKET,
            "FULL_REBUILD_SEGMENTS": str(segments),
            "RETIRE_GRACE_SECONDS": "86400",
            "MAX_URLS_PER_SITEMAP": str(cap),
            "TABLE_STREAM_ARN": dynamodb.describe_table(TableName=TABLE)["Table"][
                "LatestStreamArn"
            ],
            "STATE_TABLE_NAME": STATE_TABLE,
        }
    )
    return RebuildService(
        config,
        dynamodb=dynamodb,
        s3=s3,
        streams=client("dynamodbstreams", str(dynamodb.meta.endpoint_url)),
        cloudfront=None,
        owner=f"bench-{time.monotonic_ns()}",
        remaining_seconds=lambda: 900.0,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=200_000, help="URLs in the table")
    parser.add_argument("--segments", type=int, default=8, help="parallel Scan segments")
    parser.add_argument(
        "--cap",
        type=int,
        default=DEFAULT_MAX_URLS_PER_SITEMAP,
        help="MAX_URLS_PER_SITEMAP (shard cap)",
    )
    parser.add_argument(
        "--no-memory", action="store_true", help="skip the tracemalloc pass (it is slower)"
    )
    parser.add_argument("--slice-urls", type=int, default=1_000_000, help="site of the slice")
    parser.add_argument("--slice-changes", type=int, default=347, help="changes in the slice")
    args = parser.parse_args(argv)
    for name, value in CREDENTIALS.items():
        os.environ.setdefault(name, value)

    with moto_server() as endpoint:
        print(f"moto server (a separate process) at {endpoint}")
        dynamodb, s3 = _setup(endpoint)
        started = time.perf_counter()
        _populate(dynamodb, args.urls)
        print(f"populated {args.urls:,} URLs in {time.perf_counter() - started:.1f} s", flush=True)

        started = time.perf_counter()
        scanned = _plain_scan(dynamodb)
        scan_seconds = time.perf_counter() - started
        print(f"plain Scan paging loop: {scanned:,} items in {scan_seconds:.2f} s", flush=True)

        rss_before = peak_rss_mb()
        started = time.perf_counter()
        full: RunReport = _service(dynamodb, s3, args.segments, args.cap).run(full=True)
        full_seconds = time.perf_counter() - started
        rss_peak = peak_rss_mb()
        print(
            f"full rebuild: {full.files} files, {full.urls_published:,} URLs, "
            f"{full.shards_split} splits, {full.dynamodb_items_read:,} items read "
            f"in {full_seconds:.2f} s"
        )
        print(
            f"RATIO full rebuild / plain scan = {full_seconds / scan_seconds:.2f} (target <= 1.5)"
        )
        print(
            f"PEAK RSS of the measured process over the full rebuild: {rss_peak:.1f} MB "
            f"(target < 250; {rss_before:.1f} MB before it; moto runs in its own process)",
            flush=True,
        )

        changed = _entry(12345, day=20)
        dynamodb.put_item(TableName=TABLE, Item=_item(changed))
        started = time.perf_counter()
        cpu = time.process_time()
        with patch_cpu_meter() as patching:
            one = _service(dynamodb, s3, args.segments, args.cap).run()
        one_cpu = time.process_time() - cpu
        print(
            f"1-URL change: {one.dynamodb_items_read:,} items read, objects written "
            f"{one.objects_written} in {time.perf_counter() - started:.2f} s, "
            f"{one_cpu:.2f} s CPU ({one.feed_records} stream records, "
            f"published files read back {one.s3_objects_read})",
            flush=True,
        )

        slice_figures(args.slice_urls, args.slice_changes, one_cpu - sum(patching))

        if not args.no_memory:
            tracemalloc.start()
            _service(dynamodb, s3, args.segments, args.cap).run(full=True)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print(
                f"PEAK MEMORY allocated by a full rebuild: {peak / 2**20:.1f} MB "
                "(tracemalloc, measured process only; target < 250)"
            )
        print(
            f"process RSS high-water mark (measured process only): {peak_rss_mb():.1f} MB"
            + ("" if args.no_memory else " (with tracemalloc's own bookkeeping in the second pass)")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
