"""Recognizes the values of an entry that are already in normalized form.

Most producers send what the normalizers would return anyway: a URL on the site in normalized
form, a lastmod in ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ssZ``, a changefreq from the table, a
priority at one decimal, hreflang codes and image URLs in normalized form. :func:`recognize`
recognizes such values with the checks the normalizers (``make_entry``) make first, and
without parsing anything. It is the one fast path of every reader of entries: ingest's judge
(``ingest.fast``, which ``build`` uses too) and ``backfill``'s upsert lines.

Invariant: whatever :func:`recognize` accepts, ``make_entry`` accepts and returns unchanged (the
entry given back is that entry). ``None`` only means "not sure": the caller then takes its
careful path, which normalizes the values or names the rule one breaks. Values of any type may
be passed (decoded JSON); a value of the wrong type is not recognized. Extensions (videos, a
news object) are never recognized: their rules are the normalizers' alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from typing import Any, Final

from sitemap_updater.protocol.entry import Entry, plain_entry, tenth
from sitemap_updater.protocol.languages.tags import is_hreflang
from sitemap_updater.protocol.lastmod import is_normalized_lastmod
from sitemap_updater.protocol.limits import CHANGEFREQS, MAX_IMAGES_PER_URL, MAX_LOC_LENGTH
from sitemap_updater.protocol.urls import (
    NORMALIZED_PATH,
    Site,
    already_normalized,
    escapes_and_length_ok,
)

#: Distinct lastmod dates whose check a :class:`NormalForm` remembers (emptied when full): the
#: dates of a site's pages repeat, most of all in the sitemaps a backfill reads.
DATE_CACHE: Final = 4096
DATE_LENGTH: Final = len("YYYY-MM-DD")


@cache
def _on_origin(origin: str) -> Callable[[str], bool]:
    """A test equal to ``site.owns(url) and already_normalized(url)``, one regular expression
    where the site's origin has the plain form (lowercase host, no port) that
    :func:`already_normalized` requires of every URL."""
    root = origin + "/"
    if not already_normalized(root):
        return lambda url: False
    matches = re.compile(re.escape(root) + NORMALIZED_PATH).fullmatch

    def on_site(url: str) -> bool:
        return (
            len(url) <= MAX_LOC_LENGTH and matches(url) is not None and escapes_and_length_ok(url)
        )

    return on_site


class NormalForm:
    """The checks of normalized form for one site at one clock (``now``, aware)."""

    __slots__ = ("_dates", "now", "on_site", "site")

    def __init__(self, site: Site, now: datetime) -> None:
        self.site = site
        #: whether a URL (a string) is on the site and in normalized form
        self.on_site = _on_origin(site.origin)
        self.now = now
        self._dates: dict[str, bool] = {}

    def lastmod(self, value: object) -> bool:
        """Whether ``value`` is a lastmod text ``normalize_lastmod`` returns unchanged."""
        if type(value) is not str:
            return False
        if len(value) != DATE_LENGTH:
            # a time to the second seldom repeats: remembering it would only cost
            return is_normalized_lastmod(value, self.now)
        known = self._dates.get(value)
        if known is None:
            if len(self._dates) >= DATE_CACHE:
                self._dates.clear()
            known = self._dates[value] = is_normalized_lastmod(value, self.now)
        return known

    def alternates(self, pairs: Sequence[Sequence[Any]]) -> bool:
        """Whether every ``(hreflang, href)`` is a language tag (``languages.tags``) named by no
        other pair, case aside, and a URL in normalized form on the site or on an origin its
        alternates may point to (``Site.alternate_ok``)."""
        on_site = self.on_site
        for hreflang, href in pairs:
            if (
                type(hreflang) is not str
                or type(href) is not str
                or not is_hreflang(hreflang)
                or not (on_site(href) or self._elsewhere(href))
            ):
                return False
        return len(pairs) < 2 or _each_language_once(pairs)

    def _elsewhere(self, href: str) -> bool:
        return self.site.alternate_ok(href) and already_normalized(href)


def _each_language_once(pairs: Sequence[Sequence[Any]]) -> bool:
    """Whether no two pairs (of strings) name the same hreflang, case aside."""
    return len({hreflang.lower() for hreflang, _ in pairs}) == len(pairs)


def images_normalized(locs: Sequence[Any], site: Site) -> bool:
    """Whether there are at most 1,000 image URLs, each a string in normalized form on a host
    images of ``site`` may live on, and none listed twice."""
    if len(locs) > MAX_IMAGES_PER_URL:
        return False
    for loc in locs:
        if type(loc) is not str or not already_normalized(loc):
            return False
    if len(locs) > 1 and len(set(locs)) != len(locs):
        return False
    return site.media_hosts is None or all(map(site.media_ok, locs))


#: The forms of the latest few (site, clock) pairs (see :func:`normal_form`), by the site's
#: ``id``: a form holds its site, so no other site can take that ``id`` while the form is kept.
_FORMS: Final[dict[tuple[int, datetime], NormalForm]] = {}
_MOST_FORMS: Final = 16
#: The form :func:`normal_form` gave last: the calls of one judge ask for it again and again.
_latest_form: NormalForm | None = None


def normal_form(site: Site, now: datetime) -> NormalForm:
    """The :class:`NormalForm` of ``site`` at ``now``, shared by the calls of one clock (a dict
    lookup: the judge asks for it once an event; keyed by the site's ``id``, which costs a
    fraction of hashing its fields)."""
    global _latest_form
    latest = _latest_form
    if latest is not None and latest.site is site and latest.now is now:
        return latest
    key = (id(site), now)
    form = _FORMS.get(key)
    if form is None:
        if len(_FORMS) >= _MOST_FORMS:
            _FORMS.clear()
        form = _FORMS[key] = NormalForm(site, now)
    _latest_form = form
    return form


def recognize(
    form: NormalForm,
    loc: Any,
    lastmod: Any,
    changefreq: Any,
    priority: Any,
    alternates: Sequence[Sequence[Any]],
    images: Sequence[Any],
) -> Entry | None:
    """The entry ``make_entry`` would return for these values (its plain fields), if every one
    is already in normalized form (``None`` meaning absent, for the four single values);
    ``None``: not sure."""
    if type(loc) is not str or not form.on_site(loc):
        return None
    return recognize_rest(form, loc, lastmod, changefreq, priority, alternates, images)


def recognize_rest(
    form: NormalForm,
    loc: str,
    lastmod: Any,
    changefreq: Any,
    priority: Any,
    alternates: Sequence[Sequence[Any]],
    images: Sequence[Any],
) -> Entry | None:
    """:func:`recognize` of the values other than ``loc``, which the caller has recognized as a
    URL in normalized form on ``form``'s site."""
    if lastmod is not None and not form.lastmod(lastmod):
        return None
    if changefreq is not None and (type(changefreq) is not str or changefreq not in CHANGEFREQS):
        return None
    if priority is not None:
        priority = tenth(priority)
        if priority is None:
            return None
    if alternates and not form.alternates(alternates):
        return None
    if images and not images_normalized(images, form.site):
        return None
    return plain_entry(loc, lastmod, changefreq, priority, alternates, images)
