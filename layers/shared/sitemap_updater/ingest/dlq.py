"""Rejected messages go to the dead-letter queue at once, with the reason as message attributes.

Two attributes say why: ``reason``, one line for a person (where, field, value, rule), and
``rejections``, the same rejections as data, JSON ``[{"index", "field", "rule"}, ...]``, without
the values: what the code wrote, never text a producer chose, so that ``sitemap-updater status``
and ``simulate`` group messages by it (:func:`rejection_kinds`).

A rejection of the whole message sends the original body. For an array message, only the bad
changes are sent, as a JSON array of ``{"index", "change", "reason"}``; if that would not fit in
one SQS message, the original body is sent instead (it holds the bad changes at the indexes named
in the reason, and replaying its good changes is a no-op).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from sitemap_updater.ingest.judge import is_event
from sitemap_updater.ingest.rejection import MISSING, Rejection
from sitemap_updater.protocol.escape import forbidden_chars

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

#: Message size limit (body plus attributes) of the dead-letter queue: template.yaml sets its
#: ``MaximumMessageSize`` to 1 MiB, the SQS maximum, and the main queue's to 256 KiB, so a
#: rejected body always fits with its reason.
MAX_MESSAGE_BYTES: Final = 1_048_576
#: The message attribute that holds why a record was rejected; a message the redrive policy
#: dead-lettered after transient failures has none.
REASON_ATTRIBUTE: Final = "reason"
#: The message attribute ``redrive`` sets on a message it moves back to the queue: the epoch
#: milliseconds at which the message was first sent (its SentTimestamp in the dead-letter queue,
#: which keeps the original one). Ingest orders a change without ``occurred_at`` by it, so a
#: replayed change keeps its place among the changes of its URL.
FIRST_SENT_ATTRIBUTE: Final = "first_sent_timestamp"
#: Longest reason attribute; longer ones end with a count of what was left out.
MAX_REASON_CHARS: Final = 2_000
#: Longest rendering of an offending value inside a reason.
MAX_VALUE_CHARS: Final = 120
#: Most rejections listed in the ``rejections`` attribute (an array holds at most 500 changes).
MAX_LISTED_REJECTIONS: Final = 100
#: The message attribute that lists each rejection's index, field and rule, without values.
REJECTIONS_ATTRIBUTE: Final = "rejections"


def sendable(text: str) -> str:
    """``text`` with every character SQS would refuse written as a ``\\uXXXX`` escape."""
    # SQS refuses what XML 1.0 forbids (outside #x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD
    # #x10000-#x10FFFF), lone surrogates included, which cannot be encoded at all
    return forbidden_chars().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def render_value(value: object) -> str:
    """A short, one-line, printable rendering of an offending value."""
    if value is MISSING:
        return "(missing)"
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    text = sendable(text)
    if len(text) > MAX_VALUE_CHARS:
        text = f"{text[: MAX_VALUE_CHARS - 1]}… ({len(text)} chars)"
    return text


def describe(rejection: Rejection) -> str:
    """One line: where, which field, which value, which rule."""
    where = f"change {rejection.index}: " if rejection.index is not None else ""
    return (
        f"{where}field {rejection.field!s} value {render_value(rejection.value)} "
        f"rejected: {sendable(rejection.rule)}"
    )


def kind(field: str, rule: str) -> str:
    """What ``status`` counts a rejection as: its field and its rule, not its value."""
    return f"field {field}: {rule}"


def rejections_attribute(rejections: Sequence[Rejection]) -> str:
    """The ``rejections`` attribute: index, field and rule of each rejection (at most
    :data:`MAX_LISTED_REJECTIONS`), as ASCII JSON."""
    listed = [
        {"index": r.index, "field": str(r.field), "rule": r.rule}
        for r in rejections[:MAX_LISTED_REJECTIONS]
    ]
    return json.dumps(listed, ensure_ascii=True, separators=(",", ":"))


def rejection_kinds(attributes: Mapping[str, str]) -> list[str]:
    """The kinds (:func:`kind`) of the rejections a dead letter's ``rejections`` attribute names;
    empty for a message without one (one SQS moved here after failed receives)."""
    try:
        entries = json.loads(attributes.get(REJECTIONS_ATTRIBUTE, "[]"))
    except ValueError:
        return []
    if not isinstance(entries, list):
        return []
    return [
        kind(e["field"], e["rule"])
        for e in entries
        if isinstance(e, dict)
        and isinstance(e.get("field"), str)
        and isinstance(e.get("rule"), str)
    ]


def reason_line(rejections: Sequence[Rejection]) -> str:
    """The ``reason`` attribute: every rejection, ``; ``-separated, capped in length."""
    parts = [describe(r) for r in rejections]
    line = "; ".join(parts)
    if len(line) <= MAX_REASON_CHARS:
        return line
    kept: list[str] = []
    used = 0
    for part in parts:
        if used + len(part) + 2 > MAX_REASON_CHARS - 40:
            break
        kept.append(part)
        used += len(part) + 2
    left = len(parts) - len(kept)
    return "; ".join(kept) + f"; and {left} more rejected changes (see the message body)"


def bad_changes_body(rejections: Sequence[Rejection]) -> str:
    """JSON array of the rejected changes of an array message, each with its index and reason."""
    return json.dumps(
        [{"index": r.index, "change": r.raw, "reason": describe(r)} for r in rejections],
        ensure_ascii=True,
        allow_nan=True,
    )


def dead_letter_changes(body: str, reason: str) -> list[tuple[object, str]]:
    """What a dead letter's ``body`` holds, each change as it was sent with its reason: the
    changes of a body of bad changes (:func:`bad_changes_body`, or the ``entry`` form earlier
    versions wrote, whose messages may still wait in the queue) with their own; any other body
    is the message as it was sent, its change or each change of its array with the message's
    ``reason`` (a body that is not JSON is its text)."""
    try:
        decoded = json.loads(body)
    except ValueError:
        return [(body, reason)]
    if isinstance(decoded, list) and decoded:
        for key in _BAD_CHANGE_KEYS:
            if all(isinstance(e, dict) and set(e) == {"index", key, "reason"} for e in decoded):
                return [(bad[key], str(bad["reason"])) for bad in decoded]
    if isinstance(decoded, list):
        return [(change, reason) for change in decoded]
    return [(decoded, reason)]


#: The key of the change in a body of bad changes: this version's, and the earlier one's.
_BAD_CHANGE_KEYS: Final = ("change", "entry")


def named_url(change: object) -> str | None:
    """The ``url`` a change as sent names, or its EventBridge event's detail (``is_event``);
    ``None`` when it names none (not an object, or no string ``url``)."""
    if isinstance(change, dict) and is_event(change):
        change = change.get("detail")
    url = change.get("url") if isinstance(change, dict) else None
    return url if isinstance(url, str) else None


def message_bytes(body: str, attributes: dict[str, str]) -> int:
    """Bytes SQS counts towards a message's size: the body and each string attribute."""
    size = len(body.encode("utf-8"))
    for name, value in attributes.items():
        size += len(name.encode()) + len("String") + len(value.encode("utf-8"))
    return size


class DeadLetterQueue:
    """Sends rejected records to the DLQ. A failure to send raises (the record is then retried)."""

    def __init__(self, sqs: SQSClient, queue_url: str) -> None:
        self._sqs = sqs
        self._queue_url = queue_url

    def reject(
        self,
        *,
        original_body: str,
        rejections: Sequence[Rejection],
        source_message_id: str,
        array_body: bool,
    ) -> str:
        """Send one DLQ message for one record; returns the reason that was attached."""
        reason = reason_line(rejections)
        attributes = {
            REASON_ATTRIBUTE: reason,
            REJECTIONS_ATTRIBUTE: rejections_attribute(rejections),
            "source_message_id": source_message_id,
        }
        # SQS refuses an empty body; a real SQS record never has one, a hand-made event may.
        body = sendable(original_body) or "(empty body)"
        if array_body:
            entries = bad_changes_body(rejections)
            if message_bytes(entries, attributes) <= MAX_MESSAGE_BYTES:
                body = entries
        self._sqs.send_message(
            QueueUrl=self._queue_url,
            MessageBody=body,
            MessageAttributes={
                name: {"DataType": "String", "StringValue": value}
                for name, value in attributes.items()
            },
        )
        return reason
