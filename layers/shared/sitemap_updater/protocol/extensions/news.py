"""The Google News extension: the ``news`` object of an entry, its rules and its element.

Field names and rules follow Google's documentation of News sitemaps
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap): a
publication ``name`` and ``language`` (an ISO 639 code, or ``zh-cn`` / ``zh-tw``), the article's
``publication_date`` (W3C format) and its ``title``. The tags Google deprecated in 2022
(``access``, ``genres``, ``keywords``, ``stock_tickers``) are not accepted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sitemap_updater.protocol.errors import InvalidNewsError
from sitemap_updater.protocol.fields import normalize_date, normalize_text, xml_text
from sitemap_updater.protocol.lastmod import NORMALIZED_FORM
from sitemap_updater.protocol.limits import MAX_NEWS_NAME_LENGTH, MAX_NEWS_TITLE_LENGTH

#: An ISO 639 code (two or three letters, lowercase once normalized), or Google's two
#: exceptions for Chinese.
NEWS_LANGUAGE: Final = re.compile(r"[a-z]{2,3}|zh-cn|zh-tw")
#: News tags Google no longer uses (deprecated in 2022); a producer that sends them is told so.
DEPRECATED_NEWS_FIELDS: Final = ("access", "genres", "keywords", "stock_tickers")
_DEPRECATED_RULE: Final = (
    "is a News sitemap tag Google deprecated in 2022 and no longer uses; remove it"
)


@dataclass(frozen=True, slots=True)
class News:
    """The ``<news:news>`` element of an article; every field already normalized."""

    name: str
    language: str
    publication_date: str
    title: str


def _get(value: object, key: str, field: str) -> object:
    if isinstance(value, News):
        return getattr(value, key)
    if not isinstance(value, Mapping):
        raise InvalidNewsError(field, value, "must be an object")
    if key not in value:
        raise InvalidNewsError(f"{field}.{key}", None, "is required")
    return value[key]


def normalize_language(field: str, value: object) -> str:
    if isinstance(value, str) and NEWS_LANGUAGE.fullmatch(value.lower()):
        return value.lower()
    raise InvalidNewsError(
        field, value, "must be an ISO 639 language code such as 'en' or 'fra', or zh-cn or zh-tw"
    )


def normalize_news(value: object, *, now: datetime | None = None) -> News:
    """A validated :class:`News` from a mapping (or a :class:`News`); raises
    :class:`InvalidNewsError` naming the first field that breaks a rule."""
    if isinstance(value, Mapping):
        for deprecated in DEPRECATED_NEWS_FIELDS:
            if deprecated in value:
                raise InvalidNewsError(f"news.{deprecated}", value[deprecated], _DEPRECATED_RULE)
    publication = _get(value, "publication", "news") if not isinstance(value, News) else None
    name: object
    language: object
    if isinstance(value, News):
        name, language = value.name, value.language
    else:
        name = _get(publication, "name", "news.publication")
        language = _get(publication, "language", "news.publication")
    return News(
        name=normalize_text("news.publication.name", name, MAX_NEWS_NAME_LENGTH, InvalidNewsError),
        language=normalize_language("news.publication.language", language),
        publication_date=normalize_date(
            "news.publication_date",
            _get(value, "publication_date", "news"),
            InvalidNewsError,
            now=now,
        ),
        title=normalize_text(
            "news.title", _get(value, "title", "news"), MAX_NEWS_TITLE_LENGTH, InvalidNewsError
        ),
    )


def news_xml(news: News) -> str:
    """The ``<news:news>`` element, every text checked and escaped (element order of Google's
    schema: publication, publication_date, title)."""
    if NEWS_LANGUAGE.fullmatch(news.language) is None:
        normalize_language("news.publication.language", news.language)
    if NORMALIZED_FORM.fullmatch(news.publication_date) is None:
        raise InvalidNewsError(
            "news.publication_date", news.publication_date, "must be in normalized form"
        )
    return (
        "<news:news><news:publication>"
        f"<news:name>{xml_text('news.publication.name', news.name)}</news:name>"
        f"<news:language>{news.language}</news:language></news:publication>"
        f"<news:publication_date>{news.publication_date}"
        "</news:publication_date>"
        f"<news:title>{xml_text('news.title', news.title)}</news:title></news:news>"
    )
