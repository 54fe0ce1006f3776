"""The client in a program of its own: without the local tooling, and flushed at exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

ROOT = Path(__file__).resolve().parents[3]
SITE = "https://www.example.com"

PROGRAM = textwrap.dedent(
    """
    import sys

    # what the local tooling brings is not there: importing any of it fails
    for name in ("sitemap_updater_local", "moto", "lxml", "tqdm"):
        sys.modules[name] = None

    from sitemap_updater.producer.client import ChangeSender

    queue_url, endpoint = sys.argv[1], sys.argv[2]
    sender = ChangeSender(
        queue_url, site="https://www.example.com", endpoint_url=endpoint, flush_at_exit=True
    )
    sender.upsert("https://www.example.com/a", lastmod="2026-11-20")
    sender.delete("https://www.example.com/b")
    # no close(): the interpreter's exit sends the buffer
    """
)


@pytest.fixture
def server() -> Iterator[str]:
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    host, port = moto.get_host_and_port()
    yield f"http://{host}:{port}"
    moto.stop()


def test_a_program_without_the_tooling_sends_its_buffer_at_exit(server: str) -> None:
    creds = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    sqs = boto3.Session(**{k.lower(): v for k, v in creds.items() if "KEY" in k}).client(
        "sqs", endpoint_url=server, region_name="us-east-1"
    )
    queue_url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    env = {**os.environ, **creds, "PYTHONPATH": str(ROOT / "layers" / "shared")}

    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, queue_url, server],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    (body,) = [json.loads(m["Body"]) for m in got]
    assert [(c["action"], c["url"]) for c in body] == [
        ("upsert", f"{SITE}/a"),
        ("delete", f"{SITE}/b"),
    ]
