"""``sitemap-updater simulate`` with two waves: report.json and the published files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitemap_updater_local import cli
from sitemap_updater_local.validate import validate_path
from tests.e2e.published import published_urls

SITE = "https://www.example.com"


def _up(path: str, at: str, **extra: object) -> str:
    return json.dumps({"action": "upsert", "url": SITE + path, "occurred_at": at, **extra})


def _waves(tmp_path: Path) -> list[Path]:
    wave1 = [
        _up("/a", "2026-11-20T10:00:00Z"),
        _up("/b", "2026-11-20T10:00:00Z", lastmod="2026-11-19"),
        _up("/c", "2026-11-20T10:00:00Z"),
        '{"action": "upsert", "url": ',  # truncated: not JSON
        "",  # empty lines are not messages
    ]
    wave2 = [
        json.dumps({"action": "delete", "url": SITE + "/b", "occurred_at": "2026-11-21T10:00:00Z"}),
        _up("/a", "2026-11-19T10:00:00Z"),  # older than what is stored: stale
        _up("/d", "2026-11-21T10:00:00Z"),
    ]
    paths = []
    for number, lines in enumerate((wave1, wave2), start=1):
        path = tmp_path / f"wave{number}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_two_waves_report_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    w1, w2 = _waves(tmp_path)
    args = ["simulate", str(w1), str(w2), "--out", str(out), "--max-urls-per-sitemap", "2"]
    assert cli.main(args) == 0
    assert "wave 2: 3 messages, 2 accepted, 1 stale" in capsys.readouterr().out

    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    first, second = report["waves"]
    assert (first["messages"], first["accepted"], first["stale"]) == (4, 3, 0)
    assert first["dead_lettered"] == 1
    [rejected] = first["rejected"]
    assert rejected["body"] == '{"action": "upsert", "url": '
    assert "field body" in rejected["reason"]
    assert "sitemap.xml" in first["objects_written"]
    assert "/sitemap.xml" in first["invalidated_paths"]
    assert first["dynamodb_items_read"] >= 3

    assert (second["messages"], second["accepted"], second["stale"]) == (3, 2, 1)
    assert second["rejected"] == [] and second["dead_lettered"] == 0
    assert second["objects_written"], "the delete and the new page change a file"
    assert all("/" + key in second["invalidated_paths"] for key in second["objects_written"])
    assert (
        set(second)
        == set(first)
        == {
            "messages",
            "accepted",
            "stale",
            "rejected",
            "dead_lettered",
            "objects_written",
            "objects_deleted",
            "invalidated_paths",
            "dynamodb_items_read",
        }
    )

    # the bucket: valid files, split by the cap of 2, holding exactly the live URLs
    reports = validate_path(out, base_url=SITE)
    assert all(r.ok for r in reports), [r.lines() for r in reports]
    urlsets = [r for r in reports if r.kind == "urlset"]
    assert len(urlsets) >= 2 and all(r.url_count <= 2 for r in urlsets)
    assert sorted(published_urls(out)) == [SITE + "/a", SITE + "/c", SITE + "/d"]
    written = {k for w in report["waves"] for k in w["objects_written"]}
    on_disk = {p.name for p in out.iterdir() if p.name != "report.json"}
    assert on_disk <= written


def test_faults_do_not_change_the_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w1, w2 = _waves(tmp_path)
    clean, faulty = tmp_path / "clean", tmp_path / "faulty"
    assert cli.main(["simulate", str(w1), str(w2), "--out", str(clean)]) == 0
    args = ["simulate", str(w1), str(w2), "--out", str(faulty), "--faults", "0.15", "--seed", "4"]
    assert cli.main(args) == 0
    injected = re.search(r"faults injected: (\d+)", capsys.readouterr().out)
    assert injected is not None and int(injected.group(1)) > 0
    assert published_urls(faulty) == published_urls(clean)
    # the same shard files with the same bytes (the index differs only in its lastmod times)
    shards = sorted(p.name for p in clean.glob("sitemap-*.xml.gz"))
    assert shards == sorted(p.name for p in faulty.glob("sitemap-*.xml.gz"))
    for name in shards:
        assert (faulty / name).read_bytes() == (clean / name).read_bytes()
    report = json.loads((faulty / "report.json").read_text(encoding="utf-8"))
    assert [w["accepted"] for w in report["waves"]] == [3, 2]


def test_faults_without_seed_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w1, _ = _waves(tmp_path)
    assert cli.main(["simulate", str(w1), "--out", str(tmp_path), "--faults", "0.1"]) == 2
    assert "--faults RATE and --seed S go together" in capsys.readouterr().err


def test_a_value_the_template_refuses_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w1, _ = _waves(tmp_path)
    args = ["simulate", str(w1), "--out", str(tmp_path / "o"), "--max-urls-per-sitemap", "60000"]
    assert cli.main(args) == 2
    assert "parameter MaxUrlsPerSitemap=60000 must be <= 50000" in capsys.readouterr().err
