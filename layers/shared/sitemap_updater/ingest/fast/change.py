"""The judge's fast path: a change object whose values are already in normalized form, but
perhaps its URLs.

Most producers send what ingest would store: a URL on one of the sites in normalized form, a
lastmod in ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ssZ``, a priority with one decimal, plain
alternates and images, a section name. :func:`fast_change` recognizes such an object straight
from the struct the wire decoder filled (``ingest.wire``, which checks the object's shape as the
contract's models would), and leaves its values to the protocol core's one recognizer of
normalized form (``protocol.normalized``),
without models or normalizers, and makes the change of the entry it gives (``build`` renders its
``<url>`` straight from that entry, ``render.fragments.recognized_fragment``). It answers
``None`` whenever it is not sure (a form or value the normalizers would change; the wire
decoder refuses any other field, such as videos, or type); the careful path then judges the
object and, for a bad one, names the rule it breaks. Its URLs (the change's, its alternates',
its images') may also be ones the careful judge's normalizers change (an IRI, an upper-case
host, a default port, a space): the fast path then calls those same normalizers. So the fast
path decides only what the careful path would accept, with the values it would store, and
property tests compare the two on arbitrary bodies. Many changes at once (the lines of a
``build`` block, an array body) are decided together by ``ingest.fast.batch``, which asks this
module of any change its shared checks are not sure of.

The item-size rule needs no counting on this path: a fast-path item holds only ASCII strings
that each appear in the body as one JSON string, and every attribute name or list overhead it
adds is shorter than the JSON text around that value (``"lastmod":`` is longer than
``lastmod``, ``"section":`` than ``sec``, an alternate's ``{"hreflang":"","href":""}`` longer
than its 18 bytes of map overhead). So the item is at most the body's length plus its fixed
parts (key, hash, ordering key and digest, well under :data:`FIXED_ALLOWANCE`): a body up to
:data:`ROOMY_BODY` characters can never be refused for size, and a longer one is left to the
careful judge, which counts. A URL normalized here may be longer than its text in the body
(``é`` becomes ``%C3%A9``), so such URLs count whole, on top of the body.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Final

from sitemap_updater.ingest.item_size import MAX_ITEM_BYTES
from sitemap_updater.ingest.judged import (
    EARLIEST,
    MAX_FUTURE_SKEW,
    WRITER_ALLOWANCE_BYTES,
    ChangeEvent,
    delete_change,
    parse_occurred_at,
    upsert_change,
)
from sitemap_updater.ingest.ordering import format_instant, instant_text
from sitemap_updater.ingest.wire import (
    WireAlternate,
    WireChange,
    WireDelete,
    WireImage,
    WireUpsert,
)
from sitemap_updater.protocol.entry import Entry, normalize_alternates, normalize_images
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.normalized import (
    NormalForm,
    normal_form,
    recognize_rest,
)
from sitemap_updater.protocol.urls import Site, normalize_url
from sitemap_updater.sections import is_section
from sitemap_updater.sites import Sites

#: More than the fixed parts of a URL item (key, hash, state, ordering key, digest: about 220
#: bytes) ever take.
FIXED_ALLOWANCE: Final = 1024
#: Bodies up to this many characters never make a fast-path item too large (module text).
ROOMY_BODY: Final = MAX_ITEM_BYTES - WRITER_ALLOWANCE_BYTES - FIXED_ALLOWANCE


#: ``format_instant`` of the earliest accepted ``occurred_at``.
EARLIEST_TEXT: Final = format_instant(EARLIEST)


@lru_cache(maxsize=8)
def latest_text(now: datetime) -> str:
    """``format_instant`` of the latest accepted ``occurred_at`` for a judge clock of ``now``."""
    return format_instant(now + MAX_FUTURE_SKEW)


def _occurred_at(
    raw_time: str | None, default_time: datetime | None, now: datetime, latest: str
) -> tuple[datetime, str | None] | None:
    """The instant of ``occurred_at`` and, when the text gave it, its ``format_instant``
    (``latest``: ``latest_text(now)``); ``None``: not sure."""
    if raw_time is None:
        return None if default_time is None else (default_time, None)
    instant = instant_text(raw_time)
    if instant is None:
        try:
            return parse_occurred_at(raw_time, now), None
        except ValueError:
            return None
    # the texts are fixed-width, so they compare as the instants do (check_instant's bounds)
    if not EARLIEST_TEXT <= instant <= latest:
        return None
    try:
        return datetime.fromisoformat(raw_time), instant  # in UTC: the text ends in Z
    except ValueError:
        return None


def normalized_loc(url: str, sites: Sites, now: datetime) -> tuple[str, NormalForm] | None:
    """``url``, not in normalized form, as the careful judge's own normalizer (``normalize_url``)
    makes it, if that is in normalized form on a listed site, and that site's form; ``None``:
    not sure. An IRI, an upper-case host, a default port or a space is then decided on the fast
    path too, with the value the careful judge would store."""
    try:
        loc = normalize_url(url)
    except SitemapError:
        return None
    site = sites.site_of(loc)
    if site is None:
        return None
    form = normal_form(site, now)
    return (loc, form) if form.on_site(loc) else None


def _renormalized(
    site: Site, alternates: list[WireAlternate], images: list[WireImage]
) -> tuple[list[list[str]], list[str]] | None:
    """The alternates (``[hreflang, href]``) and image URLs as the careful judge's own
    normalizers give them; ``None``: one breaks a rule (the careful judge names it)."""
    try:
        normalized = normalize_alternates(
            site, [{"hreflang": a.hreflang, "href": a.href} for a in alternates]
        )
        image_locs = normalize_images([{"loc": image.loc} for image in images])
    except SitemapError:
        return None
    return [[a.hreflang, a.href] for a in normalized], [image.loc for image in image_locs]


def _upsert(change: WireUpsert, form: NormalForm, url: str, room: int) -> Entry | None:
    """The entry of ``change`` on ``url`` if its values are recognized and the URLs among them
    normalized here take at most ``room`` characters; ``None``: not sure."""
    alternates, images = change.alternates, change.images
    pairs = [[a.hreflang, a.href] for a in alternates] if alternates else []
    locs = [image.loc for image in images] if images else []
    lastmod, changefreq, priority = change.lastmod, change.changefreq, change.priority
    entry = recognize_rest(form, url, lastmod, changefreq, priority, pairs, locs)
    if entry is None and (pairs or locs):
        # perhaps a URL among them needs normalizing, as the careful judge would
        renormalized = _renormalized(form.site, alternates, images)
        if renormalized is None:
            return None
        pairs, locs = renormalized
        if sum(len(href) for _, href in pairs) + sum(map(len, locs)) > room:
            return None
        entry = recognize_rest(form, url, lastmod, changefreq, priority, pairs, locs)
    return entry


def fast_change(
    change: WireChange,
    index: int | None,
    default_time: datetime | None,
    sites: Sites,
    now: datetime,
    body_length: int,
) -> ChangeEvent | None:
    """The change the careful judge would make of ``change`` (a change object the wire decoder
    read, ``ingest.wire``), if every value is in normalized form (``protocol.normalized``) for
    the listed site its URL is on, or is a URL that the careful judge's normalizers make so,
    and its section (if any) is a section name, so that the careful judge would accept the
    change with these values; ``None``: not sure. ``index`` is the object's position in an
    array body (``None``: the body is the object).

    ``default_time`` is the ``occurred_at`` of a change without one (``None``: such a change is
    not recognized), ``now`` the judge's clock (aware), ``body_length`` the characters of the
    whole message body: a body longer than :data:`ROOMY_BODY` is left to the careful judge,
    which counts the item's size (see the module text).
    """
    if body_length > ROOMY_BODY:
        return None
    url = change.url
    site = sites.site_of(url)
    form = None if site is None else normal_form(site, now)
    #: characters the item may take beyond the body: URLs normalized here count whole
    room = ROOMY_BODY - body_length
    if form is None or not form.on_site(url):
        located = normalized_loc(url, sites, now)
        if located is None or len(located[0]) > room:
            return None
        url, form = located
        room -= len(url)
    when = _occurred_at(change.occurred_at, default_time, now, latest_text(now))
    section = change.section
    if when is None or (section is not None and not is_section(section)):
        return None
    occurred_at, instant = when
    if isinstance(change, WireDelete):
        return delete_change(url, occurred_at, index=index, instant=instant)
    entry = _upsert(change, form, url, room)
    if entry is None:
        return None
    return upsert_change(entry, occurred_at, section, index=index, instant=instant)
