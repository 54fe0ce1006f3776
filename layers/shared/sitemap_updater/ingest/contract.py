"""The producer contract: pydantic models of an SQS message body (Powertools parser models).

A body is one of three shapes (docs/change-event.schema.json is generated from these models):

* a change object (:class:`ChangeObject`);
* an EventBridge event whose ``detail`` is a change object (:class:`ChangeEventBridge`);
* a JSON array of 1 to :data:`MAX_ARRAY_ENTRIES` change objects.

Types are strict: ``"0.8"`` is not a priority and ``42`` is not a URL. Unknown fields are
ignored so that producers may add their own. Shape checks live here; URL, date and protocol
rules are the protocol core's (``sitemap_updater.protocol``), applied in ``events.py``.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from sitemap_updater.protocol.limits import MAX_IMAGES_PER_URL

#: Most change objects one array body may hold.
MAX_ARRAY_ENTRIES: Final = 500

Action = Literal["upsert", "delete"]
ChangeFreq = Literal["always", "hourly", "daily", "weekly", "monthly", "yearly", "never"]

_STRICT = ConfigDict(strict=True, extra="ignore", frozen=True)


class AlternateModel(BaseModel):
    """A language alternate of the page (rendered as ``xhtml:link rel="alternate"``)."""

    model_config = _STRICT

    hreflang: str = Field(description="Language (and optional region) code, or x-default.")
    href: str = Field(description="Absolute URL of the alternate page, on the same site.")


class ImageModel(BaseModel):
    """An image on the page (Google image sitemap extension)."""

    model_config = _STRICT

    loc: str = Field(description="Absolute URL of the image; it may live on another host.")


class ChangeObject(BaseModel):
    """One change to one page: ``upsert`` (create or replace) or ``delete``."""

    model_config = ConfigDict(
        strict=True,
        extra="ignore",
        frozen=True,
        title="ChangeObject",
        json_schema_extra={
            "examples": [
                {
                    "action": "upsert",
                    "url": "https://www.example.com/shoes/42",
                    "lastmod": "2026-11-20T10:00:00Z",
                    "changefreq": "weekly",
                    "priority": 0.8,
                    "alternates": [
                        {"hreflang": "de", "href": "https://www.example.com/de/shoes/42"}
                    ],
                    "images": [{"loc": "https://cdn.example.com/42.jpg"}],
                    "occurred_at": "2026-11-20T10:00:01.250Z",
                },
                {"action": "delete", "url": "https://www.example.com/shoes/41"},
            ]
        },
    )

    action: Action = Field(description="upsert creates or replaces the entry; delete removes it.")
    url: str = Field(
        description="Absolute URL of the page on the configured site; normalized, it is the "
        "entry's identity."
    )
    lastmod: str | None = Field(
        default=None, description="W3C Datetime of the page's last modification (upsert only)."
    )
    changefreq: ChangeFreq | None = Field(default=None, description="sitemaps.org changefreq.")
    priority: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="sitemaps.org priority, a JSON number from 0.0 to 1.0.",
    )
    alternates: list[AlternateModel] = Field(
        default_factory=list, description="Language alternates of the page."
    )
    images: list[ImageModel] = Field(
        default_factory=list, max_length=MAX_IMAGES_PER_URL, description="Images on the page."
    )
    occurred_at: str | None = Field(
        default=None,
        description="When the change happened at the source (ISO 8601 with a time zone, from "
        "1970 to at most one day ahead). Orders the events of one URL. Default: the SQS "
        "SentTimestamp, or the EventBridge time.",
        json_schema_extra={"format": "date-time"},
    )


class ChangeEventBridge(EventBridgeModel):
    """An EventBridge event (for example routed to the queue by a rule) carrying a change.

    Its ``time`` (with a time zone, from 1970 to at most one day ahead) is the change's
    ``occurred_at`` unless the detail has one. An object with ``action`` or ``url`` at its top
    level is read as a change object, never as an EventBridge event.
    """

    model_config = ConfigDict(populate_by_name=True, title="ChangeEventBridge")

    detail: ChangeObject  # type: ignore[assignment]


ChangeArray = Annotated[
    list[ChangeObject],
    Field(min_length=1, max_length=MAX_ARRAY_ENTRIES, title="ChangeArray"),
]

#: Every accepted body shape, for the JSON Schema.
MessageBody = Annotated[
    ChangeObject | ChangeEventBridge | ChangeArray,
    Field(title="SitemapChangeMessageBody"),
]

_BODY_ADAPTER: TypeAdapter[Any] = TypeAdapter(MessageBody)

#: Keys that mark an EventBridge envelope.
EVENTBRIDGE_KEYS: Final = frozenset({"detail", "detail-type"})
#: Keys of a change object that an EventBridge envelope never has at its top level.
CHANGE_KEYS: Final = frozenset({"action", "url"})


def looks_like_eventbridge(obj: dict[str, Any]) -> bool:
    """Whether a decoded JSON object is meant as an EventBridge event rather than a change.

    An object with ``action`` or ``url`` is a change object, even if it also carries a field
    of the producer's own named ``detail`` (unknown fields are ignored), exactly as the JSON
    Schema's first branch accepts it. Otherwise ``detail`` or ``detail-type`` marks an
    EventBridge event, which is then judged (and its errors reported) as one.
    """
    return CHANGE_KEYS.isdisjoint(obj) and not EVENTBRIDGE_KEYS.isdisjoint(obj)


def message_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a message body, as pydantic generates it."""
    schema: dict[str, Any] = _BODY_ADAPTER.json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/sitemap-updater/sitemap-updater/docs/change-event.schema.json",
        "description": "Body of one SQS message sent to the sitemap updater's ingest queue: "
        "a change object, an EventBridge event whose detail is a change object, or an array "
        f"of 1 to {MAX_ARRAY_ENTRIES} change objects.",
        **schema,
    }
