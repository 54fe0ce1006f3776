"""The upsert event of a sitemap or CSV entry, as the JSON line ``backfill`` writes.

The careful path checks and normalizes the entry with ``make_entry`` (the rules ingest
applies), builds the event and dumps it with ``json``. The fast path recognizes an entry whose
values are all already in normalized form (the checks ``make_entry`` makes first: a URL on the
site that ``already_normalized`` accepts, a lastmod ``is_normalized_lastmod`` accepts, a
changefreq from the table, a priority at one decimal from 0.0 to 1.0, hreflang codes, at most
1,000 images): then every value is its own normalized form, holds only ASCII characters JSON
writes as they are, and the line is put together directly. Anything it does not recognize
goes to the careful path, which alone reports problems. A property test compares the two.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

from sitemap_updater.protocol import Entry, Site, SitemapError
from sitemap_updater.protocol.entry import HREFLANG
from sitemap_updater.protocol.lastmod import is_normalized_lastmod
from sitemap_updater.protocol.limits import CHANGEFREQS, MAX_IMAGES_PER_URL
from sitemap_updater.protocol.urls import already_normalized
from sitemap_updater_local.inputs.records import Problem, Row, raw_entry
from sitemap_updater_local.pipeline.raw_entries import entry_from_raw, invalid

#: Each priority at one decimal, as ``json`` writes the float ``normalize_priority`` returns.
PRIORITY_JSON: Final = {k / 10: json.dumps(k / 10) for k in range(11)}
#: Distinct lastmod texts whose check is remembered (the cache is emptied when full).
LASTMOD_CACHE: Final = 4096


def upsert_event(entry: Entry) -> dict[str, Any]:
    """The producer-contract upsert of a normalized entry (absent fields left out)."""
    event: dict[str, Any] = {"action": "upsert", "url": entry.loc}
    if entry.lastmod is not None:
        event["lastmod"] = entry.lastmod
    if entry.changefreq is not None:
        event["changefreq"] = entry.changefreq
    if entry.priority is not None:
        event["priority"] = entry.priority
    if entry.alternates:
        event["alternates"] = [{"hreflang": a.hreflang, "href": a.href} for a in entry.alternates]
    if entry.images:
        event["images"] = [{"loc": i.loc} for i in entry.images]
    return event


def event_line(event: dict[str, Any]) -> str:
    """One event as a line of JSON (no line break)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


class UpsertLines:
    """The upsert line of each entry of one site; ``now`` is the run's start (aware)."""

    def __init__(self, site: Site, now: datetime) -> None:
        self.site = site
        self.now = now
        #: what ``site.owns`` checks: the origin followed by the path's "/"
        self._prefix = site.origin + "/"
        self._lastmods: dict[str, bool] = {}

    def _check_lastmod(self, lastmod: str) -> bool:
        if len(self._lastmods) >= LASTMOD_CACHE:
            self._lastmods.clear()
        known = self._lastmods[lastmod] = is_normalized_lastmod(lastmod, self.now)
        return known

    def fast(
        self,
        loc: str,
        lastmod: str | None,
        changefreq: str | None,
        priority: str | None,
        alternates: tuple[tuple[str, str], ...],
        images: tuple[str, ...],
    ) -> str | None:
        """The line, if every value is already normalized; ``None`` means "not sure"."""
        prefix = self._prefix
        if not (loc.startswith(prefix) and already_normalized(loc)):
            return None
        line = '{"action":"upsert","url":"' + loc + '"'
        if lastmod is not None:
            known = self._lastmods.get(lastmod)
            if not (self._check_lastmod(lastmod) if known is None else known):
                return None
            line += ',"lastmod":"' + lastmod + '"'
        if changefreq is not None:
            if changefreq not in CHANGEFREQS:
                return None
            line += ',"changefreq":"' + changefreq + '"'
        if priority is not None:
            try:
                number = PRIORITY_JSON.get(float(priority))
            except ValueError:
                return None
            if number is None:
                return None
            line += ',"priority":' + number
        if alternates:
            for hreflang, href in alternates:
                if not (
                    HREFLANG.fullmatch(hreflang)
                    and href.startswith(prefix)
                    and already_normalized(href)
                ):
                    return None
            line += (
                ',"alternates":['
                + ",".join(f'{{"hreflang":"{h}","href":"{href}"}}' for h, href in alternates)
                + "]"
            )
        if images:
            if len(images) > MAX_IMAGES_PER_URL:
                return None
            for image in images:
                if not already_normalized(image):
                    return None
            line += ',"images":[' + ",".join(f'{{"loc":"{i}"}}' for i in images) + "]"
        return line + "}"

    def careful(self, row: Row) -> tuple[str, str] | Problem:
        """(url, line) of an entry checked by ``make_entry``, or the rule it breaks."""
        raw = raw_entry(row)
        try:
            entry = entry_from_raw(self.site, raw, self.now)
        except SitemapError as exc:
            return Problem(raw.where, invalid(exc.field, exc.value, exc.rule))
        return entry.loc, event_line(upsert_event(entry))

    def line(self, row: Row) -> tuple[str, str] | Problem:
        """(url, line) of an entry, by the fast path when it can."""
        fast = self.fast(row[2], row[3], row[4], row[5], row[6], row[7])
        return self.careful(row) if fast is None else (row[2], fast)
