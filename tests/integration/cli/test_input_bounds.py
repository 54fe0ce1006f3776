"""Hostile lines in the inputs of ``build`` and ``backfill``: each is one clear problem of its
record (or of its line), and the rest of the source is read on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from sitemap_updater_local.inputs.line_blocks import MAX_LINE_BYTES
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
    assert problem.startswith(f"{source}:2: message: ")
    assert "must be JSON whose integers have at most 4,300 digits" in problem
    assert sorted(u for urls in published(tmp_path / "out").values() for u in urls) == [
        f"{SITE}/a",
        f"{SITE}/c",
    ]


def test_backfill_ignores_a_5000_digit_integer_in_a_field_of_the_producers_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = '{"action":"upsert","url":"' + SITE + '/b","mine":[' + HUGE_INTEGER + "]}"
    source = _lines(tmp_path / "history.jsonl", _good("/a"), bad)
    out = tmp_path / "events.jsonl"

    code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress"])

    err = capsys.readouterr().err
    assert code == 0
    assert "Traceback" not in err
    written = sorted(json.loads(line)["url"] for line in out.read_text().splitlines())
    assert written == [f"{SITE}/a", f"{SITE}/b"]


def _overlong_event(path: str) -> str:
    """An upsert line just over the line bound (its padding a field of the producer's own)."""
    head = '{"action":"upsert","url":"' + SITE + path + '","pad":"'
    return head + "p" * (MAX_LINE_BYTES - len(head)) + '"}'


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_build_reports_an_overlong_line_and_reads_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    source = _lines(
        tmp_path / "events.jsonl", _good("/a"), _overlong_event("/b"), _good("/c"), _good("/d")
    )

    code = main(
        [
            "build",
            "--from",
            str(source),
            "--site",
            SITE,
            "--out",
            str(tmp_path / "o"),
            "--jobs",
            jobs,
        ]
    )

    err = capsys.readouterr().err
    assert code == 1
    (problem,) = [line for line in err.splitlines() if line.startswith(f"{source}:")]
    assert problem.startswith(f"{source}:2: line is longer than {MAX_LINE_BYTES:,} bytes")
    urls = sorted(u for urls in published(tmp_path / "o").values() for u in urls)
    assert urls == [f"{SITE}/a", f"{SITE}/c", f"{SITE}/d"]


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_backfill_reports_an_overlong_line_and_reads_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    if suffix == "jsonl":
        lines = [_good("/a"), _overlong_event("/b"), _good("/c")]
    else:
        lines = ["url,lastmod", f"{SITE}/a", f"{SITE}/b," + "9" * MAX_LINE_BYTES, f"{SITE}/c"]
    source = _lines(tmp_path / f"export.{suffix}", *lines)
    out = tmp_path / "events.jsonl"

    code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress"])

    err = capsys.readouterr().err
    assert code == 1
    long_line = lines.index(next(line for line in lines if len(line) > MAX_LINE_BYTES)) + 1
    assert f"{source}:{long_line}: line is longer than {MAX_LINE_BYTES:,} bytes" in err
    assert [json.loads(line)["url"] for line in out.read_text().splitlines()] == [
        f"{SITE}/a",
        f"{SITE}/c",
    ]


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_source_of_one_line_without_a_line_break_is_one_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    start = b"{" if kind == "jsonl" else b"url,"
    source = tmp_path / f"one.{kind}"
    source.write_bytes(start + b"x" * (3 * MAX_LINE_BYTES))

    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(tmp_path / "o")])

    err = capsys.readouterr().err
    assert code == 3  # the one record is refused: nothing to publish
    assert err.startswith(f"{source}:1: line is longer than {MAX_LINE_BYTES:,} bytes")
    assert f"({3 * MAX_LINE_BYTES + len(start):,})" in err
