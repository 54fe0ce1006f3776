"""Every benchmark the docs quote runs, at a tiny size, and prints the figures it is quoted for.

The figures themselves are measured by `make bench` (docs/performance.md and
docs/cost-and-freshness.md); this only keeps the scripts from rotting. Timing targets are never
asserted here.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sitemap_updater.view import VIEW_NAMES, view_files

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
    sizes = ("--entries", "2000", "--peer-entries", "2000", "--rounds", "1")
    out = run("bench_build.py", *sizes, "--no-peers")
    assert "peers skipped (--no-peers)" in out
    for mix in ("typical", "normalizing"):
        assert re.search(rf"floor {mix} mix, 2,000 events: [\d.]+ s \(msgspec decoding", out)
        assert re.search(rf"RATIO build / floor \({mix} mix\) = [\d.]+ \(no goal\)", out)
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


def test_build_benchmark_compares_build_with_a_baseline_version_on_both_mixes() -> None:
    # this version as its own baseline: the ratio is printed, whatever it is
    baseline = str(Path(sys.executable).parent / "sitemap-updater")
    args = ("--peers-only", "--no-peers", "--peer-entries", "2000", "--rounds", "1")
    out = run("bench_build.py", *args, "--baseline-command", baseline)
    for mix in ("typical", "normalizing"):
        assert re.search(rf"peer baseline build +{mix} mix, 2,000 events: best of 1", out), out
        assert re.search(
            rf"RATIO build speed / baseline build speed \({mix} mix\) = [\d.]+ "
            r"\(goal >= 0.75: (met|NOT met)\)",
            out,
        ), out


def test_hostile_xml_benchmark_reports_time_memory_and_the_floor_ratio() -> None:
    out = run("bench_hostile_xml.py", "--bomb-gib", "1", "--plain-mib", "60")
    for name in ("validate", "backfill"):
        assert re.search(rf"{name} small.xml: peak [\d.]+ MiB \(floor\)", out), out
        for case in ("bomb", "plain"):
            assert re.search(rf"{name} {case}: [\d.]+ s, peak [\d.]+ MiB \([\d.]+x", out), out


def test_judge_benchmark_reports_each_mix_and_shape_against_its_floor() -> None:
    out = run("bench_judge.py", "--events", "300", "--repeat", "1")
    for mix in ("typical", "normalizing"):
        for shape in ("message", "array"):
            name = f"{mix}, {shape}"
            timed = rf"judge {name} +300 events: best [\d.]+ s = +[\d.]+ µs/event"
            assert re.search(timed, out), out
            assert re.search(rf"RATIO judge / floor \({name}\) = [\d.]+", out), out
    # the normalizing mix is one the judge normalizes, the typical one already normalized
    assert re.search(r"typical mix, message: 300 bodies .*, 0 of 300 URLs normalized", out), out
    normalized = re.search(r"normalizing mix, message: .* ([\d,]+) of 300 URLs normalized", out)
    assert normalized and int(normalized.group(1)) > 60, out  # more than a fifth
    # the arrays are packed as the producer client packs them: fewer bodies than changes
    arrays = re.search(r"typical mix, array: (\d+) bodies", out)
    assert arrays and 1 <= int(arrays.group(1)) < 300, out
    assert re.search(r"RATIO 3 sites / 1 site \(typical, message\) = [\d.]+", out)


def test_judge_benchmark_times_by_cpu_time_when_asked() -> None:
    out = run("bench_judge.py", "--events", "30", "--repeat", "1", "--clock", "cpu")
    assert "clock: cpu" in out
    assert re.search(r"judge typical, message +30 events: best [\d.]+ s = +[\d.]+ µs/event", out)


def test_rebuild_benchmark_reports_ratio_memory_and_a_one_url_change() -> None:
    out = run("bench_rebuild.py", "--urls", "1500", "--cap", "400", "--slice-urls", "2000")
    assert re.search(r"RATIO full rebuild / plain scan = [\d.]+", out)
    assert re.search(r"RATIO patch / floor = [\d.]+ \(target <= 1.5\)", out)
    assert re.search(r"scheduled run on the 2,000-URL slice .* = [\d.]+ s CPU \(target", out)
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


def _another_schedule_is_priced_from_a_slice_of_its_own_period(default: dict[str, Any]) -> None:
    """``--schedule`` deploys that RebuildSchedule: the slice holds one period's changes and
    the month that many runs, and the wait for a run in the freshness is the period;
    ``--reconcile`` deploys that ReconcileSchedule, priced at its number of runs."""
    args = ("--json", "--no-sections", "--no-observer", "--sizes", "80000:2880")
    every_10 = json.loads(
        run(
            "cost_model.py",
            *args,
            "--schedule",
            "rate(10 minutes)",
            "--reconcile",
            "rate(1 day)",
            "--urgent-share",
            "0.01",
        )
    )
    assert every_10["observer"] is None
    period = {"default": default, "every_10": every_10["sites"][0]}
    schedules = {
        name: site["measured"]["template"]["RebuildSchedule"] for name, site in period.items()
    }
    minutes = {name: float(text.split("(")[1].split()[0]) for name, text in schedules.items()}
    assert schedules["every_10"] == "rate(10 minutes)" and minutes["default"] != 10
    for name, site in period.items():
        assert site["measured"]["slice_changes"] == round(2880 * minutes[name] / 1440)
        assert site["runs_per_month"] == pytest.approx(30 * 1440 / minutes[name])
        assert site["freshness_seconds"]["wait_for_run"] == minutes[name] * 60
    # fewer runs a month cost less
    runs_usd = {name: s["usd_per_month_by_part"]["incremental_runs"] for name, s in period.items()}
    assert runs_usd["every_10"] < runs_usd["default"]
    reconciles = {
        name: site["measured"]["template"]["ReconcileSchedule"] for name, site in period.items()
    }
    assert reconciles == {"default": "rate(7 days)", "every_10": "rate(1 day)"}
    assert period["default"]["reconciles_per_month"] == pytest.approx(30 / 7)
    assert period["every_10"]["reconciles_per_month"] == 30
    reconcile_usd = {name: s["usd_per_month_by_part"]["reconcile"] for name, s in period.items()}
    assert reconcile_usd["default"] < reconcile_usd["every_10"]  # weekly costs less than daily
    # --urgent-share: ten times the default share of news and deletes, ten times their runs
    urgent = {name: s["urgent"] for name, s in period.items()}
    assert urgent["every_10"]["share_of_changes"] == 10 * urgent["default"]["share_of_changes"]
    assert urgent["every_10"]["runs_per_month"] == pytest.approx(
        10 * urgent["default"]["runs_per_month"]
    )


def test_cost_model_prints_one_json_object_priced_from_measured_requests() -> None:
    out = run(
        "cost_model.py",
        "--json",
        "--sizes",
        "80000:2880",
        "--sizes",
        "200000:5760",
        "--urls-per-leaf",
        "16",
    )
    model = json.loads(out)  # exactly one JSON object, nothing else on stdout
    _another_schedule_is_priced_from_a_slice_of_its_own_period(model["sites"][0])
    assert set(model) == {"sites", "prices", "observer"}
    observer = model["observer"]
    assert observer["measured"]["inspected"] > 0 and observer["measured"]["health_checks"] > 0
    assert observer["total_usd_per_month"] == pytest.approx(
        sum(observer["usd_per_month"].values()), abs=0.02
    )
    (million,) = [s for s in observer["sites_with_observer"] if s["at_most"] is not None][:1]
    # whether $10 holds with the observer depends on the assumed share of urgent changes and on
    # the machine's load (docs/cost-and-freshness.md); the check itself is the comparison
    assert million["urls"] == 1_000_000
    assert million["met"] is (million["total_usd_per_month"] <= million["at_most"])
    assert [(s["urls"], s["changes_per_day"]) for s in model["sites"]] == [
        (80_000, 2_880),
        (200_000, 5_760),
        (1_000_000, 100_000),
    ]
    sections = model["sites"][-1]
    ages = sections["lastmod_ages"]
    assert sections["label"] == "1M, 5 sections" and ages["files"] == sections["leaves"]
    # every file of the hash-only layout changes in a day; a quiet section's files may not
    assert ages["hash_only_share_unchanged_in_a_day"] == 0
    assert ages["share_unchanged_in_a_run"] > ages["hash_only_share_unchanged_in_a_run"]
    services = {"dynamodb", "dynamodb_streams", "lambda", "s3", "sqs", "cloudfront_invalidations"}
    for site in model["sites"]:
        usd = site["usd_per_month"]
        assert set(usd) == services
        assert all(usd[name] > 0 for name in services - {"cloudfront_invalidations"}), usd
        # invalidation is opt-in: the default deployment sends none
        assert usd["cloudfront_invalidations"] == 0
        assert site["per_run"]["cloudfront_create_invalidation"] == 0
        assert site["total_usd_per_month"] == pytest.approx(sum(usd.values()), abs=0.02)
        measured = site["measured"]
        changes = measured["slice_changes"]
        assert changes > 0
        # one conditional write per change, and nothing else written by ingest
        assert measured["ingest"]["calls"]["dynamodb.PutItem"] == changes
        assert 0 < site["ingest"]["wru_per_change"] <= 2
        run_ = site["per_run"]
        # every change comes from the stream, and no URL item is read from the table
        assert run_["feed_records"] == changes == run_["urls_changed"]
        assert run_["url_table_rru"] == 0
        for key in ("streams_get_records", "state_table_rru", "state_table_wru", "s3_get"):
            assert run_[key] > 0, key
        assert run_["s3_put"] == run_["leaves_touched"] + 1  # the changed files and the index
        # the view was put once, with the first publish; no run puts it again
        assert measured["view_objects_published_once"] == len(VIEW_NAMES)
        assert site["checks"]["view_puts_per_run"] == {"value": 0, "at_most": 0, "met": True}
        assert run_["leaves_touched"] == measured["incremental"]["leaves_patched"] > 0
        assert run_["patch"]["cpu_seconds"] > 0 and run_["rebuild_cpu_s"] > 0
        assert run_["state_objects_written"] == 0
        assert measured["local"]["files"] == site["leaves"]
        # the reconcile finds nothing the incremental runs lost
        assert site["reconcile"]["drift_repaired"] == 0
        assert site["reconcile"]["url_table_rru_scaled"] > 0
        fresh = site["freshness_seconds"]
        assert 0 < fresh["typical"] < fresh["worst"]
        assert site["nightly_full_rebuild"]["freshness_seconds"]["worst"] > fresh["worst"]
        assert {c["met"] for c in site["checks"].values()} <= {True, False, None}
        # the same slice through the producer client: every change written once, in fewer
        # messages than changes, and the same rebuild costs
        client = site["with_producer_client"]
        sent = measured["with_client"]
        assert sent["changes"] == changes == sent["ingest"]["calls"]["dynamodb.PutItem"]
        assert sent["ingest_sqs_emulator"]["calls"]["sqs.SendMessageBatch"] >= 1
        assert client["changes_per_message"] == pytest.approx(changes / sent["messages"], abs=0.1)
        assert set(client["usd_per_month"]) == services
        assert client["usd_per_month"]["s3"] == usd["s3"]
        assert client["freshness_seconds"]["worst"] > fresh["worst"]  # the client's max age
        # news and deletes: the urgent mapping's window instead of the schedule's period
        template = measured["template"]
        assert template["UrgentPublish"] is True
        assert fresh["urgent_batching_window"] == template["UrgentBatchingWindowSeconds"]
        for kind in ("news", "delete"):
            urgent = fresh[kind]
            assert 0 < urgent["typical"] < urgent["worst"] < fresh["worst"]
            assert urgent["worst"] > urgent["typical"] >= template["UrgentBatchingWindowSeconds"]
            assert client["freshness_seconds"][kind]["worst"] > urgent["worst"]
            assert site["checks"][f"freshness_{kind}_worst_s"]["value"] == urgent["worst"]
        runs = site["urgent"]
        per_day = site["changes_per_day"] * 0.001  # the default --urgent-share
        assert runs["changes_per_day"] == pytest.approx(per_day, abs=0.05)
        assert runs["runs_per_month"] == pytest.approx(per_day * 30, abs=0.1)
        assert site["usd_per_month_by_part"]["urgent_runs"] == pytest.approx(
            runs["runs_per_month"] * runs["usd_per_run"], abs=0.01
        )
        # an urgent run is measured, not assumed: one delete between two scheduled runs
        # publishes at least its file and no more than the scheduled run did
        scheduled = site["measured"]["incremental"]["report"]["objects_written"]
        assert 1 <= runs["objects_written_per_run"] <= scheduled
        assert site["measured"]["urgent_run"]["report"]["urls_changed"] == 1
    assert model["sites"][0]["leaves"] == 2 and model["sites"][1]["leaves"] == 8
    assert {"wru", "rru", "streams_rru", "gb_s", "s3_put", "s3_get", "sqs_req"} <= set(
        model["prices"]
    )


def _first_limit(out: str) -> tuple[str, int]:
    order = out.split("limits, in the order a growing site reaches them:", 1)[1].splitlines()
    first = next(line for line in order if line.strip())
    return first, int(re.search(r"([\d,]+) URLs", first)[1].replace(",", ""))  # type: ignore[index]


def test_capacity_finds_no_limit_of_the_state_below_the_largest_size() -> None:
    first, _ = _first_limit(run("capacity.py", "--cap", "500", "--up-to", "30000000"))
    assert "not below 30,000,000 URLs" in first  # 65,536 files: no item, index nor robots.txt
    host = ".".join(("h" * 60, "i" * 60, "j" * 50)) + ".example.com"
    out = run(
        "capacity.py", "--cap", "500", "--up-to", "30000000", "--space", f"{host}/{'s' * 32}/"
    )
    longer, _ = _first_limit(out)
    assert "not below 30,000,000 URLs" in longer
    assert re.search(r"30,000,000 URLs: [\d,]+ files, [\d,]+ branches, [2-9] indexes", out)


def test_bad_elements_benchmark_reports_the_ratio_at_each_size_and_its_growth() -> None:
    out = run("bench_bad_elements.py", "--sizes", "10", "40", "--rounds", "1")
    for size in ("10", "40"):
        assert re.search(rf"{size} bad images left out: +[\d.]+ ms; floor .* ratio [\d.]+", out)
    assert re.search(r"RATIO growth from 10 to 40 = [\d.]+ \(target <= 2: (met|NOT met)\)", out)


def test_hostile_lines_benchmark_reports_time_and_memory_of_each_case() -> None:
    out = run("bench_hostile_lines.py", "--mib", "3")
    for case in ("build: a JSONL line", "build: JSONL, no line break", "backfill: CSV, no line"):
        assert re.search(
            rf"{re.escape(case)}.* [\d.]+ s per 100 MB .* peak RSS +[\d.]+ MiB, exit [13]", out
        ), (case, out)
    assert re.search(r"judge_listing: a url of 9 MiB .* peak RSS +[\d.]+ MiB, exit 1", out)
    assert "must be at most 8192 characters as given" in out


def test_hostile_rebuild_benchmark_reports_the_bomb_and_the_large_leaf() -> None:
    out = run("bench_hostile_rebuild.py", "--bomb-mib", "8", "--items", "20", "--images", "50")
    assert re.search(r"gzip bomb: .* read-back peak [\d.]+ MiB = [\d.]+ x the bound", out)
    assert re.search(r"leaf of 20 items x 50 images: peak \d+ MiB split .* ratio [\d.]+", out)


def test_local_flow_benchmark_reports_the_ratio_of_two_wave_sizes() -> None:
    out = run("bench_local.py", "--messages", "20", "--factor", "2")
    for n in (20, 40):
        assert re.search(rf"simulate +{n} messages: +[\d.]+ s wall, +[\d.]+ s CPU", out), out
    assert re.search(
        r"RATIO simulate 2x messages: [\d.]+ wall, [\d.]+ CPU \(target <= 12: (met|NOT met)\)",
        out,
    ), out


@pytest.mark.browser
def test_view_benchmark_reports_first_rows_against_the_parse_floor_and_the_weight() -> None:
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it: apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    out = run("bench_view.py", "--urls", "2000", "--rounds", "1")
    assert re.search(r"first rows drawn +\d+ ms", out)
    assert re.search(r"floor: fetch\+inflate\+parse +\d+ ms \(the XML parse \d+ ms\)", out)
    assert re.search(r"first rows / floor +[\d.]+x", out)
    size = sum(len(body) for _, body in view_files())
    assert f"the view weighs {size:,} bytes" in out


def test_cold_start_benchmark_compares_each_handler_with_the_minimal_one() -> None:
    out = run("bench_cold_start.py", "--rounds", "1")
    assert re.search(r"provided: .*aws-xray-sdk.*boto3.*msgspec", out), out
    handlers = ("ingest", "rebuild", "observe")
    for tracing in ("on", "off"):
        assert re.search(rf"tracing {tracing}, 1 rounds, load average [\d.]+ [\d.]+ [\d.]+:", out)
        for name in ("minimal", "+boto3", *handlers):
            assert re.search(
                rf"import {re.escape(name)} +best +[\d.]+ ms, median +[\d.]+ ms, best CPU +[\d.]+ "
                r"ms \(X-Ray",
                out,
            )
        for name in handlers:
            # what the import leaves to the first invocation (the clients) is measured too
            assert re.search(
                rf"import \+ first use {name} +best +[\d.]+ ms, best CPU +[\d.]+ ms \(first use "
                r"alone, CPU: \+[\d.]+ ms\)",
                out,
            ), out
            assert re.search(rf"  {name}: beyond boto3's import: [-+][\d.]+ ms", out), out
        for name, base, clock in itertools.product(
            handlers, ("minimal", "minimal\\+boto3"), ("wall", "CPU")
        ):
            assert re.search(
                rf"RATIO {name} / {base}, tracing {tracing} \({clock}\): best [\d.]+ "
                rf"\([-+][\d.]+ ms\), median [\d.]+ \([-+][\d.]+ ms\) \(target <= \+50 ms: "
                rf"(met|NOT met: [\d.]+ ms over)\)",
                out,
            ), out
        for name in handlers:
            # this project's own part, measured in one process rather than as a difference
            assert re.search(
                rf"BEYOND {name}, tracing {tracing}: its import after the minimal handler with "
                r"boto3 in one process: best CPU [\d.]+ ms, median CPU [\d.]+ ms, best wall "
                r"[\d.]+ ms \(target <= \+50 ms: (met|NOT met: [\d.]+ ms over)\)",
                out,
            ), out
    # with tracing off the handlers do not import the X-Ray SDK; the minimal one, as Powertools'
    # documentation writes it, does
    off = out.split("tracing off", 1)[1]
    assert re.search(r"import minimal .*\(X-Ray SDK yes", off)
    for name in handlers:
        assert re.search(rf"import {name} .*\(X-Ray SDK no", off)


def test_backfill_benchmark_prints_the_rate_read_from_builds_own_index() -> None:
    out = run("bench_backfill.py", "--entries", "3000", "--rounds", "1")
    assert re.search(r"build's index of 3,000 URLs \(\d+ gzipped children\), best of 1", out)
    assert re.search(
        r"backfill 3,000 entries: [\d.]+ s wall = [\d,]+ entries/s \(target >= 100,000: "
        r"(met|NOT met)\), on \d+ cores; load average",
        out,
    ), out
    assert re.search(r"on one core: [\d.]+ s CPU = [\d,]+ entries per CPU second", out), out


def test_observer_cost_is_measured_on_the_stand_ins_and_priced_a_month() -> None:
    priced = json.loads(run("observer_cost.py", "--json", "--sections", "2"))
    measured = priced["measured"]
    calls = measured["calls"]
    # one Query of observations and one of exclusions per section, the figures, the ledger
    assert calls["dynamodb.Query"] >= 2 * measured["sections"]
    # one secret holds both engines' keys (docs/search-engines.md): read once a run
    assert measured["secrets"] == 1
    assert calls["secretsmanager.GetSecretValue"] == 1
    assert calls["s3.GetObject"] >= measured["sections"]  # a file of each section sampled
    assert measured["inspected"] > 0 and measured["health_checks"] > 0
    assert measured["observations_written"] > 0 and measured["observation_item_bytes"] > 0
    usd = priced["usd_per_month"]
    assert priced["total_usd_per_month"] == pytest.approx(sum(usd.values()), abs=0.02)
    assert 0.40 <= usd["secrets_manager"] < 0.80  # one secret a month, whatever the calls
