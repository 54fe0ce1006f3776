"""Benchmark: the ingest judge, per event, on one core, against decoding the same bytes.

    .venv/bin/python benchmarks/bench_judge.py                  # 20,000 events, best of 7
    .venv/bin/python benchmarks/bench_judge.py --events 2000 --repeat 3

The judge is ``sitemap_updater.ingest.judge.judge_message``: one SQS message body in, each change
judged (or rejected) out: msgspec's typed decoding into the page structs, every field's
normalizer, the content digest, the ordering key and, for a long message, the item-size check.
The ingest function runs it on every record, and ``build`` on every line of a JSONL export.

The events are the upserts of ``bench_build.py``'s two mixes: "typical" (the demo's
shop-and-magazine pages, with lastmod, changefreq, priority, hreflang alternates on a fifth of
the pages, images on products and posts, and ``occurred_at``, already in normalized form) and
"normalizing" (more than a fifth of the URLs need normalizing: IRIs, spaces, upper-case hosts,
default ports; a fifth more carry a query string with ``&``). Each mix is judged as one change a
message, and as array messages of up to 500 changes and 256 KiB packed by the producer client's
packer (``producer.packing``). Each pass is measured against its floor in the same run: decoding
the same bodies with msgspec, untyped (into plain dicts and lists), nothing else; judge and
floor alternate, best of ``--repeat``, and the time per event of each and their ratio are
printed. The typical mix is also judged for a deployment of three sites (``SITE_URL`` a list,
the pages on its first site): the ratio to one site is printed. The process is pinned to one
CPU when the platform allows it.

``--clock cpu`` times each pass by the CPU time of the thread instead of the wall clock: on a
machine other processes keep busy, the wall clock also counts the time they take the CPU from
the judge, and two versions compared side by side then differ by the load of the moment.
"""

from __future__ import annotations

import argparse
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

import msgspec  # noqa: E402
from bench_build import MIXES, SITE, mixed_page  # noqa: E402

from sitemap_updater.ingest.judge import Change, judge_message  # noqa: E402
from sitemap_updater.producer.packing import ArrayPacker, encode_change  # noqa: E402
from sitemap_updater.sites import Sites  # noqa: E402
from sitemap_updater_local.demo_changes import upsert_event  # noqa: E402

THREE_SITES = f"{SITE},https://www.example.de,https://www.example.fr"
BASE = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)
#: The two ways a producer sends the changes: one a message, or packed into array messages.
SHAPES = ("message", "array")

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


def changes(count: int, mix: str) -> list[str]:
    """``count`` upserts of ``mix``, each as the compact JSON a producer sends."""
    return [
        encode_change(upsert_event(mixed_page(i, mix), SITE, BASE + timedelta(seconds=i)))
        for i in range(count)
    ]


def bodies(texts: list[str], shape: str) -> list[str]:
    """The message bodies that carry ``texts``: one each, or packed into arrays."""
    if shape == "message":
        return texts
    packer = ArrayPacker()
    for text in texts:
        packer.add(text, len(text.encode("utf-8")), {})
    return [body.text for body in packer.take()]


def check(items: list[str], sites: Sites, now: datetime, events: int) -> int:
    """Judges every body once; every change must be accepted. Returns how many of their URLs
    the judge normalized (changed from what was sent)."""
    judged = normalized = 0
    for body in items:
        judgement = judge_message(body, sent_at=now, sites=sites, now=now)
        sent = msgspec.json.decode(body)
        sent = sent if isinstance(sent, list) else [sent]
        for change, given in zip(judgement.items, sent, strict=True):
            if not isinstance(change, Change):
                raise RuntimeError(f"the judge did not accept {given}: {change}")
            normalized += change.url != given["url"]
            judged += 1
    if judged != events:
        raise RuntimeError(f"{judged} changes judged, expected {events}")
    return normalized


def judge_pass(items: list[str], sites: Sites, now: datetime, clock: Callable[[], float]) -> float:
    """Seconds (of ``clock``) to judge every body once."""
    started = clock()
    for body in items:
        judge_message(body, sent_at=now, sites=sites, now=now)
    return clock() - started


def floor_pass(items: list[str], clock: Callable[[], float]) -> float:
    """Seconds (of ``clock``) to decode every body once with msgspec, untyped: the floor."""
    loads = msgspec.json.Decoder().decode
    started = clock()
    for body in items:
        loads(body)
    return clock() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000, help="events per pass")
    parser.add_argument("--repeat", type=int, default=7, help="passes of each (best kept)")
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
    site, three = Sites.parse(SITE), Sites.parse(THREE_SITES)
    now = datetime.now(UTC)
    passes: dict[str, tuple[list[str], Sites]] = {}
    for mix in MIXES:
        texts = changes(args.events, mix)
        for shape in SHAPES:
            items = bodies(texts, shape)
            normalized = check(items, site, now, args.events)
            passes[f"{mix}, {shape}"] = (items, site)
            size = sum(map(len, items)) / len(items)
            print(
                f"{mix} mix, {shape}: {len(items):,} bodies of {size:,.0f} characters on average,"
                f" {normalized:,} of {args.events:,} URLs normalized by the judge"
            )
    passes["typical, message, 3 sites"] = (passes["typical, message"][0], three)
    check(*passes["typical, message, 3 sites"], now, args.events)
    best = {name: float("inf") for name in passes}
    floor = {name: float("inf") for name in passes}
    for _ in range(args.repeat):
        for name, (items, sites) in passes.items():
            best[name] = min(best[name], judge_pass(items, sites, now, clock))
            floor[name] = min(floor[name], floor_pass(items, clock))
    for name in passes:
        us, floor_us = best[name] / args.events * 1e6, floor[name] / args.events * 1e6
        print(
            f"judge {name:<26} {args.events:,} events: best {best[name]:.3f} s "
            f"= {us:6.2f} µs/event ({args.events / best[name]:,.0f} events/s)"
        )
        print(f"  floor, msgspec decoding the same bodies: {floor_us:6.2f} µs/event")
        print(f"RATIO judge / floor ({name}) = {us / floor_us:.2f}")
    ratio = best["typical, message, 3 sites"] / best["typical, message"]
    print(f"RATIO 3 sites / 1 site (typical, message) = {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
