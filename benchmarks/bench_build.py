"""Benchmark: ``sitemap-updater build`` and ``backfill`` end to end, run as a user runs them.

    .venv/bin/python benchmarks/bench_build.py                      # 1,000,000 and 100,000 entries
    .venv/bin/python benchmarks/bench_build.py --entries 200000 [--jobs 2] [--workdir DIR]
    .venv/bin/python benchmarks/bench_build.py --no-peers           # without the peer comparison

For N (``--entries``) and N/10, it first writes two inputs, streamed to disk line by line:

- ``events.jsonl``: N change events of the producer contract for a shop-and-magazine site (the
  demo's event shape: lastmod, changefreq, priority, hreflang alternates on a fifth of the pages,
  images on products and posts). Most lines publish a new page; every 10th edits a page published
  a little earlier and every 50th deletes one, so the build has to resolve last-writer-wins.
- ``export.csv``: a ``url,lastmod`` header and N rows, one page each.

It then runs the installed console script (``.venv/bin/sitemap-updater``, or ``--command``) as a
child process, one run at a time:

- ``build --from events.jsonl --site URL --out DIR``
- ``build --from export.csv --site URL --out DIR``
- ``backfill --from DIR/sitemap.xml --out FILE.jsonl``: the index the CSV build just wrote, whose
  children are gzipped sitemap files (a site's existing sitemaps, as a migration starts from)
- ``backfill --from export.csv --out FILE.jsonl``

For each run it prints the wall time, input entries per second, what it wrote (files for build,
events for backfill) and the child's peak RSS, read from the child's own resource usage
(``os.wait4``) once it has ended. Last, for each command, the peak RSS at N minus the peak at N/10:
memory that does not grow with the input (target: within 25 MiB). The published URL counts are
checked against what the generator made, so a run that drops entries fails instead of looking
fast. The load average is printed before and after, since the machine may be shared.

Then ``bench_backfill.py`` measures ``backfill``'s rate on build's own gzipped index of
``--backfill-entries`` URLs (200,000, or N if fewer; target: 100,000 entries a second).

Then, for each of two mixes of ``--peer-entries`` (200,000) events, the "typical" one above and a
"normalizing" one where more than a fifth of the URLs need normalizing (IRIs with non-ASCII paths,
spaces, upper-case hosts, default ports; a fifth more carry query strings with ``&``): build's
best time against its floor, measured on the same events in the same run: decoding every line
with orjson plus deflating build's output bytes at the project's gzip level, split over the same
number of processes as ``--jobs``. It prints build's time as a multiple of the floor (goal: at
most 4 on the typical mix).

With the peers (unless ``--no-peers``), the same events are built by ``sitemap-updater build``,
by sitemap.js (npm ``sitemap`` 9, ``SitemapAndIndexStream`` + gzip,
``benchmarks/peers/sitemapjs_build.cjs``) and by xml-sitemap-writer (PyPI,
``benchmarks/peers/xsw_build.py``), each a fresh process, alternating, best of ``--rounds`` (3).
The peers are installed from their registries into ``benchmarks/.peers/`` (git-ignored) on first
use, with ``npm install`` and ``pip install --target``. It prints the three times and two ratios
per mix: build's speed-up over each peer (goals: at least 2 over xml-sitemap-writer and 25 over
sitemap.js on both mixes). The peers write every upsert as it comes; neither
resolves edits and deletes, and xml-sitemap-writer neither normalizes nor validates.

Every command (ours and xml-sitemap-writer's Python) runs with Python's bytecode cache on, kept
in a temporary directory, as an installed command runs after its first start: with
``PYTHONDONTWRITEBYTECODE`` in the caller's environment each run would compile its modules again.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "layers" / "shared", ROOT / "tooling"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import bench_backfill  # noqa: E402
import orjson  # noqa: E402
from zlib_ng import zlib_ng  # noqa: E402

from sitemap_updater.protocol.gzipio import gzip_bytes  # noqa: E402
from sitemap_updater_local.demo_changes import (  # noqa: E402
    Page,
    delete_event,
    page_at,
    upsert_event,
)
from sitemap_updater_local.pipeline.fragment_spooling import default_jobs  # noqa: E402

SITE = "https://www.example.com"
#: Events are dated from here on, one second apart: a million lines stay in the past.
BASE = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)
MEMORY_TOLERANCE_MIB = 25.0
#: Every EDIT_EVERY-th line edits the page published EDIT_BACK pages earlier; every
#: DELETE_EVERY-th line deletes the page published DELETE_BACK pages earlier (after its edit).
EDIT_EVERY, EDIT_BACK = 10, 5
DELETE_EVERY, DELETE_BACK = 50, 37


@dataclass
class Inputs:
    """The generated files of one size and what a correct build must publish from them."""

    entries: int
    jsonl: Path
    csv: Path
    jsonl_live_urls: int


#: The two event mixes: "typical" (the demo's pages, their URLs already in normalized form) and
#: "normalizing", where more than a fifth of the URLs need normalizing (see :func:`mixed_page`).
MIXES = ("typical", "normalizing")


def mixed_page(i: int, mix: str) -> Page:
    """Page ``i`` of the mix. In the normalizing mix, by page number: a fifth have an IRI path
    (``café``, ``größe``), a tenth an upper-case host, a tenth the default port, a twentieth a
    space in the path, and another fifth a query string with ``&`` (already in normalized form).
    Host and port variants are never translated pages, so their alternates stay on the site."""
    page = page_at(i, SITE)
    if mix == "typical":
        return page
    head, _, slug = page.url.rpartition("/")
    if i % 5 == 1:
        url = f"{head}/café-größe-{slug}"
    elif i % 10 == 2:
        url = page.url.replace("https://www.example.com", "https://WWW.Example.COM")
    elif i % 10 == 7:
        url = page.url.replace("https://www.example.com", "https://www.example.com:443")
    elif i % 20 == 3:
        url = f"{head}/{slug.replace('-', ' ', 1)}"
    elif i % 5 == 4:
        url = f"{page.url}?colour=red&size={i % 7}"
    else:
        return page
    return replace(page, url=url)


def _events(entries: int, mix: str = "typical") -> Iterator[tuple[str, dict[str, object]]]:
    """(kind, event) per line: kind is "new", "edit" or "delete"."""
    published = 0
    for line in range(entries):
        moment = BASE + timedelta(seconds=line)
        if line % DELETE_EVERY == DELETE_EVERY - 1 and published > DELETE_BACK:
            yield "delete", delete_event(mixed_page(published - DELETE_BACK, mix), moment)
        elif line % EDIT_EVERY == EDIT_EVERY - 1 and published > EDIT_BACK:
            edited = mixed_page(published - EDIT_BACK, mix)
            yield "edit", upsert_event(edited, SITE, moment, revision=1)
        else:
            yield "new", upsert_event(mixed_page(published, mix), SITE, moment)
            published += 1


def write_inputs(directory: Path, entries: int, mix: str = "typical") -> Inputs:
    jsonl, csv = directory / "events.jsonl", directory / "export.csv"
    pages = deletes = 0
    with open(jsonl, "w", encoding="utf-8") as out:
        for kind, event in _events(entries, mix):
            out.write(json.dumps(event) + "\n")
            pages += kind == "new"
            deletes += kind == "delete"
    with open(csv, "w", encoding="utf-8") as out:
        out.write("url,lastmod\n")
        for i in range(entries):
            day = BASE + timedelta(seconds=20 * i)  # a million rows span about 7 months
            out.write(f"{page_at(i, SITE).url},{day:%Y-%m-%d}\n")
    return Inputs(entries, jsonl, csv, pages - deletes)


@dataclass
class Run:
    label: str
    entries: int
    seconds: float
    peak_rss_mib: float
    stdout: str
    wrote: str


def run_child(label: str, entries: int, argv: list[str], log: Path) -> Run:
    """Run ``argv`` to completion; its wall time and its own peak RSS (``os.wait4``)."""
    with open(log, "w+", encoding="utf-8") as out:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if child.returncode != 0:
        raise RuntimeError(f"{label}: exit {child.returncode}\n{' '.join(argv)}\n{text[-3000:]}")
    # Linux reports ru_maxrss in KiB
    return Run(label, entries, seconds, usage.ru_maxrss / 1024, text, "")


def _built_urls(run: Run) -> int:
    found = re.search(r"^(\d+) URLs from \d+ changes", run.stdout, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"{run.label}: no summary line in\n{run.stdout[-2000:]}")
    return int(found.group(1))


def _lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def measure_size(command: str, inputs: Inputs, work: Path, jobs: int) -> Iterator[Run]:
    """The four runs of one size, each checked against what its input must give."""
    site = ["--site", SITE]
    for kind, source, expected in (
        ("jsonl", inputs.jsonl, inputs.jsonl_live_urls),
        ("csv", inputs.csv, inputs.entries),
    ):
        out = work / f"site-{kind}"
        argv = [command, "build", "--from", str(source), *site, "--out", str(out)]
        run = run_child(f"build {kind}", inputs.entries, [*argv, "--jobs", str(jobs)], work / "log")
        urls = _built_urls(run)
        if urls != expected:
            raise RuntimeError(f"{run.label}: published {urls} URLs, expected {expected}")
        files = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
        run.wrote = f"{len(files):,} files ({len(files) - 1} gz + index), {urls:,} URLs"
        yield run
    index = work / "site-csv" / "sitemap.xml"
    for kind, source in (("index", index), ("csv", inputs.csv)):
        events = work / f"backfill-{kind}.jsonl"
        argv = [command, "backfill", "--from", str(source), "--out", str(events), "--no-progress"]
        run = run_child(f"backfill {kind}", inputs.entries, argv, work / "log")
        written = _lines(events)
        if written != inputs.entries:
            raise RuntimeError(f"{run.label}: wrote {written} events, expected {inputs.entries}")
        run.wrote = f"{written:,} events"
        events.unlink()
        yield run


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


PEERS = ROOT / "benchmarks" / "peers"
PEER_CACHE = ROOT / "benchmarks" / ".peers"
SITEMAP_JS = "sitemap@9"
XML_SITEMAP_WRITER = "xml-sitemap-writer==0.7.*"
#: The goals: build at most FLOOR_GOAL times its floor on the typical mix, and at least
#: XSW_GOAL times as fast as xml-sitemap-writer and SITEMAP_JS_GOAL times sitemap.js on both.
FLOOR_GOAL, XSW_GOAL, SITEMAP_JS_GOAL = 4.0, 2.0, 25.0


def install_peers() -> tuple[Path, Path]:
    """node_modules of sitemap.js and the side dir of xml-sitemap-writer, installed once."""
    npm_dir, pip_dir = PEER_CACHE / "npm", PEER_CACHE / "pip"
    if not (npm_dir / "node_modules" / "sitemap").is_dir():
        npm_dir.mkdir(parents=True, exist_ok=True)
        npm = ["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(npm_dir)]
        _install(SITEMAP_JS, npm)
    if not (pip_dir / "xml_sitemap_writer.py").is_file():
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(pip_dir)]
        _install(XML_SITEMAP_WRITER, pip)
    return npm_dir / "node_modules", pip_dir


def _install(peer: str, command: list[str]) -> None:
    """Install ``peer`` with ``command``; stops with one line when that fails (a registry out of
    reach, say), rather than a traceback."""
    try:
        subprocess.run([*command, peer], check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        raise SystemExit(
            f"could not install the peer {peer} ({error}); try again, or pass --no-peers"
        ) from None


#: One worker's share of the floor: events file, byte range of its lines, output files to deflate.
FloorPart = tuple[str, int, int, list[str]]


def _floor_part(part: FloorPart) -> int:
    """One worker's share of the floor: decode its lines of the events with orjson, deflate its
    output files' bytes at the project's level; returns the lines decoded."""
    events, start, end, outputs = part
    with open(events, "rb") as fh:
        fh.seek(start)
        lines = fh.read(end - start).splitlines()
    for line in lines:
        if line.strip():
            orjson.loads(line)
    for path in outputs:
        gzip_bytes(Path(path).read_bytes())
    return len(lines)


def floor_parts(events: Path, built: Path, jobs: int, work: Path) -> list[FloorPart]:
    """The floor's work for ``jobs`` workers: line-aligned byte ranges of ``events``, and the
    uncompressed bytes of every file build wrote (inflated here, before the clock starts)."""
    size = events.stat().st_size
    bounds = [0]
    with open(events, "rb") as fh:
        for k in range(1, jobs):
            fh.seek(max(bounds[-1], size * k // jobs))
            fh.readline()
            bounds.append(fh.tell())
    bounds.append(size)
    raw = work / "floor-raw"
    raw.mkdir(exist_ok=True)
    outputs: list[list[str]] = [[] for _ in range(jobs)]
    ordered = sorted(built.glob("*.xml.gz"), key=lambda p: -p.stat().st_size)
    for n, gz in enumerate(ordered):
        target = raw / gz.name.removesuffix(".gz")
        target.write_bytes(zlib_ng.decompress(gz.read_bytes(), 16 + zlib_ng.MAX_WBITS))
        outputs[n % jobs].append(str(target))
    return [(str(events), bounds[k], bounds[k + 1], outputs[k]) for k in range(jobs)]


def measure_floor(parts: list[FloorPart], rounds: int) -> float:
    """Best wall seconds of the floor's work split over ``len(parts)`` worker processes."""
    best = float("inf")
    with multiprocessing.get_context("fork").Pool(len(parts)) as pool:
        pool.map(abs, range(len(parts)))  # the workers exist before the clock starts
        for _ in range(rounds):
            started = time.perf_counter()
            pool.map(_floor_part, parts)
            best = min(best, time.perf_counter() - started)
    return best


def compare_peers(
    command: str, entries: int, rounds: int, jobs: int, work: Path, mix: str, peers: bool
) -> None:
    """Build (and, with ``peers``, sitemap.js and xml-sitemap-writer) on the same events of
    ``mix``, alternating, best of N; then the floor of the same events and of build's output."""
    node_modules, pip_dir = install_peers() if peers else (Path(), Path())
    events = work / "events.jsonl"
    expected = write_inputs(work, entries, mix).jsonl_live_urls
    runs = {
        "sitemap-updater build": (
            [
                command,
                "build",
                "--from",
                str(events),
                "--site",
                SITE,
                "--out",
                "{out}",
                "--jobs",
                str(jobs),
            ],
            None,
        ),
    }
    if peers:
        runs["sitemap.js"] = (
            ["node", str(PEERS / "sitemapjs_build.cjs"), str(events), "{out}", SITE],
            {"NODE_PATH": str(node_modules)},
        )
        runs["xml-sitemap-writer"] = (
            [sys.executable, str(PEERS / "xsw_build.py"), str(events), "{out}", SITE],
            {"PYTHONPATH": str(pip_dir)},
        )
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for n, (label, (argv, env)) in enumerate(runs.items()):
            out = work / f"out-{n}"
            shutil.rmtree(out, ignore_errors=True)
            with open(work / "log", "w+", encoding="utf-8") as log:
                started = time.perf_counter()
                subprocess.run(
                    [a.replace("{out}", str(out)) for a in argv],
                    stdout=log, stderr=subprocess.STDOUT, check=True,
                    env=None if env is None else {**os.environ, **env},
                )  # fmt: skip
                best[label] = min(best[label], time.perf_counter() - started)
                log.seek(0)
                found = re.search(r"^(\d+) URLs from", log.read(), re.MULTILINE)
            if n == 0 and (found is None or int(found.group(1)) != expected):
                raise RuntimeError(f"build of the {mix} mix did not publish {expected} URLs")
    for label, seconds in best.items():
        print(
            f"peer {label:<22} {mix} mix, {entries:,} events: best of {rounds} {seconds:7.2f} s "
            f"= {entries / seconds:>9,.0f} events/s"
        )
    ours = best["sitemap-updater build"]
    floor = measure_floor(floor_parts(events, work / "out-0", jobs, work), rounds)
    print(
        f"floor {mix} mix, {entries:,} events: {floor:.2f} s (orjson decoding of every line and "
        f"deflating build's output at the project's level, over {jobs} processes, best of {rounds})"
    )
    goal = f"goal <= {FLOOR_GOAL:g}" if mix == "typical" else "no goal on this mix"
    print(f"RATIO build / floor ({mix} mix) = {ours / floor:.2f} ({goal})")
    if peers:
        print(
            f"RATIO xml-sitemap-writer / build ({mix} mix) = "
            f"{best['xml-sitemap-writer'] / ours:.2f} (goal >= {XSW_GOAL:g})"
        )
        print(
            f"RATIO sitemap.js / build ({mix} mix) = {best['sitemap.js'] / ours:.2f} "
            f"(goal >= {SITEMAP_JS_GOAL:g})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000, help="N (also runs N/10)")
    parser.add_argument(
        "--jobs", type=int, default=default_jobs(), help="build --jobs (default: every core)"
    )
    parser.add_argument(
        "--command",
        default=str(ROOT / ".venv" / "bin" / "sitemap-updater"),
        help="the console script to run (default: the project's .venv)",
    )
    parser.add_argument("--workdir", help="where to write inputs and outputs (default: a temp dir)")
    parser.add_argument("--no-peers", action="store_true", help="skip the peer comparison")
    parser.add_argument("--peers-only", action="store_true", help="only the peer comparison")
    parser.add_argument("--peer-entries", type=int, default=200_000, help="events for the peers")
    parser.add_argument("--rounds", type=int, default=3, help="peer comparison: best of N")
    parser.add_argument(
        "--backfill-entries",
        type=int,
        help="bench_backfill.py's index: URLs (default: 200,000, or --entries if fewer)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-pycache-", dir=args.workdir) as cache:
        # every command runs with its bytecode cache on, as an installed one does
        os.environ.clear()
        os.environ.update(bench_backfill.command_env(Path(cache)))
        return _measure(args, parser)


def _measure(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.peers_only:
        compare_mixes(args, peers=not args.no_peers)
        return 0
    if args.entries < 100:
        parser.error(f"--entries {args.entries}: must be at least 100")
    sizes = [args.entries, args.entries // 10]
    print(_load(), flush=True)
    results: dict[int, list[Run]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-build-", dir=args.workdir) as tmp:
        for entries in sizes:
            work = Path(tmp) / str(entries)
            work.mkdir()
            started = time.perf_counter()
            inputs = write_inputs(work, entries)
            sizes_mib = [f.stat().st_size / 2**20 for f in (inputs.jsonl, inputs.csv)]
            print(
                f"inputs {entries:,} entries: events.jsonl {sizes_mib[0]:.0f} MiB, "
                f"export.csv {sizes_mib[1]:.0f} MiB "
                f"(written in {time.perf_counter() - started:.1f} s)",
                flush=True,
            )
            results[entries] = []
            for run in measure_size(args.command, inputs, work, args.jobs):
                results[entries].append(run)
                print(
                    f"{run.label:<14} {entries:>11,} entries: {run.seconds:8.1f} s wall "
                    f"= {entries / run.seconds:>9,.0f} entries/s, peak RSS "
                    f"{run.peak_rss_mib:6.1f} MiB, wrote {run.wrote}",
                    flush=True,
                )
            for path in work.iterdir():
                if path.is_file():
                    path.unlink()
    print(_load())
    big, small = results[sizes[0]], results[sizes[1]]
    flat = True
    for high, low in zip(big, small, strict=True):
        delta = high.peak_rss_mib - low.peak_rss_mib
        flat = flat and delta <= MEMORY_TOLERANCE_MIB
        print(
            f"peak RSS {high.label:<14} {sizes[0]:,} vs {sizes[1]:,} entries: {delta:+.1f} MiB "
            f"({high.peak_rss_mib:.1f} vs {low.peak_rss_mib:.1f})"
        )
    verdict = "flat" if flat else "NOT flat"
    print(f"memory {verdict} (target: each difference within {MEMORY_TOLERANCE_MIB:.0f} MiB)")
    backfill_entries = args.backfill_entries or min(200_000, args.entries)
    bench_backfill.report(backfill_entries, args.rounds, args.command, args.workdir)
    if args.no_peers:
        print("peers skipped (--no-peers): sitemap.js and xml-sitemap-writer not run")
    compare_mixes(args, peers=not args.no_peers)
    return 0 if flat else 1


def compare_mixes(args: argparse.Namespace, *, peers: bool) -> None:
    """Build against its floor (and the peers) on each mix of ``--peer-entries`` events."""
    for mix in MIXES:
        with tempfile.TemporaryDirectory(prefix="bench-peers-", dir=args.workdir) as tmp:
            compare_peers(
                args.command, args.peer_entries, args.rounds, args.jobs, Path(tmp), mix, peers
            )


if __name__ == "__main__":
    sys.exit(main())
