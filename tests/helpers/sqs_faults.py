"""SendMessageBatch entries failed on purpose, on a boto3 client talking to moto.

moto accepts every valid entry, so a partial failure is made with botocore's events: the
``before-call`` handler takes the entries chosen to fail out of the request before it reaches
moto (which enqueues the others for real) and the ``after-call`` handler adds them to the
response's ``Failed`` list, as SQS reports them. When no entry is left, the handler answers the
call itself and the request never reaches moto.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from botocore.awsrequest import AWSResponse

#: (sender fault, code, message) of an entry to fail, or ``None``: accepted
Verdict = tuple[bool, str, str] | None


def inject_failures(sqs: Any, verdict: Callable[[str, int], Verdict]) -> None:
    """Make SendMessageBatch fail the entries for which ``verdict(body, call_number)`` says so
    (``call_number`` counts this client's SendMessageBatch calls from 1)."""
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


def drain(sqs: Any, url: str) -> list[str]:
    """Every body in the queue, received once and deleted."""
    bodies: list[str] = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        for m in messages:
            bodies.append(m["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return bodies
