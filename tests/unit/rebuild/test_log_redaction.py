"""Log lines never hold a URL's query string unless the log level is DEBUG: the shared logger's
formatter redacts every field, exception messages included."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from sitemap_updater.observability import logger, redact_queries

SECRET = "token=s3cr3t&email=a%40b.example"
URL = f"https://www.example.com/page?{SECRET}#part"


@pytest.fixture
def lines() -> Iterator[Any]:
    """The JSON lines the shared logger writes, through its own formatter, during the test."""
    level = logger.log_level
    sink = io.StringIO()
    handler = logging.StreamHandler(sink)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)

    def read() -> list[dict[str, Any]]:
        return [json.loads(line) for line in sink.getvalue().splitlines()]

    yield read
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_every_field_and_the_exception_lose_the_query(lines: Any) -> None:
    logger.setLevel("INFO")
    logger.warning(f"saw {URL}", url=URL, nested={"locs": [URL, "http://x.example/?a=1"]})
    try:
        raise ValueError(f"refused {URL}")
    except ValueError:
        logger.exception("failed")
    warned, failed = lines()
    for line in (warned, failed):
        assert "s3cr3t" not in json.dumps(line) and "a=1" not in json.dumps(line)
    assert warned["url"] == "https://www.example.com/page?[redacted]#part"
    assert warned["nested"]["locs"][1] == "http://x.example/?[redacted]"
    assert "https://www.example.com/page?[redacted]" in failed["exception"]


def test_debug_keeps_the_query(lines: Any) -> None:
    logger.setLevel("DEBUG")
    logger.debug("diagnosis", url=URL)
    (line,) = lines()
    assert line["url"] == URL


def test_text_without_a_url_query_is_left_alone() -> None:
    text = 'no query: https://www.example.com/a/b and a "?" alone, http://x.example/#f?not'
    assert redact_queries(text) == text
