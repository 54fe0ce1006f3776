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
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from functools import cache
from typing import Any, Final

from sitemap_updater.protocol.entry import Entry, plain_entry, tenth
from sitemap_updater.protocol.languages.tags import is_hreflang
from sitemap_updater.protocol.lastmod import (
    DATE_LENGTH,
    all_normalized_lastmods,
    is_normalized_lastmod,
)
from sitemap_updater.protocol.limits import CHANGEFREQS, MAX_IMAGES_PER_URL, MAX_LOC_LENGTH
from sitemap_updater.protocol.urls import (
    NORMALIZED_PATH,
    Site,
    already_normalized,
    escapes_and_length_ok,
)
from sitemap_updater.protocol.urls.batch import plain_each

#: Distinct lastmod dates whose check a :class:`NormalForm` remembers (emptied when full): the
#: dates of a site's pages repeat, most of all in the sitemaps a backfill reads.
DATE_CACHE: Final = 4096


@cache
def _on_origin(origin: str) -> tuple[Callable[[str], bool], str | None]:
    """A test equal to ``site.owns(url) and already_normalized(url)``, one regular expression
    where the site's origin has the plain form (lowercase host, no port) that
    :func:`already_normalized` requires of every URL, and the origin as a pattern (``None``:
    the origin has not that form, and the test refuses every URL)."""
    root = origin + "/"
    if not already_normalized(root):
        return (lambda url: False), None
    matches = re.compile(re.escape(root) + NORMALIZED_PATH).fullmatch

    def on_site(url: str) -> bool:
        return (
            len(url) <= MAX_LOC_LENGTH and matches(url) is not None and escapes_and_length_ok(url)
        )

    return on_site, re.escape(origin)


class NormalForm:
    """The checks of normalized form for one site at one clock (``now``, aware)."""

    __slots__ = ("_dates", "_origin", "now", "on_site", "site")

    def __init__(self, site: Site, now: datetime) -> None:
        self.site = site
        #: whether a URL (a string) is on the site and in normalized form
        self.on_site, self._origin = _on_origin(site.origin)
        self.now = now
        self._dates: dict[str, bool] = {}

    def on_site_each(self, urls: Sequence[str]) -> list[bool]:
        """:attr:`on_site` of each of ``urls`` (strings): one match each for those in the
        plain form (``urls.batch``), the test itself for the others."""
        if self._origin is None:
            return [False] * len(urls)
        on_site = self.on_site
        plain = plain_each(urls, self._origin)
        return [known or on_site(url) for known, url in zip(plain, urls, strict=True)]

    def refused_lastmods(self, values: Collection[str]) -> set[str]:
        """The texts among ``values`` that :meth:`lastmod` does not recognize: none when they
        are all recognized at once (``lastmod.all_normalized_lastmods``)."""
        if all_normalized_lastmods(values, self.now):
            return set()
        return {value for value in values if not self.lastmod(value)}

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

    def alternates_each(self, lists: Sequence[Sequence[tuple[str, str]]]) -> list[bool]:
        """:meth:`alternates` of each list of ``(hreflang, href)`` pairs (strings): at once for
        the lists whose hrefs are all on the site in the plain form (``urls.batch``) and whose
        tags are all language tags, list by list for the others."""
        hrefs = [href for pairs in lists for _, href in pairs]
        marks = plain_each(hrefs, self._origin) if self._origin else [False] * len(hrefs)
        tags = {hreflang for pairs in lists for hreflang, _ in pairs}
        tags_known = all(map(is_hreflang, tags))
        if tags_known and all(marks):  # the common column: only the once rule is left
            return [len(pairs) < 2 or _each_language_once(pairs) for pairs in lists]
        plain = iter(marks)
        result: list[bool] = []
        for pairs in lists:
            if not pairs:
                result.append(True)
            elif all([next(plain) for _ in pairs]) and tags_known:
                result.append(len(pairs) < 2 or _each_language_once(pairs))
            else:
                result.append(self.alternates(pairs))
        return result

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
    if not _each_image_once(locs):
        return False
    return site.media_hosts is None or all(map(site.media_ok, locs))


def images_normalized_each(lists: Sequence[Sequence[str]], site: Site) -> list[bool]:
    """:func:`images_normalized` of each list of image URLs (strings): at once for the lists
    whose URLs are all in the plain form (``urls.batch``), when ``site`` allows images on any
    host; list by list for the others."""
    if site.media_hosts is not None:
        return [not locs or images_normalized(locs, site) for locs in lists]
    marks = plain_each([loc for locs in lists for loc in locs])
    if all(marks):  # the common column: only the count and once rule is left
        return [not locs or _each_image_once(locs) for locs in lists]
    plain = iter(marks)
    return [
        not locs
        or (
            _each_image_once(locs)
            if all([next(plain) for _ in locs])
            else images_normalized(locs, site)
        )
        for locs in lists
    ]


def _each_image_once(locs: Sequence[str]) -> bool:
    """Whether there are at most 1,000 image URLs, none listed twice."""
    return len(locs) <= MAX_IMAGES_PER_URL and (len(locs) < 2 or len(set(locs)) == len(locs))


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
