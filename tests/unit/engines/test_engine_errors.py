"""What each status means for the next run, and what an error's text holds."""

from __future__ import annotations

import pytest

from sitemap_updater.engines.exceptions import (
    REASON_CHARS,
    CredentialsRefused,
    EngineError,
    EngineUnavailable,
    QuotaExhausted,
    error_for,
)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (None, EngineUnavailable),
        (408, EngineUnavailable),
        (500, EngineUnavailable),
        (504, EngineUnavailable),
        (429, QuotaExhausted),
        (401, CredentialsRefused),
        (403, CredentialsRefused),
        (400, EngineError),
        (404, EngineError),
    ],
)
def test_status_sorts_the_error(status: int | None, kind: type[EngineError]) -> None:
    assert type(error_for("bing", "SubmitFeed", status, "r")) is kind


def test_the_engines_own_words_win() -> None:
    assert type(error_for("e", "o", 403, "r", quota=True)) is QuotaExhausted
    assert type(error_for("e", "o", 400, "r", credentials=True)) is CredentialsRefused
    assert type(error_for("e", "o", 400, "r", later=True)) is EngineUnavailable


def test_the_text_names_engine_operation_and_status_on_one_line() -> None:
    error = error_for("search-console", "sitemaps.get", 404, "not\nfound" + "!" * 500)
    text = str(error)
    assert text.startswith("search-console sitemaps.get: HTTP 404: not\\x0afound")
    assert "\n" not in text and len(error.reason) <= REASON_CHARS + 10
    assert str(error_for("bing", "SubmitFeed", None, "timed out")).endswith("no answer: timed out")
