"""The invocation payload: schedule -> incremental, flag -> full, anything else -> error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater.rebuild.outputs.bucket import kind_of, robots_txt
from sitemap_updater.rebuild.request import RebuildRequestError, is_urgent, wants_full_rebuild

EVENTS = Path(__file__).resolve().parents[3] / "events"


def test_the_sample_events_select_their_mode() -> None:
    assert not wants_full_rebuild(json.loads((EVENTS / "rebuild-scheduled.json").read_text()))
    assert wants_full_rebuild(json.loads((EVENTS / "rebuild-full.json").read_text()))


@pytest.mark.parametrize("event", [{}, None, [], {"full_rebuild": False}])
def test_anything_without_a_true_flag_is_incremental(event: object) -> None:
    assert wants_full_rebuild(event) is False


@pytest.mark.parametrize("value", ["true", 1, None])
def test_a_flag_that_is_not_a_boolean_is_rejected_with_field_value_and_rule(value: object) -> None:
    with pytest.raises(RebuildRequestError) as info:
        wants_full_rebuild({"full_rebuild": value})
    message = str(info.value)
    assert "'full_rebuild'" in message
    assert repr(value) in message
    assert "JSON boolean" in message


def test_object_headers_follow_the_architecture_table() -> None:
    assert kind_of("sitemap.xml").content_type == "application/xml; charset=utf-8"
    assert kind_of("sitemap.xml").cache_control == "public, max-age=10"
    assert kind_of("sitemap-r01.xml.gz").content_type == "application/gzip"
    assert kind_of("sitemap-home.xml.gz").cache_control == "public, max-age=10"
    assert kind_of("robots.txt").content_type == "text/plain; charset=utf-8"
    with pytest.raises(ValueError, match=r"'index\.html'"):
        kind_of("index.html")


def test_robots_txt_names_the_index() -> None:
    assert robots_txt(["https://cdn.example.com/sitemap.xml"]) == (
        b"Sitemap: https://cdn.example.com/sitemap.xml\n"
    )


def _stream_record(event_source: str = "aws:dynamodb") -> dict[str, object]:
    return {"eventName": "MODIFY", "eventSource": event_source, "dynamodb": {}}


def test_a_batch_of_the_tables_stream_records_is_urgent() -> None:
    assert is_urgent({"Records": [_stream_record(), _stream_record()]})
    assert not wants_full_rebuild({"Records": [_stream_record()]})


@pytest.mark.parametrize(
    "event",
    [
        {},
        None,
        {"Records": []},
        {"Records": [_stream_record("aws:sqs")]},
        {"Records": [_stream_record(), "not a record"]},
        {"full_rebuild": True},
        {"detail-type": "Scheduled Event", "source": "aws.events"},
    ],
)
def test_anything_else_is_not_urgent(event: object) -> None:
    assert is_urgent(event) is False
