"""Hostile lines in the inputs of ``build`` and ``backfill``: each is one clear problem of its
record (or of its line), and the rest of the source is read on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from tests.integration.cli.support import SITE, published

HUGE_INTEGER = "7" * 5000


def _lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _good(path: str) -> str:
    return json.dumps({"action": "upsert", "url": SITE + path})


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_build_rejects_a_5000_digit_integer_as_one_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    bad = '{"action":"upsert","url":"' + SITE + '/b","priority":' + HUGE_INTEGER + "}"
    source = _lines(tmp_path / "events.jsonl", _good("/a"), bad, _good("/c"))

    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(tmp_path / "out")])

    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    (problem,) = [line for line in err.splitlines() if line.startswith(f"{source}:")]
    assert problem.startswith(f"{source}:2: body: ")
    assert "must be JSON whose integers have at most" in problem
    assert sorted(u for urls in published(tmp_path / "out").values() for u in urls) == [
        f"{SITE}/a",
        f"{SITE}/c",
    ]


def test_backfill_rejects_a_5000_digit_integer_as_one_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = '{"action":"upsert","url":"' + SITE + '/b","mine":[' + HUGE_INTEGER + "]}"
    source = _lines(tmp_path / "history.jsonl", _good("/a"), bad)
    out = tmp_path / "events.jsonl"

    code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress"])

    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    assert f"{source}:2: body: " in err and "integers have at most" in err
    assert [json.loads(line)["url"] for line in out.read_text().splitlines()] == [f"{SITE}/a"]
