"""Every command ends with one line and a documented exit status on anything but a bug; the
command-line rough edges: ``redrive --endpoint-url``, options described, ``backfill --out``
replaced atomically and never over its own input, ``build`` progress only on a terminal."""

from __future__ import annotations

import argparse
import fcntl
import importlib
import json
import os
import pty
import socket
import struct
import subprocess
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from sitemap_updater_local.cli import COMMANDS, main
from sitemap_updater_local.inputs.source_records import Listing, SourceError, listing
from sitemap_updater_local.pipeline import backfill_changes
from sitemap_updater_local.pipeline.source_blocks import Chunk
from tests.conftest import FAKE_AWS_ENVIRONMENT
from tests.integration.cli.support import SITE, page_urls


@pytest.fixture
def failing_validate(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BaseException]]:
    """``validate`` made to raise what the list holds."""
    module = importlib.import_module("sitemap_updater_local.commands.validate")
    raised: list[BaseException] = []

    def run(args: argparse.Namespace) -> int:
        raise raised[0]

    monkeypatch.setattr(module, "run", run)
    yield raised


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (KeyboardInterrupt(), 130, "interrupted"),
        (SourceError("x.xml: cannot open: gone"), 2, "x.xml: cannot open: gone"),
        (PermissionError(13, "Permission denied", "/srv/x"), 2, "/srv/x: Permission denied"),
    ],
)
def test_known_endings_are_one_line_and_their_status(
    failing_validate: list[BaseException],
    capsys: pytest.CaptureFixture[str],
    error: BaseException,
    code: int,
    line: str,
) -> None:
    failing_validate.append(error)
    assert main(["validate", "x"]) == code
    assert capsys.readouterr().err.splitlines() == [f"sitemap-updater validate: {line}"]


def test_a_bug_keeps_its_traceback(failing_validate: list[BaseException]) -> None:
    failing_validate.append(ZeroDivisionError("a bug"))
    with pytest.raises(ZeroDivisionError):
        main(["validate", "x"])


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_option_of_every_command_is_described(command: str) -> None:
    module = importlib.import_module(f"sitemap_updater_local.commands.{command}")
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    undescribed = [
        action.dest
        for action in parser._actions
        if action.help != argparse.SUPPRESS and not action.help
    ]
    assert undescribed == []


@pytest.fixture
def sqs_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    yield f"http://{host}:{port}"
    server.stop()


def test_redrive_reaches_the_endpoint_it_is_given(
    sqs_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sqs = boto3.client("sqs", endpoint_url=sqs_server)
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    queue = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    sqs.send_message(QueueUrl=dlq, MessageBody='{"redriven": true}')

    code = main(["redrive", "--from-queue", dlq, "--to-queue", queue, "--endpoint-url", sqs_server])

    assert code == 0, capsys.readouterr().err
    got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in got] == ['{"redriven": true}']


def test_redrive_to_an_endpoint_that_does_not_answer_is_one_line(
    sqs_server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")

    code = main(
        [
            "redrive",
            "--from-queue",
            f"{closed}/1/dlq",
            "--to-queue",
            f"{closed}/1/q",
            "--endpoint-url",
            closed,
        ]
    )

    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("sitemap-updater redrive: ") and closed in err[0]


def _sitemap_rows(count: int) -> Iterator[Chunk]:
    listings: list[Listing] = [
        listing("x.xml", line, url) for line, url in enumerate(page_urls(count), start=1)
    ]
    yield Chunk(0, listings)  # type: ignore[arg-type]


def test_a_failed_backfill_leaves_the_previous_file_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "events.jsonl"
    out.write_text('{"action":"upsert","url":"https://www.example.com/good"}\n')
    before = out.read_bytes()

    def breaks_midway(locations: list[str], *options: object, **named: object) -> Iterator[Chunk]:
        yield from _sitemap_rows(5000)
        raise SourceError(f"{locations[0]}: cannot read: connection reset")

    monkeypatch.setattr(backfill_changes, "source_work", breaks_midway)
    code = main(["backfill", "--from", "x.xml", "--out", str(out), "--no-progress", "--site", SITE])

    assert code == 2
    assert "connection reset" in capsys.readouterr().err
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["events.jsonl"]


def test_backfill_out_replaces_a_planted_symlink_instead_of_following_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "events.jsonl"
    out.symlink_to(victim)
    monkeypatch.setattr(
        backfill_changes, "source_work", lambda locations, *options, **named: _sitemap_rows(3)
    )

    assert (
        main(["backfill", "--from", "x", "--out", str(out), "--no-progress", "--site", SITE]) == 0
    )

    assert victim.read_text() == "keep me"
    assert not out.is_symlink()
    assert len(out.read_text().splitlines()) == 3
    assert "3 upsert(s)" in capsys.readouterr().out


def test_backfill_onto_its_own_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "events.jsonl"
    lines = [json.dumps({"action": "upsert", "url": u}) for u in page_urls(50)]
    source.write_text("\n".join(lines) + "\n")
    before = source.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(source)

    for out in (source, link):
        code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress"])
        assert code == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and "is the input file" in err[0]
    assert source.read_bytes() == before


def test_backfill_out_that_cannot_be_written_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        backfill_changes, "source_work", lambda locations, *options, **named: _sitemap_rows(3)
    )
    for out in (tmp_path, tmp_path / "no" / "such" / "dir" / "events.jsonl"):
        argv = ["backfill", "--from", "x", "--out", str(out), "--no-progress", "--site", SITE]
        assert main(argv) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f"sitemap-updater backfill: cannot write {out}")
    assert list(tmp_path.iterdir()) == []


def _build_command(source: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sitemap_updater_local.cli",
        "build",
        "--from",
        str(source),
        "--site",
        SITE,
        "--out",
        str(out),
        "--jobs",
        "1",
    ]


def test_build_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    source = tmp_path / "urls.csv"
    source.write_text("\n".join(page_urls(3000)) + "\n")

    piped = subprocess.run(_build_command(source, tmp_path / "a"), capture_output=True, check=True)
    assert piped.stderr == b""

    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
    with subprocess.Popen(
        _build_command(source, tmp_path / "b"), stdout=subprocess.DEVNULL, stderr=secondary
    ) as process:
        os.close(secondary)
        shown = b""
        while chunk := _read(primary):
            shown += chunk
        assert process.wait() == 0
    os.close(primary)
    text = shown.decode()
    assert "3000 records" in text and "1 file(s) written" in text


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # the terminal closed: every writer is gone
        return b""
