"""What a producer is told at once: a change the ingest function would reject, or changes that
could not be sent.

A change is judged by the ingest function's own judge (``ingest.events.decode_body``), on the
very text that goes into the body, so a change the client accepts is one ingest accepts, and a
rejection names the same field, value and rule the dead-letter queue's ``reason`` would.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sitemap_updater.ingest.dlq import describe
from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.judged import Rejection
from sitemap_updater.protocol.urls import Site
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


def check_change(text: str, site: Site | Sites, now: datetime) -> None:
    """Raise :class:`ChangeRejected` unless ``text``, one change object's JSON, is a change the
    ingest function would accept at ``now``."""
    decoded = decode_body(text, sent_at=now, site=site, now=now)
    if decoded.kind != "object":
        raise ChangeRejected(
            "body", text, "must be one change object (with action and url), not an array or event"
        )
    (judged,) = decoded.items
    if isinstance(judged, Rejection):
        raise ChangeRejected(judged.field, judged.value, judged.rule)
