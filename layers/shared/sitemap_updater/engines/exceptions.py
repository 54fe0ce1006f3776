"""What can go wrong when talking to a search engine, sorted by what the caller should do."""

from __future__ import annotations

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


class QuotaExhausted(EngineError):
    """429, or a quota error: the day's (or minute's) calls are spent; try again later."""


class EngineUnavailable(EngineError):
    """5xx, a timeout, a refused or dropped connection: retry in the next run."""


class CredentialsRefused(EngineError):
    """401 or 403, or a key or token the engine does not accept: retrying cannot help until the
    credentials or the property's permissions are fixed."""
