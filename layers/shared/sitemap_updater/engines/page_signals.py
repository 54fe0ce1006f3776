"""What a page's head and headers tell search engines: ``noindex`` (``<meta name="robots">``,
``<meta name="googlebot">``, ``<meta name="bingbot">``, the ``X-Robots-Tag`` header) and the
``<link rel="canonical">`` (https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag,
https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls).

Only the head counts, as for the search engines: reading stops at ``<body>`` or ``</head>``.
A page is read leniently: a charset Python cannot decode with (``charset=undefined``, the
``idna`` codec) is read as UTF-8, and markup the standard parser gives up on (``<![FOR]>``,
which it refuses with an ``AssertionError``) ends the reading there, with what was read before.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Final

#: The crawlers whose directives count, besides those for every crawler.
CRAWLERS: Final = frozenset({"googlebot", "bingbot"})
#: Meta names whose ``content`` holds robots directives.
ROBOTS_NAMES: Final = CRAWLERS | {"robots"}
#: Directives that forbid indexing.
NOINDEX: Final = frozenset({"noindex", "none"})
#: Directives written ``name: value``, which a crawler's name must not be taken for.
_VALUED: Final = frozenset(
    {"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"}
)
_AGENT: Final = re.compile(r"\s*([A-Za-z0-9_.-]+)\s*:\s*(.*)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class PageSignals:
    """``noindex``: a robots directive forbids indexing; ``canonical``: the first canonical
    link's ``href`` as written (None: none); the caller resolves it against the page's URL."""

    noindex: bool
    canonical: str | None


def directives_noindex(text: str) -> bool:
    """Whether a comma-separated directive list forbids indexing (to every crawler, or to one
    of :data:`CRAWLERS` when it starts ``name:``; a later ``name:`` switches the crawler)."""
    applies = True
    for part in text.split(","):
        match = _AGENT.fullmatch(part)
        if match and match.group(1).lower() not in _VALUED:
            applies = match.group(1).lower() in CRAWLERS
            part = match.group(2)
        if applies and part.strip().lower() in NOINDEX:
            return True
    return False


def header_noindex(values: Iterable[str]) -> bool:
    """Whether the ``X-Robots-Tag`` header values forbid indexing to every crawler or to one
    of :data:`CRAWLERS` (``noindex``, ``none``; ``googlebot: noindex``)."""
    return any(directives_noindex(value) for value in values)


class _HeadReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.noindex = False
        self.canonical: str | None = None
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        values = {name: value or "" for name, value in attrs}
        if tag == "body":
            self.done = True
        elif tag == "meta" and values.get("name", "").strip().lower() in ROBOTS_NAMES:
            self.noindex = self.noindex or directives_noindex(values.get("content", ""))
        elif tag == "link" and self.canonical is None:
            rel = values.get("rel", "").lower().split()
            if "canonical" in rel and values.get("href", "").strip():
                self.canonical = values["href"].strip()

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.done = True


def html_signals(html: bytes, charset: str | None = None) -> PageSignals:
    """The robots meta tags and the canonical link of ``html`` (parsed leniently, as much of
    it as was read; ``charset`` from the answer's ``Content-Type``, else UTF-8)."""
    try:
        text = html.decode(charset or "utf-8", errors="replace")
    except (LookupError, UnicodeError):  # a charset Python cannot decode with: the tags are ASCII
        text = html.decode("utf-8", errors="replace")
    reader = _HeadReader()
    with contextlib.suppress(AssertionError, ValueError, IndexError):  # html.parser gave up
        reader.feed(text)
    return PageSignals(reader.noindex, reader.canonical)
