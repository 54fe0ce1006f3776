"""Benchmark: the local flow grows linearly with the number of messages and items.

In one run, on the local deployment (template.yaml on moto, in this process):

  * ``simulate`` of one wave of N single-change messages, then of FACTOR x N: the ratio of their
    times (target: at most 12 for a factor of 10; O(n^2) would give 100);
  * a plain Scan paging loop over the URL table holding M items, then FACTOR x M (target: at
    most 12 for a factor of 10);
  * with ``--big N``, ``simulate`` of N single-change messages alone (target for 100,000: under
    3 minutes).

Each figure is wall time and this process's CPU time (``time.process_time``): the machine may be
shared, and CPU time is what another process's load changes least.

    .venv/bin/python benchmarks/bench_local.py [--messages 2000] [--items 20000] [--factor 10]
        [--big 100000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater_local.commands.simulate import simulate  # noqa: E402
from sitemap_updater_local.deployment import LocalDeployment  # noqa: E402

SITE = "https://www.example.com"
#: what one run of a factor-10 size step may cost at most, as a multiple of the smaller run
RATIO_TARGET = 12.0


def single_changes(n: int) -> list[str]:
    """``n`` one-change message bodies, each a different URL."""
    return [
        json.dumps(
            {
                "action": "upsert",
                "url": f"{SITE}/catalogue/{i}/item-{i * 7919 % 100_003}",
                "lastmod": "2026-11-19",
                "changefreq": "weekly",
                "occurred_at": "2026-11-20T09:00:00Z",
            }
        )
        for i in range(n)
    ]


def timed(work: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, result) of ``work()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def run_simulate(n: int) -> tuple[float, float]:
    bodies = single_changes(n)
    with tempfile.TemporaryDirectory() as out:
        wall, cpu, report = timed(lambda: simulate([bodies], Path(out) / "site", site=SITE))
    accepted = report["waves"][0]["accepted"]
    if accepted != n:
        raise RuntimeError(f"simulate accepted {accepted} of {n} changes")
    print(f"simulate {n:>9,} messages: {wall:8.2f} s wall, {cpu:8.2f} s CPU", flush=True)
    return wall, cpu


def _populate(dep: LocalDeployment, n: int) -> None:
    batch: list[dict[str, Any]] = []
    for i in range(n):
        uh = f"{i * 2654435761 % 2**32:08x}{i:024x}"
        item = {
            "pk": {"S": f"u#{uh[0]}"},
            "sk": {"S": uh},
            "loc": {"S": f"{SITE}/catalogue/{i}"},
            "st": {"S": "live"},
            "ev": {"S": f"20261120T090000.000000Z#1#{uh}"},
            "digest": {"S": uh},
        }
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25 or i == n - 1:
            request: dict[str, Any] = {dep.table_name: batch}
            while request:
                request = dep.dynamodb.batch_write_item(RequestItems=request).get(
                    "UnprocessedItems", {}
                )
            batch = []


def _scan(dep: LocalDeployment) -> int:
    count = 0
    kwargs: dict[str, Any] = {"TableName": dep.table_name}
    while True:
        page = dep.dynamodb.scan(**kwargs)
        count += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            return count
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def run_scan(n: int) -> tuple[float, float]:
    with LocalDeployment(site_url=SITE) as dep:
        _populate(dep, n)
        wall, cpu, count = timed(lambda: _scan(dep))
    if count != n:
        raise RuntimeError(f"the Scan found {count} of {n} items")
    print(f"plain Scan {n:>9,} items:    {wall:8.2f} s wall, {cpu:8.2f} s CPU", flush=True)
    return wall, cpu


def ratio_line(what: str, small: tuple[float, float], large: tuple[float, float]) -> str:
    wall, cpu = large[0] / small[0], large[1] / small[1]
    verdict = "met" if max(wall, cpu) <= RATIO_TARGET else "NOT met"
    return f"RATIO {what}: {wall:.2f} wall, {cpu:.2f} CPU (target <= {RATIO_TARGET:g}: {verdict})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2_000, help="the smaller wave")
    parser.add_argument("--items", type=int, default=20_000, help="the smaller table")
    parser.add_argument("--factor", type=int, default=10, help="larger size / smaller size")
    parser.add_argument("--big", type=int, default=0, help="also simulate this many messages")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as out:  # not timed: loads the functions' modules once
        simulate([single_changes(10)], Path(out) / "site", site=SITE)
    small = run_simulate(args.messages)
    large = run_simulate(args.messages * args.factor)
    print(ratio_line(f"simulate {args.factor}x messages", small, large), flush=True)

    small = run_scan(args.items)
    large = run_scan(args.items * args.factor)
    print(ratio_line(f"plain Scan {args.factor}x items", small, large), flush=True)

    if args.big:
        wall, _ = run_simulate(args.big)
        verdict = "met" if wall < 180 else "NOT met"
        print(f"simulate {args.big:,} messages in {wall:.1f} s wall (target < 180 s: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
