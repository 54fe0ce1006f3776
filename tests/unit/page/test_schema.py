"""docs/change-event.schema.json is the schema the page's structs generate (``page.schema``), and
it takes the bodies the typed decoder takes: on every example below, the schema (checked by the
``jsonschema`` package) and the decoder (``page.model.decode_changes``, and ``decode_event`` for
an EventBridge event) give the same verdict, and the judge, which starts with that decoder,
gives it too where the values keep every rule. The value rules the schema states besides
(a section's pattern, the changefreq values) are the normalizers' in the judge, which refuses
what the schema refuses there."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs ship for it
import msgspec
import pytest

from sitemap_updater.ingest.judge import judge_message
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.page.model import MAX_ARRAY_CHANGES, decode_changes, decode_event
from sitemap_updater.page.schema import message_schema
from sitemap_updater.protocol.limits import MAX_IMAGES_PER_URL
from sitemap_updater.sections import MAX_SECTION_LEN
from sitemap_updater.sites import Sites

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_PATH = ROOT / "docs" / "change-event.schema.json"
SITE = "https://www.example.com"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SENT = datetime(2026, 11, 21, 11, 0, tzinfo=UTC)
REGENERATE = (
    'python -c "import json; from sitemap_updater.page.schema import message_schema; '
    'print(json.dumps(message_schema(), indent=2))" > docs/change-event.schema.json'
)


@cache
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def typed(body: Any) -> bool:
    """Whether the typed decoder takes ``body``: a change, an array of them, or an event."""
    text = json.dumps(body)
    for decode in (decode_changes, decode_event):
        try:
            decode(text)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        return True
    return False


def judged_whole(body: Any) -> bool:
    """Whether the judge takes every change of ``body``."""
    judgement = judge_message(json.dumps(body), sent_at=SENT, sites=Sites.parse(SITE), now=NOW)
    return not any(isinstance(item, Rejection) for item in judgement.items)


def test_the_shipped_schema_is_the_one_the_structs_generate() -> None:
    shipped = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert shipped == json.loads(json.dumps(message_schema())), (
        "docs/change-event.schema.json is out of date with page/model.py; write it again with\n"
        + REGENERATE
    )


def test_the_shipped_schema_is_written_as_its_command_writes_it() -> None:
    text = SCHEMA_PATH.read_text(encoding="utf-8")
    assert text == json.dumps(message_schema(), indent=2) + "\n", REGENERATE


def _sample_bodies(name: str) -> list[Any]:
    records = json.loads((ROOT / "events" / f"ingest-{name}.json").read_text())["Records"]
    return [json.loads(record["body"]) for record in records]


@pytest.mark.parametrize("name", ["upsert", "delete", "array", "eventbridge", "poison"])
def test_the_schema_and_the_decoder_take_the_sample_bodies(name: str) -> None:
    for body in _sample_bodies(name):
        assert validator().is_valid(body)
        assert typed(body)


def test_the_schema_names_the_bad_change_of_the_partial_array_sample() -> None:
    (changes,) = _sample_bodies("array-partial")
    # the foreign host (change 1) is a rule of the site the schema cannot state; the priority
    # given as a string (change 2) is a shape it states, and the decoder refuses it too
    refused = [i for i, change in enumerate(changes) if not validator().is_valid(change)]
    assert refused == [i for i, change in enumerate(changes) if not typed(change)] == [2]
    assert isinstance(changes[2]["priority"], str)
    assert not validator().is_valid(changes) and not typed(changes)
    kept = [change for i, change in enumerate(changes) if i != 2]
    assert validator().is_valid(kept) and typed(kept)


def test_the_poison_record_of_the_mixed_batch_is_refused_by_both() -> None:
    verdicts = [(validator().is_valid(b), typed(b)) for b in _sample_bodies("mixed-batch")]
    assert verdicts.count((False, False)) == 1  # priority "high"
    assert verdicts.count((True, True)) == len(verdicts) - 1


_DROP = object()
_UP = {"action": "upsert", "url": SITE + "/a"}


def _eventbridge(**overrides: Any) -> dict[str, Any]:
    event = {
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "source": "com.example.cms",
        "detail-type": "PageChanged",
        "account": "123456789012",
        "time": "2026-11-21T10:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {"action": "upsert", "url": SITE + "/eb"},
    }
    event.update(overrides)
    return {k: v for k, v in event.items() if v is not _DROP}


def _video(**extra: Any) -> dict[str, Any]:
    return {
        "thumbnail_loc": SITE + "/t.jpg",
        "title": "T",
        "description": "D",
        "content_loc": SITE + "/v.mp4",
        **extra,
    }


_NEWS = {
    "publication": {"name": "The Paper", "language": "en"},
    "publication_date": "2026-11-21",
    "title": "A",
}

# Bodies whose URLs, dates and values all keep the protocol's rules, so that only the shape
# decides: the schema, the typed decoder and the judge give the same verdict.
SHAPES: list[tuple[str, Any, bool]] = [
    ("full upsert", _sample_bodies("upsert")[0], True),
    ("delete with url only", {"action": "delete", "url": SITE + "/a"}, True),
    (
        "explicit nulls",
        {**_UP, "lastmod": None, "changefreq": None, "priority": None, "occurred_at": None},
        True,
    ),
    ("integer priority", {**_UP, "priority": 1}, True),
    ("unknown fields", {**_UP, "mine": {"x": [1]}}, True),
    ("own field named detail", {**_UP, "detail": "note"}, True),
    ("own fields named like eventbridge", {**_UP, "detail-type": "t", "detail": {}}, True),
    ("priority bool", {**_UP, "priority": True}, False),
    ("priority string", {**_UP, "priority": "0.8"}, False),
    ("priority above 1", {**_UP, "priority": 1.5}, False),
    ("priority below 0", {**_UP, "priority": -0.1}, False),
    ("unknown action", {**_UP, "action": "purge"}, False),
    ("missing action", {"url": SITE + "/a"}, False),
    ("missing url", {"action": "delete"}, False),
    ("url not a string", {"action": "delete", "url": 42}, False),
    ("lastmod a number", {**_UP, "lastmod": 20261120}, False),
    ("occurred_at a number", {**_UP, "occurred_at": 1795176000}, False),
    ("alternates not a list", {**_UP, "alternates": {"hreflang": "de"}}, False),
    ("alternate without href", {**_UP, "alternates": [{"hreflang": "de"}]}, False),
    ("image without loc", {**_UP, "images": [{}]}, False),
    ("image as a string", {**_UP, "images": [SITE + "/i.jpg"]}, False),
    ("section", {**_UP, "section": "products"}, True),
    ("section of 32", {**_UP, "section": "a-" * (MAX_SECTION_LEN // 2)}, True),
    ("section a number", {**_UP, "section": 5}, False),
    ("section null", {**_UP, "section": None}, True),
    ("delete with a section", {"action": "delete", "url": SITE + "/a", "section": "x"}, True),
    (
        f"{MAX_IMAGES_PER_URL} images",
        {**_UP, "images": [{"loc": f"{SITE}/{i}.jpg"} for i in range(MAX_IMAGES_PER_URL)]},
        True,
    ),
    (
        f"{MAX_IMAGES_PER_URL + 1} images",
        {**_UP, "images": [{"loc": f"{SITE}/{i}.jpg"} for i in range(MAX_IMAGES_PER_URL + 1)]},
        False,
    ),
    ("video", {**_UP, "videos": [_video(duration=60, tag=["a"], live=True)]}, True),
    ("video without title", {**_UP, "videos": [{**_video(), "title": _DROP}]}, False),
    ("video duration 0", {**_UP, "videos": [_video(duration=0)]}, False),
    ("video duration a string", {**_UP, "videos": [_video(duration="60")]}, False),
    ("video family_friendly a string", {**_UP, "videos": [_video(family_friendly="yes")]}, False),
    ("video of 33 tags", {**_UP, "videos": [_video(tag=["t"] * 33)]}, False),
    (
        "video platform",
        {**_UP, "videos": [_video(platform={"relationship": "allow", "platforms": ["web"]})]},
        True,
    ),
    (
        "video platform unknown",
        {**_UP, "videos": [_video(platform={"relationship": "allow", "platforms": ["tv2"]})]},
        False,
    ),
    (
        "video restriction with no country",
        {**_UP, "videos": [_video(restriction={"relationship": "deny", "countries": []})]},
        False,
    ),
    ("news", {**_UP, "news": _NEWS}, True),
    ("news without title", {**_UP, "news": {**_NEWS, "title": _DROP}}, False),
    ("news title empty", {**_UP, "news": {**_NEWS, "title": ""}}, False),
    ("news publication a string", {**_UP, "news": {**_NEWS, "publication": "x"}}, False),
    ("eventbridge", _eventbridge(), True),
    ("eventbridge replay", _eventbridge(**{"replay-name": "r1"}), True),
    ("eventbridge without detail", _eventbridge(detail=_DROP), False),
    ("eventbridge without source", _eventbridge(source=_DROP), False),
    ("eventbridge time a number", _eventbridge(time=1795176000), False),
    ("eventbridge detail not an object", _eventbridge(detail="x"), False),
    ("eventbridge detail bad action", _eventbridge(detail={"action": "x", "url": SITE}), False),
    ("array of 1", [_UP], True),
    (
        f"array of {MAX_ARRAY_CHANGES}",
        [{"action": "delete", "url": f"{SITE}/{i}"} for i in range(MAX_ARRAY_CHANGES)],
        True,
    ),
    (
        f"array of {MAX_ARRAY_CHANGES + 1}",
        [{"action": "delete", "url": f"{SITE}/{i}"} for i in range(MAX_ARRAY_CHANGES + 1)],
        False,
    ),
    ("empty array", [], False),
    ("array holding an eventbridge event", [_eventbridge()], False),
    ("array holding a number", [_UP, 7], False),
    ("string", "upsert", False),
    ("number", 42, False),
    ("null", None, False),
]


def _dropped(body: Any) -> Any:
    """``body`` without the fields marked to be left out."""
    if isinstance(body, dict):
        return {k: _dropped(v) for k, v in body.items() if v is not _DROP}
    if isinstance(body, list):
        return [_dropped(v) for v in body]
    return body


@pytest.mark.parametrize(
    ("body", "valid"),
    [(_dropped(b), v) for _, b, v in SHAPES],
    ids=[n for n, _, _ in SHAPES],
)
def test_the_schema_and_the_typed_decoder_agree_on_the_shape(body: Any, valid: bool) -> None:
    assert validator().is_valid(body) is valid
    assert typed(body) is valid
    assert judged_whole(body) is valid


# The rules the schema states as a pattern, a length or a list of values, which the decoder
# leaves to the normalizers: the schema refuses these bodies, the decoder takes them, the judge
# refuses them.
VALUE_RULES: list[tuple[str, Any]] = [
    ("changefreq unknown", {**_UP, "changefreq": "sometimes"}),
    ("changefreq in capitals", {**_UP, "changefreq": "DAILY"}),
    ("section of 33", {**_UP, "section": "a" * (MAX_SECTION_LEN + 1)}),
    ("section empty", {**_UP, "section": ""}),
    ("section upper case", {**_UP, "section": "Products"}),
    ("section with a slash", {**_UP, "section": "news/"}),
    ("delete with a bad section", {"action": "delete", "url": SITE + "/a", "section": "X"}),
    ("eventbridge detail with a bad section", _eventbridge(detail={**_UP, "section": "A b"})),
]


@pytest.mark.parametrize("body", [b for _, b in VALUE_RULES], ids=[n for n, _ in VALUE_RULES])
def test_a_value_rule_the_schema_states_is_the_normalizers_in_the_judge(body: Any) -> None:
    assert not validator().is_valid(body)
    assert typed(body)
    assert not judged_whole(body)


def test_the_schema_leaves_the_rules_of_urls_and_dates_to_the_judge() -> None:
    # a foreign host, a bad date and a deprecated tag are of the right type: the schema and the
    # decoder take them, and the judge names the rule each breaks
    for body in (
        {"action": "upsert", "url": "https://evil.example.org/a"},
        {**_UP, "lastmod": "yesterday"},
        {**_UP, "news": {**_NEWS, "genres": "Blog"}},
    ):
        assert validator().is_valid(body) and typed(body)
        assert not judged_whole(body)
