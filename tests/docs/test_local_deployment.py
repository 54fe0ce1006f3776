"""docs/operations.md on a local deployment: ``sitemap-updater local`` as the page starts it,
the variables it writes sourced in another shell, and the page's dead-letter walkthrough run
against it as it stands, with ``send``, ``status``, ``coverage``, ``aws s3 sync`` and ``serve``
around it, as an operator practises them; then Ctrl-C.

Every wait is for a line the running deployment prints (an invocation it made), bounded by
``WAIT``; nothing sleeps.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.helpers.interrupt import default_interrupt

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
#: the schedules 240 times as often: the rebuild every second, the observer every 15 s
SPEED = "240"
WAIT = 120.0


def section(title: str) -> str:
    """The text of ``## title`` in docs/operations.md, up to the next heading of its level."""
    return OPERATIONS.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def commands(title: str) -> list[str]:
    """The commands of the section's bash blocks, in order."""
    return [
        line.strip()
        for block in FENCE.findall(section(title))
        for line in block.replace("\\\n", " ").splitlines()
        if line.strip() and not line.startswith("#")
    ]


@dataclass
class Running:
    """``sitemap-updater local``, started as the page starts it, and the lines it printed."""

    process: subprocess.Popen[str]
    work: Path
    env: dict[str, str]
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    seen: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    readers: list[threading.Thread] = field(default_factory=list)

    def start_reading(self) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        for stream, put in ((self.process.stdout, self.lines.put), (self.process.stderr, None)):
            reader = threading.Thread(target=self._read, args=(stream, put), daemon=True)
            reader.start()
            self.readers.append(reader)

    def _read(self, stream: Any, put: Any) -> None:
        for line in stream:
            (put or self.errors.append)(line.rstrip("\n"))

    def wait_for(self, pattern: str, *, seen_before: bool = False) -> re.Match[str]:
        """The next printed line that matches ``pattern`` (or, with ``seen_before``, one the
        tests before read already)."""
        if seen_before:
            for line in self.seen:
                if (found := re.search(pattern, line)) is not None:
                    return found
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line matched {pattern!r}: {self.seen[-20:]}") from None
            self.seen.append(line)
            found = re.search(pattern, line)
            if found is not None:
                return found

    def variables(self) -> dict[str, str]:
        names = {}
        for line in (self.work / "local.env").read_text().splitlines():
            name, value = line.removeprefix("export ").split("=", 1)
            names[name] = shlex.split(value)[0]
        return names

    def shell(self, command: str) -> subprocess.CompletedProcess[str]:
        """``command`` in another shell in the same directory, after the page's ``source``."""
        (setup,) = commands("Practising on a local deployment")[1:]
        return subprocess.run(
            ["bash", "-c", f"{setup} && {command}"],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )

    def client(self, service: str) -> Any:
        names = self.variables()
        return boto3.client(  # type: ignore[call-overload]
            service,
            endpoint_url=names["AWS_ENDPOINT_URL"],
            region_name=names["AWS_DEFAULT_REGION"],
            aws_access_key_id=names["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=names["AWS_SECRET_ACCESS_KEY"],
        )


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    work = tmp_path_factory.mktemp("local")
    # nothing of the machine's own AWS setup, and the project's commands first on the PATH
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    (start, _) = commands("Practising on a local deployment")
    assert start.startswith("sitemap-updater local ") and "--env-file local.env" in start
    process = subprocess.Popen(
        ["bash", "-c", f"exec {start} --speed {SPEED}"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_interrupt,  # stopped with Ctrl-C
    )
    served = Running(process, work, env)
    served.start_reading()
    try:
        served.wait_for(r"^export TABLE_NAME=")
        yield served
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _published(running: Running) -> dict[str, Any]:
    done = running.shell("sitemap-updater status --stack-name sitemap-updater --json")
    assert done.returncode == 0, done.stderr
    status: dict[str, Any] = json.loads(done.stdout)
    return status


def test_the_dead_letter_walkthrough_runs_on_the_local_deployment(running: Running) -> None:
    names = running.variables()
    site = names["SITE_URL"]
    assert site.startswith("http://127.0.0.1:")
    # a producer's change for another host: ingest rejects it into the dead-letter queue
    poison = json.dumps({"action": "upsert", "url": "https://www.example.com/articles/1"})
    running.client("sqs").send_message(QueueUrl=names["QUEUE_URL"], MessageBody=poison)
    running.wait_for(r"ingest: 1 message\(s\); changes: 0 accepted, 0 stale, 1 rejected")

    read, redrive = commands("The dead-letter queue")
    assert read.startswith("aws sqs receive-message") and redrive.startswith("sitemap-updater")
    # the page's note: the AWS CLI's sqs commands are given the endpoint
    done = running.shell(f'{read} --endpoint-url "$AWS_ENDPOINT_URL"')
    assert done.returncode == 0, done.stderr
    (letter,) = json.loads(done.stdout)["Messages"]
    assert letter["Body"] == poison
    reason = letter["MessageAttributes"]["reason"]["StringValue"]
    assert reason.startswith('field url value "https://www.example.com/articles/1" rejected: ')

    # the producer fixed, the corrected changes sent again
    fixed = [{"action": "upsert", "url": f"{site}/articles/{n}"} for n in (1, 2)]
    (running.work / "fixed.jsonl").write_text("".join(json.dumps(c) + "\n" for c in fixed))
    done = running.shell('sitemap-updater send fixed.jsonl --queue-url "$QUEUE_URL"')
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("sent 2 change(s) in 1 message(s)")
    running.wait_for(r"ingest: 1 message\(s\); changes: 2 accepted")

    # a change that outlived MaxReceiveCount receives: SQS moved it there as it was, no reason
    moved = json.dumps({"action": "upsert", "url": f"{site}/articles/3"})
    running.client("sqs").send_message(QueueUrl=names["DLQ_URL"], MessageBody=moved)
    done = running.shell(redrive)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("moved 1 message(s); 0 not moved;"), done.stdout
    running.wait_for(r"ingest: 1 message\(s\); changes: 1 accepted")

    # the next scheduled rebuild publishes the three pages; the rejection stays, counted
    running.wait_for(r"RebuildFunction \(Schedule, rate\(4 minutes\)\): published, .* 3 published")
    status = _published(running)
    (listed,) = status["sites"]
    assert (listed["url"], listed["urls"]) == (site, 3)
    assert status["queue_messages"] == 0
    assert status["dead_letter_queue"]["messages"] == 1


def test_coverage_shows_what_the_observer_measured(running: Running) -> None:
    running.wait_for(
        r"ObserveFunction \(Schedule, rate\(60 minutes\)\): .* section\(s\) observed",
        seen_before=True,
    )
    done = running.shell("sitemap-updater coverage --stack-name sitemap-updater --json")
    assert done.returncode == 0, done.stderr
    coverage = json.loads(done.stdout)
    (host,) = coverage["hosts"]
    assert host["url"] == running.variables()["SITE_URL"]
    submitted = {s["engine"]: s["state"] for s in host["index"]["submissions"]}
    assert submitted == {"google": "submitted", "bing": "submitted"}


def test_the_published_files_are_served_after_a_sync(running: Running) -> None:
    running.wait_for(r"RebuildFunction \(Schedule, .*\): published", seen_before=True)
    done = running.shell('aws s3 sync "s3://$BUCKET" local-copy --exclude "state/*"')
    assert done.returncode == 0, done.stderr
    assert (running.work / "local-copy" / "sitemap.xml").is_file()
    assert not (running.work / "local-copy" / "state").exists()
    serve = subprocess.Popen(
        ["bash", "-c", "exec sitemap-updater serve local-copy --port 0"],
        cwd=running.work,
        env=running.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_interrupt,
    )
    assert serve.stdout is not None
    try:
        first = serve.stdout.readline()
        address = re.search(r"on (http://127\.0\.0\.1:\d+/)", first)
        assert address, first
        with urllib.request.urlopen(address[1] + "sitemap.xml") as answer:
            assert b"<sitemapindex" in answer.read()
    finally:
        serve.send_signal(signal.SIGINT)
        serve.communicate(timeout=60)
    assert serve.returncode == 0


def test_ctrl_c_stops_it_with_one_line_and_status_0(running: Running) -> None:
    running.wait_for(r"^export TABLE_NAME=", seen_before=True)  # it is up
    running.process.send_signal(signal.SIGINT)
    assert running.process.wait(timeout=WAIT) == 0
    for reader in running.readers:
        reader.join(timeout=WAIT)
    assert running.errors[-1:] == ["sitemap-updater local: stopped"]
    # every line it printed is its own: the functions' logs went to the log file
    printed = running.seen + list(running.lines.queue)
    assert not any(line.startswith("{") for line in printed)
    log = (running.work / "sitemap-updater-local.log").read_text()
    assert '"function_name":"sitemap-updater-RebuildFunction"' in log
