"""Benchmark: an entry whose elements all break a rule, as a page from the wild may hold them.

    .venv/bin/python benchmarks/bench_bad_elements.py               # 100 and 1,000 images
    .venv/bin/python benchmarks/bench_bad_elements.py --sizes 50 500

``build`` and ``backfill`` leave each bad element out and keep the page
(``make_entry_keeping_page``). For each size N it times that on a page of N images on a host
media may not live on (every one left out), against a floor measured in the same run:
``make_entry`` of the same page with N good images. It prints the ratio at each size, and how
much the ratio grows from the smallest size to the largest: judging the page again once per
element left out would make it grow with N (quadratic); judging each element alone once keeps
it flat. Target: the growth at most 2.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime

from sitemap_updater.page.model import Image
from sitemap_updater.protocol.entry import make_entry  # GONE
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import media_hosts_of
from sitemap_updater_local.pipeline.raw_entries import make_entry_keeping_page

SITE = Site.parse("https://www.example.com", media_hosts_of(""))
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
    good = tuple(Image(f"{LOC}/{n}.jpg") for n in range(size))
    bad = tuple(Image(f"https://cdn.example.net/{n}.jpg") for n in range(size))
    floor = _best(lambda: make_entry(SITE, loc=LOC, images=good, now=NOW), rounds)

    def keep() -> None:
        entry, dropped = make_entry_keeping_page(SITE, loc=LOC, images=bad, now=NOW)
        assert entry.images == () and len(dropped) == size

    ours = _best(keep, rounds)
    ratio = ours / floor
    print(
        f"{size:>6,} bad images left out: {ours * 1e3:8.2f} ms; floor (make_entry, {size:,} "
        f"good images) {floor * 1e3:8.2f} ms; ratio {ratio:.2f}"
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
