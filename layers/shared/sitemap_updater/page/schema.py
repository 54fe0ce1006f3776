"""The JSON Schema of a message, generated from the structs of ``page.model``.

``docs/change-event.schema.json`` is this schema; ``tests/unit/page/test_schema.py`` says when it
is out of date and how to write it again::

    python -c "import json; from sitemap_updater.page.schema import message_schema; \\
        print(json.dumps(message_schema(), indent=2))" > docs/change-event.schema.json
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from sitemap_updater.page.model import MAX_ARRAY_CHANGES, EventBridgeEvent, SentChange

SCHEMA_ID: Final = (
    "https://github.com/sitemap-updater/sitemap-updater/docs/change-event.schema.json"
)


def message_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a message body: a change, an EventBridge event whose
    detail is a change, or an array of 1 to :data:`MAX_ARRAY_CHANGES` changes."""
    (change, event), defs = msgspec.json.schema_components(
        [SentChange, EventBridgeEvent], ref_template="#/$defs/{name}"
    )
    array = {
        "type": "array",
        "items": change,
        "minItems": 1,
        "maxItems": MAX_ARRAY_CHANGES,
        "title": "ChangeArray",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "SitemapChangeMessage",
        "description": "Body of one SQS message sent to the sitemap updater's ingest queue: a "
        "change, an EventBridge event whose detail is a change, or an array of 1 to "
        f"{MAX_ARRAY_CHANGES} changes. Fields a change does not declare are ignored.",
        "anyOf": [change, event, array],
        "$defs": defs,
    }
