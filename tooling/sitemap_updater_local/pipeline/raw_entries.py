"""A sitemap or CSV entry checked the careful way: ``make_entry``, which names a broken rule.

Kept apart from ``change_reader`` (which judges JSONL bodies as ingest does, and imports the
ingest contract for it), so that reading a sitemap or a CSV file does not load the contract.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Final

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater.protocol.entry import Alternate, Entry, Image, make_entry
from sitemap_updater.protocol.errors import TooManyImagesError
from sitemap_updater.protocol.extensions.news import normalize_language
from sitemap_updater.protocol.languages.news import repaired_news_language
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
    site: Site | Sites,
    raw: RawEntry,
    now: datetime,
    on_dropped: Callable[[Dropped], None],
    *,
    keep_page: bool = True,
) -> Entry:
    """The normalized entry of a sitemap or CSV record, judged against the listed site it is
    on (``site``: the deployment's sites, or its one site); raises ``SitemapError`` for its
    loc. An alternate, image, video or news object that breaks a rule is left out (or
    repaired, a News language), and so is a bad lastmod, changefreq or priority unless
    ``keep_page`` is false, each with one warning to ``on_dropped``
    (``make_entry_keeping_page``)."""
    entry, dropped = raw_entry_keeping_page(
        owner_of(site, raw.loc) if isinstance(site, Sites) else site, raw, now, keep_page=keep_page
    )
    for error in dropped:
        on_dropped(dropped_warning(error, raw.where, raw.name_of(error.field)))
    return entry


def raw_entry_keeping_page(
    site: Site, raw: RawEntry, now: datetime | None, *, keep_page: bool = True
) -> tuple[Entry, list[SitemapError]]:
    """:func:`make_entry_keeping_page` of the raw values of a sitemap or CSV record."""
    return make_entry_keeping_page(
        site,
        loc=raw.loc,
        lastmod=raw.lastmod,
        changefreq=raw.changefreq,
        priority=_priority(raw.priority),
        alternates=tuple(Alternate(hreflang=h, href=href) for h, href in raw.alternates),
        images=tuple(Image(loc=loc) for loc in raw.images),
        videos=raw.videos,
        news=raw.news,
        now=now,
        keep_page=keep_page,
    )


def dropped_warning(error: SitemapError, where: str, name: str | None = None) -> Dropped:
    """The warning of an element or field :func:`make_entry_keeping_page` left out or repaired,
    its field called ``name`` (what the source calls it) when given."""
    reason = invalid(error.field if name is None else name, error.value, error.rule)
    rule = f"{error.field}: {error.rule}"
    if isinstance(error, Repaired):
        return Dropped(where, reason, rule, f"read as {error.to!r}, the page is kept")
    return Dropped(where, reason, rule)


#: The lists whose items :func:`make_entry_keeping_page` can leave out one by one.
_ELEMENT_LISTS: Final = ("alternates", "images", "videos")
#: The fields of the page itself a bad value of which is left out, not the page.
PAGE_FIELDS: Final = ("lastmod", "changefreq", "priority")
_LANGUAGE: Final = "news.publication.language"


class Repaired(SitemapError):
    """A value that broke a rule and was read as ``to``, the one value it can stand for."""

    def __init__(self, error: SitemapError, to: str) -> None:
        super().__init__(error.field, error.value, error.rule)
        self.to = to


def bad_element(field: str) -> tuple[str, int | None] | None:
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


def _repair_news(news: object) -> tuple[object, Repaired | None]:
    """``news`` with a language that breaks the rule but stands for one code
    (``repaired_news_language``: ``en-US`` is ``en``) replaced by it, and the repair."""
    if not isinstance(news, Mapping) or not isinstance(news.get("publication"), Mapping):
        return news, None
    publication = news["publication"]
    try:
        normalize_language(_LANGUAGE, publication.get("language", "en"))
    except SitemapError as error:
        to = repaired_news_language(error.value)
        if to is not None:
            return {**news, "publication": {**publication, "language": to}}, Repaired(error, to)
    return news, None


class _Keeping:
    """The state of one :func:`make_entry_keeping_page`: the values still in the entry, and
    the position each element left in a list had in the list given."""

    def __init__(self, values: dict[str, object]) -> None:
        self.values = values
        self.positions = {
            name: list(range(len(items)))
            for name in _ELEMENT_LISTS
            if isinstance(items := values[name], list | tuple)
        }
        self.dropped: list[SitemapError] = []
        self.screened = False

    def named(self, error: SitemapError, name: str, index: int) -> SitemapError:
        """``error`` with its field naming the element's position in the list given."""
        prefix = f"{name}[{index}]"
        given = self.positions[name][index]
        if given == index or not error.field.startswith(prefix):
            return error
        return error.at(f"{name}[{given}]{error.field[len(prefix) :]}")

    def leave_out(self, error: SitemapError, name: str, index: int | None) -> None:
        items = self.values[name]
        if isinstance(error, TooManyImagesError) and isinstance(items, list | tuple):
            self.values[name] = tuple(items)[:MAX_IMAGES_PER_URL]
            self.positions[name] = self.positions[name][:MAX_IMAGES_PER_URL]
        elif index is None or not isinstance(items, list | tuple) or index >= len(items):
            self.values[name] = None
        else:
            error = self.named(error, name, index)
            self.values[name] = (*items[:index], *items[index + 1 :])
            del self.positions[name][index]
        self.dropped.append(error)

    def screen(self, judge: Callable[[str, object], None]) -> None:
        """Judge each element on its own once, and leave out every one that breaks a rule
        alone: what is left is judged whole again once, not once per element left out."""
        self.screened = True
        for name in _ELEMENT_LISTS:
            items = self.values[name]
            if not isinstance(items, list | tuple) or len(items) < 2:
                continue
            kept: list[object] = []
            positions: list[int] = []
            for item, given in zip(items, self.positions[name], strict=True):
                try:
                    judge(name, (item,))
                except SitemapError as error:
                    if bad_element(error.field) == (name, 0):
                        prefix = f"{name}[0]"
                        self.dropped.append(
                            error.at(f"{name}[{given}]{error.field[len(prefix) :]}")
                        )
                        continue
                kept.append(item)
                positions.append(given)
            self.values[name] = tuple(kept)
            self.positions[name] = positions


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
    keep_page: bool = True,
) -> tuple[Entry, list[SitemapError]]:
    """:func:`make_entry`, but an alternate, image, video or news object that breaks a rule is
    left out instead of costing the page: the entry, and the error of each element left out
    (a :class:`Repaired` for a News language read as the one code it stands for). A list that
    is not one, or more than 1,000 images, is left out whole (beyond the 1,000th image). A bad
    lastmod, changefreq or priority is left out too, unless ``keep_page`` is false: then its
    :class:`SitemapError` is raised, as is that of the loc."""
    news, repair = _repair_news(news)
    state = _Keeping({"alternates": alternates, "images": images, "videos": videos, "news": news})
    if repair is not None:
        state.dropped.append(repair)
    page: dict[str, object] = {"lastmod": lastmod, "changefreq": changefreq, "priority": priority}

    def judge(name: str, value: object) -> None:
        make_entry(site, loc=loc, now=now, **{name: value})

    while True:
        try:
            entry = make_entry(site, loc=loc, now=now, **page, **state.values)
        except SitemapError as error:
            element = bad_element(error.field)
            if element is None:
                if not keep_page or error.field not in PAGE_FIELDS or page[error.field] is None:
                    raise
                page[error.field] = None
                state.dropped.append(error)
                continue
            if not state.screened and element[1] is not None:
                state.screen(judge)
                continue
            state.leave_out(error, *element)
            continue
        return entry, state.dropped
