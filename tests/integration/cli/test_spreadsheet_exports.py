"""A CSV export as a spreadsheet writes it: its dates in the spreadsheet's forms, its text in
the encoding named, and a bad lastmod that costs the field, not the page (unless asked)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater_local.cli import main
from sitemap_updater_local.inputs.lastmod_forms import w3c_lastmod
from tests.integration.cli.support import SITE, published

ROWS = [
    ("a", "2026-11-01 10:00:00", "2026-11-01T10:00:00Z"),
    ("b", "2026-11-01 10:00+02:00", "2026-11-01T08:00:00Z"),
    ("c", "1795000000", "2026-11-18T11:06:40Z"),
    ("d", "27/11/2026", "2026-11-27"),
    ("e", "20.11.2026", "2026-11-20"),
    ("f", "20.11.2026 07:30", "2026-11-20T07:30:00Z"),
]


def _backfill(
    capsys: pytest.CaptureFixture[str], source: Path, *options: str
) -> tuple[int, dict[str, dict[str, object]], str]:
    out = source.with_suffix(".events.jsonl")
    code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress", *options])
    err = capsys.readouterr().err
    events = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return code, {str(e["url"]): e for e in events}, err


def _export(tmp_path: Path, rows: list[tuple[str, str]], encoding: str = "utf-8") -> Path:
    path = tmp_path / "export.csv"
    lines = ["url,lastmod", *(f"{SITE}/{page},{lastmod}" for page, lastmod in rows)]
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def test_each_spreadsheet_form_of_a_date_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _export(tmp_path, [(page, text) for page, text, _ in ROWS])
    code, events, err = _backfill(capsys, source, "--date-order", "dmy")
    # one "read as" note a form, no warning: every form is read
    notes = err.splitlines()
    assert code == 0 and all(f"{source}: note: 1 lastmod in the form " in n for n in notes)
    assert len(notes) == len(ROWS)
    assert {url: e.get("lastmod") for url, e in events.items()} == {
        f"{SITE}/{page}": wanted for page, _, wanted in ROWS
    }


def test_month_first_is_read_when_asked_and_a_day_month_date_needs_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _export(tmp_path, [("a", "11/27/2026")])
    code, events, _ = _backfill(capsys, source, "--date-order", "mdy")
    assert code == 0 and events[f"{SITE}/a"]["lastmod"] == "2026-11-27"
    code, events, err = _backfill(capsys, source)
    assert code == 0 and "lastmod" not in events[f"{SITE}/a"]
    assert f"{source}:2: warning: lastmod: '11/27/2026' is invalid" in err


def test_a_bad_lastmod_costs_the_field_and_with_strict_fields_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [("a", "2026-11-01"), ("b", "soon"), ("c", "31/02/2026")]
    source = _export(tmp_path, rows)
    code, events, err = _backfill(capsys, source, "--date-order", "dmy")
    assert code == 0 and sorted(events) == [f"{SITE}/a", f"{SITE}/b", f"{SITE}/c"]
    assert "lastmod" not in events[f"{SITE}/b"] and "lastmod" not in events[f"{SITE}/c"]
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert [line.split(": warning: ")[0] for line in warnings] == [f"{source}:3", f"{source}:4"]
    assert all(line.endswith("left out, the page is kept") for line in warnings)

    code, events, err = _backfill(capsys, source, "--date-order", "dmy", "--strict-fields")
    assert code == 1 and list(events) == [f"{SITE}/a"]
    assert f"{source}:3: lastmod: 'soon' is invalid" in err


def test_build_reads_the_same_dates_and_keeps_the_same_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _export(tmp_path, [*((p, t) for p, t, _ in ROWS), ("g", "soon")])
    out = tmp_path / "site"
    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(out),
                 "--date-order", "dmy"])  # fmt: skip
    capsys.readouterr()
    assert code == 0
    [locs] = published(out).values()
    assert sorted(locs) == sorted(f"{SITE}/{p}" for p in "abcdefg")


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_a_named_encoding_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    source = _export(tmp_path, [("café", "2026-11-01"), ("naïve", "2026-11-02")], encoding)
    code, events, err = _backfill(capsys, source)
    assert code == 3 and events == {} and "row is not valid UTF-8" in err
    assert "--encoding" in err
    code, events, err = _backfill(capsys, source, "--encoding", encoding)
    assert code == 0 and err == ""
    assert sorted(events) == [f"{SITE}/caf%C3%A9", f"{SITE}/na%C3%AFve"]


def test_an_encoding_that_is_not_ascii_compatible_is_read_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _export(tmp_path, [("café", "27.11.2026")], "utf-16")
    code, events, err = _backfill(capsys, source, "--encoding", "utf-16", "--date-order", "dmy")
    assert code == 0 and all(": note: " in line for line in err.splitlines())
    assert events == {
        f"{SITE}/caf%C3%A9": {
            "action": "upsert",
            "url": f"{SITE}/caf%C3%A9",
            "lastmod": "2026-11-27",
            "occurred_at": "2026-11-27T00:00:00.000000Z",
        }
    }


def test_utf8_with_a_bom_stays_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _export(tmp_path, [("café", "2026-11-01")], "utf-8-sig")
    code, events, _ = _backfill(capsys, source)
    assert code == 0 and list(events) == [f"{SITE}/caf%C3%A9"]


def test_an_unknown_encoding_is_refused_by_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _export(tmp_path, [("a", "2026-11-01")])
    with pytest.raises(SystemExit) as exit_:
        main(["backfill", "--from", str(source), "--out", "-", "--encoding", "klingon"])
    assert exit_.value.code == 2 and "'klingon' is not an encoding" in capsys.readouterr().err


@given(st.datetimes(min_value=datetime(1974, 1, 1), max_value=datetime(2026, 1, 1)))
def test_every_form_of_a_moment_is_read_as_the_same_moment(moment: datetime) -> None:
    moment = moment.replace(microsecond=0)
    now = datetime(2026, 11, 27, tzinfo=UTC)
    wanted = normalize_lastmod(moment.replace(tzinfo=UTC), now=now)
    day = f"{moment.day:02d}"
    month = f"{moment.month:02d}"
    clock = moment.strftime("%H:%M:%S")
    forms = [
        (f"{moment.date().isoformat()} {clock}", None),
        (str(int(moment.replace(tzinfo=UTC).timestamp())), None),
        (f"{day}/{month}/{moment.year} {clock}", "dmy"),
        (f"{month}.{day}.{moment.year} {clock}", "mdy"),
    ]
    for text, order in forms:
        read = normalize_lastmod(w3c_lastmod(text, order)[0], now=now)  # type: ignore[arg-type]
        assert read == wanted, (text, order)
