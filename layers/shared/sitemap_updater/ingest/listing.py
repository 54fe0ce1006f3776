"""The judge of a page a reader found in a sitemap or spreadsheet (``build``, ``backfill``,
``validate``): the same structs and normalizers as a message's changes, strictly or leniently."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from sitemap_updater.ingest.judge import Change
from sitemap_updater.ingest.rejection import ELEMENT, PATH, rejection_of, steps_of
from sitemap_updater.page.model import Page
from sitemap_updater.page.normalize import Drops, normalize_page
from sitemap_updater.page.order import event_key, listing_time, page_digest
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sites import Sites

#: Where each element a lenient judgement kept was in the list given, by list.
Positions = dict[str, list[int]]


def _lenient_fields(fields: dict[str, Any], drops: Drops) -> tuple[Page, Positions]:
    """The page of a listing's raw fields (the wire names and forms of ``page.model``), each
    field or element of the wrong type or over a bound left out and noted in ``drops``, and
    where each element kept was given; raises the :class:`SitemapError` of a listing without a
    usable url."""
    fields = {name: list(v) if isinstance(v, list) else v for name, v in fields.items()}
    positions = {name: list(range(len(v))) for name, v in fields.items() if isinstance(v, list)}
    while True:
        try:
            # a sitemap's values are text: numbers and flags are read from it (lax)
            return msgspec.convert(fields, Page, strict=False), positions
        except msgspec.ValidationError as error:
            rejection = rejection_of(error, fields, None, "")
            located = PATH.search(str(error))
            steps = steps_of(located[1]) if located else []
            if not steps or steps[0] == "url":
                raise SitemapError(rejection.field, rejection.value, rejection.rule) from None
            name = str(steps[0])
            value = fields.get(name)
            field = _renumbered(rejection.field, positions)
            drops.append(SitemapError(field, rejection.value, rejection.rule))
            if isinstance(value, list) and len(steps) == 1 and "length <= " in str(error):
                most = int(str(error).split("length <= ")[1].split()[0])
                fields[name], positions[name] = value[:most], positions[name][:most]
            elif isinstance(value, list) and len(steps) > 1 and isinstance(steps[1], int):
                del value[steps[1]], positions[name][steps[1]]
            else:
                fields.pop(name, None)


def _renumbered(field: str, positions: Positions) -> str:
    """``field`` (``alternates[1].href``) with its index the element's place in the list given."""
    name, bracket, rest = field.partition("[")
    index, _, tail = rest.partition("]")
    if not bracket or not index.isdigit() or name not in positions:
        return field
    kept = positions[name]
    place = int(index)
    return f"{name}[{kept[place] if place < len(kept) else place}]{tail}"


def judge_listing(
    fields: dict[str, Any], *, sites: Sites, now: datetime, drops: Drops | None
) -> Change:
    """A page a reader found in a sitemap or spreadsheet, given as its raw fields (the wire names
    and forms of ``page.model``, values as text where the source has only text). Leniently (a
    ``drops`` list): each field or element that breaks a rule is left out and its error appended
    to ``drops`` (``page.normalize``), the page kept, and only the url's error is raised.
    Strictly (``drops`` ``None``, as ``validate`` judges): the :class:`SitemapError` of the first
    rule broken is raised. Its event time is its lastmod's (``page.order.listing_time``)."""
    if drops is None:
        try:
            given = msgspec.convert(fields, Page, strict=False)
        except msgspec.ValidationError as error:
            rejection = rejection_of(error, fields, None, "")
            raise SitemapError(rejection.field, rejection.value, rejection.rule) from None
        positions: Positions = {}
    else:
        given, positions = _lenient_fields(fields, drops)
    url = normalize_url(given.url, field="url")
    site = sites.owner(url, field="url", value=given.url)
    first = len(drops or ())
    page = normalize_page(given, url, site, now, drops)
    for i in range(first, len(drops or ())):
        assert drops is not None
        dropped = drops[i].at(_renumbered(drops[i].field, positions))
        rule = ELEMENT.sub(lambda found: _renumbered(found[0], positions), dropped.rule)
        drops[i] = (
            dropped if rule == dropped.rule else SitemapError(dropped.field, dropped.value, rule)
        )
    digest = page_digest(page, None)
    at = listing_time(page.lastmod, now)
    return Change(None, "upsert", url, page, at, digest, event_key(at, "upsert", digest))
