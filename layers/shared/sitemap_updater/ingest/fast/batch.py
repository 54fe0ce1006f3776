"""The judge's fast path for many changes at once: each check they share made once for them
all, column by column.

``build`` judges the lines of a file in blocks of thousands, and ingest may receive an array
body. Asked one by one (:func:`change.fast_change`), each change costs a dozen calls; asked
together, the URLs of the batch on one site are recognized in one pass
(``protocol.urls.batch``), so are their lastmods, alternates and images
(``protocol.normalized``), their ``occurred_at`` texts are read in one pass
(``ordering.instant_texts``) and their sections checked once each; a deployment of several
sites does so for the changes of each site. A change whose values all
pass is *decided* here, with the values :func:`change.fast_change` would give it; a URL that
needs normalizing is normalized as that function does; any other change is left to that
function alone, which decides it as it decides every change. A property test compares the two
on arbitrary batches (tests/property/test_fast_judge.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any, Final, NamedTuple

from sitemap_updater.ingest.fast.change import (
    EARLIEST_TEXT,
    ROOMY_BODY,
    fast_change,
    latest_text,
    normalized_loc,
)
from sitemap_updater.ingest.judged import ChangeEvent
from sitemap_updater.ingest.ordering import (
    delete_digest,
    event_key,
    format_instant,
    instant_texts,
    plain_digest,
)
from sitemap_updater.ingest.wire import WireChange, WireDelete, WireUpsert
from sitemap_updater.protocol.entry import PlainFields, plain_entry, tenth
from sitemap_updater.protocol.limits import CHANGEFREQS
from sitemap_updater.protocol.normalized import NormalForm, images_normalized_each, normal_form
from sitemap_updater.protocol.urls import Site, already_normalized
from sitemap_updater.protocol.urls.compiled import compiled_href
from sitemap_updater.sections import is_section
from sitemap_updater.sites import Sites

#: The plain values of an upsert in normalized form but its URL, in ``plain_entry``'s order:
#: lastmod, changefreq, priority, alternates as ``(hreflang, href)`` pairs, image URLs.
PlainValues = tuple[str | None, str | None, float | None, list[tuple[str, str]], list[str]]
#: A change decided with its batch, as a plain tuple (the batch makes one for each change):
#: its place in the batch, its URL in normalized form, its instant and that instant's
#: ``format_instant`` text, the section it names, and for an upsert its plain fields
#: (``protocol.entry.PlainFields``; ``None``: a delete).
Decided = tuple[int, str, datetime, str, str | None, PlainFields | None]
#: The alternates or images of an upsert that has none (shared, never changed).
_NONE: Final[list[Any]] = []


class Batch(NamedTuple):
    """What the batch decided, and the places of the changes left to ``fast_change`` alone;
    a change in neither is one the fast path is not sure of."""

    decided: list[Decided]
    alone: list[int]


def fast_changes(
    changes: Sequence[WireChange],
    lengths: Sequence[int],
    default_time: datetime | None,
    sites: Sites,
    now: datetime,
    *,
    first: int | None = None,
) -> list[ChangeEvent | None]:
    """:func:`change.fast_change` of each change, the ``n``-th from a body of ``lengths[n]``
    characters, at index ``first + n`` (``first`` ``None``: each is a body of its own)."""
    batch = decide_together(changes, lengths, default_time, sites, now)
    result: list[ChangeEvent | None] = [None] * len(changes)
    for place in batch.alone:
        index = None if first is None else first + place
        result[place] = fast_change(changes[place], index, default_time, sites, now, lengths[place])
    keys = decided_keys(batch.decided)
    for (place, url, moment, _, section, fields), (digest, key) in zip(
        batch.decided, keys, strict=True
    ):
        index = None if first is None else first + place
        if fields is None:  # a delete names no section (judged.delete_change)
            result[place] = ChangeEvent(index, "delete", url, None, moment, digest, key)
        else:
            entry = plain_entry(*fields)
            result[place] = ChangeEvent(index, "upsert", url, entry, moment, digest, key, section)
    return result


def decided_keys(changes: Sequence[Decided]) -> list[tuple[str, str]]:
    """The content digest and ordering key of each decided change, as
    ``judged.upsert_change`` and ``judged.delete_change`` make them."""
    result: list[tuple[str, str]] = []
    append = result.append
    for _, url, moment, instant, section, fields in changes:
        if fields is None:
            digest = delete_digest(url)
            append((digest, event_key(moment, "delete", digest, instant=instant)))
        else:
            digest = plain_digest(fields, section)
            append((digest, event_key(moment, "upsert", digest, instant=instant)))
    return result


def decide_together(
    changes: Sequence[WireChange],
    lengths: Sequence[int],
    default_time: datetime | None,
    sites: Sites,
    now: datetime,
) -> Batch:
    """The changes of the batch decided together (see the module text): in a deployment of
    several sites, the changes of each site together, in the batch's order; a change whose URL
    is on no listed site as given is left to ``fast_change`` alone."""
    if len(sites) == 1:
        return _decide_on_site(sites.primary, changes, lengths, default_time, sites, now)
    places_by_site: defaultdict[Site | None, list[int]] = defaultdict(list)
    site_of = sites.site_of
    for place, change in enumerate(changes):
        places_by_site[site_of(change.url)].append(place)
    decided: list[Decided] = []
    alone: list[int] = []
    for site, places in places_by_site.items():
        if site is None:
            alone += places
            continue
        part = _decide_on_site(
            site,
            [changes[place] for place in places],
            [lengths[place] for place in places],
            default_time,
            sites,
            now,
        )
        for place, url, moment, instant, section, fields in part.decided:
            decided.append((places[place], url, moment, instant, section, fields))
        alone += [places[place] for place in part.alone]
    decided.sort(key=itemgetter(0))
    alone.sort()
    return Batch(decided, alone)


def _decide_on_site(
    site: Site,
    changes: Sequence[WireChange],
    lengths: Sequence[int],
    default_time: datetime | None,
    sites: Sites,
    now: datetime,
) -> Batch:
    """:func:`decide_together` of changes whose URLs are on ``site`` or need normalizing (a
    deployment of one site: every change); one that lands on another listed site once
    normalized is left to ``fast_change`` alone."""
    form = normal_form(site, now)
    urls = [change.url for change in changes]
    on_site = form.on_site_each(urls)
    times = _times([change.occurred_at for change in changes], default_time, latest_text(now))
    named = {change.section for change in changes if change.section is not None}
    refused_sections = {section for section in named if not is_section(section)}
    plain = iter(_plain_values(form, [c for c in changes if type(c) is WireUpsert]))
    off_site = [url for url, known in zip(urls, on_site, strict=True) if not known]
    normalized = iter(_normalized_here(form, off_site))
    decided: list[Decided] = []
    alone: list[int] = []
    for place, (change, length) in enumerate(zip(changes, lengths, strict=True)):
        values = next(plain) if type(change) is WireUpsert else None
        url, when, section = urls[place], times[place], change.section
        if not on_site[place]:
            here = next(normalized)
            located = (here, form) if here is not None else normalized_loc(url, sites, now)
            if located is None or len(located[0]) > ROOMY_BODY - length:
                continue  # fast_change is not sure of it either
            if located[1].site != site:
                alone.append(place)  # its values are judged for that site
                continue
            url = located[0]
        if (
            when is None
            or length > ROOMY_BODY
            or section in refused_sections
            or (values is None and type(change) is not WireDelete)
        ):
            alone.append(place)
        else:
            fields = None if values is None else (url, *values)
            decided.append((place, url, when[0], when[1], section, fields))
    return Batch(decided, alone)


def _normalized_here(form: NormalForm, urls: Sequence[str]) -> list[str | None]:
    """For each of ``urls`` (not on ``form``'s site as given), what ``change.normalized_loc``
    makes of it when the compiled parser normalizes it onto this site: the parser's URLs are
    checked at once, ``form.on_site`` being the site's test and ``already_normalized``'s
    together; ``None``: ``normalized_loc`` decides."""
    hrefs = [None if already_normalized(url) else compiled_href(url) for url in urls]
    marks = iter(form.on_site_each([href for href in hrefs if href is not None]))
    return [href if href is not None and next(marks) else None for href in hrefs]


def _times(
    raws: Sequence[str | None], default_time: datetime | None, latest: str
) -> list[tuple[datetime, str] | None]:
    """The instant of each ``occurred_at`` (``None``: absent, so ``default_time``) and its
    ``format_instant`` text, where it is one of the common UTC forms within the bounds
    (``latest``: ``change.latest_text(now)``); ``None``: not sure."""
    given = [raw for raw in raws if raw is not None]
    texts = instant_texts(given)
    try:
        moments: list[datetime | None] = list(map(datetime.fromisoformat, given))
    except ValueError:
        moments = list(map(_moment, given))
    default: tuple[datetime, str] | None = None
    if default_time is not None and len(given) < len(raws):
        try:
            default = (default_time, format_instant(default_time))
        except ValueError:  # naive: fast_change decides
            default = None
    known = iter(zip(moments, texts, strict=True))
    result: list[tuple[datetime, str] | None] = []
    append = result.append
    for raw in raws:
        if raw is None:
            append(default)
            continue
        moment, instant = next(known)
        # the texts are fixed-width, so they compare as the instants do (check_instant's bounds)
        if moment is None or instant is None or not EARLIEST_TEXT <= instant <= latest:
            append(None)
        else:
            append((moment, instant))
    return result


def _moment(raw: str) -> datetime | None:
    try:
        return datetime.fromisoformat(raw)  # in UTC: the text ends in Z
    except ValueError:
        return None


def _plain_values(form: NormalForm, upserts: Sequence[WireUpsert]) -> list[PlainValues | None]:
    """The values of each upsert other than its URL, where each is recognized in normalized
    form for ``form``'s site (``protocol.normalized``, column by column); ``None``: not
    sure."""
    refused_lastmods = form.refused_lastmods(
        {upsert.lastmod for upsert in upserts if upsert.lastmod is not None}
    )
    pairs = [
        [(a.hreflang, a.href) for a in upsert.alternates] if upsert.alternates else _NONE
        for upsert in upserts
    ]
    locs = [
        [image.loc for image in upsert.images] if upsert.images else _NONE for upsert in upserts
    ]
    alternates_ok = form.alternates_each(pairs)
    images_ok = images_normalized_each(locs, form.site)
    result: list[PlainValues | None] = []
    append = result.append
    for place, upsert in enumerate(upserts):
        lastmod, changefreq, given = upsert.lastmod, upsert.changefreq, upsert.priority
        priority = None if given is None else tenth(given)
        if (
            alternates_ok[place]
            and images_ok[place]
            and (lastmod is None or lastmod not in refused_lastmods)
            and (changefreq is None or changefreq in CHANGEFREQS)
            and (given is None or priority is not None)
        ):
            append((lastmod, changefreq, priority, pairs[place], locs[place]))
        else:
            append(None)
    return result
