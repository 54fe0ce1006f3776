"""Benchmark: an entry whose elements all break a rule, as a page from the wild may hold them.

    .venv/bin/python benchmarks/bench_bad_elements.py               # 100 and 1,000 images
    .venv/bin/python benchmarks/bench_bad_elements.py --sizes 50 500

``build`` and ``backfill`` leave each bad element out and keep the page (``judge_listing``,
leniently). For each size N it times that on a page of N images on a host media may not live on
(every one left out), against a floor measured in the same run: ``judge_listing`` of the same
page with N good images, strictly. It prints the ratio at each size, and how
much the ratio grows from the smallest size to the largest: judging the page again once per
element left out would make it grow with N (quadratic); judging each element alone once keeps
it flat. Target: the growth at most 2.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime

from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.page.normalize import Drops
from sitemap_updater.sites import Sites, media_hosts_of

SITES = Sites.parse("https://www.example.com", media_hosts_of(""))
LOC = "https://www.example.com/gallery"
NOW = datetime(2026, 11, 27, tzinfo=UTC)


def _best(run: Callable[[], object], rounds: int) -> float:
    """The fastest of ``rounds`` runs, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def measure(size: int, rounds: int) -> float:
    """The ratio of leaving out ``size`` bad images to judging ``size`` good ones."""
    good = [{"loc": f"{LOC}/{n}.jpg"} for n in range(size)]
    bad = [{"loc": f"https://cdn.example.net/{n}.jpg"} for n in range(size)]

    def strict() -> None:
        judged = judge_listing({"url": LOC, "images": good}, sites=SITES, now=NOW, drops=None)
        assert judged.page is not None and len(judged.page.images) == size

    floor = _best(strict, rounds)

    def keep() -> None:
        drops: Drops = []
        judged = judge_listing({"url": LOC, "images": bad}, sites=SITES, now=NOW, drops=drops)
        assert judged.page is not None and judged.page.images == () and len(drops) == size

    ours = _best(keep, rounds)
    ratio = ours / floor
    print(
        f"{size:>6,} bad images left out: {ours * 1e3:8.2f} ms; floor (judged strictly, "
        f"{size:,} good images) {floor * 1e3:8.2f} ms; ratio {ratio:.2f}"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000], metavar="N")
    parser.add_argument("--rounds", type=int, default=5, metavar="R")
    args = parser.parse_args()
    ratios = [measure(size, args.rounds) for size in sorted(args.sizes)]
    growth = ratios[-1] / ratios[0]
    verdict = "met" if growth <= 2 else "NOT met"
    print(f"RATIO growth from {min(args.sizes):,} to {max(args.sizes):,} = {growth:.2f} "
          f"(target <= 2: {verdict})")  # fmt: skip


if __name__ == "__main__":
    main()
