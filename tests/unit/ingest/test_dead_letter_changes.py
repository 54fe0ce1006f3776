"""What ``where`` reads back from a dead letter: each change as it was sent, with its reason, and
the URL it names, which must be the URL the judge would have judged it for."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.dlq import bad_changes_body, dead_letter_changes, named_url
from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sites import Sites
from tests.property.strategies import SETTINGS, urls

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
SITES = Sites.parse("https://www.example.com,https://www.example.de")


def _event(detail: object) -> dict[str, object]:
    return {
        "version": "0", "id": "1", "detail-type": "page", "source": "cms", "account": "1",
        "time": "2026-11-20T10:00:00Z", "region": "us-east-1", "resources": [], "detail": detail,
    }  # fmt: skip


def test_the_changes_of_an_array_come_back_with_their_own_reasons() -> None:
    body = json.dumps(
        [
            {"action": "upsert", "url": "https://www.example.com/ok"},
            {"action": "upsert", "url": "https://www.example.com/a", "priority": 7},
            {"action": "upsert", "url": "ftp://www.example.com/b"},
        ]
    )
    judgement = judge_message(body, sent_at=NOW, sites=SITES, now=NOW)
    letter = bad_changes_body(judgement.rejections)

    read = dead_letter_changes(letter, "the message's reason")

    assert [named_url(change) for change, _ in read] == [
        "https://www.example.com/a",
        "ftp://www.example.com/b",
    ]
    assert [reason.split(":")[0] for _, reason in read] == ["change 1", "change 2"]
    # a message an earlier version wrote, whose bad changes it called entries
    earlier = json.dumps(
        [{"index": 1, "entry": {"url": "https://www.example.com/a"}, "reason": "r"}]
    )
    assert dead_letter_changes(earlier, "the message's reason") == [
        ({"url": "https://www.example.com/a"}, "r")
    ]


def test_any_other_body_is_the_message_with_the_message_reason() -> None:
    change = {"action": "upsert", "url": "https://www.example.com/x", "lastmod": "soon"}
    array = [change, {"action": "delete", "url": "https://www.example.com/y"}]
    assert dead_letter_changes(json.dumps(change), "r") == [(change, "r")]
    assert dead_letter_changes(json.dumps(array), "r") == [(c, "r") for c in array]
    assert dead_letter_changes(json.dumps(_event(change)), "r") == [(_event(change), "r")]
    assert dead_letter_changes("not json", "r") == [("not json", "r")]
    assert named_url(_event(change)) == "https://www.example.com/x"
    assert [named_url(v) for v in ("not json", 3, [change], {"url": 3}, _event("x"))] == [None] * 5


@SETTINGS
@given(url=urls, envelope=st.booleans(), action=st.sampled_from(["upsert", "delete"]))
def test_the_url_a_change_names_is_the_one_the_judge_judges(
    url: str, envelope: bool, action: str
) -> None:
    change = {"action": action, "url": url}
    sent = _event(change) if envelope else change
    (judged,) = judge_message(json.dumps(sent), sent_at=NOW, sites=SITES, now=NOW).items
    named = named_url(sent)
    assert named == url
    if isinstance(judged, Change):
        assert normalize_url(named) == judged.url
