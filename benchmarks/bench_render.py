"""Render + gzip benchmark of the urlset writer (not a test; run it by hand or with `make bench`).

    python benchmarks/bench_render.py [--entries 1000000] [--compresslevel N] [--repeat 3]
                                      [--skip-memory] [--skip-levels]

Prints entries per second for rendering and gzipping ``--entries`` realistic entries into as many
50,000-URL files as needed, through ``UrlsetWriter.add_many`` (what ``render_urlset`` uses), and
the ratio of that time to a compressor alone gzipping the same uncompressed bytes at the same
level, in the same pieces, CRC included, against two compressors:

- stock zlib (Python's ``zlib`` module): the baseline the target is stated against;
- zlib-ng (the ``zlib-ng`` package), the compressor the writer uses: what is left of the ratio
  is the cost of rendering and checking the entries in Python.

Also the peak RSS of streaming 100,000 and ``--entries`` entries, each in its own subprocess so
the peaks are independent. Render and each compressor alone are timed as the best of
``--repeat`` runs, in wall time and in CPU time of this process (which leaves out the time other
processes hold the core); the load average is printed before and after, since the machine may
be shared. A table gives the gzip size and speed of every level of both compressors on the first
file. Targets: >= 500,000 entries/s, ratio (to stock zlib) <= 2.0, peak(1M) - peak(100k) <= 20 MB.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import io
import itertools
import json
import os
import random
import resource
import subprocess
import sys
import time
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from zlib_ng import zlib_ng  # noqa: E402

from sitemap_updater.page.model import Alternate, Image, Page  # noqa: E402
from sitemap_updater.protocol import UrlsetWriter  # GONE  # noqa: E402
from sitemap_updater.protocol.gzipio import DEFAULT_COMPRESSLEVEL, MEM_LEVEL, PIECE_BYTES  # noqa: E402
from sitemap_updater.protocol.limits import MAX_URLS  # noqa: E402
from sitemap_updater.protocol.urls import Site, normalize_url  # noqa: E402

SITE = Site.parse("https://www.example-shop.com")
WORDS = (
    "shoes", "boots", "red", "blue", "green", "summer", "winter", "sale", "men", "women",
    "kids", "outdoor", "running", "trail", "leather", "wool", "cotton", "jacket", "coat",
    "shirt", "dress", "bag", "hat", "gloves", "sport", "classic", "new", "vintage", "premium",
    "eco", "light", "heavy", "waterproof",
)  # fmt: skip
LANGS = ("de", "fr", "es", "it", "nl", "en-GB", "x-default")
CHANGEFREQS = ("daily", "weekly", "monthly")


def _path(rng: random.Random) -> str:
    depth = rng.choice((1, 2, 2, 3, 3, 4))
    parts = ["-".join(rng.choices(WORDS, k=rng.randint(1, 3))) for _ in range(depth)]
    tail = f"/{rng.randint(1, 10**7)}" if rng.random() < 0.6 else ""
    return "/" + "/".join(parts) + tail + ("/" if rng.random() < 0.3 else "")


def _query(rng: random.Random) -> str:
    # normalized form: < > " are already percent-encoded; & and ' stay and need XML escaping
    return rng.choice(
        (
            "?color=red&size={n}",
            "?q=men's+boots&page={n}",
            "?filter=%3Cnew%3E&sort=price&dir=asc&n={n}",
            "?ref=%22mail%22&utm_source=news&id={n}",
            "?a={n}&b='x'&c=%3Cy%3E",
        )
    ).format(n=rng.randint(1, 999))


def entries(count: int, seed: int = 7) -> Iterator[Page]:
    """``count`` varied, already-normalized entries (what make_entry would return)."""
    rng = random.Random(seed)
    origin = SITE.origin
    for _ in range(count):
        path = _path(rng)
        loc = origin + path + (_query(rng) if rng.random() < 0.2 else "")
        lastmod = None
        r = rng.random()
        if r < 0.6:
            lastmod = (
                f"20{rng.randint(18, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
            )
        elif r < 0.9:
            lastmod = f"20{rng.randint(18, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        alternates: tuple[Alternate, ...] = ()
        if rng.random() < 0.1:
            alternates = tuple(
                Alternate(lang, f"{origin}/{lang.lower()}{path}")
                for lang in rng.sample(LANGS, rng.randint(1, 3))
            )
        images: tuple[Image, ...] = ()
        if rng.random() < 0.05:
            images = tuple(
                Image(f"https://cdn.example-img.net/p/{rng.randint(1, 10**8)}.jpg")
                for _ in range(rng.randint(1, 4))
            )
        yield Page(
            url=loc,
            lastmod=lastmod,
            changefreq=rng.choice(CHANGEFREQS) if rng.random() < 0.3 else None,
            priority=rng.randint(0, 10) / 10 if rng.random() < 0.3 else None,
            alternates=alternates,
            images=images,
        )


class _Discard:
    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes, /) -> int:
        self.size += len(data)
        return len(data)


def render_all(items: Iterable[Page], level: int, keep: bool) -> tuple[list[bytes], int, int]:
    """Render into files of at most 50,000 URLs with ``UrlsetWriter.add_many`` (the path
    ``render_urlset`` takes); (gzip files if ``keep``, file count, gzip bytes)."""
    files: list[bytes] = []
    gz_bytes = 0
    count = 0
    stream = iter(items)
    for first in stream:
        sink: io.BytesIO | _Discard = io.BytesIO() if keep else _Discard()
        writer = UrlsetWriter(sink, SITE, compresslevel=level)
        writer.add_many(itertools.chain((first,), itertools.islice(stream, MAX_URLS - 1)))
        writer.close()
        count += 1
        if isinstance(sink, io.BytesIO):
            files.append(sink.getvalue())
            gz_bytes += len(files[-1])
        else:
            gz_bytes += sink.size
    return files, count, gz_bytes


def compressor_alone(
    plain_files: list[bytes], level: int, module: ModuleType = zlib
) -> tuple[float, float]:
    """Wall and CPU seconds ``module`` (``zlib`` or ``zlib_ng``) alone takes to gzip
    ``plain_files`` at ``level``, fed in the writer's pieces."""
    cpu_start = time.process_time()
    start = time.perf_counter()
    for data in plain_files:
        deflate = module.compressobj(level, module.DEFLATED, 16 + module.MAX_WBITS, MEM_LEVEL)
        for i in range(0, len(data), PIECE_BYTES):
            deflate.compress(data[i : i + PIECE_BYTES])
        deflate.flush()
    return time.perf_counter() - start, time.process_time() - cpu_start


def child_memory(count: int, level: int) -> None:
    """Stream ``count`` entries from a generator into discarded files; print peak RSS (KiB)."""
    render_all(entries(count), level, keep=False)
    print(json.dumps({"peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


def peak_rss(count: int, level: int) -> int:
    out = subprocess.run(
        [sys.executable, __file__, "--child-memory", str(count), "--compresslevel", str(level)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(json.loads(out.strip().splitlines()[-1])["peak_rss_kib"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--compresslevel", type=int, default=DEFAULT_COMPRESSLEVEL)
    parser.add_argument("--child-memory", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--skip-memory", action="store_true", help="only measure the speed")
    parser.add_argument("--skip-levels", action="store_true", help="no size table per level")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs of each measurement")
    args = parser.parse_args()
    level = args.compresslevel
    if args.child_memory:
        child_memory(args.child_memory, level)
        return 0

    # memory first: Linux keeps ru_maxrss across fork/exec, so the children must start from a
    # small parent (before the entry list below exists)
    if not args.skip_memory:
        small = peak_rss(100_000, level)
        large = peak_rss(args.entries, level)
        print(f"peak RSS 100k        {small / 1024:.1f} MiB")
        growth = (large - small) / 1024
        print(f"peak RSS {args.entries:,}  {large / 1024:.1f} MiB  (+{growth:.1f} MiB)", flush=True)
    print(f"generating {args.entries:,} entries ...", flush=True)
    items = list(entries(args.entries))
    for entry in items[:2000]:  # the generator produces what normalization would
        assert normalize_url(entry.url) == entry.url, entry.url
    print(f"load average         {_load()}  (other processes share the CPU)", flush=True)
    gc.collect()
    gc.disable()
    timings = []
    cpu_timings = []
    for _ in range(args.repeat):
        cpu_start = time.process_time()
        start = time.perf_counter()
        files, file_count, gz_bytes = render_all(items, level, keep=True)
        timings.append(time.perf_counter() - start)
        cpu_timings.append(time.process_time() - cpu_start)
    gc.enable()
    elapsed = min(timings)
    cpu = min(cpu_timings)
    plain = [gzip.decompress(f) for f in files]
    raw_bytes = sum(len(p) for p in plain)
    stock = [compressor_alone(plain, level, zlib) for _ in range(args.repeat)]
    used = [compressor_alone(plain, level, zlib_ng) for _ in range(args.repeat)]
    stock_wall, stock_cpu = min(run[0] for run in stock), min(run[1] for run in stock)
    used_wall, used_cpu = min(run[0] for run in used), min(run[1] for run in used)
    print(f"compresslevel        {level}")
    print(f"files                {file_count}")
    print(f"uncompressed bytes   {raw_bytes:,}  gzip bytes {gz_bytes:,}")
    for clock, mine, base, own in (
        ("wall", elapsed, stock_wall, used_wall),
        ("CPU ", cpu, stock_cpu, used_cpu),
    ):
        print(f"render+gzip          {clock} {mine:.3f} s  = {args.entries / mine:,.0f} entries/s")
        print(
            f"  stock zlib alone   {clock} {base:.3f} s  ratio {mine / base:.2f}"
            f"  (the target's baseline: Python's zlib, {zlib.ZLIB_RUNTIME_VERSION})"
        )
        print(
            f"  zlib-ng alone      {clock} {own:.3f} s  ratio {mine / own:.2f}"
            f"  (the writer's compressor, {zlib_ng.ZLIBNG_VERSION}: the rest is Python)"
        )
    if not args.skip_levels:
        first = plain[0]
        print(f"levels (first file, {len(first):,} bytes; CPU time, best of {args.repeat}):")
        for other in range(1, 10):
            cells = []
            for module in (zlib, zlib_ng):
                size = len(module.compress(first, other, wbits=31))
                took = min(
                    compressor_alone(plain[:1], other, module)[1] for _ in range(args.repeat)
                )
                speed = len(first) / took / 1e6
                cells.append(f"{size:>10,} bytes {size / len(first):6.2%} {speed:5.0f} MB/s")
            print(f"  level {other}  zlib {cells[0]}   zlib-ng {cells[1]}")
    print(f"load average         {_load()}")
    return 0


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
