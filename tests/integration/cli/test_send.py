"""``sitemap-updater send`` against moto SQS: the lines' changes, checked and packed by the
producer client, reach the queue once each; rejected lines are reported with their line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from moto import mock_aws

from sitemap_updater_local.cli import main
from tests.helpers.sqs_faults import drain, inject_failures
from tests.integration.cli.support import page_urls

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

SITE = "https://www.example.com"


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQSClient]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    # no region in the environment: the command takes the one the queue URL names
    for name in ("AWS_DEFAULT_REGION", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        boto3.setup_default_session()
        yield boto3.client("sqs", region_name="eu-west-1")
    boto3.DEFAULT_SESSION = None


def _changes(bodies: list[str]) -> list[dict[str, Any]]:
    return [change for body in bodies for change in json.loads(body)]


def test_every_change_of_every_line_is_sent_packed_in_array_messages(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    assert ".eu-west-1." in url
    urls = list(page_urls(1100))
    lines = [json.dumps({"action": "upsert", "url": u}) for u in urls[:1000]]
    lines.append(json.dumps([{"action": "delete", "url": u} for u in urls[1000:1099]]))
    event = {"detail-type": "PageChanged", "time": "2026-11-20T10:00:00Z", "source": "cms"}
    lines.append(json.dumps({**event, "detail": {"action": "upsert", "url": urls[1099]}}))
    source = tmp_path / "events.jsonl"
    source.write_text("\n".join(lines[:500]) + "\n\n" + "\n".join(lines[500:]) + "\n")

    code = main(["send", "--queue-url", url, str(source), "--no-progress"])

    assert code == 0
    changes = _changes(drain(sqs, url))
    assert sorted(c["url"] for c in changes) == sorted(urls)
    assert next(c for c in changes if c["url"] == urls[1099])["occurred_at"] == event["time"]
    assert {c["action"] for c in changes if c["url"] in urls[1000:1099]} == {"delete"}
    out = capsys.readouterr().out
    assert "sent 1100 change(s) in 3 message(s), 1 batch call(s); 0 rejected" in out


def test_rejected_and_unreadable_lines_are_reported_and_the_rest_sent(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    good = [json.dumps({"action": "upsert", "url": f"{SITE}/p/{i}"}) for i in range(3)]
    source = tmp_path / "events.jsonl"
    source.write_bytes(
        "\n".join(
            [
                good[0],
                "not json at all",
                json.dumps({"action": "upsert", "url": f"{SITE}/x", "priority": 7}),
                good[1],
                json.dumps([{"action": "upsert", "url": "https://elsewhere.example.org/"}]),
            ]
        ).encode()
        + b"\n\xff\xfe broken\n"
        + good[2].encode()
        + b"\n"
    )

    code = main(["send", "--queue-url", url, str(source), "--no-progress"])

    captured = capsys.readouterr()
    assert code == 1
    assert f"{source}:2: field message rejected: must be JSON" in captured.err
    assert f"{source}:3: field priority value 7 rejected:" in captured.err
    assert f"{source}:5 change 0: field url value" in captured.err
    assert f"{source}:6: line is not UTF-8" in captured.err
    assert "sent 3 change(s)" in captured.out
    assert "3 rejected, 0 not sent, 1 unreadable" in captured.out
    assert sorted(c["url"] for c in _changes(drain(sqs, url))) == [
        f"{SITE}/p/{i}" for i in range(3)
    ]


def test_changes_sqs_never_takes_are_reported(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    source = tmp_path / "events.jsonl"
    source.write_text(json.dumps({"action": "delete", "url": f"{SITE}/a"}) + "\n")
    original = boto3.client

    def failing_client(*args: Any, **kwargs: Any) -> Any:
        client = original(*args, **kwargs)
        inject_failures(client, lambda body, call: (True, "InvalidMessageContents", "refused"))
        return client

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(boto3, "client", failing_client)
        code = main(["send", "--queue-url", url, str(source), "--no-progress"])

    captured = capsys.readouterr()
    assert code == 1
    assert "1 change(s) not sent; first: InvalidMessageContents: refused" in captured.err
    assert f"{SITE}/a" in captured.err
    assert "1 not sent" in captured.out


def test_a_queue_url_without_a_region_needs_one_from_elsewhere(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "events.jsonl"
    source.write_text(json.dumps({"action": "delete", "url": f"{SITE}/a"}) + "\n")

    code = main(["send", "--queue-url", "http://127.0.0.1:1/q", str(source), "--no-progress"])

    assert code == 2
    assert "region" in capsys.readouterr().err.lower()


@pytest.mark.parametrize(
    "sites",
    [
        ["--site", "https://shop.example.co.uk", "--site", "https://shop.example.fr"],
        ["--site", "https://shop.example.co.uk,https://shop.example.fr"],
    ],
)
def test_several_sites_send_the_changes_of_every_host_with_their_alternates(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str], sites: list[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    uk, fr = "https://shop.example.co.uk", "https://shop.example.fr"
    lines = []
    for i in range(3):
        links = [
            {"hreflang": "en-GB", "href": f"{uk}/p/{i}"},
            {"hreflang": "fr", "href": f"{fr}/p/{i}"},
        ]
        for host in (uk, fr):
            lines.append(
                json.dumps({"action": "upsert", "url": f"{host}/p/{i}", "alternates": links})
            )
    source = tmp_path / "events.jsonl"
    source.write_text("\n".join(lines) + "\n")

    code = main(["send", "--queue-url", url, str(source), "--no-progress", *sites])

    assert code == 0, capsys.readouterr().err
    changes = _changes(drain(sqs, url))
    assert sorted(c["url"] for c in changes) == sorted(json.loads(line)["url"] for line in lines)
    assert all(len(c["alternates"]) == 2 for c in changes)
    assert "sent 6 change(s)" in capsys.readouterr().out
