"""The alternates, images, videos and News objects of a urlset's entries, judged as ``backfill``
and ``build`` judge them (``make_entry_keeping_page``), before the XSD sees them: an element
they would leave out is taken out of the entry, one they would repair (a News language
``en-US``, read as ``en``) is repaired, each with the ``warning:`` line they print, naming the
line, the field and the value. Such a problem does not cost the page there, so it does not fail
the file here; what the layer accepts is still checked against the XSDs.

An entry is read by ``backfill``'s own reader (``url_row``) and its elements judged together,
as the reader's entry would be. Only when one is left out is each element read in an entry of
its own, so that the field a rule names (``videos[1].thumbnail_loc``) leads back to the element
it came from.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Final

from lxml import etree

from sitemap_updater.ingest.judge import judge_listing
from sitemap_updater.page.normalize import Repaired
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import IMAGE_NS, NEWS_NS, SITEMAP_NS, VIDEO_NS, XHTML_NS
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sites import Sites
from sitemap_updater_local.inputs.records import Listing
from sitemap_updater_local.inputs.sitemaps.url_elements import url_listing
from sitemap_updater_local.pipeline.judging import dropped

_URL: Final = f"{{{SITEMAP_NS}}}url"
_LOC: Final = f"{{{SITEMAP_NS}}}loc"
_ELEMENTS: Final = (
    f"{{{XHTML_NS}}}link",
    f"{{{IMAGE_NS}}}image",
    f"{{{VIDEO_NS}}}video",
    f"{{{NEWS_NS}}}news",
)
_LANGUAGE: Final = (f"{{{NEWS_NS}}}publication", f"{{{NEWS_NS}}}language")
#: For each list of an entry (and ``news``), the element each item was read from.
_Sources = dict[str, list[etree._Element]]
#: Warnings printed in full per file before the rest are counted by rule.
SHOWN: Final = 20


class ExtensionWarnings:
    """The warnings of one file: the first :data:`SHOWN` in full, then a count per rule."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.more: Counter[str] = Counter()

    def add(self, line: int | None, error: SitemapError) -> None:
        warning = dropped(error, f"line {line}", error.field)
        if len(self.lines) < SHOWN:
            self.lines.append(f"{warning.where}: {warning.text}")
        else:
            self.more[warning.rule] += 1

    def finish(self) -> list[str]:
        return self.lines + [
            f"... and {count} more element(s) left out or repaired: {rule}"
            for rule, count in self.more.most_common()
        ]


def _read(url: etree._Element) -> Listing | None:
    listing = url_listing(url, "")
    return listing if isinstance(listing, Listing) else None


def judge_entry(url: etree._Element, now: datetime, warnings: ExtensionWarnings) -> None:
    """Warn of each extension element ``backfill`` would leave out or repair."""
    listing = _read(url)
    if listing is None or not isinstance(listing.url, str):
        return
    try:
        origin = "/".join(normalize_url(listing.url).split("/", 3)[:3])
        sites = Sites.parse(origin, None, alternates_any_host=True)
        drops: list[SitemapError] = []
        judge_listing(listing.fields, sites=sites, now=now, drops=drops)
    except SitemapError:
        return
    for error in drops:
        if error.field.split("[")[0].split(".")[0] in ("alternates", "images", "videos", "news"):
            line = url.sourceline
            warnings.add(line if isinstance(line, int) else None, error)
            if isinstance(error, Repaired):
                continue


def take_out_bad_extensions(
    batch: etree._Element, now: datetime, warnings: ExtensionWarnings
) -> None:
    """:func:`judge_entry` on each ``<url>`` of ``batch``."""
    for url in batch.iterchildren(_URL):
        judge_entry(url, now, warnings)
