"""Property: however SQS delivers a history (shuffled, duplicated, split into any batches),
the table ends as if every event had been applied once, in ``occurred_at`` order.

Tie-breaks (documented in ``sitemap_updater.ingest.ordering``): at equal times a delete beats
an upsert, and of two upserts the one with the larger content digest wins.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from sitemap_updater.ingest.ordering import content_digest
from sitemap_updater.protocol import Site, make_entry
from tests.integration.ingest.harness import BASE_ENV, SITE, body, make_stack, sqs_record

PATHS = ["/p/a", "/p/b", "/p/c"]
CHANGEFREQS = ["daily", "weekly", "monthly"]
_names = itertools.count()


@dataclass(frozen=True)
class Change:
    path: str
    action: str
    second: int
    changefreq: str
    priority: float

    def message(self) -> dict[str, Any]:
        occurred = f"2026-11-20T10:00:{self.second:02d}Z"
        if self.action == "delete":
            return {"action": "delete", "url": SITE + self.path, "occurred_at": occurred}
        return {
            "action": "upsert",
            "url": SITE + self.path,
            "occurred_at": occurred,
            "changefreq": self.changefreq,
            "priority": self.priority,
        }

    def digest(self) -> str:
        entry = make_entry(
            Site.parse(SITE),
            loc=SITE + self.path,
            changefreq=self.changefreq,
            priority=self.priority,
            now=datetime(2026, 11, 21, tzinfo=UTC),
        )
        return content_digest(entry)


changes = st.builds(
    Change,
    path=st.sampled_from(PATHS),
    action=st.sampled_from(["upsert", "delete"]),
    second=st.integers(0, 3),  # few distinct times: ties are common
    changefreq=st.sampled_from(CHANGEFREQS),
    priority=st.sampled_from([0.1, 0.5, 0.9]),
)


def expected_final(history: list[Change]) -> dict[str, Change]:
    """Apply each distinct event once, in time order, with the documented tie-breaks."""
    final: dict[str, Change] = {}
    for path in {c.path for c in history}:
        events = [c for c in history if c.path == path]
        latest = max(c.second for c in events)
        at_latest = [c for c in events if c.second == latest]
        deletes = [c for c in at_latest if c.action == "delete"]
        final[path] = deletes[0] if deletes else max(at_latest, key=Change.digest)
    return final


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[list[Change], list[list[dict[str, Any]]]]:
    history = draw(st.lists(changes, min_size=1, max_size=12, unique=True))
    records = [sqs_record(body(c.message()), message_id=f"m{i}") for i, c in enumerate(history)]
    duplicates = draw(st.lists(st.sampled_from(records), max_size=6))
    order = draw(st.permutations(records + duplicates))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(order) - 1)), max_size=4)))
    bounds = [0, *[c for c in cuts if c < len(order)], len(order)]
    batches = [order[a:b] for a, b in itertools.pairwise(bounds) if order[a:b]]
    return history, batches


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
        dirty = stack.dirty_seqs()
        assert stack.dlq_messages() == []

    expected = expected_final(history)
    assert set(items) == {SITE + p for p in expected}
    for path, winner in expected.items():
        item = items[SITE + path]
        if winner.action == "delete":
            assert item["st"]["S"] == "gone"
        else:
            assert item["st"]["S"] == "live"
            assert item["changefreq"]["S"] == winner.changefreq
            assert float(item["priority"]["N"]) == winner.priority
            assert item["digest"]["S"] == winner.digest()
        assert item["ev"]["S"].startswith(f"20261120T1000{winner.second:02d}.000000Z#")
    if any(w.action == "upsert" for w in expected.values()):
        assert dirty.get("r", 0) >= 1
