"""Benchmark: the rebuild's memory and time on the worst objects and items it can meet.

Prints, each measured in this run (tracemalloc peak, wall time):
  * a gzip bomb read back as a published file (it inflates to ``--bomb-mib`` MiB): the peak as a
    ratio to the read-back bound ``MAX_READ_BACK_BYTES`` (target <= 1.5, whatever the bomb's
    size), and the time;
  * a full rebuild's load and render of one leaf of large valid items (``--items`` items of
    ``--images`` image URLs each), split by bytes as the rebuild does, against the same leaf
    loaded whole (the URL cap alone, as before the byte bound): the ratio of the two peaks.

    .venv/bin/python benchmarks/bench_hostile_rebuild.py [--bomb-mib 1024] [--items 1000] \
        [--images 1200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP  # noqa: E402
from sitemap_updater.page.model import Image, Page  # noqa: E402
from sitemap_updater.protocol.limits import MAX_READ_BACK_BYTES  # noqa: E402
from sitemap_updater.protocol.render.fragments import (  # noqa: E402
    PublishedFormatError,
    fragments_of,
)
from sitemap_updater.protocol.urls import Site  # noqa: E402
from sitemap_updater.rebuild.inputs.spools import Spools  # noqa: E402
from sitemap_updater.rebuild.render import render_shard  # noqa: E402
from sitemap_updater.store.items import Item, live_item  # noqa: E402
from sitemap_updater.store.keys import url_hash  # noqa: E402

SITE = "https://www.example.com"
MIB = 1 << 20


def measured(work: Callable[[], object]) -> tuple[int, float]:
    """(tracemalloc peak bytes, wall seconds) of ``work()``."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        work()
        return tracemalloc.get_traced_memory()[1], time.perf_counter() - started
    finally:
        tracemalloc.stop()


def bomb(mib: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * MIB
    return b"".join(packer.compress(chunk) for _ in range(mib)) + packer.flush()


def read_back(body: bytes) -> None:
    try:
        fragments_of(body)
    except PublishedFormatError:
        return
    raise AssertionError("the bomb was read back")


def large_items(count: int, images: int) -> list[Item]:
    items = []
    for i in range(count):
        loc = f"{SITE}/gallery/{i}"
        entry = Page(url=loc, images=tuple(Image(f"{SITE}/img/{i}/{n}.jpg") for n in range(images)))
        items.append(live_item(entry, f"20260101T000000.000000Z#0#{url_hash(loc)}", "d"))
    return items


def rebuild_leaf(items: list[Item], max_bytes: int) -> None:
    """What a full rebuild does with one leaf: spool, load part by part, render each part."""
    site = Site.parse(SITE)
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        spools = Spools(Path(tmp), ["pages/r"], lambda _item: "pages/")
        spools.fill(iter(items), lambda: False)
        for part, loaded in spools.load("pages/r", 40_000, max_bytes):
            render_shard(
                part,
                loaded,
                site,
                max_urls=40_000,
                max_bytes=DEFAULT_MAX_BYTES_PER_SITEMAP,
                stylesheet=True,
            )
            del loaded


def print_bomb(mib: int) -> None:
    planted = bomb(mib)
    peak, seconds = measured(lambda: read_back(planted))
    print(
        f"gzip bomb: {len(planted) / MIB:.2f} MiB inflating to {mib} MiB; read-back peak "
        f"{peak / MIB:.1f} MiB = {peak / MAX_READ_BACK_BYTES:.2f} x the bound "
        f"({MAX_READ_BACK_BYTES / MIB:.0f} MiB; target <= 1.5), {seconds:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bomb-mib", type=int, default=1024)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--images", type=int, default=1200)
    args = parser.parse_args()

    print_bomb(args.bomb_mib)
    items = large_items(args.items, args.images)
    whole, whole_s = measured(lambda: rebuild_leaf(items, 1 << 62))
    split, split_s = measured(lambda: rebuild_leaf(items, DEFAULT_MAX_BYTES_PER_SITEMAP))
    print(
        f"leaf of {args.items} items x {args.images} images: peak {split / MIB:.0f} MiB split by "
        f"bytes ({split_s:.1f} s) vs {whole / MIB:.0f} MiB loaded whole ({whole_s:.1f} s): "
        f"ratio {split / whole:.2f}"
    )


if __name__ == "__main__":
    main()
