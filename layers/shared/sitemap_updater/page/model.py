"""The page and its changes, declared once as typed structs.

A *page* is one URL of a site as its sitemap lists it: :class:`Page`, with its alternates,
images, videos and news article. A *change* is what a producer sends to add, replace or remove a
page: :class:`Upsert` (a page, plus the section it belongs to and when it changed) or
:class:`Delete`. These structs are the producer contract: msgspec's decoder fills them from a
message's JSON and checks every type and bound declared here (``Meta``), the JSON Schema of a
message is generated from them (``page.schema``), the stored item is their plain form
(``store.items``), the digest is their canonical JSON (``page.order``) and the ``<url>`` element
is rendered from them (``page.render``). The value rules (URL, date, language tag, text) are the
normalizers' (``page.normalize``), one for each field.

A page's fields are given in the order sitemap.xsd writes their elements: the four of the
sitemaps.org protocol, then the extensions. A field that is absent keeps its default and is left
out of the stored item, the digest and the element, so an added optional field changes nothing
for the pages without it. Unknown fields of a change are ignored, so that producers may add
their own; the deprecated tags of Google's News and video extensions are declared, so that the
normalizers can refuse them by name.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

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
from sitemap_updater.sections import MAX_SECTION_LEN, SECTION_CHARS, SECTION_RULE

#: How a date is written in a change (the normalizers read every W3C form, ``page.normalize``).
W3C_DATE: Final = "W3C Datetime: YYYY-MM-DD, or a date and time with a time zone"
_DEPRECATED: Final = Meta(
    description="Deprecated by Google in 2022: a change that carries it is refused with that "
    "reason.",
    extra_json_schema={"deprecated": True},
)
#: A value of a deprecated tag: whatever was sent (``UNSET``: not sent).
Deprecated = Annotated[Any, _DEPRECATED]


def _text(low: int, high: int, description: str = "") -> Meta:
    return Meta(min_length=low, max_length=high, description=description or None)


class Alternate(Struct, frozen=True, gc=False):
    """A language version of the page (``<xhtml:link rel="alternate" hreflang href>``)."""

    hreflang: Annotated[
        str,
        Meta(
            description="A BCP 47 language tag whose language is registered (ISO 639), such as "
            "de, en-GB or zh-Hant, or x-default; each named by one alternate of the page, case "
            "aside (en and EN are the same)."
        ),
    ]
    href: Annotated[
        str,
        Meta(
            description="Absolute URL of the alternate page, on one of the sites (SITE_URL), or "
            "on any host where ALTERNATES_ANY_HOST is true. Search engines ask each version to "
            "list itself too; that is the producer's to do: it is not checked, and none is added."
        ),
    ]


class Image(Struct, frozen=True, gc=False):
    """An image on the page (``<image:image><image:loc>``, Google's image extension)."""

    loc: Annotated[str, Meta(description="Absolute URL of the image; it may live on another host.")]


class Publication(Struct, frozen=True, gc=False):
    """The publication an article appears in (``<news:publication>``)."""

    name: Annotated[
        str,
        _text(1, MAX_NEWS_NAME_LENGTH, "Name of the publication, exactly as on its articles."),
    ]
    language: Annotated[
        str,
        Meta(
            description="ISO 639 language code of the publication (2 or 3 letters), or zh-cn or "
            "zh-tw."
        ),
    ]


class News(Struct, frozen=True, gc=False, omit_defaults=True):
    """An article's Google News metadata (``<news:news>``): the page is also listed in the
    News files while its publication date is inside the news window."""

    publication: Publication
    publication_date: Annotated[
        str, Meta(description=f"When the article was first published ({W3C_DATE}).")
    ]
    title: Annotated[str, _text(1, MAX_NEWS_TITLE_LENGTH, "Title of the article.")]
    access: Deprecated = UNSET
    genres: Deprecated = UNSET
    keywords: Deprecated = UNSET
    stock_tickers: Deprecated = UNSET


class Restriction(Struct, frozen=True, gc=False):
    """Countries where the video may (allow) or may not (deny) be shown."""

    relationship: Literal["allow", "deny"]
    countries: Annotated[
        tuple[str, ...],
        Meta(min_length=1, description="ISO 3166 two-letter country codes, e.g. IE, GB."),
    ]


class Platform(Struct, frozen=True, gc=False):
    """Platforms where the video may (allow) or may not (deny) be shown."""

    relationship: Literal["allow", "deny"]
    platforms: Annotated[tuple[Literal["web", "mobile", "tv"], ...], Meta(min_length=1)]


class Uploader(Struct, frozen=True, gc=False, omit_defaults=True):
    """Who uploaded the video (``<video:uploader info>``)."""

    name: Annotated[str, _text(1, MAX_VIDEO_UPLOADER_LENGTH)]
    info: Annotated[str | None, Meta(description="URL of a page about the uploader.")] = None


class Video(Struct, frozen=True, gc=False, omit_defaults=True):
    """A video on the page (``<video:video>``, Google's video extension); the field names are
    its tags, in the order Google's schema writes them."""

    thumbnail_loc: Annotated[str, Meta(description="URL of the video's thumbnail image.")]
    title: Annotated[str, _text(1, MAX_VIDEO_TITLE_LENGTH)]
    description: Annotated[str, _text(1, MAX_VIDEO_DESCRIPTION_LENGTH)]
    content_loc: Annotated[
        str | None,
        Meta(
            description="URL of the video file itself. content_loc or player_loc is required; "
            "neither may be the page's own URL."
        ),
    ] = None
    player_loc: Annotated[str | None, Meta(description="URL of a player for the video.")] = None
    duration: Annotated[
        Annotated[int, Meta(ge=MIN_VIDEO_DURATION, le=MAX_VIDEO_DURATION)] | None,
        Meta(description=f"Length in seconds ({MIN_VIDEO_DURATION} to {MAX_VIDEO_DURATION:,})."),
    ] = None
    expiration_date: Annotated[
        str | None, Meta(description=f"When the video stops being available ({W3C_DATE}).")
    ] = None
    publication_date: Annotated[
        str | None, Meta(description=f"When the video was first published ({W3C_DATE}).")
    ] = None
    tag: Annotated[
        tuple[Annotated[str, _text(1, MAX_VIDEO_TAG_LENGTH)], ...],
        Meta(
            max_length=MAX_VIDEO_TAGS,
            description=f"Up to {MAX_VIDEO_TAGS} tags of at most {MAX_VIDEO_TAG_LENGTH} "
            "characters.",
        ),
    ] = ()
    family_friendly: Annotated[bool | None, Meta(description="Published as yes or no.")] = None
    restriction: Restriction | None = None
    requires_subscription: Annotated[bool | None, Meta(description="Published as yes or no.")] = (
        None
    )
    uploader: Uploader | None = None
    platform: Platform | None = None
    live: Annotated[bool | None, Meta(description="Published as yes or no.")] = None
    category: Deprecated = UNSET
    gallery_loc: Deprecated = UNSET
    price: Deprecated = UNSET
    tvshow: Deprecated = UNSET
    allow_embed: Deprecated = UNSET
    autoplay: Deprecated = UNSET


#: The values of a page's change frequency (sitemaps.org: tChangeFreq).
CHANGEFREQS: Final = frozenset(
    {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
)


class Page(Struct, frozen=True, gc=False, omit_defaults=True):
    """One ``<url>`` of a sitemap. Judged (``page.normalize``), every value is in normalized
    form; as a part of an :class:`Upsert`, it is what the producer sent."""

    url: Annotated[
        str,
        Meta(
            description="Absolute URL of the page on one of the configured sites (SITE_URL); "
            "normalized, it is the page's identity (its <loc>)."
        ),
    ]
    lastmod: Annotated[
        str | None,
        Meta(description="W3C Datetime of the page's last modification, from 1970 on."),
    ] = None
    changefreq: Annotated[
        Annotated[str, Meta(extra_json_schema={"enum": sorted(CHANGEFREQS)})] | None,
        Meta(description="sitemaps.org changefreq."),
    ] = None
    priority: Annotated[
        Annotated[float, Meta(ge=0.0, le=1.0)] | None,
        Meta(description="sitemaps.org priority, a JSON number from 0.0 to 1.0."),
    ] = None
    alternates: Annotated[
        tuple[Alternate, ...], Meta(description="Language versions of the page.")
    ] = ()
    images: Annotated[
        tuple[Image, ...],
        Meta(
            max_length=MAX_IMAGES_PER_URL,
            description="Images on the page; an image listed again is stored once.",
        ),
    ] = ()
    videos: Annotated[
        tuple[Video, ...],
        Meta(
            max_length=MAX_VIDEOS_PER_URL,
            description="Videos on the page (Google video sitemap extension).",
        ),
    ] = ()
    news: Annotated[
        News | None,
        Meta(
            description="Google News metadata of an article; the page is also listed in the "
            "news files while its publication_date is inside the news window."
        ),
    ] = None


#: A section name: the rule itself is the judge's (``sections.check_section``), which names it.
_SECTION_NAME: Final = Meta(
    extra_json_schema={
        "pattern": f"^{SECTION_CHARS}+$",
        "minLength": 1,
        "maxLength": MAX_SECTION_LEN,
    }
)
_SECTION: Final = Meta(
    description=f"The section whose files list the page: {SECTION_RULE.removeprefix('must be ')}"
    ". Default: the first SECTION_RULES prefix the URL's path starts with, else pages. A delete "
    "checks it and ignores it."
)
_INSTANT: Final = Meta(extra_json_schema={"format": "date-time"})
_OCCURRED_AT: Final = Meta(
    description="When the change happened at the source (ISO 8601 with a time zone, from 1970 to "
    "at most 5 minutes ahead of the time ingest receives it). Orders the changes of one URL. "
    "Default: the SQS SentTimestamp, or the EventBridge time."
)


class Upsert(Page, frozen=True, gc=False, omit_defaults=True, tag_field="action", tag="upsert"):
    """Creates or replaces a page: the page as the producer sends it, its section and time."""

    section: Annotated[Annotated[str, _SECTION_NAME] | None, _SECTION] = None
    occurred_at: Annotated[Annotated[str, _INSTANT] | None, _OCCURRED_AT] = None


class Delete(Struct, frozen=True, gc=False, omit_defaults=True, tag_field="action", tag="delete"):
    """Removes a page."""

    url: Annotated[str, Meta(description="Absolute URL of the page to remove.")]
    section: Annotated[Annotated[str, _SECTION_NAME] | None, _SECTION] = None
    occurred_at: Annotated[Annotated[str, _INSTANT] | None, _OCCURRED_AT] = None


#: A change as a producer sends it, told apart by its ``action``.
SentChange = Upsert | Delete
#: Most changes one array message may hold.
MAX_ARRAY_CHANGES: Final = 500


class EventBridgeEvent(Struct, frozen=True, rename={"detail_type": "detail-type"}):
    """An EventBridge event (routed to the queue by a rule) whose ``detail`` is a change. Its
    ``time`` is the change's ``occurred_at`` unless the detail has one."""

    version: str
    id: str
    detail_type: str
    source: str
    account: str
    time: Annotated[str, _INSTANT]
    region: str
    resources: list[str]
    detail: SentChange


#: A message holding one change or an array of them: what the typed decoder reads first.
ChangeMessage = (
    SentChange | Annotated[list[SentChange], Meta(min_length=1, max_length=MAX_ARRAY_CHANGES)]
)

decode_changes: Final = msgspec.json.Decoder(ChangeMessage).decode
decode_event: Final = msgspec.json.Decoder(EventBridgeEvent).decode


def is_set(value: object) -> bool:
    """Whether a deprecated tag was sent at all."""
    return not isinstance(value, UnsetType)


def _unwrapped(kind: msgspec.inspect.Type) -> tuple[list[msgspec.inspect.Type], dict[str, Any]]:
    """The types a field's type stands for (through ``Metadata`` and an optional's union) and
    the ``extra`` of every ``Meta`` on the way."""
    if isinstance(kind, msgspec.inspect.Metadata):
        types, extra = _unwrapped(kind.type)
        return types, {**(kind.extra or {}), **extra}
    if isinstance(kind, msgspec.inspect.UnionType):
        types, extra = [], {}
        for member in kind.types:
            found, more = _unwrapped(member)
            types += found
            extra |= more
        return types, extra
    return [kind], {}


def _declared() -> tuple[tuple[str, ...], dict[str, tuple[str, str]]]:
    """The page's fields by how a sitemap writes them: the protocol's own single values (an
    element of the field's name in the sitemap namespace, ``url`` being ``<loc>``), and each
    text field whose declaration names its element and namespace
    (``Meta(extra={"element": "prefix:name", "namespace": "URI"})``)."""
    info = msgspec.inspect.type_info(Page)
    assert isinstance(info, msgspec.inspect.StructType)
    scalars = (msgspec.inspect.StrType, msgspec.inspect.FloatType, msgspec.inspect.NoneType)
    protocol: list[str] = []
    extensions: dict[str, tuple[str, str]] = {}
    for field in info.fields:
        types, extra = _unwrapped(field.type)
        if "element" in extra:
            extensions[field.name] = (extra["element"], extra["namespace"])
        elif field.name != "url" and all(isinstance(kind, scalars) for kind in types):
            protocol.append(field.name)
    return tuple(protocol), extensions


#: The page's single values the sitemap protocol writes as elements of their own name, and the
#: extension text fields by their element and namespace (see :func:`_declared`).
PROTOCOL_VALUES, EXTENSION_TEXTS = _declared()


def _deprecated(struct: type[Struct]) -> tuple[str, ...]:
    """The deprecated tags a struct declares (those left ``UNSET`` when not sent)."""
    return tuple(info.name for info in msgspec.structs.fields(struct) if info.default is UNSET)


DEPRECATED_NEWS_TAGS: Final = _deprecated(News)
DEPRECATED_VIDEO_TAGS: Final = _deprecated(Video)
#: The image tags Google deprecated in May 2022 (an image is its ``loc`` alone; see
#: https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions).
DEPRECATED_IMAGE_TAGS: Final = ("caption", "geo_location", "title", "license")
