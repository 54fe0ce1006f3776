"""What can go wrong when talking to a search engine, sorted by what the caller should do."""

from __future__ import annotations

from typing import Final

from sitemap_updater.printable import printable


class EngineError(Exception):
    """A request to a search engine's API that did not succeed.

    ``engine`` names the API (``"search-console"``, ``"bing"``), ``operation`` the call
    (``"sitemaps.submit"``, ``"SubmitFeed"``, ...), ``status`` the HTTP status (None when no
    answer came) and ``reason`` what the engine or the connection said, its control characters
    escaped. The message never holds a credential."""

    def __init__(self, engine: str, operation: str, status: int | None, reason: str) -> None:
        self.engine = engine
        self.operation = operation
        self.status = status
        self.reason = printable(reason)
        answered = f"HTTP {status}" if status is not None else "no answer"
        super().__init__(f"{engine} {operation}: {answered}: {self.reason}")


#: :attr:`QuotaExhausted.window` of a quota counted per minute and of one counted per day
PER_MINUTE: Final = "per-minute"
PER_DAY: Final = "daily"


class QuotaExhausted(EngineError):
    """429, or a quota error: the day's (or minute's) calls are spent; try again later.

    ``window`` says which quota, when the engine said so (:data:`PER_MINUTE`, :data:`PER_DAY`,
    None: not said); ``retry_after`` is the seconds the engine asked to wait (its
    ``Retry-After``), None when it named none."""

    def __init__(
        self,
        engine: str,
        operation: str,
        status: int | None,
        reason: str,
        *,
        window: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(engine, operation, status, reason)
        self.window = window
        self.retry_after = retry_after


class EngineUnavailable(EngineError):
    """5xx, a timeout, a refused or dropped connection: retry in the next run."""


class CredentialsRefused(EngineError):
    """401 or 403, or a key or token the engine does not accept: retrying cannot help until the
    credentials or the property's permissions are fixed."""


#: Most characters of an engine's own words kept in a reason.
REASON_CHARS = 300


def error_for(
    engine: str,
    operation: str,
    status: int | None,
    reason: str,
    *,
    quota: bool = False,
    credentials: bool = False,
    later: bool = False,
    window: str | None = None,
    retry_after: float | None = None,
) -> EngineError:
    """The error an answer of ``status`` means (None: no answer came): 429 or ``quota`` (the
    engine said a quota is spent) is :class:`QuotaExhausted`; 401, 403 or ``credentials``
    :class:`CredentialsRefused`; no answer, 408, 5xx or ``later`` (the engine said it failed
    inside) :class:`EngineUnavailable`; anything else a plain :class:`EngineError` (the request
    itself is wrong). ``reason`` is shortened to :data:`REASON_CHARS`; ``window`` and
    ``retry_after`` describe a quota error (:class:`QuotaExhausted`)."""
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 3] + "..."
    kind: type[EngineError] = EngineError
    if quota or status == 429:
        return QuotaExhausted(
            engine, operation, status, reason, window=window, retry_after=retry_after
        )
    if credentials or status in (401, 403):
        kind = CredentialsRefused
    elif later or status is None or status == 408 or status >= 500:
        kind = EngineUnavailable
    return kind(engine, operation, status, reason)
