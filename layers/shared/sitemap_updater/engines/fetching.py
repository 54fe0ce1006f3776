"""One HTTP request with an overall deadline, no redirect followed, and a bounded read: the one
way every client here talks HTTP (see :mod:`sitemap_updater.bounded_http`)."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from sitemap_updater.bounded_http import Deadline, opener

#: Hosts that ``http://`` may name for an API that carries a credential (a local stand-in).
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})
SECURE_RULE: Final = (
    "must be an https:// URL, since its requests carry a credential "
    "(http:// only to a loopback host)"
)


def secure(url: str) -> bool:
    """Whether a credential may travel to ``url``: https, or http to a loopback host."""
    parts = urlsplit(url)
    loopback = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    return bool(parts.hostname) and (parts.scheme == "https" or loopback)


class FetchFailed(Exception):
    """No answer: the deadline passed, the connection failed or broke off. ``reason`` says
    which, in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Answer:
    """An HTTP answer: status, header fields (names lower-cased, in order; a name may repeat)
    and the first bytes of the body (``complete``: the body had no more)."""

    status: int
    fields: tuple[tuple[str, str], ...]
    body: bytes
    complete: bool = True

    def header(self, name: str) -> str | None:
        """The first value of the header field ``name`` (any case), or None."""
        values = self.headers(name)
        return values[0] if values else None

    def headers(self, name: str) -> list[str]:
        """Every value of the header field ``name`` (any case), in order."""
        name = name.lower()
        return [value for field, value in self.fields if field == name]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx answer is returned as it is: the caller decides whether to go on."""

    def redirect_request(self, *_: Any, **__: Any) -> None:
        return None


def fetch(
    url: str,
    *,
    deadline: Deadline,
    max_bytes: int,
    method: str = "GET",
    body: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    address: str | None = None,
) -> Answer:
    """``method url`` ended by ``deadline``, reading at most ``max_bytes`` of the answer's
    body; a 3xx, 4xx or 5xx is an answer like any other. With ``address`` the connection goes
    there, the URL's host naming the site (``bounded_http``). Raises :class:`FetchFailed`."""
    request = urllib.request.Request(url, data=body, headers=dict(headers or {}), method=method)
    try:
        with opener(deadline, _NoRedirect, address=address).open(request) as response:
            return _answer(response.status, response, max_bytes)
    except urllib.error.HTTPError as error:
        with error:
            return _answer(error.code, error, max_bytes)
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise FetchFailed(_why(error)) from error


def _answer(status: int, response: Any, max_bytes: int) -> Answer:
    fields = tuple((str(name).lower(), str(value)) for name, value in response.headers.items())
    try:
        body = bytes(response.read(max_bytes + 1))
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise FetchFailed(_why(error)) from error
    return Answer(status, fields, body[:max_bytes], complete=len(body) <= max_bytes)


def _why(error: BaseException) -> str:
    reason = getattr(error, "reason", None)
    return str(reason if reason is not None else error) or type(error).__name__
