"""The Google video and News elements of a ``<url>``, read into the producer contract's form.

Field names are the tag names (docs/producers.md); ``yes``/``no`` become booleans and a
``duration`` of digits a number. A value that cannot be converted is passed on as its text, so
that ``make_entry`` rejects it with its own rule. Tags the contract does not carry (Google's
``rating`` and ``view_count``, and the tags Google deprecated) are returned by name, for the
reader to report as dropped. Free text (titles, descriptions, tags, names) is kept as written,
as the contract keeps it, so that a published file reads back to the values it was written
from; URLs, dates and flags are trimmed of surrounding whitespace.
"""

from __future__ import annotations

from typing import Any, Final

from lxml import etree

from sitemap_updater.protocol.extensions.news import DEPRECATED_NEWS_FIELDS
from sitemap_updater.protocol.extensions.video import DEPRECATED_VIDEO_FIELDS
from sitemap_updater_local.inputs.sitemaps.xml_guard import local_name

_VIDEO_TEXT: Final = frozenset(
    {
        "thumbnail_loc",
        "content_loc",
        "player_loc",
        "expiration_date",
        "publication_date",
    }
)
_VIDEO_FLAGS: Final = frozenset({"family_friendly", "requires_subscription", "live"})
_RELATIONSHIPS: Final = {"restriction": "countries", "platform": "platforms"}
_VIDEO_FREE_TEXT: Final = frozenset({"title", "description"})


def _text(element: etree._Element) -> str:
    return (element.text or "").strip()


def _free_text(element: etree._Element) -> str:
    return element.text or ""


def _flag(text: str) -> object:
    return {"yes": True, "no": False}.get(text.lower(), text)


def video_fields(video: etree._Element, dropped: list[str]) -> dict[str, Any]:
    """One ``<video:video>`` as the contract's video object; tags not carried go to
    ``dropped`` (as ``video:name``)."""
    fields: dict[str, Any] = {}
    for part in video:
        name = local_name(part.tag)[1]
        text = _text(part)
        if name in _VIDEO_TEXT:
            fields[name] = text
        elif name in _VIDEO_FREE_TEXT:
            fields[name] = _free_text(part)
        elif name in _VIDEO_FLAGS:
            fields[name] = _flag(text)
        elif name == "duration":
            fields[name] = int(text) if text.isdigit() else text
        elif name == "tag":
            fields.setdefault("tag", []).append(_free_text(part))
        elif name in _RELATIONSHIPS:
            values = text.split()
            fields[name] = {"relationship": part.get("relationship"), _RELATIONSHIPS[name]: values}
        elif name == "uploader":
            uploader: dict[str, Any] = {"name": _free_text(part)}
            if part.get("info") is not None:
                uploader["info"] = part.get("info")
            fields[name] = uploader
        else:
            dropped.append(f"video:{name}")
        if name == "player_loc":
            dropped.extend(
                f"video:player_loc@{a}" for a in part.attrib if a in DEPRECATED_VIDEO_FIELDS
            )
    return fields


def news_fields(news: etree._Element, dropped: list[str]) -> dict[str, Any]:
    """One ``<news:news>`` as the contract's news object; tags not carried (Google's deprecated
    ``access``, ``genres``, ``keywords``, ``stock_tickers``) go to ``dropped``."""
    fields: dict[str, Any] = {}
    for part in news:
        name = local_name(part.tag)[1]
        if name == "publication":
            publication = {local_name(p.tag)[1]: p for p in part}
            fields[name] = {
                key: _free_text(publication[key]) if key == "name" else _text(publication[key])
                for key in ("name", "language")
                if key in publication
            }
        elif name == "publication_date":
            fields[name] = _text(part)
        elif name == "title":
            fields[name] = _free_text(part)
        elif name in DEPRECATED_NEWS_FIELDS or name:
            dropped.append(f"news:{name}")
    return fields
