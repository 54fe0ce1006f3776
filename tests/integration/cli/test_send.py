"""``sitemap-updater send`` against moto SQS: batches of 10, every body arrives once.

Partial failures of ``SendMessageBatch`` are injected with botocore's ``before-call`` event,
which lets a handler answer a call instead of the service: the call then never reaches moto.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from moto import mock_aws

from sitemap_updater_local.cli import main
from sitemap_updater_local.commands.send import MAX_ATTEMPTS, BatchSender
from tests.integration.cli.support import page_urls

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQSClient]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        boto3.setup_default_session()
        yield boto3.client("sqs", region_name="us-east-1")
    boto3.DEFAULT_SESSION = None


def _drain(sqs: SQSClient, url: str) -> list[str]:
    bodies: list[str] = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        for m in messages:
            bodies.append(m["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return bodies


def _bodies(count: int) -> list[str]:
    return [json.dumps({"action": "upsert", "url": u}) for u in page_urls(count)]


Verdict = tuple[bool, str, str] | None  # (sender fault, code, message), or None: accepted


def _inject_failures(sqs: SQSClient, verdict: Callable[[str, int], Verdict]) -> None:
    """Make SendMessageBatch fail the entries for which ``verdict(body, call_number)`` says so.

    The failing entries are taken out of the request before it reaches moto (which enqueues
    the others for real) and added to the response's ``Failed`` list after it.
    """
    calls = {"n": 0}
    failed: list[dict[str, Any]] = []

    def before(params: dict[str, Any], **_: Any) -> Any:
        calls["n"] += 1
        request = json.loads(params["body"])
        keep = []
        failed.clear()
        for entry in request["Entries"]:
            result = verdict(entry["MessageBody"], calls["n"])
            if result is None:
                keep.append(entry)
            else:
                fault, code, message = result
                failed.append(
                    {"Id": entry["Id"], "SenderFault": fault, "Code": code, "Message": message}
                )
        if not keep:  # nothing left to send: answer the call here
            http = AWSResponse(url="", status_code=200, headers={}, raw=None)  # type: ignore[arg-type]
            return http, {"Successful": [], "Failed": list(failed)}
        request["Entries"] = keep
        params["body"] = json.dumps(request).encode()
        return None

    def after(parsed: dict[str, Any], **_: Any) -> None:
        if failed and not parsed.get("Failed"):
            parsed["Failed"] = list(failed)

    sqs.meta.events.register("before-call.sqs.SendMessageBatch", before)
    sqs.meta.events.register("after-call.sqs.SendMessageBatch", after)


def test_sends_every_line_in_batches_of_ten(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    bodies = _bodies(23)
    bodies[5] = "not json at all: sent as is, ingest judges it"
    bodies.append(bodies[0])  # a repeated line is sent again
    source = tmp_path / "events.jsonl"
    source.write_text("\n".join(bodies[:12]) + "\n\n" + "\n".join(bodies[12:]) + "\n")
    sizes: list[int] = []
    boto3.DEFAULT_SESSION.events.register(  # type: ignore[union-attr]
        "provide-client-params.sqs.SendMessageBatch",
        lambda params, **_: sizes.append(len(params["Entries"])),
    )

    code = main(["send", "--queue-url", url, str(source), "--no-progress"])

    assert code == 0
    assert sizes == [10, 10, 4]
    assert Counter(_drain(sqs, url)) == Counter(bodies)
    assert "sent 24 message(s) in 3 batch call(s); 0 failed" in capsys.readouterr().out


def test_entries_failed_by_the_service_are_retried_until_sent(sqs: SQSClient) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    bodies = _bodies(7)

    _inject_failures(sqs, lambda body, call: (False, "InternalError", "x") if call <= 2 else None)
    delays: list[float] = []
    with BatchSender(sqs, url, sleep=delays.append) as sender:
        for i, body in enumerate(bodies):
            sender.add(f"line {i + 1}", body)

    assert sender.stats.failures == []
    assert sender.stats.sent == 7
    assert sender.stats.batches == 3
    assert delays == sorted(delays) and len(delays) == 2  # growing backoff between attempts
    assert sorted(_drain(sqs, url)) == sorted(bodies)


def test_sender_faults_and_exhausted_retries_are_reported_per_line(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    bodies = _bodies(12)

    def verdict(body: str, call: int) -> Verdict:
        if body == bodies[2]:  # refused as the sender's fault: never retried
            return True, "InvalidMessageContents", "bad character"
        if body == bodies[4]:  # fails on the service's side at every attempt
            return False, "InternalError", "try again"
        if body == bodies[7] and call == 1:  # fails once, then goes through
            return False, "ServiceUnavailable", "busy"
        return None

    _inject_failures(sqs, verdict)
    sender = BatchSender(sqs, url, sleep=lambda s: None)
    for i, body in enumerate(bodies):
        sender.add(f"events.jsonl:{i + 1}", body)
    sender.flush()

    assert sender.stats.batches == MAX_ATTEMPTS + 1  # 1st batch and its retries, 2nd batch
    assert [str(f) for f in sender.stats.failures] == [
        "events.jsonl:3: not sent: InvalidMessageContents: bad character",
        "events.jsonl:5: not sent: InternalError: try again",
    ]
    arrived = _drain(sqs, url)
    assert sorted(arrived) == sorted(b for i, b in enumerate(bodies) if i not in {2, 4})


def test_a_line_that_is_not_utf8_is_reported_and_the_rest_sent(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    bodies = _bodies(3)
    source = tmp_path / "events.jsonl"
    source.write_bytes(
        bodies[0].encode() + b"\n\xff\xfe broken\n" + "\n".join(bodies[1:]).encode() + b"\n"
    )

    code = main(["send", "--queue-url", url, str(source), "--no-progress"])

    captured = capsys.readouterr()
    assert code == 1
    assert f"{source}:2: line is not UTF-8" in captured.err
    assert "sent 3 message(s)" in captured.out and "1 failed" in captured.out
    assert sorted(_drain(sqs, url)) == sorted(bodies)
