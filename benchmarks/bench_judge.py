"""Benchmark: the ingest judge, per event, on one core.

    .venv/bin/python benchmarks/bench_judge.py                  # 20,000 events, best of 7
    .venv/bin/python benchmarks/bench_judge.py --events 2000 --repeat 3

The judge is ``sitemap_updater.ingest.events.decode_body``: one SQS message body in, the
normalized change (or the rejection) out; the contract parse, URL and lastmod normalization,
the content digest, the ordering key and the DynamoDB item-size check. The ingest function runs
it on every record, and ``build`` runs it on every line of a JSONL export.

The events are typical and already normalized: the demo's shop-and-magazine pages (lastmod,
changefreq, priority, hreflang alternates on a fifth of the pages, images on products and
posts), with ``occurred_at``, as a content system sends them. Each body is judged by the fast
path (``decode_body``) and by the careful path (``careful_decode_body``: the standard library's
JSON decoder, the reference the fast path must agree with), alternating, best of ``--repeat``;
the time per event of each and their ratio are printed. The target for the fast path is at most
10 µs an event. The fast path also judges the bodies for a deployment of three sites (``SITE_URL``
a list, the pages on its first site), and the ratio of the two is printed: a list of sites must
cost the judge nothing measurable. The process is pinned to one CPU when the platform allows it.

``--clock cpu`` times each pass by the CPU time of the thread instead of the wall clock: on a
machine other processes keep busy, the wall clock also counts the time they take the CPU from
the judge, and two versions compared side by side then differ by the load of the moment.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "layers" / "shared", ROOT / "tooling"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from sitemap_updater.ingest.events import (  # noqa: E402
    DecodedBody,
    careful_decode_body,
    decode_body,
)
from sitemap_updater.ingest.judged import ChangeEvent  # noqa: E402
from sitemap_updater.protocol.urls import Site  # noqa: E402
from sitemap_updater.sites import Sites  # noqa: E402
from sitemap_updater_local.demo_changes import page_at, upsert_event  # noqa: E402

SITE = "https://www.example.com"
THREE_SITES = f"{SITE},https://www.example.de,https://www.example.fr"
BASE = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)
TARGET_US = 10.0

Decoder = Callable[..., DecodedBody]


def bodies(count: int) -> list[str]:
    """``count`` typical upsert bodies, already in normalized form."""
    return [
        json.dumps(upsert_event(page_at(i, SITE), SITE, BASE + timedelta(seconds=i)))
        for i in range(count)
    ]


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


def time_pass(
    decode: Decoder,
    items: list[str],
    site: Site | Sites,
    now: datetime,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Seconds (of ``clock``) to judge every body once."""
    started = clock()
    for body in items:
        decode(body, sent_at=now, site=site, now=now)
    return clock() - started


def check(decode: Decoder, items: list[str], site: Site | Sites, now: datetime) -> None:
    for body in items:
        judged = decode(body, sent_at=now, site=site, now=now)
        if len(judged.items) != 1 or not isinstance(judged.items[0], ChangeEvent):
            raise RuntimeError(f"{decode.__name__} did not accept {body}: {judged}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000, help="events per pass")
    parser.add_argument("--repeat", type=int, default=7, help="passes of each path (best kept)")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="time passes by the wall clock, or by the CPU time of the judge's thread",
    )
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs")
    print(f"clock: {args.clock}")
    site = Site.parse(SITE)
    sites = Sites.parse(THREE_SITES)
    now = datetime.now(UTC)
    items = bodies(args.events)
    check(decode_body, items, site, now)
    check(careful_decode_body, items, site, now)
    check(decode_body, items, sites, now)
    passes: list[tuple[str, Decoder, Site | Sites]] = [
        ("fast", decode_body, site),
        ("careful", careful_decode_body, site),
        ("fast, 3 sites", decode_body, sites),
    ]
    best = {name: float("inf") for name, _, _ in passes}
    for _ in range(args.repeat):
        for name, decode, where in passes:
            best[name] = min(best[name], time_pass(decode, items, where, now, clock))
    per_event = {name: seconds / args.events * 1e6 for name, seconds in best.items()}
    for name in best:
        print(
            f"judge {name:<8} {args.events:,} events: best {best[name]:.3f} s "
            f"= {per_event[name]:6.2f} µs/event ({args.events / best[name]:,.0f} events/s)"
        )
    print(f"RATIO careful / fast = {per_event['careful'] / per_event['fast']:.2f}")
    print(f"RATIO fast, 3 sites / fast = {per_event['fast, 3 sites'] / per_event['fast']:.2f}")
    verdict = "met" if per_event["fast"] <= TARGET_US else "NOT met"
    print(f"target: at most {TARGET_US:.0f} µs/event on one core: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
