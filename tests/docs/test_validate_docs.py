"""What the pages say of ``validate`` is what it does: the commands docs/cli.md shows run, from
the repository root, on the files shipped under docs/examples/sitemaps/, print what the page
quotes and end with the status it names; ``--json`` gives the fields the page lists; the line
docs/troubleshooting.md quotes is the one ``validate`` prints."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from sitemap_updater_local import cli

ROOT = Path(__file__).resolve().parents[2]
CLI = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
TROUBLESHOOTING = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
#: The validate item of the command list, up to the next command's.
SECTION = CLI.split("- `validate PATH_OR_URL...", 1)[1].split("\n- `build --from", 1)[0]
FENCE = re.compile(r"^ *```(\w*)\n(.*?)^ *```", re.S | re.M)


def _blocks(lang: str, text: str = SECTION) -> list[str]:
    return [
        "\n".join(line.strip() for line in body.splitlines())
        for kind, body in FENCE.findall(text)
        if kind == lang
    ]


def _commands() -> list[list[str]]:
    [block] = _blocks("bash")
    return [shlex.split(line)[1:] for line in block.splitlines() if line]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = cli.main(args)
    return status, capsys.readouterr().out.splitlines()


def test_the_examples_use_files_shipped_with_the_docs() -> None:
    commands = _commands()
    assert len(commands) == 3 and all(c[0] == "validate" for c in commands)
    for args in commands:
        files = [a for a in args if a.startswith("docs/examples/")]
        assert files and all((ROOT / f).is_file() for f in files), args


def test_the_examples_end_as_the_page_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    good, broken, as_json = _commands()
    [quoted] = _blocks("text")

    status, out = _run(good, capsys)
    assert status == 0 and out[-1].endswith(": 0 problem(s), 0 warning(s)")

    status, out = _run(broken, capsys)
    assert status == 1 and out == quoted.splitlines()

    status, out = _run(as_json, capsys)
    [line] = out
    shown = json.loads(line)
    assert status == 1 == shown["exit_status"]
    problems = shown["summary"]["problems"]
    assert quoted.splitlines()[-1].endswith(f": {problems} problem(s), 1 warning(s)")
    [file] = shown["files"]
    printed = [f"{file['file']}:{p['line']}: {p['text']}" for p in file["problems"]]
    assert printed == quoted.splitlines()[:problems]


def test_the_json_fields_are_those_the_page_lists(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    *_, as_json = _commands()
    _, [line] = _run(as_json, capsys)
    shown = json.loads(line)
    described = " ".join(SECTION.split("`--json` prints", 1)[1].split("Exit status:", 1)[0].split())

    def keys(text: str) -> set[str]:
        return set(re.findall(r'"(\w+)":', text))

    top, file_part = described.split("each `FILE` being", 1)
    before, summary = top.split('"summary": {', 1)
    summary, after = summary.split("}", 1)
    assert set(shown) == keys(before) | {"summary"} | keys(after)
    assert set(shown["summary"]) == keys(summary)
    [file] = shown["files"]
    assert set(file) == keys(file_part) - {"line", "text"}
    assert {k for p in file["problems"] for k in p} == {"line", "text"}


def test_the_status_codes_the_page_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    said = SECTION.split("Exit status: ", 1)[1]
    assert [int(n) for n in re.findall(r"\b(\d) when", said) + re.findall(r"(\d) for", said)] == [
        0,
        1,
        3,
        2,
    ]
    monkeypatch.chdir(ROOT)
    good, broken, _ = _commands()
    assert cli.main(good) == 0 and cli.main(broken) == 1
    assert cli.main([*good[:2], "--base-url", "ftp://www.example.com/"]) == 2
    (tmp_path / "empty.xml").write_bytes(b"")
    assert cli.main(["validate", str(tmp_path / "empty.xml")]) == 3
    capsys.readouterr()


def test_the_troubleshooting_line_is_what_validate_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    block = TROUBLESHOOTING.split("**`validate` fails a file for an alternate", 1)[1]
    [quoted] = _blocks("text", block.split("\n**", 1)[0])
    news = (
        "<news:news><news:publication><news:name>Daily</news:name>"
        "<news:language>en-US</news:language></news:publication>"
        "<news:publication_date>2026-11-27</news:publication_date>"
        "<news:title>T</news:title></news:news>"
    )
    (tmp_path / "news.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        '        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
        f"<url><loc>https://www.example.com/n</loc>{news}</url>\n</urlset>\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    status, out = _run(["validate", "news.xml"], capsys)
    assert status == 1 and quoted in out
