"""No credential survives in a text the engines' clients keep or print: the Bing key and the
access token in any case and encoding, and any Bearer value."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from sitemap_updater.engines.bing import BingWebmaster
from sitemap_updater.engines.console_answers import error_of
from sitemap_updater.engines.redaction import REDACTED, redact

KEY = "0123456789AbCdEf/+0123456789abcdef"
TOKEN = "ya29.a0AfH6SMBx-Secret_token.value"


@pytest.mark.parametrize(
    "form", [KEY, KEY.lower(), KEY.upper(), quote(KEY, safe=""), quote(KEY, safe="").lower()]
)
def test_the_key_in_any_case_and_encoding(form: str) -> None:
    text = redact(f"ERROR!!! InvalidApiKey for apikey={form}&siteUrl=x", [KEY])
    assert REDACTED in text and form not in text and "siteUrl=x" in text


@pytest.mark.parametrize(
    "header", [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"BEARER  {TOKEN}", f"Bearer%20{TOKEN}"]
)
def test_any_bearer_value_whatever_its_credential(header: str) -> None:
    text = redact(f'{{"message": "bad header Authorization: {header}"}}')
    assert TOKEN not in text and "[redacted]" in text


def test_the_bing_client_redacts_its_key_in_any_case() -> None:
    client = BingWebmaster(KEY)
    assert KEY.lower() not in client.redact(f"echo {KEY.lower()} and {KEY.swapcase()}")


def test_an_error_google_answers_keeps_no_token() -> None:
    body = f'{{"error": {{"code": 400, "message": "token {TOKEN.upper()} refused"}}}}'.encode()
    error = error_of("sitemaps.list", 400, body, secrets=[TOKEN])
    assert TOKEN.upper() not in str(error) and REDACTED in error.reason
