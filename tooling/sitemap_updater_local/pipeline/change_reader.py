"""JSONL lines of a source turned into validated changes, with the ingest's rules.

A JSONL line is judged exactly as ingest judges an SQS message body
(``sitemap_updater.ingest.events.decode_body``; a sitemap or CSV entry is checked by
``raw_entries``). Each valid change carries the ordering key ``ev`` that ingest would store, so
last-writer-wins gives the table's final state.

An event without ``occurred_at`` takes the time a queue would have stamped on it: the start of
the run plus one microsecond per change before it, so later lines of a file win over earlier
ones, as they would if the file were sent in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.judged import MISSING, ChangeEvent, Rejection
from sitemap_updater.protocol import Site
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import live_item
from sitemap_updater.store.keys import url_hash
from sitemap_updater_local.inputs.records import BodyLine, Problem
from sitemap_updater_local.pipeline.final_state import Change
from sitemap_updater_local.pipeline.raw_entries import invalid


def describe(field: str, value: object, rule: str) -> str:
    """One readable line naming the field, the value and the rule."""
    if value is MISSING:
        return f"{field}: missing: {rule}"
    return invalid(field, value, rule)


def rejected(where: str, field: str, value: object, rule: str) -> Problem:
    """The problem of a record that breaks ``rule``, counted by its field and rule."""
    return Problem(where, describe(field, value, rule), f"{field}: {rule}")


class ChangeReader:
    """Judges records against the listed sites (or one site); ``now`` is the run's start
    (UTC)."""

    def __init__(self, site: Site | Sites, now: datetime | None = None, *, seq: int = 0) -> None:
        """``seq``: how many records came before the first one this reader judges."""
        self.site = site
        self.now = now or datetime.now(UTC)
        self._seq = seq

    def _stamp(self) -> datetime:
        self._seq += 1
        return self.now + timedelta(microseconds=self._seq)

    def from_body(self, line: BodyLine) -> Iterator[Change | Problem]:
        """Every change of one message body (a change object, EventBridge event or array)."""
        decoded = decode_body(line.text, sent_at=self._stamp(), site=self.site, now=self.now)
        for judged in decoded.items:
            if isinstance(judged, Rejection):
                where = line.where if judged.index is None else f"{line.where}[{judged.index}]"
                yield rejected(where, judged.field, judged.value, judged.rule)
            else:
                yield self._change(judged)

    @staticmethod
    def _change(event: ChangeEvent) -> Change:
        uh = url_hash(event.loc)
        if event.entry is None:
            return Change(uh, event.event_key, None)
        item = live_item(event.entry, event.event_key, event.digest, event.section)
        return Change(uh, event.event_key, item)
