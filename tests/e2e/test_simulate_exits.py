"""``simulate`` ends as ``build`` does: 1 when messages were rejected (each printed, then a count
per rule), 3 when the waves hold no message or no change of them was accepted, ``DIR`` then
left as it was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitemap_updater_local import cli

SITE = "https://www.example.com"


def _wave(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _foreign(count: int) -> list[str]:
    """Upserts of URLs on another host: each rejected by ingest, for the same rule."""
    return [
        json.dumps({"action": "upsert", "url": f"https://elsewhere.example.org/{i}"})
        for i in range(count)
    ]


def _previous_output(out: Path) -> dict[str, bytes]:
    out.mkdir()
    (out / "sitemap.xml").write_bytes(b"<previous/>")
    (out / "report.json").write_bytes(b'{"waves": []}')
    return {p.name: p.read_bytes() for p in out.iterdir()}


def test_every_message_rejected_exits_3_and_keeps_the_previous_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    before = _previous_output(out)
    wave = _wave(tmp_path / "wave.jsonl", _foreign(25))

    assert cli.main(["simulate", str(wave), "--out", str(out)]) == 3

    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    captured = capsys.readouterr()
    assert "wave 1: 25 messages, 0 accepted" in captured.out
    err = captured.err.splitlines()
    shown = [line for line in err if re.match(rf"{re.escape(str(wave))}:\d+: ", line)]
    assert len(shown) == 20 and all("elsewhere.example.org" in line for line in shown)
    assert "25 message(s) rejected, the first 20 shown above; all of them by rule:" in err
    assert any(line.split()[0] == "25" and "must be on" in line for line in err)
    assert err[-1] == f"sitemap-updater simulate: no change was accepted; {out} is unchanged"


def test_some_messages_rejected_exits_1_as_build_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = json.dumps({"action": "upsert", "url": f"{SITE}/kept"})
    wave = _wave(tmp_path / "wave.jsonl", [kept, *_foreign(1)])
    out = tmp_path / "out"

    assert cli.main(["simulate", str(wave), "--out", str(out)]) == 1

    err = capsys.readouterr().err
    assert f"{wave}:2: field url value" in err and "1 message(s) rejected (see above)" in err
    assert (out / "report.json").is_file() and (out / "sitemap.xml").is_file()


def test_waves_without_a_message_exit_3_unrun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    before = _previous_output(out)
    waves = [_wave(tmp_path / "a.jsonl", []), _wave(tmp_path / "b.jsonl", ["", ""])]

    assert cli.main(["simulate", *map(str, waves), "--out", str(out)]) == 3

    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert capsys.readouterr().err == (
        f"sitemap-updater simulate: the wave files hold no message; {out} is unchanged\n"
    )
