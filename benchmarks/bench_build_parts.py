"""Benchmark: where ``build``'s time goes, part by part, on one core.

    .venv/bin/python benchmarks/bench_build_parts.py                # 200,000 events, best of 3
    .venv/bin/python benchmarks/bench_build_parts.py --events 2000 --repeat 1 --mix normalizing

The events are ``bench_build.py``'s (``--mix``: typical or normalizing). The blocks of lines
``build`` hands its workers are judged here in one process, each part timed in turn as
``pipeline.fragment_spooling`` runs it: reading the lines of a block, decoding them into typed
structs (``ingest.wire``), deciding them together (``ingest.fast.batch``), the content digest and
ordering key, the URL hash, then the ``<url>`` fragment, space and bucket of each change, and
the block's spool frames, with the cycle collector paused as a worker pauses it. Each is
printed in µs an event, best of ``--repeat``, with the whole ``build`` of the same file in this
process with one job (the rest is resolving, rendering and writing the files). Last, the
judging in all against its floor measured in the same run: orjson decoding every line, the
floor ``bench_build.py`` gives build. The process is pinned to one CPU when the platform
allows it.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "layers" / "shared", ROOT / "tooling", ROOT / "benchmarks"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import orjson  # noqa: E402
from bench_build import MIXES, SITE, write_inputs  # noqa: E402

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP  # noqa: E402
from sitemap_updater.ingest.fast import decide_together, decided_keys  # noqa: E402
from sitemap_updater.ingest.wire import decode_change  # noqa: E402
from sitemap_updater.sections import SectionRules  # noqa: E402
from sitemap_updater.sites import Sites  # noqa: E402
from sitemap_updater.store.keys import url_hashes  # noqa: E402
from sitemap_updater.store.spaces import Layout  # noqa: E402
from sitemap_updater_local.inputs.sources import body_texts  # noqa: E402
from sitemap_updater_local.pipeline.fragment_spooling import _Collector  # noqa: E402
from sitemap_updater_local.pipeline.source_blocks import Block, source_work  # noqa: E402
from sitemap_updater_local.pipeline.static_build import build_static  # noqa: E402

PARTS = ("lines", "decode", "decide", "digest and key", "URL hash", "fragment", "frames")


def _judge_parts(blocks: list[tuple[Block, bytes]], layout: Layout) -> dict[str, float]:
    """Seconds of each part over every block (the fragment part: the collector's work on the
    decided changes, less the digests, keys and hashes it makes again)."""
    now = datetime.now(UTC)
    spent = dict.fromkeys(PARTS, 0.0)
    for block, text in blocks:
        started = time.perf_counter()
        lines = list(body_texts(text, block.name, block.first_line))
        marks = [time.perf_counter()]
        changes = [decode_change(line[1]) for line in lines if type(line) is tuple]
        lengths = [len(line[1]) for line in lines if type(line) is tuple]
        marks.append(time.perf_counter())
        batch = decide_together(changes, lengths, None, layout.sites, now)
        marks.append(time.perf_counter())
        decided_keys(batch.decided)
        marks.append(time.perf_counter())
        url_hashes([change[1] for change in batch.decided])
        marks.append(time.perf_counter())
        collector = _Collector(layout, DEFAULT_MAX_BYTES_PER_SITEMAP)
        collector.decided(batch.decided)
        marks.append(time.perf_counter())
        collector.finish()
        marks.append(time.perf_counter())
        steps = [marks[n] - marks[n - 1] for n in range(1, len(marks))]
        steps[4] -= steps[2] + steps[3]  # the collector made the digests, keys and hashes again
        for part, seconds in zip(PARTS, [marks[0] - started, *steps], strict=True):
            spent[part] += seconds
    return spent


def _best(measure: Callable[[], float], repeat: int) -> float:
    return min(measure() for _ in range(repeat))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
    parser.add_argument("--mix", choices=MIXES, default="typical")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    layout = Layout(Sites.parse(SITE), SectionRules(), "")
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="bench-parts-") as tmp:
        events = write_inputs(Path(tmp), args.events, args.mix).jsonl
        blocks = [(b, b.text()) for b in source_work(str(events)) if isinstance(b, Block)]
        raw = events.read_bytes().splitlines()
        best = dict.fromkeys(PARTS, float("inf"))
        gc.disable()  # as build's workers judge a block
        for _ in range(args.repeat):
            for part, seconds in _judge_parts(blocks, layout).items():
                best[part] = min(best[part], seconds)
        floor = _best(lambda: _timed(lambda: _decode_each(raw)), args.repeat)
        gc.enable()
        out = Path(tmp) / "out"
        whole = _best(
            lambda: _timed(lambda: build_static(str(events), Sites.parse(SITE), str(out))),
            args.repeat,
        )
    per_event = 1e6 / args.events
    print(
        f"load average {load}; {args.events:,} {args.mix} events, one core, best of {args.repeat}"
    )
    for part in PARTS:
        print(f"  {part:<15} {best[part] * per_event:6.2f} µs/event")
    judging = sum(best.values())
    print(f"  {'judging in all':<15} {judging * per_event:6.2f} µs/event")
    print(f"build in this process, one job: {whole * per_event:6.2f} µs/event ({whole:.2f} s)")
    print(f"floor, orjson decoding every line: {floor * per_event:6.2f} µs/event")
    print(f"RATIO judging / floor = {judging / floor:.2f}")
    return 0


def _decode_each(lines: list[bytes]) -> None:
    for line in lines:
        orjson.loads(line)


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
