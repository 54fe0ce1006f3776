"""An exit status means the same on every command: 3 when nothing was read or kept (and the
previous output is then left as it was), 1 when records were skipped; every line a command says
of itself begins ``sitemap-updater COMMAND: ``; ``backfill`` prints its problems as ``build``
does and its totals add up."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from sitemap_updater_local.cli import main
from tests.conftest import FAKE_AWS_ENVIRONMENT

SITE = "https://www.example.com"
GOOD = '{"action":"upsert","url":"https://www.example.com/kept"}\n'
QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/ingest"


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    out = tmp_path / "events.jsonl"
    out.write_text(GOOD, encoding="utf-8")
    return out


def _backfill(source: Path, out: Path) -> int:
    return main(
        ["backfill", "--from", str(source), "--out", str(out), "--site", SITE, "--no-progress"]
    )


def _ending(err: str, command: str) -> str:
    last = err.splitlines()[-1]
    assert last.startswith(f"sitemap-updater {command}: "), err
    return last


def test_backfill_of_an_index_listing_only_itself_exits_3_and_keeps_out(
    tmp_path: Path, previous: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "sitemap.xml"
    index.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sitemap><loc>sitemap.xml</loc></sitemap></sitemapindex>\n",
        encoding="utf-8",
    )

    assert _backfill(index, previous) == 3

    assert previous.read_text(encoding="utf-8") == GOOD
    ending = _ending(capsys.readouterr().err, "backfill")
    assert ending == f"sitemap-updater backfill: nothing read from {index}; {previous} is unchanged"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.jsonl", "sitemap.xml"]


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("", "empty file: nothing to read"),
        ("url,lastmod\nhttps://elsewhere.example.org/a,2026-01-01\n", "no record of 1 kept from"),
    ],
    ids=["empty", "every-record-rejected"],
)
def test_backfill_that_keeps_nothing_exits_3_and_never_replaces_out(
    tmp_path: Path, previous: Path, capsys: pytest.CaptureFixture[str], text: str, ending: str
) -> None:
    source = tmp_path / "export.csv"
    source.write_text(text, encoding="utf-8")

    assert _backfill(source, previous) == 3

    assert previous.read_text(encoding="utf-8") == GOOD
    assert ending in _ending(capsys.readouterr().err, "backfill")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.jsonl", "export.csv"]


def _totals(out: str) -> tuple[int, ...]:
    """Read, written, skipped, more changes of a page, deleted, not sent: the parts of the
    summary line."""
    [line] = [line for line in out.splitlines() if line.startswith("read ")]
    found = re.fullmatch(
        r"read (\d+) record\(s\); (\d+) upsert\(s\) written to [^;]+; (\d+) skipped; "
        r"(\d+) more change\(s\) of a page written once; (\d+) page\(s\) deleted; (\d+) not sent",
        line,
    )
    assert found is not None, line
    return tuple(int(n or 0) for n in found.groups())


def test_backfill_prints_problems_as_build_does_and_its_totals_add_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [f"https://elsewhere.example.org/{i},2026-01-01" for i in range(23)]
    rows += [f"{SITE}/bad-date/{i},2026-13-45" for i in range(4)]
    rows += [f"{SITE}/page/{i},2026-01-01" for i in range(5)]
    source = tmp_path / "export.csv"
    source.write_text("url,lastmod\n" + "\n".join(rows) + "\n", encoding="utf-8")

    assert _backfill(source, tmp_path / "out.jsonl") == 1

    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert len([line for line in err if line.startswith(f"{source}:")]) == 20
    # a bad lastmod costs the field, not the page: a warning, the page written without it
    assert (
        "23 invalid record(s) skipped, 4 invalid element(s) or field(s) left out, their pages "
        "kept, the first 20 shown above; all of them by rule:"
    ) in err
    counts = {line.split(None, 1)[1]: int(line.split()[0]) for line in err if line.startswith("  ")}
    assert sorted(counts.values()) == [4, 23]
    assert _totals(captured.out) == (32, 9, 23, 0, 0, 0)
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 9


def test_backfill_totals_count_the_changes_a_later_one_supersedes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changes = [
        {"action": "upsert", "url": f"{SITE}/a", "occurred_at": "2026-01-01T00:00:00Z"},
        {"action": "upsert", "url": f"{SITE}/a", "occurred_at": "2026-01-02T00:00:00Z"},
        {"action": "upsert", "url": f"{SITE}/b", "occurred_at": "2026-01-01T00:00:00Z"},
        {"action": "delete", "url": f"{SITE}/b", "occurred_at": "2026-01-02T00:00:00Z"},
        {"action": "upsert", "url": "https://elsewhere.example.org/c"},
    ]
    source = tmp_path / "events.jsonl"
    source.write_text("".join(json.dumps(c) + "\n" for c in changes), encoding="utf-8")

    assert _backfill(source, tmp_path / "out.jsonl") == 1

    # a: two changes, the later one written; b: deleted by its later change; c: off the site
    assert _totals(capsys.readouterr().out) == (5, 1, 1, 2, 1, 0)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield


@pytest.mark.parametrize(
    ("lines", "ending"),
    [
        ("", "nothing read from {file}; nothing sent"),
        (
            '{"action":"upsert","url":"https://elsewhere.example.org/a"}\nnot json\n',
            "no change to send in",
        ),
    ],
    ids=["empty", "every-change-rejected"],
)
def test_send_with_nothing_to_send_exits_3(
    tmp_path: Path, aws: None, capsys: pytest.CaptureFixture[str], lines: str, ending: str
) -> None:
    url = boto3.client("sqs").create_queue(QueueName="ingest")["QueueUrl"]
    source = tmp_path / "changes.jsonl"
    source.write_text(lines, encoding="utf-8")

    assert main(["send", str(source), "--queue-url", url, "--site", SITE, "--no-progress"]) == 3

    assert ending.format(file=source) in _ending(capsys.readouterr().err, "send")
    assert "Messages" not in boto3.client("sqs").receive_message(QueueUrl=url)


def test_redrive_of_an_empty_dead_letter_queue_exits_3(
    aws: None, capsys: pytest.CaptureFixture[str]
) -> None:
    sqs = boto3.client("sqs")
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    queue = sqs.create_queue(QueueName="ingest")["QueueUrl"]

    assert main(["redrive", "--from-queue", dlq, "--to-queue", queue]) == 3

    captured = capsys.readouterr()
    assert captured.out.startswith("moved 0 message(s)")
    assert _ending(captured.err, "redrive") == (
        f"sitemap-updater redrive: {dlq} holds no message: nothing to move"
    )


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("demo", ["--urls", "0"]),
        ("simulate", ["wave.jsonl", "--out", "o", "--faults", "0.1"]),
        ("validate", ["no-sitemaps"]),
        ("build", ["--from", "x.csv", "--site", "www.example.com", "--out", "o"]),
        ("backfill", ["--from", "x.csv", "--site", "www.example.com", "--out", "o.jsonl"]),
        ("send", ["x.jsonl", "--queue-url", QUEUE, "--site", "www.example.com"]),
        ("redrive", ["--from-queue", QUEUE, "--to-queue", QUEUE, "--max-messages", "-1"]),
        ("serve", ["no-sitemaps", "--bind", "192.0.2.1"]),
    ],
)
def test_every_command_ends_with_one_line_under_one_prefix(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    args: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wave.jsonl").write_text(GOOD, encoding="utf-8")
    (tmp_path / "no-sitemaps").mkdir()

    code = main([command, *args])

    err = capsys.readouterr().err
    assert code in (2, 3) and len(err.splitlines()) == 1, err
    _ending(err, command)
