"""docs/change-event.schema.json is the pydantic contract, and it judges bodies as ingest does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sitemap_updater.ingest.contract import message_json_schema

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_PATH = ROOT / "docs" / "change-event.schema.json"
SITE = "https://www.example.com"


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
