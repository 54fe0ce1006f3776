"""Every request of the engine clients, the token's included, ends by its deadline while the
stand-in's answer still drips in one byte at a time (each byte well within any read timeout)."""

from __future__ import annotations

import time

import pytest

from sitemap_updater.engines.bing import BingWebmaster
from sitemap_updater.engines.exceptions import EngineUnavailable
from sitemap_updater.engines.search_console import SearchConsole
from sitemap_updater_local.standins.bing import BingStandIn
from sitemap_updater_local.standins.keys import ServiceAccountKey
from sitemap_updater_local.standins.loopback import DRIP_BYTES, DRIP_INTERVAL, Failure
from sitemap_updater_local.standins.search_console import SearchConsoleStandIn
from tests.integration.engines.conftest import BING_KEY, FEED, SITE

DEADLINE = 0.4
#: how long a dripping answer takes at least
DRIP_SECONDS = DRIP_BYTES * DRIP_INTERVAL


@pytest.mark.parametrize("channel", ["token", "api"])
def test_a_search_console_request_ends_by_its_deadline(
    console: SearchConsoleStandIn, key: ServiceAccountKey, channel: str
) -> None:
    client = SearchConsole(key.info, api_root=console.url, deadline_seconds=DEADLINE)
    console.fail(Failure.SLOW, channel=channel)
    started = time.monotonic()
    with pytest.raises(EngineUnavailable) as raised:
        client.sitemaps(SITE)
    assert time.monotonic() - started < DRIP_SECONDS / 2
    assert raised.value.status is None and "deadline" in raised.value.reason
    client.sitemaps(SITE)  # the next run goes through


def test_a_bing_request_ends_by_its_deadline(bing: BingStandIn) -> None:
    client = BingWebmaster(BING_KEY, api_root=bing.api_root, deadline_seconds=DEADLINE)
    bing.fail(Failure.SLOW)
    started = time.monotonic()
    with pytest.raises(EngineUnavailable) as raised:
        client.submit_feed(SITE, FEED)
    assert time.monotonic() - started < DRIP_SECONDS / 2
    assert "deadline" in raised.value.reason and BING_KEY not in str(raised.value)
