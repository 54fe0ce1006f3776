"""One normalizer for each field of a page: the value it stores, or the rule it breaks.

The decoder has checked every type and bound the structs declare (``page.model``); each function
here applies the value rules of one field and returns its normalized value, or raises a
:class:`SitemapError` naming the field (``alternates[2].href``, ``news.title``), the value and
the rule. Each starts with its cheap check of a value already in normalized form, which most
producers send, and falls back to the full rule beside it (``normalize_url`` and
``normalize_lastmod`` hold their own). :func:`normalize_page` applies them all, in the order of
the fields, so the first field that breaks a rule is the one named.

*Strict* (``drops`` is ``None``): the first broken rule is raised; ingest and every command that
sends to it judge so. *Lenient* (``drops`` is a list): a field or element that breaks a rule is
left out and its error appended to ``drops``, and a News language that stands for one code is
read as it (:class:`Repaired`); the page is kept. ``build`` and ``backfill`` read sitemaps and
spreadsheets so, since there a bad field must never cost the page. A field of a page that this
module does not name is plain text (``normalize_text``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from functools import partial
from typing import Any, Final

import msgspec

from sitemap_updater.page.model import (
    CHANGEFREQS,
    DEPRECATED_NEWS_TAGS,
    DEPRECATED_VIDEO_TAGS,
    Alternate,
    Image,
    News,
    Page,
    Platform,
    Publication,
    Restriction,
    Uploader,
    Video,
    is_set,
)
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.escape import forbidden_char_at
from sitemap_updater.protocol.languages.news import repaired_news_language
from sitemap_updater.protocol.languages.tags import hreflang_rule, is_hreflang
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.urls import Site, normalize_url

#: The errors of the fields a lenient judgement left out, in the order met.
Drops = list[SitemapError]

#: Bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they reorder the text
#: around them when shown. The marks U+200E and U+200F, which right-to-left text needs, are kept.
BIDI_CONTROL: Final = re.compile("[\u202a-\u202e\u2066-\u2069]")
#: An ISO 639 code (two or three letters, lowercase once normalized), or Google's two codes for
#: Chinese (News sitemaps).
NEWS_LANGUAGE: Final = re.compile(r"[a-z]{2,3}|zh-cn|zh-tw")
_COUNTRY: Final = re.compile(r"[A-Z]{2}")
#: A reference moment late enough that no date is "in the future" of it.
_NO_FUTURE: Final = datetime(9999, 12, 30, tzinfo=UTC)
_TENTHS: Final = {k / 10: k / 10 for k in range(11)}
_TENTH: Final = Decimal("0.1")
_DEPRECATED: Final = "is a {} tag Google deprecated in 2022 and no longer uses; remove it"


class Repaired(SitemapError):
    """A value that broke a rule and was read as ``to``, the one value it can stand for (a
    lenient judgement's note, not a loss)."""

    def __init__(self, error: SitemapError, to: str) -> None:
        super().__init__(error.field, error.value, error.rule)
        self.to = to

    def at(self, field: str) -> Repaired:
        return Repaired(SitemapError(field, self.value, self.rule), self.to)


# -- plain values ----------------------------------------------------------------------------


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: empty, or only whitespace and invisible format characters
    (Unicode category Cf, such as U+200B ZERO WIDTH SPACE)."""
    if text.isprintable():
        return not text.strip()
    return all(char.isspace() or unicodedata.category(char) == "Cf" for char in text)


def normalize_text(field: str, value: str) -> str:
    """``value`` if it shows something, holds no bidi embedding, override or isolate, and only
    characters XML 1.0 allows (the renderer escapes the special ones)."""
    if value.isascii() and value.isprintable():  # the common case: shows something if not blank
        if value.strip():
            return value
    elif is_blank(value):
        pass
    else:
        bidi = BIDI_CONTROL.search(value)
        if bidi is not None:
            raise SitemapError(
                field,
                value,
                "must not contain bidi embeddings, overrides or isolates (U+202A-U+202E, "
                f"U+2066-U+2069): U+{ord(bidi.group()):04X} at index {bidi.start()}",
            )
        at = forbidden_char_at(value)
        if at >= 0:
            rule = f"character U+{ord(value[at]):04X} at index {at} is not allowed in XML 1.0"
            raise SitemapError(field, value, rule)
        return value
    raise SitemapError(
        field, value, "must not be empty or blank (whitespace and invisible characters only)"
    )


def normalize_date(field: str, value: str, now: datetime | None, *, future_ok: bool = False) -> str:
    """A W3C date or date-time, as ``lastmod`` takes it (from 1970 on and, unless ``future_ok``,
    at most one day after ``now``), in its normalized form."""
    try:
        return normalize_lastmod(value, now=_NO_FUTURE if future_ok else now)
    except SitemapError as error:
        raise error.at(field) from None


def normalize_changefreq(value: str) -> str:
    if value in CHANGEFREQS:
        return value
    raise SitemapError("changefreq", value, "must be one of " + ", ".join(sorted(CHANGEFREQS)))


def normalize_priority(value: float) -> float:
    """``value`` (0.0 to 1.0, the decoder's bound) rounded to one decimal, half up."""
    known = _TENTHS.get(value)
    if known is not None:
        return known
    return float(Decimal(str(value)).quantize(_TENTH, rounding=ROUND_HALF_UP)) + 0.0


def page_url(site: Site, field: str, value: str) -> str:
    """A URL of a page's media or alternates, normalized, named as ``field``."""
    try:
        return normalize_url(value, field=field)
    except SitemapError as error:
        raise error.at(field) from None


# -- lists -----------------------------------------------------------------------------------


def _each[T](
    field: str,
    items: tuple[T, ...],
    normalize: Callable[[str, T], T],
    drops: Drops | None,
) -> tuple[T, ...]:
    """``normalize(f"{field}[i]", item)`` of each item; a lenient judgement leaves out each
    item that breaks a rule."""
    if drops is None:
        return tuple([normalize(f"{field}[{i}]", item) for i, item in enumerate(items)])
    kept: list[T] = []
    for i, item in enumerate(items):
        try:
            kept.append(normalize(f"{field}[{i}]", item))
        except SitemapError as error:
            drops.append(error)
    return tuple(kept)


def normalize_alternates(
    site: Site, alternates: tuple[Alternate, ...], drops: Drops | None
) -> tuple[Alternate, ...]:
    """Each alternate a language tag (or ``x-default``) named once, case aside (a search engine
    cannot tell which of two ``en`` pages to show), and a URL its site may point to."""
    named: dict[str, str] = {}  # each language named, by the alternate that names it first

    def alternate(field: str, item: Alternate) -> Alternate:
        hreflang = item.hreflang
        if not is_hreflang(hreflang):
            raise SitemapError(field + ".hreflang", hreflang, hreflang_rule(hreflang))
        href = page_url(site, field + ".href", item.href)
        site.check_alternate(href, field=field + ".href", value=item.href)
        first = named.setdefault(hreflang.lower(), field)
        if first != field:
            raise SitemapError(
                field + ".hreflang",
                hreflang,
                f"must name a language once: {first} names it already (hreflang values are "
                "compared without regard to case)",
            )
        return item if href == item.href else Alternate(hreflang, href)

    return _each("alternates", alternates, alternate, drops)


def normalize_images(
    site: Site, images: tuple[Image, ...], drops: Drops | None
) -> tuple[Image, ...]:
    """Each image a URL on a host the site's media may live on, listed once: an image given
    again, in any spelling of its URL, is the same image, and its repeats are dropped."""

    def image(field: str, item: Image) -> Image:
        loc = page_url(site, field + ".loc", item.loc)
        site.check_media(loc, field=field + ".loc", value=item.loc)
        return item if loc == item.loc else Image(loc)

    result = _each("images", images, image, drops)
    if len(result) > 1 and len(set(result)) < len(result):
        result = tuple(dict.fromkeys(result))
    return result


# -- videos ----------------------------------------------------------------------------------


def _relationship[R: (Restriction, Platform)](field: str, value: R) -> R:
    if isinstance(value, Platform):
        return msgspec.structs.replace(value, platforms=tuple(dict.fromkeys(value.platforms)))
    codes: list[str] = []
    for i, raw in enumerate(value.countries):
        code = raw.upper()
        if _COUNTRY.fullmatch(code) is None:
            raise SitemapError(
                f"{field}.countries[{i}]", raw, "must be an ISO 3166 two-letter country code"
            )
        codes.append(code)
    return msgspec.structs.replace(value, countries=tuple(dict.fromkeys(codes)))


def normalize_video(site: Site, page: str, field: str, video: Video, now: datetime | None) -> Video:
    """One video by Google's rules: its texts, its URLs (content or player required, neither
    the page's own), its dates, tags, uploader and restrictions; its deprecated tags refused."""
    for name in DEPRECATED_VIDEO_TAGS:
        if is_set(getattr(video, name)):
            raise SitemapError(f"{field}.{name}", getattr(video, name), _DEPRECATED.format("video"))
    if video.content_loc is None and video.player_loc is None:
        raise SitemapError(field, None, "needs content_loc or player_loc (or both)")
    urls: dict[str, str | None] = {}
    for name in ("thumbnail_loc", "content_loc", "player_loc"):
        raw = getattr(video, name)
        url = None if raw is None else page_url(site, f"{field}.{name}", raw)
        if url is not None:
            if name != "thumbnail_loc" and url == page:
                rule = "must not be the page's own URL (the page's url)"
                raise SitemapError(f"{field}.{name}", raw, rule)
            site.check_media(url, field=f"{field}.{name}", value=raw)
        urls[name] = url
    uploader = video.uploader
    if uploader is not None:
        name = normalize_text(f"{field}.uploader.name", uploader.name)
        info = (
            None
            if uploader.info is None
            else page_url(site, f"{field}.uploader.info", uploader.info)
        )
        uploader = Uploader(name, info)
    expiration, published = video.expiration_date, video.publication_date
    return msgspec.structs.replace(
        video,
        **urls,
        title=normalize_text(f"{field}.title", video.title),
        description=normalize_text(f"{field}.description", video.description),
        expiration_date=None
        if expiration is None
        else normalize_date(f"{field}.expiration_date", expiration, now, future_ok=True),
        publication_date=None
        if published is None
        else normalize_date(f"{field}.publication_date", published, now),
        tag=tuple(normalize_text(f"{field}.tag[{i}]", tag) for i, tag in enumerate(video.tag)),
        restriction=None
        if video.restriction is None
        else _relationship(f"{field}.restriction", video.restriction),
        platform=None
        if video.platform is None
        else _relationship(f"{field}.platform", video.platform),
        uploader=uploader,
    )


# -- news ------------------------------------------------------------------------------------


def normalize_language(field: str, value: str) -> str:
    """A News language: an ISO 639 code, or zh-cn or zh-tw, lowercase."""
    lower = value.lower()
    if NEWS_LANGUAGE.fullmatch(lower) is not None:
        return lower
    raise SitemapError(
        field, value, "must be an ISO 639 language code such as 'en' or 'fra', or zh-cn or zh-tw"
    )


def normalize_news(news: News, now: datetime | None, drops: Drops | None) -> News:
    """An article by Google's News rules; its deprecated tags refused. A lenient judgement reads
    a language tag that stands for one code (``en-US``) as that code."""
    for name in DEPRECATED_NEWS_TAGS:
        if is_set(getattr(news, name)):
            raise SitemapError(f"news.{name}", getattr(news, name), _DEPRECATED.format("News"))
    publication = news.publication
    field = "news.publication.language"
    try:
        language = normalize_language(field, publication.language)
    except SitemapError as error:
        repaired = None if drops is None else repaired_news_language(publication.language)
        if drops is None or repaired is None:
            raise
        drops.append(Repaired(error, repaired))
        language = repaired
    return News(
        publication=Publication(
            normalize_text("news.publication.name", publication.name), language
        ),
        publication_date=normalize_date("news.publication_date", news.publication_date, now),
        title=normalize_text("news.title", news.title),
    )


# -- the page --------------------------------------------------------------------------------


def _single(field: str, normalize: Callable[[Any], Any], value: Any, drops: Drops | None) -> Any:
    """``normalize(value)``; a lenient judgement leaves a value that breaks its rule out."""
    if drops is None:
        return normalize(value)
    try:
        return normalize(value)
    except SitemapError as error:
        drops.append(error)
        return None


def _text_fields() -> tuple[str, ...]:
    """The fields of a page that :func:`normalize_page` does not name: plain text, each."""
    named = {"url", "lastmod", "changefreq", "priority", "alternates", "images", "videos", "news"}
    return tuple(name for name in Page.__struct_fields__ if name not in named)


_TEXT_FIELDS: Final = _text_fields()


def normalize_page(
    given: Page, url: str, site: Site, now: datetime | None, drops: Drops | None = None
) -> Page:
    """The judged page of ``given`` (a page as sent, an :class:`~sitemap_updater.page.model.
    Upsert` included) on ``site``, whose normalized url is ``url``: each field given normalized
    by its own rule, in field order (see the module text for ``drops``)."""
    lastmod, changefreq, priority = given.lastmod, given.changefreq, given.priority
    if lastmod is not None:
        lastmod = _single("lastmod", lambda v: normalize_lastmod(v, now=now), lastmod, drops)
    if changefreq is not None:
        changefreq = _single("changefreq", normalize_changefreq, changefreq, drops)
    if priority is not None:
        priority = normalize_priority(priority)
    alternates, images, videos, news = given.alternates, given.images, given.videos, given.news
    if alternates:
        alternates = normalize_alternates(site, alternates, drops)
    if images:
        images = normalize_images(site, images, drops)
    if videos:
        videos = _each(
            "videos", videos, lambda field, v: normalize_video(site, url, field, v, now), drops
        )
    if news is not None:
        news = _single("news", lambda v: normalize_news(v, now, drops), news, drops)
    page = Page(url, lastmod, changefreq, priority, alternates, images, videos, news)
    if _TEXT_FIELDS:
        texts: dict[str, str | None] = {}
        for name in _TEXT_FIELDS:
            value = getattr(given, name)
            if value is not None:
                texts[name] = _single(name, partial(normalize_text, name), value, drops)
        page = msgspec.structs.replace(page, **texts)
    return page
