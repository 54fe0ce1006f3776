"""A remote source that `backfill` (or `validate`) reads ends by its fetch deadline, however
slowly the server answers: a server on 127.0.0.1 drips a whole sitemap one byte at a time."""

from __future__ import annotations

import time

import pytest

from sitemap_updater_local.inputs.opening import SourcePolicy
from sitemap_updater_local.inputs.source_records import SourceError
from sitemap_updater_local.inputs.sources import iter_source_items
from tests.helpers.drip_server import DripServer, http_answer

SITEMAP = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    b"<url><loc>http://127.0.0.1/a</loc></url></urlset>\n"
)


def test_a_dripping_source_is_given_up_at_the_fetch_deadline() -> None:
    answer = http_answer("200 OK", SITEMAP, "application/xml")
    with DripServer(answer, interval=0.02) as server:
        started = time.monotonic()
        with pytest.raises(SourceError, match=r"deadline of 0\.5 s"):
            list(iter_source_items(server.url + "/sitemap.xml", SourcePolicy(fetch_seconds=0.5)))
        elapsed = time.monotonic() - started
        assert server.bytes_sent > 1  # each read got its byte in time
        assert elapsed < server.drip_seconds / 2
