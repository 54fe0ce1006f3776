"""The articles of an index's News files, held to be merged into their pages' entries.

A site's sitemaps list each article twice: its page in a regular file (with its lastmod and
the rest) and the article in a News file (``<loc>`` and ``<news:news>`` only), which an index
usually lists last. One upsert replaces a URL's state whole, so writing the two as two upserts
would lose one of them. ``backfill`` therefore reads the News files of an index first (a child
is one when its first ``<url>`` holds only a ``<loc>`` and a ``<news:news>``), holds their
articles (:data:`MAX_HELD_ARTICLES` at most: Google allows 1,000 per News file and only two
days of articles), and gives each page its article when it meets the page; an article whose
page it never meets becomes an upsert of its own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from lxml import etree

from sitemap_updater_local.inputs.opening import SourcePolicy, open_source
from sitemap_updater_local.inputs.sitemaps.xml_guard import (
    XML_OPTIONS,
    RootProbe,
    TooLargeError,
    local_name,
)
from sitemap_updater_local.inputs.source_records import Listing, SourceError

#: Articles held at most; more are written as upserts of their own (with a note).
MAX_HELD_ARTICLES: Final = 100_000


def is_article(listing: Listing) -> bool:
    """Whether a listing is a News file's article: a url and a news object, nothing else."""
    return listing.fields.keys() == {"url", "news"}


def is_news_file(location: str, policy: SourcePolicy) -> bool:
    """Whether a child sitemap's first ``<url>`` is a News article (read no further)."""
    try:
        with open_source(location, policy) as stream:
            probe = RootProbe(stream)
            for _, element in etree.iterparse(
                probe, events=("end",), tag=("{*}url",), **XML_OPTIONS
            ):
                names = {local_name(child.tag)[1] for child in element}
                return not probe.doctype and names == {"loc", "news"}
    except (SourceError, OSError, EOFError, etree.XMLSyntaxError, TooLargeError):
        return False  # reading it in turn reports what is wrong with it
    return False


def with_article(listing: Listing, news: dict[str, Any]) -> Listing:
    """The listing of a page with its held article."""
    return replace(listing, fields={**listing.fields, "news": news})
