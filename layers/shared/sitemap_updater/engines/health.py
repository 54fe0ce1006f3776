"""The URL health check: fetch one listed page from the site itself and record what a search
engine would see there: the status, a redirect and its target, ``noindex``, and a canonical
that names another page.

Every fetch is a ``GET`` with :data:`USER_AGENT`, ends by an overall deadline, reads at most
:data:`MAX_HTML_BYTES` of the page, and never leaves the listed hosts: a redirect is recorded,
not followed. It connects only to a public address of the host, resolved once
(:mod:`.addresses`; the address checked is the one connected to). Whatever a page holds, the
check ends with a :class:`PageHealth`: what cannot be read is an ``error`` with its reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from email.message import Message
from typing import Final
from urllib.parse import urljoin, urlsplit

from sitemap_updater.bounded_http import Deadline
from sitemap_updater.engines.addresses import (
    AddressRefused,
    Resolver,
    checked_address,
    on_loopback,
    system_resolver,
)
from sitemap_updater.engines.fetching import Answer, FetchFailed, fetch
from sitemap_updater.engines.pacing import HostPacer
from sitemap_updater.engines.page_signals import header_noindex, html_signals
from sitemap_updater.protocol.errors import InvalidUrlError
from sitemap_updater.protocol.urls import Site, host_of, normalize_url, origin_of

#: The User-Agent of every health-check fetch; the page it names says what the fetches are and
#: how to tell them apart from a search engine's.
USER_AGENT: Final = (
    "sitemap-updater-health/1 (+https://github.com/sitemap-updater/sitemap-updater/blob/main/"
    "docs/search-engines.md#url-health)"
)
#: Most bytes of a page's HTML read for its ``<head>`` (its robots meta and canonical link).
MAX_HTML_BYTES: Final = 256 * 1024
#: Most characters of a reason kept (what went wrong, in a few words)
REASON_CHARS: Final = 300


@dataclass(frozen=True, slots=True)
class PageHealth:
    """What one fetch of a listed URL found.

    ``status`` is None when no answer came (``problem`` says why); ``redirect_to`` is the
    normalized target of a 3xx; ``canonical`` the normalized ``rel=canonical`` target, and
    ``foreign_canonical`` whether it names another URL than the page's own; ``problem`` is a
    short word for what makes the URL unfit for a sitemap (None: healthy), ``reason`` what
    went wrong when no usable answer came (no connection, an address refused, a page that
    could not be read)."""

    url: str
    status: int | None
    redirect_to: str | None
    noindex: bool
    canonical: str | None
    foreign_canonical: bool
    problem: str | None
    reason: str | None = None

    @property
    def healthy(self) -> bool:
        return self.problem is None


#: The ``problem`` words, worst first.
PROBLEMS: Final = (
    "unreachable",  # no answer within the deadline, or no connection
    "not-found",  # 404 or 410
    "error",  # any other 4xx or 5xx, or an answer that could not be read
    "redirect",  # 3xx: the sitemap should list the target
    "noindex",  # meta robots, meta googlebot or X-Robots-Tag
    "foreign-canonical",  # rel=canonical names another URL
    "off-site",  # the URL is on none of the listed hosts: not fetched
)


def _failed(url: str, problem: str, reason: str, status: int | None = None) -> PageHealth:
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 3] + "..."
    return PageHealth(url, status, None, False, None, False, problem, reason)


def check_page(
    url: str,
    *,
    listed_hosts: Iterable[Site | str],
    deadline_seconds: float,
    user_agent: str = USER_AGENT,
    pacer: HostPacer | None = None,
    resolve: Resolver = system_resolver,
) -> PageHealth:
    """Fetch ``url`` (once; a redirect is recorded, not followed) and judge what came back.

    ``listed_hosts`` are the sites' origins (``https://www.example.com``), as :class:`Site`
    objects (a ``Sites`` is one) or text; a URL on none of them is not fetched (problem
    ``off-site``). ``pacer``, when given, is waited on for the URL's host before the fetch.
    ``resolve`` gives the host's addresses (the system's resolver; tests give their own)."""
    try:
        identity = normalize_url(url)
    except InvalidUrlError:
        return PageHealth(url, None, None, False, None, False, "off-site")
    if origin_of(identity) not in _origins(listed_hosts):
        return PageHealth(url, None, None, False, None, False, "off-site")
    host = host_of(identity)
    if pacer is not None:
        pacer.wait(host)
    parts = urlsplit(identity)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = checked_address(
            parts.hostname or host,
            port,
            loopback=on_loopback(parts.hostname or host),
            resolve=resolve,
        )
    except AddressRefused as refused:
        return _failed(url, "unreachable", refused.reason)
    except (OSError, UnicodeError) as error:  # the name does not resolve
        return _failed(url, "unreachable", f"{host} does not resolve: {error}")
    headers = {
        "User-Agent": user_agent,
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
    }
    try:
        answer = fetch(
            identity,
            deadline=Deadline(deadline_seconds),
            max_bytes=MAX_HTML_BYTES,
            headers=headers,
            address=address,
        )
    except FetchFailed as failed:
        return _failed(url, "unreachable", failed.reason)
    try:
        return judge(url, identity, answer)
    except Exception as error:  # a page no reading survives costs its own check only
        return _failed(url, "error", f"{type(error).__name__}: {error}", answer.status)


def _origins(listed_hosts: Iterable[Site | str]) -> frozenset[str]:
    return frozenset(
        item.origin if isinstance(item, Site) else Site.parse(item).origin for item in listed_hosts
    )


def _resolved(base: str, href: str) -> str:
    """``href`` resolved against ``base`` and normalized (as written, when it is no URL)."""
    joined = urljoin(base, href)
    try:
        return normalize_url(joined)
    except InvalidUrlError:
        return joined


def judge(url: str, identity: str, answer: Answer) -> PageHealth:
    """What ``answer`` (to a GET of ``url``, normalized ``identity``) says of the page."""
    status = answer.status
    if 300 <= status < 400:
        location = answer.header("location")
        target = _resolved(identity, location) if location else None
        return PageHealth(url, status, target, False, None, False, "redirect")
    if status in (404, 410):
        return PageHealth(url, status, None, False, None, False, "not-found")
    if not 200 <= status < 300:
        return PageHealth(url, status, None, False, None, False, "error")
    noindex = header_noindex(answer.headers("x-robots-tag"))
    canonical = None
    content_type = Message()
    content_type["content-type"] = answer.header("content-type") or "text/html"
    if content_type.get_content_type() in ("text/html", "application/xhtml+xml"):
        signals = html_signals(answer.body, content_type.get_content_charset())
        noindex = noindex or signals.noindex
        canonical = _resolved(identity, signals.canonical) if signals.canonical else None
    foreign = canonical is not None and canonical != identity
    problem = "noindex" if noindex else "foreign-canonical" if foreign else None
    return PageHealth(url, status, None, noindex, canonical, foreign, problem)
