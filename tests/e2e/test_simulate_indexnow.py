"""``sitemap-updater simulate --indexnow-key KEY --start ISO8601 --wave-gap SECONDS``: what the
waves send to a local IndexNow endpoint, the clock the deployment sees, and an empty wave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from sitemap_updater_local import cli

SITE = "https://www.example.com"
KEY = "simulate-key-0042"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def _event(action: str, path: str, at: str, **extra: object) -> str:
    return json.dumps({"action": action, "url": SITE + path, "occurred_at": at, **extra})


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_indexnow_per_wave_with_a_set_clock_and_an_empty_wave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = "2026-01-05T07:59:00Z"
    w1 = _write(
        tmp_path / "w1.jsonl",
        [_event("upsert", p, at) for p in ("/a", "/b", "/c")],
    )
    w2 = _write(
        tmp_path / "w2.jsonl",
        [
            _event("upsert", "/a", "2026-01-05T08:05:00Z", priority=0.8),
            _event("upsert", "/b", "2026-01-05T08:05:00Z"),  # the entry it has: unchanged
            _event("delete", "/c", "2026-01-05T08:05:00Z"),
        ],
    )
    w3 = _write(tmp_path / "w3.jsonl", [])
    out = tmp_path / "out"
    args = [
        "simulate", str(w1), str(w2), str(w3), "--out", str(out), "--indexnow-key", KEY,
        "--start", "2026-01-05T08:00:00Z", "--wave-gap", "600",
    ]  # fmt: skip
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "wave 2: 3 messages, 3 accepted" in printed
    assert "2 URLs sent to IndexNow in 1 requests" in printed

    first, second, third = json.loads((out / "report.json").read_text("utf-8"))["waves"]
    # the first publish of the site sends nothing; then only what the publish changed
    assert (first["indexnow_submitted"], first["indexnow_requests"]) == ([], 0)
    assert sorted(second["indexnow_submitted"]) == [SITE + "/a", SITE + "/c"]
    assert second["indexnow_requests"] == 1
    # an empty wave sends no message and runs the scheduled rebuild, which has nothing to do
    assert third["messages"] == 0 and third["accepted"] == 0
    assert third["objects_written"] == [] and third["dynamodb_items_read"] >= 1
    assert (third["indexnow_submitted"], third["indexnow_requests"]) == ([], 0)
    # the key file is published beside the sitemaps, under the sitemap path
    assert (out / f"sitemap-indexnow-{KEY}.txt").read_text("utf-8") == KEY
    # the rebuild ran on the set clock: the file (whose entries have no lastmod) is dated by the
    # run of wave 2 that changed it, 600 s after the start
    index = etree.fromstring((out / "sitemap.xml").read_bytes())
    [lastmod] = index.findall("sm:sitemap/sm:lastmod", NS)
    assert (lastmod.text or "").startswith("2026-01-05T08:10:0")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--wave-gap", "60"], "--wave-gap SECONDS needs --start ISO8601"),
        (["--start", "2026-01-05T08:00:00"], "must be an ISO 8601 date-time with a zone"),
        (["--start", "yesterday"], "--start 'yesterday'"),
        (["--start", "2026-01-05T08:00:00Z", "--wave-gap", "-1"], "must not be negative"),
        (["--indexnow-key", "short"], "--indexnow-key='short' is not valid: must be 8 to 128"),
    ],
)
def test_unusable_arguments_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    wave = _write(tmp_path / "w.jsonl", [])
    assert cli.main(["simulate", str(wave), "--out", str(tmp_path / "o"), *extra]) == 2
    assert message in capsys.readouterr().err
