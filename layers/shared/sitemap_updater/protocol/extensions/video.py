"""The Google video extension: the ``videos`` of an entry, their rules and their elements.

Field names, required fields and limits follow Google's documentation of video sitemaps
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps):
``thumbnail_loc``, ``title``, ``description`` (at most 2,048 characters) and ``content_loc`` or
``player_loc`` are required, neither of which may be the page's own URL; ``duration`` is 1 to
28,800 seconds; at most 32 ``tag`` values; ``uploader`` at most 255 characters; ``restriction``
lists ISO 3166 country codes and ``platform`` the values ``web``, ``mobile``, ``tv``, each with
``relationship`` ``allow`` or ``deny``. The tags and attributes Google deprecated in 2022
(``category``, ``gallery_loc``, ``price``, ``tvshow`` and the ``player_loc`` attributes
``allow_embed`` and ``autoplay``) are rejected with that reason. ``rating`` and ``view_count``
are not part of the contract.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sitemap_updater.protocol.errors import InvalidVideoError, SitemapError
from sitemap_updater.protocol.fields import (
    normalize_date,
    normalize_flag,
    normalize_text,
    xml_text,
    yes_no,
)
from sitemap_updater.protocol.lastmod import NORMALIZED_FORM
from sitemap_updater.protocol.limits import (
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAG_LENGTH,
    MAX_VIDEO_TAGS,
    MAX_VIDEO_TITLE_LENGTH,
    MAX_VIDEO_UPLOADER_LENGTH,
    MAX_VIDEOS_PER_URL,
    MIN_VIDEO_DURATION,
    RELATIONSHIPS,
    VIDEO_PLATFORMS,
)
from sitemap_updater.protocol.urls import normalize_url

#: Video fields Google deprecated in 2022; a producer that sends them is told so.
DEPRECATED_VIDEO_FIELDS: Final = (
    "category",
    "gallery_loc",
    "price",
    "tvshow",
    "allow_embed",
    "autoplay",
)
_DEPRECATED_RULE: Final = (
    "is a video sitemap tag or attribute Google deprecated in 2022 and no longer uses; remove it"
)
_COUNTRY: Final = re.compile(r"[A-Z]{2}")


@dataclass(frozen=True, slots=True)
class Relationship:
    """``<video:restriction>`` or ``<video:platform>``: allow or deny the listed values."""

    relationship: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Video:
    """One ``<video:video>``; every field already normalized (URLs too)."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    duration: int | None = None
    expiration_date: str | None = None
    publication_date: str | None = None
    tags: tuple[str, ...] = ()
    family_friendly: bool | None = None
    restriction: Relationship | None = None
    requires_subscription: bool | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    platform: Relationship | None = None
    live: bool | None = None


def _bad(field: str, value: object, rule: str) -> InvalidVideoError:
    return InvalidVideoError(field, value, rule)


def _url(field: str, value: object) -> str:
    try:
        return normalize_url(value, field=field)
    except SitemapError as exc:
        raise _bad(field, value, exc.rule) from None


def _relationship(field: str, value: object, key: str) -> Relationship:
    if not isinstance(value, Mapping):
        raise _bad(field, value, f"must be an object with 'relationship' and '{key}'")
    relationship = value.get("relationship")
    if relationship not in RELATIONSHIPS:
        raise _bad(field + ".relationship", relationship, "must be 'allow' or 'deny'")
    raw = value.get(key)
    if not isinstance(raw, list | tuple) or not raw:
        raise _bad(f"{field}.{key}", raw, "must be a non-empty list")
    values: list[str] = []
    for i, item in enumerate(raw):
        if key == "countries":
            code = item.upper() if isinstance(item, str) else item
            if not isinstance(code, str) or not _COUNTRY.fullmatch(code):
                raise _bad(
                    f"{field}.{key}[{i}]", item, "must be an ISO 3166 two-letter country code"
                )
        else:
            code = item.lower() if isinstance(item, str) else item
            if code not in VIDEO_PLATFORMS:
                raise _bad(f"{field}.{key}[{i}]", item, "must be one of web, mobile, tv")
        if code not in values:
            values.append(code)
    return Relationship(str(relationship), tuple(values))


def _duration(field: str, value: object) -> int:
    if type(value) is not int or not MIN_VIDEO_DURATION <= value <= MAX_VIDEO_DURATION:
        raise _bad(
            field,
            value,
            f"must be a whole number of seconds from {MIN_VIDEO_DURATION} to "
            f"{MAX_VIDEO_DURATION:,} (8 hours)",
        )
    return value


def _tags(field: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise _bad(field, value, "must be a list of strings")
    if len(value) > MAX_VIDEO_TAGS:
        raise _bad(field, f"{len(value)} tags", f"at most {MAX_VIDEO_TAGS} tags per video")
    return tuple(
        normalize_text(f"{field}[{i}]", tag, MAX_VIDEO_TAG_LENGTH, InvalidVideoError)
        for i, tag in enumerate(value)
    )


def _uploader(field: str, value: object) -> tuple[str, str | None]:
    if not isinstance(value, Mapping):
        raise _bad(field, value, "must be an object with a 'name' (and an optional 'info' URL)")
    name = normalize_text(
        field + ".name", value.get("name"), MAX_VIDEO_UPLOADER_LENGTH, InvalidVideoError
    )
    info = value.get("info")
    return name, None if info is None else _url(field + ".info", info)


def normalize_video(field: str, value: object, page_loc: str, *, now: datetime | None) -> Video:
    """A validated :class:`Video` from a mapping (or a :class:`Video`, taken apart)."""
    if isinstance(value, Video):
        return value
    if not isinstance(value, Mapping):
        raise _bad(field, value, "must be an object")
    for name in DEPRECATED_VIDEO_FIELDS:
        if name in value:
            raise _bad(f"{field}.{name}", value[name], _DEPRECATED_RULE)
    for name in ("thumbnail_loc", "title", "description"):
        if value.get(name) is None:
            raise _bad(f"{field}.{name}", None, "is required")
    if value.get("content_loc") is None and value.get("player_loc") is None:
        raise _bad(field, None, "needs content_loc or player_loc (or both)")
    locs: dict[str, str | None] = {}
    for name in ("content_loc", "player_loc"):
        raw = value.get(name)
        locs[name] = None if raw is None else _url(f"{field}.{name}", raw)
        if locs[name] == page_loc:
            raise _bad(f"{field}.{name}", raw, "must not be the page's own URL (the entry's url)")

    def optional(name: str) -> object:
        return value.get(name)

    uploader = optional("uploader")
    name_info = None if uploader is None else _uploader(f"{field}.uploader", uploader)
    restriction, platform = optional("restriction"), optional("platform")
    flags = {
        name: None
        if optional(name) is None
        else normalize_flag(f"{field}.{name}", value[name], InvalidVideoError)
        for name in ("family_friendly", "requires_subscription", "live")
    }
    duration, tags = optional("duration"), optional("tag")
    expiration, publication = optional("expiration_date"), optional("publication_date")
    return Video(
        thumbnail_loc=_url(f"{field}.thumbnail_loc", value["thumbnail_loc"]),
        title=normalize_text(
            f"{field}.title", value["title"], MAX_VIDEO_TITLE_LENGTH, InvalidVideoError
        ),
        description=normalize_text(
            f"{field}.description",
            value["description"],
            MAX_VIDEO_DESCRIPTION_LENGTH,
            InvalidVideoError,
        ),
        content_loc=locs["content_loc"],
        player_loc=locs["player_loc"],
        duration=None if duration is None else _duration(f"{field}.duration", duration),
        expiration_date=(
            None
            if expiration is None
            else normalize_date(
                f"{field}.expiration_date", expiration, InvalidVideoError, now=now, future_ok=True
            )
        ),
        publication_date=(
            None
            if publication is None
            else normalize_date(
                f"{field}.publication_date", publication, InvalidVideoError, now=now
            )
        ),
        tags=() if tags is None else _tags(f"{field}.tag", tags),
        family_friendly=flags["family_friendly"],
        restriction=(
            None
            if restriction is None
            else _relationship(f"{field}.restriction", restriction, "countries")
        ),
        requires_subscription=flags["requires_subscription"],
        uploader=None if name_info is None else name_info[0],
        uploader_info=None if name_info is None else name_info[1],
        platform=(
            None if platform is None else _relationship(f"{field}.platform", platform, "platforms")
        ),
        live=flags["live"],
    )


def normalize_videos(value: object, page_loc: str, *, now: datetime | None) -> tuple[Video, ...]:
    if not isinstance(value, list | tuple):
        raise _bad("videos", value, "must be a list")
    if len(value) > MAX_VIDEOS_PER_URL:
        raise _bad("videos", f"{len(value)} videos", f"at most {MAX_VIDEOS_PER_URL} videos per URL")
    return tuple(
        normalize_video(f"videos[{i}]", item, page_loc, now=now) for i, item in enumerate(value)
    )


def _element(name: str, text: str) -> str:
    return f"<video:{name}>{text}</video:{name}>"


def _date(field: str, value: str) -> str:
    if NORMALIZED_FORM.fullmatch(value) is None:
        raise _bad(field, value, "must be in normalized form")
    return value


def video_xml(video: Video, field: str) -> str:
    """The ``<video:video>`` element, in the element order of Google's schema, every text
    checked and escaped (the first value that breaks a rule, in that order, raises)."""
    parts = [
        "<video:video>",
        _element("thumbnail_loc", xml_text(field + ".thumbnail_loc", video.thumbnail_loc)),
        _element("title", xml_text(field + ".title", video.title)),
        _element("description", xml_text(field + ".description", video.description)),
    ]
    _locations(video, field, parts)
    _dates_and_tags(video, field, parts)
    _audience(video, field, parts)
    parts.append("</video:video>")
    return "".join(parts)


def _locations(video: Video, field: str, parts: list[str]) -> None:
    if video.content_loc is None and video.player_loc is None:
        raise _bad(field, None, "needs content_loc or player_loc (or both)")
    if video.content_loc is not None:
        parts.append(_element("content_loc", xml_text(field + ".content_loc", video.content_loc)))
    if video.player_loc is not None:
        parts.append(_element("player_loc", xml_text(field + ".player_loc", video.player_loc)))


def _dates_and_tags(video: Video, field: str, parts: list[str]) -> None:
    if video.duration is not None:
        parts.append(_element("duration", str(_duration(field + ".duration", video.duration))))
    if video.expiration_date is not None:
        parts.append(
            _element("expiration_date", _date(field + ".expiration_date", video.expiration_date))
        )
    if video.publication_date is not None:
        parts.append(
            _element("publication_date", _date(field + ".publication_date", video.publication_date))
        )
    for i, tag in enumerate(video.tags):
        parts.append(_element("tag", xml_text(f"{field}.tag[{i}]", tag)))


def _audience(video: Video, field: str, parts: list[str]) -> None:
    if video.family_friendly is not None:
        parts.append(_element("family_friendly", yes_no(video.family_friendly)))
    if video.restriction is not None:
        parts.append(_relationship_xml("restriction", video.restriction, field))
    if video.requires_subscription is not None:
        parts.append(_element("requires_subscription", yes_no(video.requires_subscription)))
    if video.uploader is not None:
        name = xml_text(field + ".uploader.name", video.uploader)
        if video.uploader_info is None:
            parts.append(_element("uploader", name))
        else:
            info = xml_text(field + ".uploader.info", video.uploader_info)
            parts.append(f'<video:uploader info="{info}">{name}</video:uploader>')
    if video.platform is not None:
        parts.append(_relationship_xml("platform", video.platform, field))
    if video.live is not None:
        parts.append(_element("live", yes_no(video.live)))


def _relationship_xml(name: str, value: Relationship, field: str) -> str:
    if value.relationship not in RELATIONSHIPS:
        raise _bad(f"{field}.{name}.relationship", value.relationship, "must be allow or deny")
    for code in value.values:
        if not (_COUNTRY.fullmatch(code) if name == "restriction" else code in VIDEO_PLATFORMS):
            raise _bad(f"{field}.{name}", code, "is not a valid value")
    joined = " ".join(value.values)
    return f'<video:{name} relationship="{value.relationship}">{joined}</video:{name}>'


def videos_xml(videos: Sequence[Video]) -> str:
    return "".join(video_xml(video, f"videos[{i}]") for i, video in enumerate(videos))
