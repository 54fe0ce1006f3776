"""Benchmark: the local flow grows linearly with the number of messages.

In one run, on the local deployment (template.yaml on moto, in this process):

  * ``simulate`` of one wave of N single-change messages, then of FACTOR x N: the ratio of their
    times (target: at most 12 for a factor of 10; O(n^2) would give 100). A wave is ingested
    through the event source mapping and published by the scheduled rebuild: its first run, a
    full rebuild, pages through the URL table with moto's Scan.
  * with ``--big N``, ``simulate`` of N single-change messages alone (no target).

Each figure is wall time and this process's CPU time (``time.process_time``): the machine may be
shared, and CPU time is what another process's load changes least.

    .venv/bin/python benchmarks/bench_local.py [--messages 2000] [--factor 10] [--big 100000]
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

from sitemap_updater_local.commands.simulate import simulate

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


def ratio_line(what: str, small: tuple[float, float], large: tuple[float, float]) -> str:
    wall, cpu = large[0] / small[0], large[1] / small[1]
    verdict = "met" if max(wall, cpu) <= RATIO_TARGET else "NOT met"
    return f"RATIO {what}: {wall:.2f} wall, {cpu:.2f} CPU (target <= {RATIO_TARGET:g}: {verdict})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2_000, help="the smaller wave")
    parser.add_argument("--factor", type=int, default=10, help="larger size / smaller size")
    parser.add_argument("--big", type=int, default=0, help="also simulate this many messages")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as out:  # not timed: loads the functions' modules once
        simulate([single_changes(10)], Path(out) / "site", site=SITE)
    small = run_simulate(args.messages)
    large = run_simulate(args.messages * args.factor)
    print(ratio_line(f"simulate {args.factor}x messages", small, large), flush=True)

    if args.big:
        run_simulate(args.big)
    return 0


if __name__ == "__main__":
    sys.exit(main())
