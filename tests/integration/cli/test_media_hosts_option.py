"""``--media-hosts``: build and backfill judge images and videos as a stack with that
``MediaHosts`` does (on every worker process too)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from tests.integration.cli.support import SITE, published

EVIL = "https://evil.example.org/x.jpg"


def _events(path: Path) -> Path:
    lines = [
        {"action": "upsert", "url": f"{SITE}/a", "images": [{"loc": EVIL}]},
        {"action": "upsert", "url": f"{SITE}/b", "images": [{"loc": "https://cdn.example.com/b"}]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_build_refuses_media_off_the_listed_hosts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    source = _events(tmp_path / "events.jsonl")
    out = tmp_path / "out"
    args = ["--site", SITE, "--out", str(out), "--jobs", jobs, "--media-hosts", "cdn.example.com"]

    code = main(["build", "--from", str(source), *args])

    err = capsys.readouterr().err
    assert code == 1
    assert f"{source}:1[" not in err and f"{source}:1: images[0].loc: " in err
    assert "must be on the site's host or a media host (MEDIA_HOSTS)" in err
    assert [u for urls in published(out).values() for u in urls] == [f"{SITE}/b"]


def test_backfill_refuses_them_too_and_takes_any_host_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _events(tmp_path / "history.jsonl")
    out = tmp_path / "events.jsonl"
    base = ["backfill", "--from", str(source), "--out", str(out), "--no-progress"]

    assert main([*base, "--media-hosts", ""]) == 3  # no record kept: no file written
    assert not out.exists()
    assert main(base) == 0
    assert len(out.read_text().splitlines()) == 2
    capsys.readouterr()
