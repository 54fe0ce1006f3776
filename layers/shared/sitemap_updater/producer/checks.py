"""What a producer is told at once: a change the ingest function would reject, or changes that
could not be sent.

A change is judged by the ingest function's own judge (``ingest.judge.judge_message``), on the
very text that goes into the message, so a change the client accepts is one ingest accepts, and
a rejection names the same field, value and rule the dead-letter queue's ``reason`` would.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sitemap_updater.ingest.dlq import describe
from sitemap_updater.ingest.judge import judge_message
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.sites import Sites

if TYPE_CHECKING:
    from sitemap_updater.producer.batches import SendFailure


class ChangeRejected(ValueError):
    """A change that ingest would reject: ``field``, ``value`` and ``rule`` say why."""

    def __init__(self, field: str, value: object, rule: str) -> None:
        self.field, self.value, self.rule = field, value, rule
        super().__init__(describe(Rejection(None, field, value, rule)))


class SendFailed(RuntimeError):
    """Changes that were not sent: ``changes`` (each as it would have been sent, its
    ``occurred_at`` set, so sending it again keeps its order) and SQS's ``failures``."""

    def __init__(self, changes: list[dict[str, Any]], failures: list[SendFailure]) -> None:
        self.changes, self.failures = changes, failures
        first = f"; first: {failures[0].code}: {failures[0].message}" if failures else ""
        super().__init__(f"{len(changes)} change(s) not sent{first}")


def check_change(text: str, sites: Sites, now: datetime) -> None:
    """Raise :class:`ChangeRejected` unless ``text``, one change's JSON, is a change the ingest
    function would accept at ``now``."""
    judgement = judge_message(text, sent_at=now, sites=sites, now=now)
    if judgement.kind != "object":
        raise ChangeRejected(
            "message", text, "must be one change (with action and url), not an array or event"
        )
    (judged,) = judgement.items
    if isinstance(judged, Rejection):
        raise ChangeRejected(judged.field, judged.value, judged.rule)
