"""A sitemap or CSV entry checked the careful way: ``make_entry``, which names a broken rule.

Kept apart from ``change_reader`` (which judges JSONL bodies as ingest does, and imports the
ingest contract for it), so that reading a sitemap or a CSV file does not load the contract.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Final

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater.protocol.entry import Alternate, Entry, Image, make_entry
from sitemap_updater.protocol.errors import TooManyImagesError
from sitemap_updater.protocol.limits import MAX_IMAGES_PER_URL
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sites import Sites
from sitemap_updater_local.inputs.records import Dropped, Problem, RawEntry, quote


def invalid(field: str, value: object, rule: str) -> str:
    """One readable line naming the field, the value and the rule it breaks."""
    return f"{field}: {quote(value)} is invalid: {rule}"


def rejected_entry(where: str, field: str, value: object, rule: str) -> Problem:
    """The problem of an entry that breaks ``rule``, counted by its field and rule (not its
    value), as ``build`` counts its problems."""
    return Problem(where, invalid(field, value, rule), f"{field}: {rule}")


def _priority(raw: str | None) -> object:
    """A sitemap's priority text as a number; text that is not a number is passed on as is,
    so that ``make_entry`` rejects it with its own message."""
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        return raw


def owner_of(sites: Sites, loc: str) -> Site:
    """The listed site a raw ``loc`` is on; raises ``SitemapError`` naming the listed sites
    when it is on none. A loc that is not a URL at all is the primary's: ``make_entry`` then
    names the rule it breaks."""
    if len(sites) == 1:
        return sites.primary
    try:
        normalized = normalize_url(loc, field="loc")
    except SitemapError:
        return sites.primary
    return sites.owner(normalized, field="loc", value=loc)


def entry_from_raw(
    site: Site | Sites, raw: RawEntry, now: datetime, on_dropped: Callable[[Dropped], None]
) -> Entry:
    """The normalized entry of a sitemap or CSV record, judged against the listed site it is
    on (``site``: the deployment's sites, or its one site); raises ``SitemapError`` for a
    field of the page itself. An alternate, image, video or news object that breaks a rule
    is left out, each with one warning to ``on_dropped`` (``make_entry_keeping_page``)."""
    entry, dropped = make_entry_keeping_page(
        owner_of(site, raw.loc) if isinstance(site, Sites) else site,
        loc=raw.loc,
        lastmod=raw.lastmod,
        changefreq=raw.changefreq,
        priority=_priority(raw.priority),
        alternates=tuple(Alternate(hreflang=h, href=href) for h, href in raw.alternates),
        images=tuple(Image(loc=loc) for loc in raw.images),
        videos=raw.videos,
        news=raw.news,
        now=now,
    )
    for error in dropped:
        reason = invalid(raw.name_of(error.field), error.value, error.rule)
        on_dropped(Dropped(raw.where, reason, f"{error.field}: {error.rule}"))
    return entry


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
