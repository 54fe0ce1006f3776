"""Benchmark: how many entries a second ``sitemap-updater backfill`` reads from build's own index.

    .venv/bin/python benchmarks/bench_backfill.py                 # 200,000 URLs, best of 3
    .venv/bin/python benchmarks/bench_backfill.py --entries 20000 --rounds 1

It writes a CSV of ``--entries`` pages (``url,lastmod``, the export ``bench_build.py`` writes),
runs ``sitemap-updater build`` on it once (not timed), and then ``sitemap-updater backfill --from
DIR/sitemap.xml --out FILE.jsonl --no-progress`` on the index build wrote (gzipped children, on
one worker per core, every check of backfill kept) ``--rounds`` times, each the installed
console script as a fresh child process, as a user runs it. Each run must write one event per
entry, or the benchmark fails. It prints, for the best run: the wall time and the entries read a
second (the target: at least 100,000); then, from as many runs allowed one core (so the command
reads every child itself), the entries read per CPU second, which a shared machine disturbs far
less than wall time. The load average is printed beside them. ``bench_build.py`` runs it
too (``--backfill-entries``).

The commands run with Python's bytecode cache on, kept in the temporary directory (an installed
command has its ``.pyc`` files after its first run; ``PYTHONDONTWRITEBYTECODE`` in the caller's
environment would have every run, and every worker, compile the package again).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "layers" / "shared", ROOT / "tooling"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from sitemap_updater_local.demo_changes import page_at  # noqa: E402

SITE = "https://www.example.com"
TARGET_PER_SECOND = 100_000
COMMAND = str(ROOT / ".venv" / "bin" / "sitemap-updater")


@dataclass(frozen=True)
class BackfillRun:
    seconds: float
    cpu_seconds: float
    events: int


def write_export(path: Path, entries: int) -> None:
    """A ``url,lastmod`` CSV of ``entries`` pages, one a row."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("url,lastmod\n")
        for i in range(entries):
            out.write(f"{page_at(i, SITE).url},2025-{1 + i % 12:02d}-{1 + i % 28:02d}\n")


def command_env(work: Path) -> dict[str, str]:
    """The caller's environment with the bytecode cache on, kept under ``work``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_core() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def run_backfill(
    command: str,
    index: Path,
    out: Path,
    *,
    one_core: bool = False,
    env: dict[str, str] | None = None,
) -> BackfillRun:
    """One ``backfill`` of ``index`` into ``out``: wall, CPU, events. ``one_core``: the command
    may use one core, so it reads every child itself and its CPU time is all the work (the
    workers of a run on every core are not its children, and their CPU time is not counted)."""
    argv = [command, "backfill", "--from", str(index), "--out", str(out), "--no-progress"]
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=_one_core if one_core else None,
        env=env,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"backfill: exit {done.returncode}\n{done.stderr[-3000:]}")
    with open(out, "rb") as fh:
        events = sum(1 for _ in fh)
    out.unlink()
    return BackfillRun(seconds, _children_cpu() - cpu, events)


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def report(entries: int, rounds: int, command: str = COMMAND, workdir: str | None = None) -> bool:
    """Build the index of ``entries`` URLs, backfill it ``rounds`` times, print the best run;
    whether it met the target."""
    with tempfile.TemporaryDirectory(prefix="bench-backfill-", dir=workdir) as tmp:
        work = Path(tmp)
        write_export(work / "export.csv", entries)
        site = ["--site", SITE, "--out", str(work / "site")]
        env = command_env(work)
        subprocess.run(
            [command, "build", "--from", str(work / "export.csv"), *site],
            check=True,
            capture_output=True,
            env=env,
        )
        index = work / "site" / "sitemap.xml"
        children = len(list((work / "site").glob("*.xml.gz")))
        print(
            f"backfill of build's index of {entries:,} URLs ({children} gzipped children), "
            f"best of {rounds}, load average {_load()}:",
            flush=True,
        )
        runs = []
        for _ in range(rounds):
            run = run_backfill(command, index, work / "events.jsonl", env=env)
            if run.events != entries:
                raise RuntimeError(f"backfill wrote {run.events} events, expected {entries}")
            runs.append(run)
        best = min(runs, key=lambda r: r.seconds)
        alone = min(
            (
                run_backfill(command, index, work / "events.jsonl", one_core=True, env=env)
                for _ in runs
            ),
            key=lambda r: r.cpu_seconds,
        )
    rate = entries / best.seconds
    verdict = "met" if rate >= TARGET_PER_SECOND else "NOT met"
    print(
        f"  backfill {entries:,} entries: {best.seconds:.2f} s wall = {rate:,.0f} entries/s "
        f"(target >= {TARGET_PER_SECOND:,}: {verdict}), on {len(os.sched_getaffinity(0))} "
        f"cores; load average {_load()}"
    )
    print(
        f"  backfill {entries:,} entries on one core: {alone.cpu_seconds:.2f} s CPU = "
        f"{entries / alone.cpu_seconds:,.0f} entries per CPU second ({alone.seconds:.2f} s wall)"
    )
    return rate >= TARGET_PER_SECOND


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--entries", type=int, default=200_000, help="URLs in the index")
    parser.add_argument("--rounds", type=int, default=3, help="backfill runs: best of N")
    parser.add_argument("--command", default=COMMAND, help="the console script to run")
    parser.add_argument("--workdir", help="where to write the files (default: a temp dir)")
    args = parser.parse_args(argv)
    report(args.entries, args.rounds, args.command, args.workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
