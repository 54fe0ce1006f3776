"""The entry model, the one declaration of its fields, and :func:`make_entry`, which validates
and normalizes raw input.

:class:`Entry` names each field and its type; :data:`ENTRY_FIELDS` says, field by field, what
every other shape of an entry needs: its name in a change object, how it is normalized, stored,
digested and rendered. The contract, the judges, the item codec, the size estimate, the digest
and the renderer read an entry by field name, from here (docs/development.md, "Adding an
optional field", walks through one).

``Entry(...)`` itself does not validate: the rebuild builds entries from what ingest already
validated. Every untrusted value goes through :func:`make_entry`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from operator import attrgetter
from typing import Any, Final, Literal, NamedTuple

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
from sitemap_updater.protocol.extensions.news import News, news_xml, normalize_news
from sitemap_updater.protocol.extensions.video import Video, normalize_videos, videos_xml
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
    return entry_of(
        site,
        {
            "loc": loc,
            "lastmod": lastmod,
            "changefreq": changefreq,
            "priority": priority,
            "alternates": alternates,
            "images": images,
            "videos": videos,
            "news": news,
        },
        now=now,
    )


def entry_of(site: Site, raw: Mapping[str, object], *, now: datetime | None = None) -> Entry:
    """:func:`make_entry` of raw values by field name (a name missing, or ``None``: absent),
    each normalized by its field's rule in :data:`ENTRY_FIELDS` order, so that the first field
    that breaks a rule is the one named."""
    given = raw["loc"]
    loc = normalize_url(given, field="loc")
    site.check(loc, field="loc", value=given)
    values: list[object] = [loc]
    for field in ENTRY_FIELDS[1:]:
        value = raw.get(field.name)
        values.append(field.absent if value is None else field.normalize(site, loc, value, now))
    entry = Entry._make(values)
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


#: How a field's value is stored, digested and written in a change object: a ``text`` is a
#: string throughout; a ``tenth`` a number at one decimal (stored as a number, digested as its
#: text); the others have their own forms (``store.items``, ``ingest.ordering``).
FieldKind = Literal["text", "tenth", "alternates", "images", "videos", "news"]
#: ``normalize(site, loc, value, now)``: the normalized value of a raw (JSON-like) one, on the
#: page ``loc`` of ``site``; raises the :class:`SitemapError` that names the rule it breaks.
Normalizer = Callable[[Site, str, Any, datetime | None], Any]
#: ``render(value)``: the value's elements inside ``<url>``, checked and escaped.
Renderer = Callable[[Any], str]


class EntryField(NamedTuple):
    """One field of an :class:`Entry`: what every shape of an entry needs to know of it."""

    #: the attribute of :class:`Entry`, of the stored URL item, and the key of the digest
    name: str
    #: the field of a change object in the producer contract (``ingest.contract``)
    wire: str
    kind: FieldKind
    #: a plain field (loc to images) is one the fast paths recognize in normalized form; the
    #: digest always holds it (``null`` when absent), and the hot paths (the ``<url>`` template,
    #: the block renderer, the item codec) write it by hand. Every other field is an extra: it
    #: takes the careful path, is digested, stored and rendered only when present, through
    #: this row alone, so that an entry without it keeps its digest, item and bytes.
    plain: bool
    normalize: Normalizer
    #: an extra's elements in ``<url>``, after the plain fields' (the plain fields' own are the
    #: ``<url>`` template's, ``render.element``)
    render: Renderer | None = None
    #: whether the regular sitemap lists the field: the news object is only in the news files,
    #: which read it from the stored item themselves (``store.items.news_from_item``)
    regular: bool = True

    @property
    def absent(self) -> Any:
        """The value of the field when the entry does not have it."""
        return Entry._field_defaults.get(self.name)


ENTRY_FIELDS: Final[tuple[EntryField, ...]] = (
    # loc is normalized first, and checked against the site, by entry_of itself
    EntryField("loc", "url", "text", True, lambda site, loc, value, now: loc),
    EntryField(
        "lastmod",
        "lastmod",
        "text",
        True,
        lambda site, loc, value, now: normalize_lastmod(value, now=now),
    ),
    EntryField(
        "changefreq",
        "changefreq",
        "text",
        True,
        lambda site, loc, value, now: normalize_changefreq(value),
    ),
    EntryField(
        "priority",
        "priority",
        "tenth",
        True,
        lambda site, loc, value, now: normalize_priority(value),
    ),
    EntryField(
        "alternates",
        "alternates",
        "alternates",
        True,
        lambda site, loc, value, now: normalize_alternates(site, value),
    ),
    EntryField(
        "images", "images", "images", True, lambda site, loc, value, now: normalize_images(value)
    ),
    EntryField(
        "videos",
        "videos",
        "videos",
        False,
        lambda site, loc, value, now: normalize_videos(value, loc, now=now),
        videos_xml,
    ),
    EntryField(
        "news",
        "news",
        "news",
        False,
        lambda site, loc, value, now: normalize_news(value, now=now),
        news_xml,
        regular=False,
    ),
)
#: The fields the fast paths recognize, in :class:`Entry`'s order (its first ones).
PLAIN_FIELDS: Final = tuple(field for field in ENTRY_FIELDS if field.plain)
#: Every other field, in :class:`Entry`'s order (its last ones).
EXTRA_FIELDS: Final = tuple(field for field in ENTRY_FIELDS if not field.plain)
#: The extras' values of an entry that has none.
NO_EXTRAS: Final = tuple(field.absent for field in EXTRA_FIELDS)
_EXTRA_NAMES: Final = tuple(field.name for field in EXTRA_FIELDS)
#: ``extras_of(entry)``: the values of ``entry``'s extra fields, in :data:`EXTRA_FIELDS` order
#: (one C call, where there are several: it runs once an entry on the hot paths).
extras_of: Final[Callable[[Entry], tuple[Any, ...]]] = (
    attrgetter(*_EXTRA_NAMES)
    if len(_EXTRA_NAMES) > 1
    else lambda entry: tuple(getattr(entry, name) for name in _EXTRA_NAMES)
)


#: An entry's plain fields as plain values, in :func:`plain_entry`'s order: loc, lastmod,
#: changefreq, priority, alternates as ``(hreflang, href)`` pairs, image URLs (what
#: ``render.element.plain_fragment`` and ``ingest.ordering.plain_digest`` read).
PlainFields = tuple[
    str, str | None, str | None, float | None, Sequence[tuple[str, str]], Sequence[str]
]


def plain_fields(entry: Entry) -> PlainFields:
    """The plain fields of ``entry`` (:data:`PlainFields`)."""
    images = [image.loc for image in entry.images]
    return entry.loc, entry.lastmod, entry.changefreq, entry.priority, entry.alternates, images


def plain_entry(
    loc: str,
    lastmod: str | None,
    changefreq: str | None,
    priority: float | None,
    alternates: Sequence[Sequence[str]],
    images: Sequence[str],
) -> Entry:
    """The entry of plain values already in normalized form, without extras: ``alternates``
    as ``(hreflang, href)`` pairs, ``images`` as their URLs. The fast paths' entry, built with
    ``tuple.__new__`` straight, since a named tuple's own ``__new__`` is Python code and this
    runs once an event (benchmarks/bench_judge.py)."""
    new = tuple.__new__
    return new(
        Entry,
        (
            loc,
            lastmod,
            changefreq,
            priority,
            tuple([new(Alternate, (hreflang, href)) for hreflang, href in alternates])
            if alternates
            else (),
            tuple([new(Image, (url,)) for url in images]) if images else (),
            *NO_EXTRAS,
        ),
    )
