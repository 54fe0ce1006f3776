"""A file name chosen by someone else reaches the terminal escaped: a line break in it cannot
forge a ``PATH: problem`` line of its own, and an escape sequence never reaches the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from tests.integration.cli.support import SITE

#: A name with a line break that would start a forged line, and an escape sequence.
HOSTILE = "export\nforged.csv:1: all good\x1b[2J\u202e"


def _csv(directory: Path) -> Path:
    path = directory / f"{HOSTILE}.csv"
    path.write_text(f"url,lastmod\n{SITE}/ok,2026-01-01\nftp://elsewhere.example/x,2026-01-01\n")
    return path


def _sitemap(directory: Path) -> Path:
    path = directory / f"{HOSTILE}.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{SITE}/a</loc><lastmod>yesterday</lastmod></url></urlset>\n"
    )
    return path


def _assert_escaped(text: str) -> None:
    assert "\x1b" not in text and "\u202e" not in text
    assert not any(line.startswith("forged.csv") for line in text.splitlines())
    assert "export\\x0aforged.csv:1: all good\\x1b[2J\\u202e" in text


def test_validate_prints_a_hostile_file_name_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(_sitemap(tmp_path))]) == 1
    out, err = capsys.readouterr()
    _assert_escaped(out + err)


def test_build_prints_a_hostile_file_name_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path)
    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 1
    _assert_escaped(err)
    assert "\x1b" not in out


def test_backfill_prints_a_hostile_file_name_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path)
    argv = ["backfill", "--from", str(source), "--site", SITE, "--no-progress"]
    code = main([*argv, "--out", str(tmp_path / "events.jsonl")])
    out, err = capsys.readouterr()
    assert code == 1
    _assert_escaped(err)
    assert "\x1b" not in out


def test_a_command_that_ends_on_a_hostile_name_ends_with_it_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / f"{HOSTILE}.csv"
    code = main(["build", "--from", str(missing), "--site", SITE, "--out", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith("sitemap-updater build: ")
    _assert_escaped(err)
