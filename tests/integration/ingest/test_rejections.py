"""Every rejection reason: the record goes to the DLQ at once, with a reason naming the field,
the value and the rule; it is not a batch item failure and it writes nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitemap_updater.ingest.dlq import render_value
from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.sites import Sites
from tests.integration.ingest.harness import SITE, IngestStack, body, sqs_record, upsert


def core_rule(**fields: Any) -> str:
    """The rule a field's normalizer gives for a page (what the reason must carry)."""
    try:
        judge_listing(fields, sites=Sites.parse(SITE), now=datetime.now(UTC), drops=None)
    except SitemapError as exc:
        return exc.rule
    raise AssertionError(f"the judge accepted {fields}")


@dataclass(frozen=True)
class Bad:
    id: str
    body: str
    field: str
    value: str  # how the value appears in the reason
    rule: str  # a piece of the rule's wording


LONG_URL = SITE + "/" + "a" * (2049 - len(SITE) - 1)
#: An hour ahead of the handler's clock: a sender could pin the URL for that hour.
AN_HOUR_AHEAD = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def cases() -> list[Bad]:
    eb: dict[str, Any] = {
        "version": "0",
        "id": "e1",
        "source": "cms",
        "detail-type": "PageChanged",
        "account": "123456789012",
        "time": "2026-11-20T10:00:00Z",
        "region": "us-east-1",
        "resources": [],
    }
    return [
        Bad("not-json", "this is not json", "message", '"this is not json"', "must be JSON"),
        Bad("truncated-json", body(upsert("/t"))[:-4], "message", '"{', "must be JSON"),
        Bad("bom", "\ufeff" + body(upsert("/bom")), "message", '"\ufeff{', "must be JSON"),
        Bad("null", "null", "message", "null", "must be a JSON object"),
        Bad("number", "42", "message", "42", "must be a JSON object"),
        Bad("empty-array", "[]", "message", '"[]"', "at least 1"),
        Bad(
            "array-over-500",
            body([upsert(f"/big/{i}") for i in range(501)]),
            "message",
            '"array of 501 changes"',
            "at most 500",
        ),
        Bad("deep-nesting", "[" * 50_000 + "]" * 50_000, "message", '"[[[[', "nested"),
        Bad("missing-action", body({"url": SITE + "/m"}), "action", "(missing)", "required"),
        Bad(
            "unknown-action",
            body({"action": "purge", "url": SITE + "/p"}),
            "action",
            '"purge"',
            "upsert or delete",
        ),
        Bad("missing-url", body({"action": "upsert"}), "url", "(missing)", "required"),
        Bad("delete-missing-url", body({"action": "delete"}), "url", "(missing)", "required"),
        Bad(
            "url-not-a-string",
            body({"action": "upsert", "url": 42}),
            "url",
            "42",
            "must be a string",
        ),
        Bad(
            "foreign-host",
            body({**upsert("/x"), "url": "https://evil.example.org/x"}),
            "url",
            '"https://evil.example.org/x"',
            core_rule(url="https://evil.example.org/x"),
        ),
        Bad(
            "foreign-host-delete",
            body({"action": "delete", "url": "https://evil.example.org/x"}),
            "url",
            '"https://evil.example.org/x"',
            core_rule(url="https://evil.example.org/x"),
        ),
        Bad(
            "loc-over-2048",
            body({"action": "upsert", "url": LONG_URL}),
            "url",
            '"https://www.example.com/aaaa',
            core_rule(url=LONG_URL),
        ),
        Bad(
            "priority-as-string",
            body(upsert("/ps", priority="0.8")),
            "priority",
            '"0.8"',
            "must be a number",
        ),
        Bad("priority-bool", body(upsert("/pb", priority=True)), "priority", "true", "number"),
        Bad("priority-above-1", body(upsert("/p15", priority=1.5)), "priority", "1.5", "1"),
        Bad(
            "priority-nan",
            '{"action":"upsert","url":"' + SITE + '/nan","priority":NaN}',
            "message",
            '"{',
            "must be JSON (invalid character at line 1 column",
        ),
        Bad(
            "changefreq-unknown",
            body(upsert("/cf", changefreq="sometimes")),
            "changefreq",
            '"sometimes"',
            "must be one of always, daily",
        ),
        Bad(
            "alternates-not-a-list",
            body(upsert("/al", alternates={"hreflang": "de"})),
            "alternates",
            '{"hreflang": "de"}',
            "must be an array",
        ),
        Bad(
            "lastmod-invalid",
            body(upsert("/lm", lastmod="yesterday")),
            "lastmod",
            '"yesterday"',
            core_rule(url=SITE + "/lm", lastmod="yesterday"),
        ),
        Bad(
            "occurred-at-naive",
            body(upsert("/oz", occurred_at="2026-11-20T10:00:00")),
            "occurred_at",
            '"2026-11-20T10:00:00"',
            "time zone",
        ),
        Bad(
            "occurred-at-not-a-date",
            body(upsert("/od", occurred_at="soon")),
            "occurred_at",
            '"soon"',
            "ISO 8601",
        ),
        Bad(
            "occurred-at-far-future",
            body(upsert("/of", occurred_at="2999-01-01T00:00:00Z")),
            "occurred_at",
            '"2999-01-01T00:00:00Z"',
            "future",
        ),
        Bad(
            "occurred-at-an-hour-ahead",
            body(upsert("/oh", occurred_at=AN_HOUR_AHEAD)),
            "occurred_at",
            f'"{AN_HOUR_AHEAD}"',
            "must not be more than 5 minutes in the future",
        ),
        Bad(
            "url-with-user-info",
            body({"action": "upsert", "url": "https://user:pw@www.example.com/u"}),
            "url",
            '"https://user:pw@www.example.com/u"',
            core_rule(url="https://user:pw@www.example.com/u"),
        ),
        Bad(
            "lastmod-far-future",
            body(upsert("/lf", lastmod="2999-01-01")),
            "lastmod",
            '"2999-01-01"',
            core_rule(url=SITE + "/lf", lastmod="2999-01-01"),
        ),
        Bad(
            "hreflang-invalid",
            body(upsert("/h", alternates=[{"hreflang": "not a tag", "href": SITE + "/h/x"}])),
            "alternates[0].hreflang",
            '"not a tag"',
            core_rule(url=SITE + "/h", alternates=[{"hreflang": "not a tag", "href": SITE}]),
        ),
        Bad(
            "alternate-foreign-host",
            body(
                upsert("/h", alternates=[{"hreflang": "de", "href": "https://evil.example.org/"}])
            ),
            "alternates[0].href",
            '"https://evil.example.org/"',
            core_rule(
                url=SITE + "/h",
                alternates=[{"hreflang": "de", "href": "https://evil.example.org/"}],
            ),
        ),
        Bad(
            "images-over-1000",
            body(
                upsert("/i", images=[{"loc": f"https://cdn.example.com/{i}"} for i in range(1001)])
            ),
            "images",
            '[{"loc": "https://cdn.example.com/0"}',
            "must have at most 1000 items",
        ),
        Bad(
            "entry-over-item-size",
            body(
                upsert(
                    "/big",
                    images=[
                        {"loc": f"https://cdn.example.com/{i}/" + "日" * 50} for i in range(1000)
                    ],
                )
            ),
            "page",
            '"',
            "must fit in one table item",
        ),
        Bad(
            "eventbridge-time-naive",
            body({**eb, "time": "2026-11-20T10:00:00", "detail": upsert("/tn")}),
            "time",
            '"2026-11-20T10:00:00"',
            "time zone",
        ),
        Bad(
            "eventbridge-time-far-future",
            body(
                {**eb, "time": "2999-01-01T00:00:00Z", "detail": {"action": "delete", "url": SITE}}
            ),
            "time",
            '"2999-01-01T00:00:00Z"',
            "future",
        ),
        Bad(
            "eventbridge-without-detail",
            body(eb),
            "detail",
            "(missing)",
            "required",
        ),
        Bad(
            "eventbridge-foreign-host",
            body({**eb, "detail": {"action": "upsert", "url": "https://evil.example.org/y"}}),
            "detail.url",
            '"https://evil.example.org/y"',
            core_rule(url="https://evil.example.org/y"),
        ),
        Bad(
            "eventbridge-bad-action",
            body({**eb, "detail": {"action": "drop", "url": SITE + "/z"}}),
            "detail.action",
            '"drop"',
            "upsert or delete",
        ),
        *search_engine_cases(),
    ]


def news(**fields: Any) -> dict[str, Any]:
    article = {
        "publication": {"name": "The Example Times", "language": "en"},
        "publication_date": "2026-11-20",
        "title": "Shoes of the year",
    }
    return {**article, **fields}


def video(**fields: Any) -> dict[str, Any]:
    clip = {
        "thumbnail_loc": SITE + "/v.jpg",
        "title": "How the shoe is made",
        "description": "The workshop, step by step",
        "content_loc": SITE + "/v.mp4",
    }
    return {**clip, **fields}


def search_engine_cases() -> list[Bad]:
    """What search engines would read as wrong: each refused with field, value and rule."""
    en = {"hreflang": "en", "href": SITE + "/h/en"}
    rtl = "\u202eevil"
    return [
        Bad(
            "hreflang-twice-case-aside",
            body(upsert("/h", alternates=[en, {"hreflang": "EN", "href": SITE + "/h/x"}])),
            "alternates[1].hreflang",
            '"EN"',
            "must name a language once: alternates[0] names it already",
        ),
        Bad(
            "hreflang-twice-two-hrefs",
            body(upsert("/h", alternates=[en, {"hreflang": "en", "href": SITE + "/h/y"}])),
            "alternates[1].hreflang",
            '"en"',
            "compared without regard to case",
        ),
        Bad(
            "lastmod-before-1970",
            body(upsert("/old", lastmod="0001-01-01")),
            "lastmod",
            '"0001-01-01"',
            "must not be before 1970-01-01",
        ),
        Bad(
            "news-title-invisible",
            body(upsert("/n", news=news(title="\u200b\u200b"))),
            "news.title",
            render_value("\u200b\u200b"),
            "must not be empty or blank",
        ),
        Bad(
            "news-name-invisible",
            body(upsert("/n", news=news(publication={"name": "\u200b", "language": "en"}))),
            "news.publication.name",
            render_value("\u200b"),
            "must not be empty or blank",
        ),
        Bad(
            "news-title-bidi-override",
            body(upsert("/n", news=news(title=rtl))),
            "news.title",
            render_value(rtl),
            "must not contain bidi embeddings, overrides or isolates",
        ),
        Bad(
            "video-description-bidi-isolate",
            body(upsert("/v", videos=[video(description="a\u2066b\u2069")])),
            "videos[0].description",
            render_value("a\u2066b\u2069"),
            "U+2066 at index 1",
        ),
        Bad(
            "video-title-invisible",
            body(upsert("/v", videos=[video(title="\ufeff")])),
            "videos[0].title",
            render_value("\ufeff"),
            "must not be empty or blank",
        ),
    ]


def test_marks_that_right_to_left_text_needs_are_kept(stack: IngestStack) -> None:
    title = "\u05e9\u05dc\u05d5\u05dd\u200f (2026)\u200e"
    stack.invoke(sqs_record(body(upsert("/n", news=news(title=title)))))
    assert stack.dlq_messages() == []
    assert set(stack.url_items()) == {SITE + "/n"}


def test_an_image_listed_again_is_stored_once(stack: IngestStack) -> None:
    image = {"loc": "https://cdn.example.com/a.jpg"}
    again = {"loc": "https://CDN.example.com:443/a.jpg"}
    stack.invoke(sqs_record(body(upsert("/i", images=[image, again, image] * 300))))
    assert stack.dlq_messages() == []
    (item,) = stack.url_items().values()
    assert item["images"] == {"L": [{"M": {"loc": {"S": "https://cdn.example.com/a.jpg"}}}]}


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_rejected_record_goes_to_dlq_with_its_reason(stack: IngestStack, case: Bad) -> None:
    record = sqs_record(case.body, message_id=f"msg-{case.id}")

    response = stack.invoke(record)

    assert response == {"batchItemFailures": []}
    (message,) = stack.dlq_messages()
    assert message["Body"] == case.body
    attrs = message["MessageAttributes"]
    assert attrs["source_message_id"]["StringValue"] == f"msg-{case.id}"
    reason = attrs["reason"]["StringValue"]
    assert "\n" not in reason
    assert f"field {case.field} " in reason
    assert f"value {case.value}" in reason
    assert case.rule in reason.split(" rejected: ", 1)[1]
    assert stack.url_items() == {}
    assert stack.stream_records() == []


def test_array_body_applies_good_entries_and_dead_letters_bad_ones(stack: IngestStack) -> None:
    entries: list[Any] = [
        upsert("/arr/ok-0"),
        {"action": "explode", "url": SITE + "/arr/x"},
        upsert("/arr/ok-2"),
        {**upsert("/f"), "url": "ftp://www.example.com/f"},
        7,
    ]
    response = stack.invoke(sqs_record(body(entries), message_id="arr-1"))

    assert response == {"batchItemFailures": []}
    assert set(stack.url_items()) == {SITE + "/arr/ok-0", SITE + "/arr/ok-2"}
    (message,) = stack.dlq_messages()
    bad = json.loads(message["Body"])
    assert [b["index"] for b in bad] == [1, 3, 4]
    assert [b["change"] for b in bad] == [entries[1], entries[3], entries[4]]
    assert 'field action value "explode"' in bad[0]["reason"]
    assert 'field url value "ftp://www.example.com/f"' in bad[1]["reason"]
    assert "field change value 7 rejected: must be an object" in bad[2]["reason"]
    reason = message["MessageAttributes"]["reason"]["StringValue"]
    assert re.findall(r"change (\d+): field", reason) == ["1", "3", "4"]
    for b in bad:
        assert b["reason"] in reason
    assert message["MessageAttributes"]["source_message_id"]["StringValue"] == "arr-1"


def test_lone_surrogate_is_rejected_and_the_reason_stays_sendable(stack: IngestStack) -> None:
    raw = '{"action":"upsert","url":"' + SITE + '/x\\ud800y"}'

    response = stack.invoke(sqs_record(raw))

    assert response == {"batchItemFailures": []}
    (message,) = stack.dlq_messages()
    reason = message["MessageAttributes"]["reason"]["StringValue"]
    assert "field message value" in reason and "must be JSON" in reason
    assert "\\ud800" in reason


def test_a_body_the_judge_fails_on_goes_to_the_dlq_at_once_with_the_failure(
    stack: IngestStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_judge(body: str, **_: Any) -> Any:
        raise ValueError("a failure nobody foresaw")

    monkeypatch.setattr("sitemap_updater.ingest.intake.judge_message", failing_judge)
    raw = body(upsert("/f"))

    response = stack.invoke(sqs_record(raw, message_id="msg-unforeseen"))

    assert response == {"batchItemFailures": []}
    (message,) = stack.dlq_messages()
    assert message["Body"] == raw
    reason = message["MessageAttributes"]["reason"]["StringValue"]
    assert "could not be judged (ValueError: a failure nobody foresaw)" in reason
    assert stack.url_items() == {}
