"""The upsert event of a sitemap or CSV entry, as the JSON line ``backfill`` writes.

The careful path checks and normalizes the entry with ``make_entry`` (the rules ingest
applies), builds the event and dumps it with ``json``. The fast path recognizes an entry whose
values are all already in normalized form, with the protocol core's one recognizer
(``protocol.normalized``; a priority text is read as the number it denotes first): then every
value is its own normalized form, holds only ASCII characters JSON writes as they are, and the
line is put together directly. Anything it does not recognize
goes to the careful path, which alone reports problems. A property test compares the two.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from sitemap_updater.protocol.entry import EXTRA_FIELDS, Entry, EntryField, extras_of
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.extensions.news import News
from sitemap_updater.protocol.extensions.video import Video
from sitemap_updater.protocol.normalized import NormalForm, normal_form, recognize
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import Sites, sites_of
from sitemap_updater.store.items import video_fields
from sitemap_updater_local.inputs.records import Dropped, Problem, RawEntry, Row, raw_entry
from sitemap_updater_local.pipeline.raw_entries import entry_from_raw, rejected_entry

#: Each priority at one decimal, as ``json`` writes the float ``normalize_priority`` returns.
PRIORITY_JSON: Final = {k / 10: json.dumps(k / 10) for k in range(11)}


def upsert_event(entry: Entry) -> dict[str, Any]:
    """The producer-contract upsert of a normalized entry (absent fields left out), each field
    under its name in the contract (``protocol.entry.ENTRY_FIELDS``)."""
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
    for field, value in zip(EXTRA_FIELDS, extras_of(entry), strict=True):
        if value != field.absent:
            event[field.wire] = _wire_value(field, value)
    return event


def _wire_value(field: EntryField, value: Any) -> Any:
    """An extra field's normalized value as the producer contract writes it, by its kind."""
    if field.kind == "videos":
        return [video_event(video) for video in value]
    if field.kind == "news":
        return news_event(value)
    return value


def video_event(video: Video) -> dict[str, Any]:
    """A normalized video as the producer contract's video object."""
    fields = video_fields(video)
    for name, key in (("restriction", "countries"), ("platform", "platforms")):
        if name in fields:
            fields[name] = {
                "relationship": fields[name]["relationship"],
                key: fields[name]["values"],
            }
    if "tags" in fields:
        fields["tag"] = fields.pop("tags")
    uploader = fields.pop("uploader", None)
    info = fields.pop("uploader_info", None)
    if uploader is not None:
        fields["uploader"] = (
            {"name": uploader} if info is None else {"name": uploader, "info": info}
        )
    return fields


def news_event(news: News) -> dict[str, Any]:
    """A normalized news object as the producer contract's news object."""
    return {
        "publication": {"name": news.name, "language": news.language},
        "publication_date": news.publication_date,
        "title": news.title,
    }


def event_line(event: dict[str, Any]) -> str:
    """One event as a line of JSON (no line break)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def _number(text: str) -> float | None:
    """The number a priority text denotes (``None``: none)."""
    try:
        return float(text)
    except ValueError:
        return None


def plain_line(entry: Entry) -> str:
    """The upsert line of an entry recognized in normalized form (plain fields alone): each
    value is ASCII that JSON writes as it is, so the line is put together directly."""
    loc, lastmod, changefreq, priority = entry.loc, entry.lastmod, entry.changefreq, entry.priority
    alternates, images = entry.alternates, entry.images
    if changefreq is None and priority is None and not alternates and not images:
        if lastmod is None:
            return f'{{"action":"upsert","url":"{loc}"}}'
        return f'{{"action":"upsert","url":"{loc}","lastmod":"{lastmod}"}}'
    line = f'{{"action":"upsert","url":"{loc}"'
    if lastmod is not None:
        line += f',"lastmod":"{lastmod}"'
    if changefreq is not None:
        line += f',"changefreq":"{changefreq}"'
    if priority is not None:
        line += ',"priority":' + PRIORITY_JSON[priority]
    if alternates:
        line += (
            ',"alternates":['
            + ",".join(f'{{"hreflang":"{a.hreflang}","href":"{a.href}"}}' for a in alternates)
            + "]"
        )
    if images:
        line += ',"images":[' + ",".join(f'{{"loc":"{i.loc}"}}' for i in images) + "]"
    return line + "}"


class UpsertLines:
    """The upsert line of each entry of the listed sites (or one site), each judged against
    the site its loc is on; ``now`` is the run's start (aware); ``on_dropped`` takes the
    warning of each element left out of an entry (none: not told); ``keep_page``: a bad
    lastmod, changefreq or priority is left out too, not the page."""

    def __init__(
        self,
        site: Site | Sites,
        now: datetime,
        on_dropped: Callable[[Dropped], None] | None = None,
        keep_page: bool = True,
    ) -> None:
        self.sites = sites_of(site) if isinstance(site, Site) else site
        self.keep_page = keep_page
        self.now = now
        #: the one site's form (a list of one); else each listed site's, by the loc
        self._form: NormalForm | None = (
            NormalForm(self.sites.primary, now) if len(self.sites) == 1 else None
        )
        self._on_dropped = on_dropped or (lambda dropped: None)

    def _form_of(self, loc: str) -> NormalForm | None:
        site = self.sites.site_of(loc)
        return None if site is None else normal_form(site, self.now)

    def fast(self, row: Row) -> str | None:
        """The line of a row, if every value is already normalized; ``None``: not sure."""
        _, _, loc, lastmod, changefreq, priority, alternates, images = row
        number = None
        if priority is not None:
            number = _number(priority)
            if number is None:
                return None
        form = self._form or self._form_of(loc)
        if form is None:
            return None
        entry = recognize(form, loc, lastmod, changefreq, number, alternates, images)
        return None if entry is None else plain_line(entry)

    def careful(
        self, row: Row | RawEntry, names: tuple[tuple[str, str], ...] = ()
    ) -> tuple[str, str] | Problem:
        """(url, line) of an entry checked by ``make_entry``, or the rule it breaks (naming the
        field as the source does: ``names``, see :class:`RawEntry`)."""
        raw = row if isinstance(row, RawEntry) else raw_entry(row, names)
        try:
            entry = entry_from_raw(
                self.sites, raw, self.now, self._on_dropped, keep_page=self.keep_page
            )
        except SitemapError as exc:
            return rejected_entry(raw.where, raw.name_of(exc.field), exc.value, exc.rule)
        return entry.loc, event_line(upsert_event(entry))

    def line(self, row: Row) -> tuple[str, str] | Problem:
        """(url, line) of an entry, by the fast path when it can."""
        fast = self.fast(row)
        return self.careful(row) if fast is None else (row.loc, fast)
