"""Bing Webmaster API: submit a sitemap (``SubmitFeed``) with an API key.

``POST {api_root}/SubmitFeed?apikey=KEY`` with ``Content-Type: application/json;
charset=utf-8`` and the body ``{"siteUrl": ..., "feedUrl": ...}``; success is 200 with
``{"d": null}``
(https://learn.microsoft.com/en-us/dotnet/api/microsoft.bing.webmaster.api.interfaces.iwebmasterapi.submitfeed).
An error is a 4xx or 5xx whose JSON body is ``{"ErrorCode": n, "Message": "..."}``, ``n`` one of
the ``ApiErrorCode`` values (3 InvalidApiKey, 4 ThrottleUser, 5 ThrottleHost, 14 NotAuthorized,
...). The key is a query parameter: no log line or exception text ever holds it (nor the URL it
is in).
"""

from __future__ import annotations

import json
from typing import Final
from urllib.parse import quote

from sitemap_updater.bounded_http import Deadline
from sitemap_updater.engines.exceptions import EngineError, error_for
from sitemap_updater.engines.fetching import SECURE_RULE, FetchFailed, fetch, secure

API_ROOT: Final = "https://ssl.bing.com/webmaster/api.svc/json"
ENGINE: Final = "bing"
OPERATION: Final = "SubmitFeed"
#: ``ApiErrorCode`` values, by what they mean for a later attempt.
QUOTA_CODES: Final = frozenset({4, 5})  # ThrottleUser, ThrottleHost
CREDENTIAL_CODES: Final = frozenset({3, 6, 10, 14})  # InvalidApiKey, UserBlocked, ...NotAuthorized
LATER_CODES: Final = frozenset({1, 2})  # InternalError, UnknownError
MAX_ANSWER_BYTES: Final = 64 * 1024


class BingWebmaster:
    """A client of the Bing Webmaster API. ``deadline_seconds`` bounds each request;
    failures raise :class:`~sitemap_updater.engines.exceptions.EngineError` subclasses."""

    def __init__(
        self, api_key: str, *, api_root: str = API_ROOT, deadline_seconds: float = 10.0
    ) -> None:
        if not secure(api_root):
            reason = f"api_root={api_root!r} {SECURE_RULE}"
            raise EngineError(ENGINE, "configuration", None, reason)
        if not api_key or not api_key.isascii() or not api_key.isprintable():
            raise EngineError(ENGINE, "configuration", None, "the API key is empty or not text")
        self._api_key = api_key
        self._api_root = api_root.rstrip("/")
        self._deadline_seconds = deadline_seconds

    def __repr__(self) -> str:
        return f"BingWebmaster(api_root={self._api_root!r})"

    def submit_feed(self, site_url: str, feed_url: str) -> None:
        """Submit the sitemap ``feed_url`` for the verified site ``site_url``. Idempotent."""
        url = f"{self._api_root}/{OPERATION}?apikey={quote(self._api_key, safe='')}"
        body = json.dumps({"siteUrl": site_url, "feedUrl": feed_url}).encode("utf-8")
        try:
            answer = fetch(
                url,
                deadline=Deadline(self._deadline_seconds),
                max_bytes=MAX_ANSWER_BYTES,
                method="POST",
                body=body,
                headers={"Content-Type": "application/json; charset=utf-8"},
            )
        except FetchFailed as error:
            raise error_for(ENGINE, OPERATION, None, self._redacted(error.reason)) from None
        if not 200 <= answer.status < 300:
            raise self._error(answer.status, answer.body)

    def _redacted(self, text: str) -> str:
        """``text`` without the key (in any form a URL may carry it)."""
        for form in {self._api_key, quote(self._api_key, safe="")}:
            text = text.replace(form, "[key]")
        return text

    def _error(self, status: int, body: bytes) -> EngineError:
        code, message = None, f"HTTP {status}"
        try:
            value = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            value = None
        if isinstance(value, dict):
            code = value.get("ErrorCode")
            message = str(value.get("Message") or message)
        reason = self._redacted(message if code is None else f"{message} (ErrorCode {code})")
        return error_for(
            ENGINE,
            OPERATION,
            status,
            reason,
            quota=code in QUOTA_CODES,
            credentials=code in CREDENTIAL_CODES,
            later=code in LATER_CODES,
        )
