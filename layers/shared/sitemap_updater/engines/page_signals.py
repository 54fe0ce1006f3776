"""What a page's head and headers say to search engines: ``noindex`` (meta robots, meta
googlebot, ``X-Robots-Tag``) and the ``rel=canonical`` link."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageSignals:
    """``noindex``: a robots directive forbids indexing; ``canonical``: the canonical link's
    ``href`` as written (None: none), resolved against the page's URL by the caller."""

    noindex: bool
    canonical: str | None


def header_noindex(values: Iterable[str]) -> bool:
    """Whether the ``X-Robots-Tag`` header values forbid indexing to every crawler or to
    Googlebot (``noindex``, ``none``; ``googlebot: noindex``)."""
    raise NotImplementedError


def html_signals(html: bytes, charset: str | None = None) -> PageSignals:
    """The robots meta tags (``robots``, ``googlebot``) and the canonical link of ``html``
    (parsed leniently, at most as much as was read)."""
    raise NotImplementedError
