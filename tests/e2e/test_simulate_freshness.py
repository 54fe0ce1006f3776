"""``sitemap-updater simulate`` reports, per wave, the lag from ingest to publish of the changes
its runs published, on the clock it gives the deployment (``--start``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater_local import cli

SITE = "https://www.example.com"


def _event(action: str, path: str, at: str) -> str:
    return json.dumps({"action": action, "url": SITE + path, "occurred_at": at})


def test_each_wave_reports_the_freshness_of_what_its_runs_published(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    waves = [
        [_event("upsert", p, "2025-03-01T07:59:00Z") for p in ("/a", "/b", "/c")],
        [
            _event("upsert", "/a", "2025-03-01T08:04:00Z"),
            _event("delete", "/c", "2025-03-01T08:04:00Z"),
        ],
        [],
    ]
    paths = []
    for number, lines in enumerate(waves, start=1):
        path = tmp_path / f"w{number}.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        paths.append(str(path))
    out = tmp_path / "out"
    args = ["simulate", *paths, "--out", str(out), "--start", "2025-03-01T08:00:00Z"]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out.splitlines()

    first, second, third = json.loads((out / "report.json").read_text("utf-8"))["waves"]
    assert sum(run["changes"] for run in first["freshness_runs"]) == 3
    assert sum(run["changes"] for run in second["freshness_runs"]) == 2  # the delete counts
    for wave in (first, second):
        for run in wave["freshness_runs"]:
            assert 0 <= run["median_seconds"] <= run["max_seconds"]
        assert wave["freshness_max_seconds"] == max(
            r["max_seconds"] for r in wave["freshness_runs"]
        )
        # measured on the deployment's clock (months behind the system's): seconds, not months
        assert wave["freshness_max_seconds"] < 60
    assert third["freshness_runs"] == [] and third["freshness_max_seconds"] is None
    assert ", freshness max " in printed[0] and ", freshness max " not in printed[2]
