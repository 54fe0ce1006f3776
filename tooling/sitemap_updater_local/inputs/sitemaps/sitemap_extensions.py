"""The Google video and News elements of a ``<url>``, read into the producer contract's form.

Field names are the tag names (docs/producers.md); ``yes``/``no`` become booleans and a
``duration`` of digits a number. A value that cannot be converted is passed on as its text, so
that the judge names the rule it breaks. Tags the contract does not carry (Google's
``rating`` and ``view_count``, and the tags Google deprecated) are returned by name, for the
reader to report as dropped. Free text (titles, descriptions, tags, names) is kept as written,
as the contract keeps it, so that a published file reads back to the values it was written
from; URLs, dates and flags are trimmed of surrounding whitespace.
"""

from __future__ import annotations

from typing import Any, Final

from lxml import etree

from sitemap_updater.page.model import DEPRECATED_NEWS_TAGS, DEPRECATED_VIDEO_TAGS
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


#: Invisible characters a value is trimmed of, beside whitespace: a byte order mark, zero-width
#: spaces and joiners, a word joiner.
_INVISIBLE: Final = "\ufeff\u200b\u200c\u200d\u2060"


def trimmed(text: str) -> str:
    """``text`` without whitespace or invisible characters around it."""
    return text.strip().strip(_INVISIBLE).strip()


def _text(element: etree._Element) -> str:
    return trimmed(element.text or "")


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
                f"video:player_loc@{a}" for a in part.attrib if a in DEPRECATED_VIDEO_TAGS
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
        elif name in DEPRECATED_NEWS_TAGS or name:
            dropped.append(f"news:{name}")
    return fields
