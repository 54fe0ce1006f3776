"""Property: however SQS delivers a history (shuffled, duplicated, split into any batches, in
any of the body forms), the table ends as if every event had been applied once, in
``occurred_at`` order.

Tie-breaks (the one ordering rule, ``sitemap_updater.page.order``, and the README): at equal times a
delete beats an upsert, and of two upserts the one with the larger content digest wins.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from sitemap_updater.page.order import page_digest
from sitemap_updater.protocol.urls import Site
from tests.helpers.pages import make_page
from tests.integration.ingest.harness import BASE_ENV, SITE, body, make_stack, sqs_record

PATHS = ["/p/a", "/p/b", "/p/c"]
CHANGEFREQS = ["daily", "weekly", "monthly"]
BASE = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
_names = itertools.count()


@dataclass(frozen=True)
class Change:
    """One event of the history. A delete carries no content."""

    path: str
    action: str
    second: int
    changefreq: str | None = None
    priority: float | None = None

    @property
    def occurred_at(self) -> datetime:
        return BASE + timedelta(seconds=self.second)

    @property
    def sent_ms(self) -> int:
        return int(self.occurred_at.timestamp() * 1000)

    def change_object(self, *, with_time: bool) -> dict[str, Any]:
        obj: dict[str, Any] = {"action": self.action, "url": SITE + self.path}
        if self.action == "upsert":
            obj.update(changefreq=self.changefreq, priority=self.priority)
        if with_time:
            obj["occurred_at"] = self.occurred_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        return obj

    def digest(self) -> str:
        """The digest of the page this upsert makes, judged as every listing is."""
        page = make_page(
            Site.parse(SITE),
            url=SITE + self.path,
            changefreq=self.changefreq,
            priority=self.priority,
            now=datetime(2026, 11, 21, tzinfo=UTC),
        )
        return page_digest(page, None)


@st.composite
def changes(draw: st.DrawFn) -> Change:
    path = draw(st.sampled_from(PATHS))
    second = draw(st.integers(0, 3))  # few distinct times: ties are common
    if draw(st.booleans()):
        return Change(path, "delete", second)
    return Change(
        path,
        "upsert",
        second,
        draw(st.sampled_from(CHANGEFREQS)),
        draw(st.sampled_from([0.1, 0.5, 0.9])),
    )


def eventbridge(change: Change) -> dict[str, Any]:
    """The change as an EventBridge event: its time is the event's ``time``."""
    return {
        "version": "0",
        "id": f"{change.path}-{change.second}",
        "source": "cms",
        "detail-type": "PageChanged",
        "account": "123456789012",
        "time": change.occurred_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": "us-east-1",
        "resources": [],
        "detail": change.change_object(with_time=False),
    }


@st.composite
def messages(draw: st.DrawFn, history: list[Change]) -> list[dict[str, Any]]:
    """SQS records that carry every change of ``history`` once, in mixed body forms.

    ``object``: a change with ``occurred_at``, sent at an unrelated time (the send time must
    not matter); ``sent``: a change without ``occurred_at``, whose SQS SentTimestamp is its
    time; ``eventbridge``: an EventBridge event whose ``time`` is its time; ``array``: up to
    three changes with ``occurred_at`` in one array body.
    """
    records: list[dict[str, Any]] = []
    rest = list(history)
    while rest:
        form = draw(st.sampled_from(["object", "sent", "eventbridge", "array"]))
        unrelated_ms = Change("/", "delete", draw(st.integers(-3600, 3600))).sent_ms
        if form == "array":
            size = draw(st.integers(1, min(3, len(rest))))
            group, rest = rest[:size], rest[size:]
            text = body([c.change_object(with_time=True) for c in group])
            records.append(sqs_record(text, message_id=f"m{len(records)}", sent_ms=unrelated_ms))
            continue
        change, rest = rest[0], rest[1:]
        if form == "object":
            text, sent_ms = body(change.change_object(with_time=True)), unrelated_ms
        elif form == "sent":
            text, sent_ms = body(change.change_object(with_time=False)), change.sent_ms
        else:
            text, sent_ms = body(eventbridge(change)), unrelated_ms
        records.append(sqs_record(text, message_id=f"m{len(records)}", sent_ms=sent_ms))
    return records


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[list[Change], list[list[dict[str, Any]]]]:
    history = draw(st.lists(changes(), min_size=1, max_size=12, unique=True))
    records = draw(messages(history))
    duplicates = draw(st.lists(st.sampled_from(records), max_size=6))
    order = draw(st.permutations(records + duplicates))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(order) - 1)), max_size=4)))
    bounds = [0, *[c for c in cuts if c < len(order)], len(order)]
    batches = [order[a:b] for a, b in itertools.pairwise(bounds) if order[a:b]]
    return history, batches


def applied_once_in_order(history: list[Change]) -> dict[str, Change]:
    """The reference: each event applied once, sorted by ``occurred_at``; at equal times a
    delete after an upsert, and upserts by ascending content digest (the last one applied
    wins)."""

    def order(change: Change) -> tuple[datetime, int, str]:
        rank = 1 if change.action == "delete" else 0
        return (change.occurred_at, rank, "" if change.action == "delete" else change.digest())

    table: dict[str, Change] = {}
    for change in sorted(set(history), key=order):
        table[change.path] = change
    return table


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(deliveries())
def test_any_delivery_ends_as_one_ordered_application(
    case: tuple[list[Change], list[list[dict[str, Any]]]],
) -> None:
    history, batches = case
    n = next(_names)
    with mock.patch.dict(os.environ, BASE_ENV), mock_aws():
        stack = make_stack(f"urls-{n}", f"dlq-{n}")
        for batch in batches:
            assert stack.invoke(*batch) == {"batchItemFailures": []}
        items = stack.url_items()
        stream = stack.stream_records()
        assert stack.dlq_messages() == []

    expected = applied_once_in_order(history)
    assert set(items) == {SITE + p for p in expected}
    for path, winner in expected.items():
        item = items[SITE + path]
        if winner.action == "delete":
            assert item["st"]["S"] == "gone"
            assert "changefreq" not in item
        else:
            assert item["st"]["S"] == "live"
            assert item["changefreq"]["S"] == winner.changefreq
            assert float(item["priority"]["N"]) == winner.priority
            assert item["digest"]["S"] == winner.digest()
        rank = "1" if winner.action == "delete" else "0"
        assert item["ev"]["S"].startswith(f"20261120T1000{winner.second:02d}.000000Z#{rank}#")
    # the stream (the rebuild's change feed) ends with the winner of every URL: its last
    # record per URL is the item the table holds
    last = {loc: name for name, loc in stream}
    assert set(last) == set(items)
    assert len(stream) <= len(history)
