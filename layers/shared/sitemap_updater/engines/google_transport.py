"""google-auth's HTTP transport, on :mod:`~sitemap_updater.engines.fetching`.

``google-auth`` signs the service account's token request and reads the token, but leaves the
HTTP to a :class:`google.auth.transport.Request`. This one gives every request an overall
deadline (connect, send and every read of the answer end by it, however slowly the answer drips
in), follows no redirect, reads at most :data:`MAX_ANSWER_BYTES`, and refuses any address but
the few it is given, so a wrong ``token_uri`` cannot carry the signed assertion anywhere else.

google-auth retries a token request that failed with 408, 429 or 5xx after sleeping one, then
two seconds, which would outlast any deadline: here such an answer ends the refresh at once
(:class:`RetryLater`), and a later run tries again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Final

import google.auth.exceptions
import google.auth.transport

from sitemap_updater.bounded_http import Deadline
from sitemap_updater.engines.fetching import Answer, FetchFailed, fetch
from sitemap_updater.protocol.urls import origin_of

#: Most bytes of an answer read (a sitemap list or an inspection is a few kilobytes).
MAX_ANSWER_BYTES: Final = 1024 * 1024
#: Statuses google-auth would retry itself after sleeping.
RETRY_LATER_STATUSES: Final = frozenset(google.auth.transport.DEFAULT_RETRYABLE_STATUS_CODES)


class GoogleAnswer(google.auth.transport.Response):
    """An :class:`Answer` as google-auth reads it."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    @property
    def status(self) -> int:
        return self.answer.status

    @property
    def headers(self) -> Mapping[str, str]:
        return dict(self.answer.fields)

    @property
    def data(self) -> bytes:
        return self.answer.body


class _TransportError(google.auth.exceptions.TransportError):
    def __init__(self, message: str) -> None:
        super().__init__(message)  # type: ignore[no-untyped-call]  # google-auth's is untyped


class RetryLater(_TransportError):
    """The token endpoint answered with a status that a later run may not meet again."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(f"the token endpoint answered HTTP {answer.status}")
        self.answer = answer


class NoAnswer(_TransportError):
    """No answer came (deadline, connection), or the address was not one of the API's."""


class BoundedRequest(google.auth.transport.Request):
    """Makes each request with an overall deadline of ``deadline_seconds``, to ``origins``
    only (``scheme://host[:port]``). With ``token_endpoint`` set, a 408, 429 or 5xx answer
    raises :class:`RetryLater` instead of being returned (see the module's text)."""

    def __init__(
        self, deadline_seconds: float, origins: Collection[str], *, token_endpoint: bool = False
    ) -> None:
        self.deadline_seconds = deadline_seconds
        self._origins = frozenset(origins)
        self._token_endpoint = token_endpoint

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **_: Any,
    ) -> GoogleAnswer:
        if origin_of(url) not in self._origins:
            raise NoAnswer(f"{origin_of(url)} is not one of the API's addresses")
        seconds = self.deadline_seconds if timeout is None else min(timeout, self.deadline_seconds)
        try:
            answer = fetch(
                url,
                deadline=Deadline(seconds),
                max_bytes=MAX_ANSWER_BYTES,
                method=method,
                body=body,
                headers=headers,
            )
        except FetchFailed as error:
            raise NoAnswer(error.reason) from error
        if self._token_endpoint and answer.status in RETRY_LATER_STATUSES:
            raise RetryLater(answer)
        return GoogleAnswer(answer)
