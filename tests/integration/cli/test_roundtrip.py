"""Migration round trip: an existing sitemap index -> ``backfill`` -> ``simulate``.

The URL set the local deployment republishes must equal the source's. ``build`` on the same
events must give the very shard files the deployed rebuild published.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from tests.integration.cli.support import make_site_with_index, published

CAP = "60"


def test_backfill_then_simulate_republishes_the_same_urls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source_dir = tmp_path / "old-site"
    source_dir.mkdir()
    index, urls = make_site_with_index(source_dir, count=150)
    events = tmp_path / "events.jsonl"

    assert main(["backfill", "--from", str(index), "--out", str(events), "--no-progress"]) == 0
    assert len(events.read_text().splitlines()) == len(urls)

    sim_out = tmp_path / "bucket"
    code = main(["simulate", str(events), "--out", str(sim_out), "--max-urls-per-sitemap", CAP])
    assert code == 0, capsys.readouterr().err
    report = json.loads((sim_out / "report.json").read_text())
    (wave,) = report["waves"]
    assert wave["messages"] == len(urls)
    assert wave["accepted"] == len(urls)
    assert wave["rejected"] == [] and wave["dead_lettered"] == 0
    (sim_out / "report.json").unlink()
    republished = published(sim_out)
    assert len(republished) >= 3  # 150 URLs under a cap of 60
    assert sorted(u for file_urls in republished.values() for u in file_urls) == sorted(urls)

    build_out = tmp_path / "static"
    code = main(
        [
            "build",
            "--from",
            str(events),
            "--site",
            "https://www.example.com",
            "--out",
            str(build_out),
            "--max-urls-per-sitemap",
            CAP,
        ]
    )
    assert code == 0
    built = published(build_out)
    assert sorted(built) == sorted(republished)
    for name in built:
        assert (build_out / name).read_bytes() == (sim_out / name).read_bytes(), name
