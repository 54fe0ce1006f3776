"""What the ingest handler tells its operators: EMF metrics per outcome, log lines that carry
the Lambda context, the SQS message id and the URL, and X-Ray subsegments."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from botocore.exceptions import ClientError

from sitemap_updater import observability
from tests.integration.ingest.harness import (
    SITE,
    IngestStack,
    LambdaContext,
    body,
    emitted_metrics,
    load_handler,
    log_lines,
    sqs_record,
    upsert,
)


def throttle_url(stack: IngestStack, url: str) -> None:
    def throttle(params: dict[str, Any], **_: Any) -> None:
        if params["Item"]["url"]["S"] == url:
            raise ClientError(
                {
                    "Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"},
                    "ResponseMetadata": {"HTTPStatusCode": 400},
                },
                "PutItem",
            )

    stack.dynamodb.meta.events.register("before-parameter-build.dynamodb.PutItem", throttle)


def mixed_batch(stack: IngestStack) -> list[dict[str, Any]]:
    """One batch with every outcome; the table already holds /held (at 10:00) and /dup."""
    dup = sqs_record(body(upsert("/dup")), message_id="dup")
    stack.invoke(sqs_record(body(upsert("/held", priority=0.5))), dup)
    throttle_url(stack, SITE + "/slow")
    array = [upsert("/arr/0"), {"action": "purge", "url": SITE + "/arr/1"}, upsert("/arr/2")]
    return [
        sqs_record(body(upsert("/new")), message_id="new"),  # accepted
        sqs_record(body(upsert("/held", "2026-11-20T09:00:00Z")), message_id="old"),  # stale
        dup,  # redelivered: stale
        sqs_record(body(upsert("/held", "2026-11-20T11:00:00Z", priority=0.5)), message_id="same"),
        sqs_record(
            body({"action": "upsert", "url": "https://evil.example.org/x"}), message_id="bad"
        ),
        sqs_record(body(array), message_id="arr"),  # 2 accepted, 1 rejected
        sqs_record(body(upsert("/slow")), message_id="slow"),  # throttled: failed
    ]


def test_metrics_count_accepted_stale_rejected_and_failed(
    stack: IngestStack, capsys: pytest.CaptureFixture[str]
) -> None:
    records = mixed_batch(stack)
    capsys.readouterr()

    response = stack.invoke(*records)

    assert stack.failed_ids(response) == ["slow"]
    # "same" is newer with the same content: written (accepted), but it marks nothing
    assert emitted_metrics(capsys.readouterr().out) == {
        "AcceptedRecords": 4,  # new, same, arr/0, arr/2
        "StaleRecords": 2,  # old, dup
        "RejectedRecords": 2,  # bad, arr entry 1
        "FailedRecords": 1,  # slow
    }


def test_every_record_line_carries_context_message_id_and_url(stack: IngestStack) -> None:
    records = mixed_batch(stack)
    context = LambdaContext()

    with log_lines() as lines:
        stack.invoke(*records, context=context)

    record_lines = [line for line in lines if "message_id" in line]
    assert {line["message_id"] for line in record_lines} == {r["messageId"] for r in records}
    for line in lines:
        assert line["function_request_id"] == context.aws_request_id
        assert line["function_name"] == context.function_name
        assert "cold_start" in line
    for line in record_lines:
        assert line["url"].startswith(("https://www.example.com/", "https://evil.example.org/"))
    by_id: dict[str, list[dict[str, Any]]] = {}
    for line in record_lines:
        by_id.setdefault(line["message_id"], []).append(line)
    assert [(x["outcome"], x["url"]) for x in by_id["old"]] == [("stale", SITE + "/held")]
    assert [x["outcome"] for x in by_id["dup"]] == ["duplicate"]
    (bad,) = by_id["bad"]
    assert bad["level"] == "WARNING"
    assert bad["url"] == "https://evil.example.org/x"
    assert bad["reason"].startswith('field url value "https://evil.example.org/x" rejected: ')
    rejected = [x for x in by_id["arr"] if "reason" in x]
    assert [(x["index"], x["url"]) for x in rejected] == [(1, SITE + "/arr/1")]
    assert "field action" in rejected[0]["reason"]
    (slow,) = by_id["slow"]
    assert slow["level"] == "WARNING" and slow["url"] == SITE + "/slow"
    assert "ThrottlingException" in slow["exception"]


def test_no_record_keys_leak_into_the_next_invocation(stack: IngestStack) -> None:
    stack.invoke(sqs_record(body(upsert("/first")), message_id="first"))

    with log_lines() as lines:
        stack.invoke(sqs_record(body("not json"), message_id="second"))

    assert {line.get("message_id") for line in lines} == {"second"}
    assert all("url" not in line for line in lines)


def test_the_handler_and_each_record_are_traced(stack: IngestStack) -> None:
    load_handler()
    tracer = observability.tracer
    assert tracer is not None  # tracing is on unless POWERTOOLS_TRACE_DISABLED says otherwise
    opened: list[str] = []
    failed: list[str] = []

    @contextmanager
    def in_subsegment(name: str, **_: Any) -> Iterator[mock.MagicMock]:
        opened.append(name)
        subsegment = mock.MagicMock()
        try:
            yield subsegment
        finally:
            keys = [c.kwargs.get("key", "") for c in subsegment.put_metadata.call_args_list]
            if any(key.endswith(" error") for key in keys):
                failed.append(name)

    throttle_url(stack, SITE + "/slow")
    records = [
        sqs_record(body(upsert("/fast")), message_id="fast"),
        sqs_record(body(upsert("/slow")), message_id="slow"),
    ]
    with mock.patch.object(tracer.provider, "in_subsegment", in_subsegment):
        response = stack.invoke(*records)

    assert stack.failed_ids(response) == ["slow"]
    service = "## sitemap_updater.ingest.intake.IngestService."
    assert opened == [
        "## lambda_handler",
        service + "handle_record",
        service + "handle_record",
        service + "finish_batch",
    ]
    assert failed == [service + "handle_record"]
