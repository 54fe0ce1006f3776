"""docs/change-event.schema.json is the pydantic contract, and it judges bodies as ingest does."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sitemap_updater.ingest.contract import message_json_schema
from sitemap_updater.ingest.events import decode_body
from sitemap_updater.protocol import Site

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_PATH = ROOT / "docs" / "change-event.schema.json"
SITE = "https://www.example.com"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SENT = datetime(2026, 11, 21, 11, 0, tzinfo=UTC)


def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_shipped_schema_is_the_one_the_models_generate() -> None:
    shipped = json.loads(SCHEMA_PATH.read_text())
    assert shipped == message_json_schema(), (
        "docs/change-event.schema.json is out of date; regenerate it with "
        "sitemap_updater.ingest.contract.message_json_schema()"
    )


@pytest.mark.parametrize("name", ["upsert", "delete", "array", "eventbridge", "mixed-batch"])
def test_schema_accepts_the_valid_sample_bodies(name: str) -> None:
    records = json.loads((ROOT / "events" / f"ingest-{name}.json").read_text())["Records"]
    bodies = [json.loads(r["body"]) for r in records]
    valid = [validator().is_valid(b) for b in bodies]
    if name == "mixed-batch":
        assert valid.count(False) == 1  # the poison record: priority "high"
    else:
        assert all(valid)


def test_schema_names_the_bad_entry_of_the_partial_array_sample() -> None:
    entries = json.loads(_sample_body("array-partial"))
    # the foreign host (entry 1) is a protocol rule the schema cannot express; the string
    # priority (entry 2) is a shape error it reports
    error = jsonschema.exceptions.best_match(validator().iter_errors(entries))
    assert error is not None
    assert list(error.absolute_path) == [2, "priority"]
    assert validator().is_valid([e for i, e in enumerate(entries) if i != 2])


BAD: list[tuple[str, Any]] = [
    ("priority as string", {"action": "upsert", "url": SITE + "/a", "priority": "0.8"}),
    ("priority above 1", {"action": "upsert", "url": SITE + "/a", "priority": 1.5}),
    ("unknown action", {"action": "purge", "url": SITE + "/a"}),
    ("missing url", {"action": "delete"}),
    ("url as number", {"action": "upsert", "url": 42}),
    ("changefreq unknown", {"action": "upsert", "url": SITE + "/a", "changefreq": "sometimes"}),
    (
        "alternate without href",
        {"action": "upsert", "url": SITE, "alternates": [{"hreflang": "de"}]},
    ),
    ("empty array", []),
    ("array over 500", [{"action": "delete", "url": f"{SITE}/{i}"} for i in range(501)]),
    ("array with a bad entry", [{"action": "delete", "url": SITE + "/a"}, 7]),
    ("not an object", "upsert"),
    (
        "eventbridge without detail",
        {
            "version": "0",
            "id": "1",
            "source": "s",
            "detail-type": "t",
            "account": "1",
            "time": "2026-11-20T10:00:00Z",
            "region": "r",
            "resources": [],
        },
    ),
]


@pytest.mark.parametrize("body", [b for _, b in BAD], ids=[n for n, _ in BAD])
def test_schema_rejects_bad_bodies(body: Any) -> None:
    assert not validator().is_valid(body)


_DROP = object()


def _sample_body(name: str) -> str:
    record = json.loads((ROOT / "events" / f"ingest-{name}.json").read_text())["Records"][0]
    return str(record["body"])


def _eventbridge(**overrides: Any) -> dict[str, Any]:
    event = {
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "source": "com.example.cms",
        "detail-type": "PageChanged",
        "account": "123456789012",
        "time": "2026-11-20T10:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {"action": "upsert", "url": SITE + "/eb"},
    }
    event.update(overrides)
    return {k: v for k, v in event.items() if v is not _DROP}


_UP = {"action": "upsert", "url": SITE + "/a"}

# Bodies whose URLs, dates and values all satisfy the protocol rules, so that only the shape
# decides: for these the schema and the parser must give the same verdict.
AGREEMENT: list[tuple[str, Any, bool]] = [
    ("full upsert", json.loads(_sample_body("upsert")), True),
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
    ("unknown action", {**_UP, "action": "purge"}, False),
    ("missing action", {"url": SITE + "/a"}, False),
    ("missing url", {"action": "delete"}, False),
    ("url not a string", {"action": "delete", "url": 42}, False),
    ("lastmod a number", {**_UP, "lastmod": 20261120}, False),
    ("occurred_at a number", {**_UP, "occurred_at": 1795176000}, False),
    ("changefreq unknown", {**_UP, "changefreq": "sometimes"}, False),
    ("alternates not a list", {**_UP, "alternates": {"hreflang": "de"}}, False),
    ("alternate without href", {**_UP, "alternates": [{"hreflang": "de"}]}, False),
    ("image without loc", {**_UP, "images": [{}]}, False),
    ("section", {**_UP, "section": "products"}, True),
    ("section of 32", {**_UP, "section": "a-" * 16}, True),
    ("section of 33", {**_UP, "section": "a" * 33}, False),
    ("section empty", {**_UP, "section": ""}, False),
    ("section upper case", {**_UP, "section": "Products"}, False),
    ("section with a slash", {**_UP, "section": "news/"}, False),
    ("section a number", {**_UP, "section": 5}, False),
    ("section null", {**_UP, "section": None}, True),
    ("delete with a section", {"action": "delete", "url": SITE + "/a", "section": "x"}, True),
    ("delete with a bad section", {"action": "delete", "url": SITE + "/a", "section": "X"}, False),
    (
        "1000 images",
        {**_UP, "images": [{"loc": f"https://cdn.example.com/{i}"} for i in range(1000)]},
        True,
    ),
    (
        "1001 images",
        {**_UP, "images": [{"loc": f"https://cdn.example.com/{i}"} for i in range(1001)]},
        False,
    ),
    ("eventbridge", _eventbridge(), True),
    ("eventbridge replay", _eventbridge(**{"replay-name": "r1"}), True),
    ("eventbridge without detail", _eventbridge(detail=_DROP), False),
    ("eventbridge without source", _eventbridge(source=_DROP), False),
    ("eventbridge time a number", _eventbridge(time=1795176000), False),
    ("eventbridge detail not an object", _eventbridge(detail="x"), False),
    ("eventbridge detail bad action", _eventbridge(detail={"action": "x", "url": SITE}), False),
    ("array of 1", [_UP], True),
    ("array of 500", [{"action": "delete", "url": f"{SITE}/{i}"} for i in range(500)], True),
    ("array of 501", [{"action": "delete", "url": f"{SITE}/{i}"} for i in range(501)], False),
    ("empty array", [], False),
    ("array holding an eventbridge event", [_eventbridge()], False),
    ("array holding a number", [_UP, 7], False),
    ("string", "upsert", False),
    ("number", 42, False),
    ("null", None, False),
]


@pytest.mark.parametrize(
    ("body", "valid"), [(b, v) for _, b, v in AGREEMENT], ids=[n for n, _, _ in AGREEMENT]
)
def test_schema_and_parser_agree_on_the_shape(body: Any, valid: bool) -> None:
    decoded = decode_body(json.dumps(body), sent_at=SENT, site=Site.parse(SITE), now=NOW)
    assert validator().is_valid(body) is valid
    assert (not decoded.rejections) is valid, decoded.rejections
