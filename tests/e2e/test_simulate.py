"""``sitemap-updater simulate`` with two waves: report.json and the published files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitemap_updater_local import cli
from sitemap_updater_local.validation.document import validate_path
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
    assert cli.main(args) == 1  # the truncated message was rejected, as build would exit
    assert "wave 2: 3 messages, 2 accepted, 1 stale" in capsys.readouterr().out

    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    first, second = report["waves"]
    assert (first["messages"], first["accepted"], first["stale"]) == (4, 3, 0)
    assert first["dead_lettered"] == 1
    [rejected] = first["rejected"]
    assert rejected["message"] == '{"action": "upsert", "url": '
    assert "field message" in rejected["reason"]
    assert "sitemap.xml" in first["objects_written"]
    assert first["invalidated_paths"] == []  # no invalidation at the defaults
    assert first["dynamodb_items_read"] >= 3

    assert (second["messages"], second["accepted"], second["stale"]) == (3, 2, 1)
    assert second["rejected"] == [] and second["dead_lettered"] == 0
    assert second["objects_written"], "the delete and the new page change a file"
    assert second["invalidated_paths"] == []
    # the changed files were read back from the bucket and patched; no private state object
    assert second["s3_objects_read"] and second["state_objects_written"] == []
    assert set(second["s3_objects_read"]) <= set(first["objects_written"])
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
            "state_objects_written",
            "s3_objects_read",
            "indexnow_submitted",
            "indexnow_requests",
            "freshness_max_seconds",
            "freshness_runs",
        }
    )
    assert second["indexnow_submitted"] == [] and second["indexnow_requests"] == 0  # off

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
    assert cli.main(["simulate", str(w1), str(w2), "--out", str(clean)]) == 1
    args = ["simulate", str(w1), str(w2), "--out", str(faulty), "--faults", "0.15", "--seed", "4"]
    assert cli.main(args) == 1
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


def _site_waves(tmp_path: Path) -> list[Path]:
    """A 3,000-URL site, then one changed URL, 30 changed URLs and a wave of duplicates."""
    pages = [
        {"action": "upsert", "url": f"{SITE}/p/{i}", "occurred_at": "2026-11-20T10:00:00Z"}
        for i in range(3000)
    ]
    site = [json.dumps(pages[i : i + 500]) for i in range(0, 3000, 500)]  # array bodies
    one = [_up("/p/7", "2026-11-21T10:00:00Z", lastmod="2026-11-21")]
    thirty = [_up(f"/p/{i}", "2026-11-22T10:00:00Z", lastmod="2026-11-22") for i in range(100, 130)]
    duplicates = thirty[:10]  # the same events again: already applied
    paths = []
    for number, lines in enumerate((site, one, thirty, duplicates), start=1):
        path = tmp_path / f"wave{number}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_reads_and_writes_follow_the_changes_not_the_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["simulate", *map(str, _site_waves(tmp_path)), "--out", str(out)]
    assert cli.main([*args, "--max-urls-per-sitemap", "500"]) == 0
    capsys.readouterr()
    site, one, thirty, duplicates = json.loads((out / "report.json").read_text())["waves"]
    assert len(site["objects_written"]) >= 8  # 3,000 URLs at 500 a file
    assert one["dynamodb_items_read"] <= 5
    assert len(one["objects_written"]) <= 2
    assert thirty["dynamodb_items_read"] <= 60
    assert site["accepted"] == 3000
    assert duplicates["stale"] == 10
    assert duplicates["objects_written"] == []
