"""Every benchmark the README quotes runs, at a tiny size, and prints the figures it is quoted for.

The figures themselves are measured by `make bench` (see the README's Performance section); this
only keeps the scripts from rotting. Timing targets are never asserted here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_make_bench_runs_every_benchmark_script() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0]
    scripts = {p.name for p in BENCH.glob("*.py")}
    assert {name for name in scripts if name in recipe} == scripts


def test_render_benchmark_reports_speed_ratio_and_memory() -> None:
    out = run("bench_render.py", "--entries", "3000", "--repeat", "1", "--skip-levels")
    assert re.search(r"render\+gzip +wall +[\d.]+ s += [\d,]+ entries/s", out)
    assert re.search(r"zlib alone +wall +[\d.]+ s +ratio [\d.]+", out)
    assert re.search(r"peak RSS 3,000 +[\d.]+ MiB", out)


def test_build_benchmark_times_build_and_backfill_and_reports_memory_at_two_sizes() -> None:
    out = run("bench_build.py", "--entries", "2000", "--no-peers")
    assert "peers skipped (--no-peers)" in out
    for size in ("2,000", "200"):
        for command in ("build jsonl", "build csv", "backfill index", "backfill csv"):
            line = re.search(
                rf"{command} +{size} entries: +[\d.]+ s wall += +[\d,]+ entries/s, "
                rf"peak RSS +[\d.]+ MiB, wrote (.*)",
                out,
            )
            assert line, (command, size, out)
            wrote = line.group(1)
            if command.startswith("build"):
                assert re.fullmatch(r"[\d,]+ files \(\d+ gz \+ index\), [\d,]+ URLs", wrote)
            else:
                assert wrote == f"{size} events"
    for command in ("build jsonl", "build csv", "backfill index", "backfill csv"):
        assert re.search(rf"peak RSS {command} +2,000 vs 200 entries: [-+][\d.]+ MiB", out)


def test_judge_benchmark_reports_both_paths_and_their_ratio() -> None:
    out = run("bench_judge.py", "--events", "300", "--repeat", "1")
    for path in ("fast", "careful"):
        assert re.search(rf"judge {path} +300 events: best [\d.]+ s = +[\d.]+ µs/event", out)
    assert re.search(r"RATIO careful / fast = [\d.]+", out)
    assert re.search(r"target: at most 10 µs/event on one core: (met|NOT met)", out)


def test_rebuild_benchmark_reports_ratio_memory_and_a_one_url_change() -> None:
    out = run("bench_rebuild.py", "--urls", "1500", "--cap", "400")
    assert re.search(r"RATIO full rebuild / plain scan = [\d.]+", out)
    assert re.search(r"PEAK MEMORY allocated by a full rebuild: [\d.]+ MB", out)
    one = re.search(r"1-URL change: ([\d,]+) items read, objects written \[([^\]]*)\]", out)
    assert one, out
    written = [key.strip(" '") for key in one.group(2).split(",")]
    # the changed shard's file and the index, nothing else
    assert len(written) == 2 and "sitemap.xml" in written, written
    # the change from the stream, the leaf state and the metadata: no URL item of the table
    assert int(one.group(1).replace(",", "")) <= 5


@pytest.mark.parametrize("sizes", [("2000", "4000")])
def test_scale_benchmark_reports_time_memory_and_files(sizes: tuple[str, str]) -> None:
    out = run("bench_scale.py", "--urls", sizes[0], "--urls", sizes[1], "--cap", "300")
    lines = re.findall(r"([\d,]+) URLs: .* peak RSS ([\d.]+) MB, ([\d,]+) sitemap files", out)
    assert [int(n.replace(",", "")) for n, _, _ in lines] == [int(s) for s in sizes]
    assert all(int(files.replace(",", "")) > 1 for _, _, files in lines)
    assert "peak RSS 4,000 vs 2,000 URLs" in out


def test_cost_model_prices_a_measured_slice() -> None:
    out = run("cost_model.py", "--site-urls", "400", "--changes", "12")
    assert '"dynamodb.PutItem": 12' in out  # one conditional write per change, measured
    assert re.search(r"usd_total \(exact paths\) +[\d,.]+", out)


def test_capacity_names_the_first_limit_a_growing_site_reaches() -> None:
    out = run("capacity.py", "--cap", "500", "--up-to", "40000000")
    order = out.split("limits, in the order a growing site reaches them:", 1)[1].splitlines()
    first = next(line for line in order if line.strip())
    assert "meta/shardmap item" in first
