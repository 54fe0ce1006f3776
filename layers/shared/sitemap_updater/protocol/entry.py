"""The entry model and :func:`make_entry`, which validates and normalizes raw input.

``Entry(...)`` itself does not validate: the rebuild builds entries from what ingest already
validated. Every untrusted value goes through :func:`make_entry`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Final, NamedTuple

from sitemap_updater.protocol.errors import (
    DuplicateHreflangError,
    InvalidAlternateError,
    InvalidChangefreqError,
    InvalidHreflangError,
    InvalidImageError,
    InvalidPriorityError,
    SitemapError,
    TooManyImagesError,
)
from sitemap_updater.protocol.extensions.news import News, normalize_news
from sitemap_updater.protocol.extensions.video import Video, normalize_videos
from sitemap_updater.protocol.languages.tags import hreflang_rule, is_hreflang
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.limits import CHANGEFREQS, MAX_IMAGES_PER_URL
from sitemap_updater.protocol.urls import Site, normalize_url

_TENTH: Final = Decimal("0.1")
#: Priorities already at one decimal (the common case), each its own normalized value.
_TENTHS: Final = {k / 10: k / 10 for k in range(11)}


# The three records are named tuples: immutable like a frozen dataclass, and built in a third of
# its time (a frozen dataclass sets each field through ``object.__setattr__``), which counts on
# the judge's hot path (benchmarks/bench_judge.py).


class Alternate(NamedTuple):
    """A language alternate, written as ``<xhtml:link rel="alternate" .../>``."""

    hreflang: str
    href: str


class Image(NamedTuple):
    """An image on the page, written as ``<image:image><image:loc>``."""

    loc: str


class Entry(NamedTuple):
    """One ``<url>`` of a sitemap; every field is already normalized."""

    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: float | None = None
    alternates: tuple[Alternate, ...] = ()
    images: tuple[Image, ...] = ()
    videos: tuple[Video, ...] = ()
    #: the article's Google News metadata; the writer renders it only where the entry carries
    #: it, which the rebuild does for the news files alone (README, "News sitemaps")
    news: News | None = None


def normalize_changefreq(value: object) -> str:
    if not isinstance(value, str) or value not in CHANGEFREQS:
        raise InvalidChangefreqError(
            "changefreq", value, "must be one of " + ", ".join(sorted(CHANGEFREQS))
        )
    return value


def tenth(value: object) -> float | None:
    """``value`` itself if it is a float already at one decimal (0.0 to 1.0), else ``None``."""
    return _TENTHS.get(value) if type(value) is float else None


def normalize_priority(value: object) -> float:
    """``value`` rounded to one decimal (half up); a bool or a string is not a number."""
    known = tenth(value)
    if known is not None:
        return known
    rule = "must be a number from 0.0 to 1.0"
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise InvalidPriorityError("priority", value, rule + " (a JSON number, not a string)")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidPriorityError("priority", value, rule)
    exact = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if not exact.is_finite() or not Decimal(0) <= exact <= Decimal(1):
        raise InvalidPriorityError("priority", value, rule)
    return float(exact.quantize(_TENTH, rounding=ROUND_HALF_UP)) + 0.0


def _items(field: str, value: object, error: type[SitemapError]) -> list[object]:
    if isinstance(value, list | tuple) and not isinstance(value, Alternate | Image):
        return list(value)
    raise error(field, value, "must be a list")


def _member(field: str, item: object, key: str, error: type[SitemapError]) -> object:
    if type(item) is Alternate or type(item) is Image:  # the common case, checked first
        if hasattr(item, key):
            return getattr(item, key)
        raise error(field, item, f"must be an object with a {key!r} field")
    if isinstance(item, Mapping):
        if key not in item:
            raise error(field, item, f"must have a {key!r} field")
        return item[key]
    if isinstance(item, Alternate | Image) and hasattr(item, key):
        return getattr(item, key)
    raise error(field, item, f"must be an object with a {key!r} field")


def normalize_alternates(site: Site, value: object) -> tuple[Alternate, ...]:
    """The alternates, each a language tag (or ``x-default``) named once, case aside (a search
    engine cannot tell which of two ``en`` pages to show), and a URL its site may point to."""
    result = []
    #: index of the alternate that named each hreflang, lowercased
    named: dict[str, int] = {}
    for i, item in enumerate(_items("alternates", value, InvalidAlternateError)):
        field = f"alternates[{i}]"
        hreflang = _member(field, item, "hreflang", InvalidAlternateError)
        if not isinstance(hreflang, str) or not is_hreflang(hreflang):
            raise InvalidHreflangError(field + ".hreflang", hreflang, hreflang_rule(hreflang))
        first = named.setdefault(hreflang.lower(), i)
        if first != i:
            raise DuplicateHreflangError(
                field + ".hreflang",
                hreflang,
                f"must name a language once: alternates[{first}] names it already "
                "(hreflang values are compared without regard to case)",
            )
        raw_href = _member(field, item, "href", InvalidAlternateError)
        href = normalize_url(raw_href, field=field + ".href")
        site.check_alternate(href, field=field + ".href", value=raw_href)
        result.append(Alternate(hreflang=hreflang, href=href))
    return tuple(result)


def normalize_images(value: object) -> tuple[Image, ...]:
    """At most 1,000 images, each URL listed once: an image given again, in any spelling of
    its URL, is the same image, and its repeats are dropped."""
    items = _items("images", value, InvalidImageError)
    if len(items) > MAX_IMAGES_PER_URL:
        raise TooManyImagesError(
            "images", f"{len(items)} images", f"at most {MAX_IMAGES_PER_URL} images per URL"
        )
    locs = dict.fromkeys(
        normalize_url(
            _member(f"images[{i}]", item, "loc", InvalidImageError), field=f"images[{i}].loc"
        )
        for i, item in enumerate(items)
    )
    return tuple(Image(loc) for loc in locs)


def make_entry(
    site: Site,
    *,
    loc: object,
    lastmod: object = None,
    changefreq: object = None,
    priority: object = None,
    alternates: object = (),
    images: object = (),
    videos: object = (),
    news: object = None,
    now: datetime | None = None,
) -> Entry:
    """Validate and normalize raw (JSON-like) values into an :class:`Entry`.

    Raises a :class:`SitemapError` subclass naming the first field that breaks a rule.
    ``None`` means "absent" for the optional fields.
    """
    normalized = normalize_url(loc, field="loc")
    site.check(normalized, field="loc", value=loc)
    entry = Entry(
        loc=normalized,
        lastmod=None if lastmod is None else normalize_lastmod(lastmod, now=now),
        changefreq=None if changefreq is None else normalize_changefreq(changefreq),
        priority=None if priority is None else normalize_priority(priority),
        alternates=() if alternates is None else normalize_alternates(site, alternates),
        images=() if images is None else normalize_images(images),
        videos=() if videos is None else normalize_videos(videos, normalized, now=now),
        news=None if news is None else normalize_news(news, now=now),
    )
    if site.media_hosts is not None:
        check_media(site, entry)
    return entry


def check_media(site: Site, entry: Entry) -> None:
    """Raise :class:`ForeignHostError` for the first image or video URL of ``entry`` that is on
    none of the hosts ``site`` lets media live on."""
    for i, image in enumerate(entry.images):
        site.check_media(image.loc, field=f"images[{i}].loc")
    for i, video in enumerate(entry.videos):
        for name in ("thumbnail_loc", "content_loc", "player_loc"):
            url = getattr(video, name)
            if url is not None:
                site.check_media(url, field=f"videos[{i}].{name}")


#: The lists whose items :func:`make_entry_keeping_page` can leave out one by one.
_ELEMENT_LISTS: Final = ("alternates", "images", "videos")


def _bad_element(field: str) -> tuple[str, int | None] | None:
    """The list (or ``news``) and index of the element a rejected ``field`` belongs to
    (``alternates[2].href`` -> ``("alternates", 2)``, ``images`` -> ``("images", None)``);
    ``None`` for a field of the page itself."""
    head, bracket, rest = field.partition("[")
    if head == "news" or field.startswith("news."):
        return "news", None
    if head not in _ELEMENT_LISTS:
        return None
    if not bracket:
        return (head, None) if field == head else None
    index = rest.partition("]")[0]
    return (head, int(index)) if index.isdigit() else None


def make_entry_keeping_page(
    site: Site,
    *,
    loc: object,
    lastmod: object = None,
    changefreq: object = None,
    priority: object = None,
    alternates: object = (),
    images: object = (),
    videos: object = (),
    news: object = None,
    now: datetime | None = None,
) -> tuple[Entry, list[SitemapError]]:
    """:func:`make_entry`, but an alternate, image, video or news object that breaks a rule is
    left out instead of costing the page: the entry, and the error of each element left out.
    A list that is not one, or more than 1,000 images, is left out whole (beyond the 1,000th
    image). Raises the :class:`SitemapError` of a field of the page itself (its loc, lastmod,
    changefreq or priority)."""
    values: dict[str, object] = {
        "alternates": alternates,
        "images": images,
        "videos": videos,
        "news": news,
    }
    dropped: list[SitemapError] = []
    while True:
        try:
            entry = make_entry(
                site,
                loc=loc,
                lastmod=lastmod,
                changefreq=changefreq,
                priority=priority,
                now=now,
                **values,
            )
        except SitemapError as error:
            element = _bad_element(error.field)
            if element is None:
                raise
            name, index = element
            items = values[name]
            if isinstance(error, TooManyImagesError) and isinstance(items, list | tuple):
                values[name] = tuple(items)[:MAX_IMAGES_PER_URL]
            elif index is None or not isinstance(items, list | tuple) or index >= len(items):
                values[name] = None
            else:
                values[name] = (*items[:index], *items[index + 1 :])
            dropped.append(error)
            continue
        return entry, dropped
