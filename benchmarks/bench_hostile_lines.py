"""Benchmark: the worst lines a ``build`` or ``backfill`` source can hold, and a URL of megabytes.

    .venv/bin/python benchmarks/bench_hostile_lines.py               # lines of 1 GiB
    .venv/bin/python benchmarks/bench_hostile_lines.py --mib 100     # lines of 100 MiB

It writes each input into a temporary folder and runs the installed console script
(``.venv/bin/sitemap-updater``) on it as a child process, one at a time:

- ``build`` of a JSONL file whose one line is an upsert padded to the size (then a good line);
- ``build`` of a JSONL file of one line without a line break;
- ``backfill`` of a CSV file of one line without a line break;
- ``judge_listing`` of a page whose ``url`` is 9 MiB, as a sitemap or CSV reader hands it
  over (a child Python process).

Each must end with its one problem line, and the good line, if any, must be published. For
each it prints the wall time, the child's peak RSS (``os.wait4``), and the time beyond the
command's own start (a build of one good line, measured in the same run) per 100 MB and against
a floor measured in the same run: the same file read by a plain Python loop of 1 MiB reads.
Targets: at most 300 MB of memory and about a second per 100 MB read.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = "https://www.example.com"
CHUNK = 1 << 20
#: The loc of the last case: 9 MiB, as a sitemap or a CSV export could hold.
URL_MIB = 9


def _write(path: Path, head: bytes, size: int, tail: bytes) -> Path:
    with open(path, "wb") as out:
        out.write(head)
        block = b"x" * CHUNK
        left = size
        while left > 0:
            out.write(block[: min(left, CHUNK)])
            left -= CHUNK
        out.write(tail)
    return path


def _floor(path: Path) -> float:
    """Seconds a plain loop takes to read ``path`` (the cost of the bytes alone)."""
    started = time.perf_counter()
    with open(path, "rb") as fh:
        while fh.read(CHUNK):
            pass
    return time.perf_counter() - started


def _run(args: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS in MiB, exit code and stderr of one child process."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), text


def _report(
    name: str, size: int, result: tuple[float, float, int, str], floor: float, startup: float
) -> None:
    wall, rss, code, err = result
    first = err.splitlines()[0] if err else ""
    beyond = max(0.0, wall - startup)  # a small input may finish within the start's noise
    per_100 = beyond / (size / 100e6)
    print(
        f"{name:<34} {size / 2**20:8,.0f} MiB: {wall:7.2f} s wall, {per_100:.2f} s per 100 MB "
        f"beyond the command's start ({startup:.2f} s), ratio "
        f"{beyond / max(floor, 1e-9):.1f} to a plain read ({floor:.2f} s); "
        f"peak RSS {rss:7.1f} MiB, exit {code}"
    )
    print(f"{'':<34} {first[:150]}")
    if "Traceback" in err or code not in (1, 2, 3):  # 3: build had nothing left to publish
        raise SystemExit(f"{name}: ended with exit {code}: {err[-2000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=1024, help="size of each line (MiB)")
    parser.add_argument("--command", default=str(ROOT / ".venv" / "bin" / "sitemap-updater"))
    args = parser.parse_args()
    size = args.mib << 20
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        work = Path(tmp)
        good = ('{"action":"upsert","url":"' + SITE + '/good"}\n').encode()
        padded = _write(
            work / "padded.jsonl",
            b'{"action":"upsert","url":"' + SITE.encode() + b'/long","pad":"',
            size,
            b'"}\n' + good,
        )
        out = work / "out"
        tiny = work / "tiny.jsonl"
        tiny.write_bytes(good)
        startup = _run(
            [args.command, "build", "--from", str(tiny), "--site", SITE, "--out", str(out)]
        )[0]
        result = _run(
            [args.command, "build", "--from", str(padded), "--site", SITE, "--out", str(out)]
        )
        if (
            f"{SITE}/good"
            not in subprocess.run(
                ["zcat", *map(str, out.glob("sitemap-*.xml.gz"))], capture_output=True, text=True
            ).stdout
        ):
            raise SystemExit("build of the padded line lost the good line")
        _report("build: a JSONL line of the size", size, result, _floor(padded), startup)
        padded.unlink()

        bare = _write(work / "bare.jsonl", b"{", size, b"")
        result = _run(
            [args.command, "build", "--from", str(bare), "--site", SITE, "--out", str(out)]
        )
        _report("build: JSONL, no line break", size, result, _floor(bare), startup)
        bare.unlink()

        csv = _write(work / "bare.csv", b"url,", size, b"")
        result = _run(
            [args.command, "backfill", "--from", str(csv), "--out", str(work / "e.jsonl")]
        )
        _report("backfill: CSV, no line break", size, result, _floor(csv), startup)
        csv.unlink()

        code = (
            "from datetime import UTC, datetime\n"
            "from sitemap_updater.ingest.listing import judge_listing\n"
            "from sitemap_updater.protocol.errors import SitemapError\n"
            "from sitemap_updater.sites import Sites\n"
            f"url = {SITE!r} + '/' + 'a' * ({URL_MIB} << 20)\n"
            "try:\n"
            f"    judge_listing({{'url': url}}, sites=Sites.parse({SITE!r}), "
            "now=datetime.now(UTC), drops=[])\n"
            "except SitemapError as exc:\n"
            "    raise SystemExit(exc.rule)\n"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "shared")}
        started = time.perf_counter()
        baseline = subprocess.run(
            [sys.executable, "-c", "import sitemap_updater.ingest.listing"], env=env
        )
        floor = time.perf_counter() - started
        assert baseline.returncode == 0
        started = time.perf_counter()
        with tempfile.TemporaryFile() as err:
            child = subprocess.Popen([sys.executable, "-c", code], stderr=err, env=env)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - started
            err.seek(0)
            text = err.read().decode()
        print(
            f"{'judge_listing: a url of ' + str(URL_MIB) + ' MiB':<34} {URL_MIB:8,} MiB: "
            f"{wall:7.2f} s wall (a child that only imports the judge: {floor:.2f} s), "
            f"peak RSS {usage.ru_maxrss / 1024:7.1f} MiB, exit {os.waitstatus_to_exitcode(status)}"
        )
        print(f"{'':<34} {text.strip()[:150]}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
