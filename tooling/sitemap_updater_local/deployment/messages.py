"""The messages of the local deployment's queues: what SQS refuses of a body sent to it, and the
dead letters read back without consuming them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

#: The SQS limit of a message body (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html)
MAX_BODY_BYTES = 262_144


@dataclass(frozen=True, slots=True)
class RefusedBody:
    """A body SQS refused (it never entered the queue)."""

    body: str
    code: str
    message: str


#: Characters SQS accepts in a message body (SendMessage, "MessageBody"): #x9 #xA #xD
#: #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF.
_SQS_REFUSED = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def sqs_refusal(body: str) -> RefusedBody | None:
    """Why SQS would refuse ``body`` (size, characters, emptiness), or None.

    SQS checks these on SendMessage; moto does not check them all, so they are checked here.
    """
    if not body:
        return RefusedBody(body, "MissingParameter", "the message body must not be empty")
    bad = _SQS_REFUSED.search(body)
    if bad is not None:
        return RefusedBody(
            body,
            "InvalidMessageContents",
            f"character U+{ord(bad.group()):04X} at offset {bad.start()} is not allowed in SQS",
        )
    size = len(body.encode("utf-8"))
    if size > MAX_BODY_BYTES:
        return RefusedBody(
            body,
            "InvalidParameterValue",
            f"message of {size} bytes is larger than the SQS limit of {MAX_BODY_BYTES}",
        )
    return None


@dataclass(frozen=True, slots=True)
class DeadLetter:
    message_id: str
    body: str
    attributes: dict[str, str]
    message_attributes: dict[str, str]

    @property
    def reason(self) -> str | None:
        """The reason the ingest function attached; None for a message SQS redrove."""
        return self.message_attributes.get("reason")


def read_dead_letters(sqs: SQSClient, dlq_url: str) -> list[DeadLetter]:
    """Every message in the DLQ, read without consuming it (made visible again after), oldest
    first."""
    seen: dict[str, DeadLetter] = {}
    handles: list[str] = []
    while True:
        got = sqs.receive_message(
            QueueUrl=dlq_url,
            MaxNumberOfMessages=10,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
            VisibilityTimeout=600,
            WaitTimeSeconds=0,
        ).get("Messages", [])
        if not got:
            break
        for m in got:
            handles.append(m["ReceiptHandle"])
            seen[m["MessageId"]] = DeadLetter(
                message_id=m["MessageId"],
                body=m["Body"],
                attributes={str(k): v for k, v in m.get("Attributes", {}).items()},
                message_attributes={
                    k: str(v.get("StringValue", ""))
                    for k, v in m.get("MessageAttributes", {}).items()
                },
            )
    for start in range(0, len(handles), 10):
        sqs.change_message_visibility_batch(
            QueueUrl=dlq_url,
            Entries=[
                {"Id": str(i), "ReceiptHandle": h, "VisibilityTimeout": 0}
                for i, h in enumerate(handles[start : start + 10])
            ],
        )
    return sorted(seen.values(), key=lambda d: int(d.attributes.get("SentTimestamp", "0")))
