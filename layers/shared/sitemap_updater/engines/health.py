"""The URL health check: fetch one listed page from the site itself and record what a search
engine would see there: the status, a redirect and its target, ``noindex``, and a canonical
that names another page.

Every fetch is a ``GET`` with :data:`USER_AGENT`, ends by an overall deadline, reads at most
:data:`MAX_HTML_BYTES` of the page, and never leaves the listed hosts: a redirect is recorded,
not followed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from sitemap_updater.engines.pacing import HostPacer
from sitemap_updater.protocol.urls import Site

#: The User-Agent of every health-check fetch; the page it names says what the fetches are and
#: how to tell them apart from a search engine's.
USER_AGENT: Final = (
    "sitemap-updater-health/1 (+https://github.com/sitemap-updater/sitemap-updater/blob/main/"
    "docs/search-engines.md#url-health)"
)
#: Most bytes of a page's HTML read for its ``<head>`` (its robots meta and canonical link).
MAX_HTML_BYTES: Final = 256 * 1024


@dataclass(frozen=True, slots=True)
class PageHealth:
    """What one fetch of a listed URL found.

    ``status`` is None when no answer came (``problem`` says why); ``redirect_to`` is the
    normalized target of a 3xx; ``canonical`` the normalized ``rel=canonical`` target, and
    ``foreign_canonical`` whether it names another URL than the page's own; ``problem`` is a
    short word for what makes the URL unfit for a sitemap (None: healthy)."""

    url: str
    status: int | None
    redirect_to: str | None
    noindex: bool
    canonical: str | None
    foreign_canonical: bool
    problem: str | None

    @property
    def healthy(self) -> bool:
        return self.problem is None


#: The ``problem`` words, worst first.
PROBLEMS: Final = (
    "unreachable",  # no answer within the deadline, or no connection
    "not-found",  # 404 or 410
    "error",  # any other 4xx or 5xx
    "redirect",  # 3xx: the sitemap should list the target
    "noindex",  # meta robots, meta googlebot or X-Robots-Tag
    "foreign-canonical",  # rel=canonical names another URL
    "off-site",  # the URL is on none of the listed hosts: not fetched
)


def check_page(
    url: str,
    *,
    listed_hosts: Iterable[Site | str],
    deadline_seconds: float,
    user_agent: str = USER_AGENT,
    pacer: HostPacer | None = None,
) -> PageHealth:
    """Fetch ``url`` (once; a redirect is not followed) and judge what came back.

    ``listed_hosts`` are the sites' origins (``https://www.example.com``), as :class:`Site`
    objects (a ``Sites`` is one) or text; a URL on none of them is not fetched (problem
    ``off-site``). ``pacer``, when given, is waited on for the URL's host before the fetch."""
    raise NotImplementedError
