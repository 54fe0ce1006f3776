"""The producer contract: pydantic models of an SQS message body (Powertools parser models).

A body is one of three shapes (docs/change-event.schema.json is generated from these models):

* a change object (:class:`ChangeObject`);
* an EventBridge event whose ``detail`` is a change object (:class:`ChangeEventBridge`);
* a JSON array of 1 to :data:`MAX_ARRAY_ENTRIES` change objects.

Types are strict: ``"0.8"`` is not a priority and ``42`` is not a URL. Unknown fields are
ignored so that producers may add their own. Shape checks live here; URL, date and protocol
rules are the protocol core's (``sitemap_updater.protocol``), applied in ``events.py``. A change
object declares one field for each field of an entry, under the name
``protocol.entry.ENTRY_FIELDS`` gives it (its ``wire`` name), and hands the judge their values
by the entry's names (:meth:`ChangeObject.entry_values`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from sitemap_updater.ingest.shapes import MAX_ARRAY_ENTRIES
from sitemap_updater.protocol.entry import ENTRY_FIELDS, Alternate, EntryField, Image

# The bounds the contract states in its JSON Schema are the protocol's own: the same names the
# news and video normalizers import, from their one definition.
from sitemap_updater.protocol.limits import (
    MAX_IMAGES_PER_URL,
    MAX_NEWS_NAME_LENGTH,
    MAX_NEWS_TITLE_LENGTH,
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAG_LENGTH,
    MAX_VIDEO_TAGS,
    MAX_VIDEO_TITLE_LENGTH,
    MAX_VIDEO_UPLOADER_LENGTH,
    MAX_VIDEOS_PER_URL,
    MIN_VIDEO_DURATION,
)
from sitemap_updater.sections import MAX_SECTION_LEN, SECTION_PATTERN, SECTION_RULE

Action = Literal["upsert", "delete"]
ChangeFreq = Literal["always", "hourly", "daily", "weekly", "monthly", "yearly", "never"]

_STRICT = ConfigDict(strict=True, extra="ignore", frozen=True)
#: News and video objects keep the fields they do not declare, so that the protocol core can
#: reject, with the reason, the tags Google deprecated (see ``protocol/news.py``, ``video.py``).
_STRICT_KEEP = ConfigDict(strict=True, extra="allow", frozen=True)
W3C_DATE = "W3C Datetime: YYYY-MM-DD, or a date and time with a time zone"


class AlternateModel(BaseModel):
    """A language alternate of the page (rendered as ``xhtml:link rel="alternate"``)."""

    model_config = _STRICT

    hreflang: str = Field(
        description="A BCP 47 language tag whose language is registered (ISO 639), such as de, "
        "en-GB or zh-Hant, or x-default; each named by one alternate of the page, case aside "
        "(en and EN are the same)."
    )
    href: str = Field(
        description="Absolute URL of the alternate page, on one of the sites (SITE_URL), or "
        "on any host where ALTERNATES_ANY_HOST is true. Search engines ask each version to list "
        "itself too; that is the producer's to do: it is not checked, and none is added."
    )


class ImageModel(BaseModel):
    """An image on the page (Google image sitemap extension)."""

    model_config = _STRICT

    loc: str = Field(description="Absolute URL of the image; it may live on another host.")


class PublicationModel(BaseModel):
    """The publication an article appears in (``news:publication``)."""

    model_config = _STRICT

    name: str = Field(
        min_length=1,
        max_length=MAX_NEWS_NAME_LENGTH,
        description="Name of the publication, exactly as it appears on its articles.",
    )
    language: str = Field(
        description="ISO 639 language code of the publication (2 or 3 letters), or zh-cn or zh-tw.",
        pattern=r"^([A-Za-z]{2,3}|[zZ][hH]-([cC][nN]|[tT][wW]))$",
    )


class NewsModel(BaseModel):
    """Google News metadata of an article (``news:news``); published in the news files while
    the article is inside the news window."""

    model_config = _STRICT_KEEP

    publication: PublicationModel
    publication_date: str = Field(
        description=f"When the article was first published ({W3C_DATE}).",
        json_schema_extra={"format": "date-time"},
    )
    title: str = Field(
        min_length=1, max_length=MAX_NEWS_TITLE_LENGTH, description="Title of the article."
    )


class RelationshipModel(BaseModel):
    model_config = _STRICT

    relationship: Literal["allow", "deny"] = Field(
        description="allow: only the values listed; deny: all but them."
    )


class RestrictionModel(RelationshipModel):
    """Countries where the video may (allow) or may not (deny) be shown."""

    countries: list[str] = Field(
        min_length=1, description="ISO 3166 two-letter country codes, e.g. IE, GB."
    )


class PlatformModel(RelationshipModel):
    """Platforms where the video may (allow) or may not (deny) be shown."""

    platforms: list[Literal["web", "mobile", "tv"]] = Field(min_length=1)


class UploaderModel(BaseModel):
    model_config = _STRICT

    name: str = Field(min_length=1, max_length=MAX_VIDEO_UPLOADER_LENGTH)
    info: str | None = Field(default=None, description="URL of a page about the uploader.")


class VideoModel(BaseModel):
    """A video on the page (Google video sitemap extension); the field names are the tags."""

    model_config = _STRICT_KEEP

    thumbnail_loc: str = Field(description="URL of the video's thumbnail image.")
    title: str = Field(min_length=1, max_length=MAX_VIDEO_TITLE_LENGTH)
    description: str = Field(min_length=1, max_length=MAX_VIDEO_DESCRIPTION_LENGTH)
    content_loc: str | None = Field(
        default=None,
        description="URL of the video file itself. content_loc or player_loc is required; "
        "neither may be the page's own URL.",
    )
    player_loc: str | None = Field(default=None, description="URL of a player for the video.")
    duration: int | None = Field(
        default=None,
        ge=MIN_VIDEO_DURATION,
        le=MAX_VIDEO_DURATION,
        description="Length in seconds (1 to 28,800).",
    )
    expiration_date: str | None = Field(
        default=None,
        description=f"When the video stops being available ({W3C_DATE}).",
        json_schema_extra={"format": "date-time"},
    )
    publication_date: str | None = Field(
        default=None,
        description=f"When the video was first published ({W3C_DATE}).",
        json_schema_extra={"format": "date-time"},
    )
    family_friendly: bool | None = Field(default=None, description="Published as yes or no.")
    restriction: RestrictionModel | None = None
    platform: PlatformModel | None = None
    requires_subscription: bool | None = Field(default=None, description="Published as yes/no.")
    uploader: UploaderModel | None = None
    live: bool | None = Field(default=None, description="Published as yes or no.")
    tag: list[str] = Field(
        default_factory=list,
        max_length=MAX_VIDEO_TAGS,
        description=f"Up to {MAX_VIDEO_TAGS} tags of at most {MAX_VIDEO_TAG_LENGTH} characters.",
    )


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
                    "section": "products",
                    "occurred_at": "2026-11-20T10:00:01.250Z",
                },
                {
                    "action": "upsert",
                    "url": "https://www.example.com/news/merger-talks",
                    "news": {
                        "publication": {"name": "The Example Times", "language": "en"},
                        "publication_date": "2026-11-20T09:30:00Z",
                        "title": "Companies A & B in merger talks",
                    },
                    "videos": [
                        {
                            "thumbnail_loc": "https://cdn.example.com/talks.jpg",
                            "title": "The merger, explained",
                            "description": "Two minutes on what the merger means.",
                            "content_loc": "https://cdn.example.com/talks.mp4",
                            "duration": 120,
                            "family_friendly": True,
                            "tag": ["business", "merger"],
                        }
                    ],
                },
                {"action": "delete", "url": "https://www.example.com/shoes/41"},
            ]
        },
    )

    action: Action = Field(description="upsert creates or replaces the entry; delete removes it.")
    url: str = Field(
        description="Absolute URL of the page on one of the configured sites (SITE_URL); "
        "normalized, it is the entry's identity."
    )
    lastmod: str | None = Field(
        default=None,
        description="W3C Datetime of the page's last modification, from 1970 on (upsert only).",
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
        default_factory=list,
        max_length=MAX_IMAGES_PER_URL,
        description="Images on the page; an image listed again is stored once.",
    )
    videos: list[VideoModel] = Field(
        default_factory=list,
        max_length=MAX_VIDEOS_PER_URL,
        description="Videos on the page (Google video sitemap extension).",
    )
    news: NewsModel | None = Field(
        default=None,
        description="Google News metadata of an article; the page is also listed in the news "
        "files while its publication_date is inside the news window.",
    )
    section: str | None = Field(
        default=None,
        description="The section whose files list the page: "
        f"{SECTION_RULE.removeprefix('must be ')}. Default: the first SECTION_RULES prefix "
        "the URL's path starts with, else pages. A delete checks it and ignores it.",
        # the rule itself is checked by the judge (sitemap_updater.sections), which names it
        json_schema_extra={
            "pattern": f"^{SECTION_PATTERN.pattern}$",
            "minLength": 1,
            "maxLength": MAX_SECTION_LEN,
        },
    )
    occurred_at: str | None = Field(
        default=None,
        description="When the change happened at the source (ISO 8601 with a time zone, from "
        "1970 to at most 5 minutes ahead of the time ingest receives it). Orders the events of "
        "one URL. Default: the SQS "
        "SentTimestamp, or the EventBridge time.",
        json_schema_extra={"format": "date-time"},
    )

    def entry_values(self) -> dict[str, Any]:
        """The raw value this change gives each field of an entry, by the entry's field name
        (``None``: absent), in the form ``protocol.entry.entry_of`` normalizes."""
        values = {}
        for name, wire, convert in _READERS:
            value = getattr(self, wire)
            values[name] = value if convert is None or not value else convert(value)
        return values


def _alternates(models: list[AlternateModel]) -> tuple[Alternate, ...]:
    return tuple([Alternate(a.hreflang, a.href) for a in models])


def _images(models: list[ImageModel]) -> tuple[Image, ...]:
    return tuple([Image(i.loc) for i in models])


def _dumped(value: Any) -> Any:
    """Models as plain data: a list of them each without its unset (``None``) fields."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    return [v.model_dump(exclude_none=True) if isinstance(v, BaseModel) else v for v in value]


def _reader(field: EntryField) -> Callable[[Any], Any] | None:
    """How a change object's value of ``field`` becomes what the protocol core's normalizers
    take (``None``: as it is)."""
    if field.kind == "alternates":
        return _alternates
    if field.kind == "images":
        return _images
    if field.kind in {"videos", "news"}:
        return _dumped
    return None


#: ``(entry field name, change object field name, reader)`` of each field of an entry.
_READERS: Final = tuple((field.name, field.wire, _reader(field)) for field in ENTRY_FIELDS)


class ChangeEventBridge(EventBridgeModel):
    """An EventBridge event (for example routed to the queue by a rule) carrying a change.

    Its ``time`` (with a time zone, from 1970 to at most 5 minutes ahead) is the change's
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
