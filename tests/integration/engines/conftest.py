"""The engine clients against their stand-ins on 127.0.0.1: a connection to any other address
fails the test, whatever the code under test (or a library it uses) tries."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from sitemap_updater.engines.search_console import SearchConsole
from sitemap_updater_local.standins.bing import BingStandIn
from sitemap_updater_local.standins.keys import ServiceAccountKey
from sitemap_updater_local.standins.search_console import SearchConsoleStandIn

SITE = "https://www.example.com/"
FEED = "https://www.example.com/sitemap-index.xml"
BING_KEY = "0123456789abcdef0123456789abcdef"


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every connection attempt, refused unless to a loopback address."""
    attempts: list[Any] = []
    connect = socket.socket.connect

    def guarded(sock: socket.socket, address: Any) -> None:
        attempts.append(address)
        host = address[0] if isinstance(address, tuple) else ""
        if not ipaddress.ip_address(host).is_loopback:
            raise AssertionError(f"a test connected to {address!r}, not to loopback")
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield attempts


@pytest.fixture
def console() -> Iterator[SearchConsoleStandIn]:
    with SearchConsoleStandIn(properties={SITE}) as stand_in:
        yield stand_in


@pytest.fixture
def key(console: SearchConsoleStandIn) -> ServiceAccountKey:
    return console.new_key()


@pytest.fixture
def client(console: SearchConsoleStandIn, key: ServiceAccountKey) -> SearchConsole:
    return SearchConsole(key.info, api_root=console.url, deadline_seconds=5.0)


@pytest.fixture
def bing() -> Iterator[BingStandIn]:
    with BingStandIn(keys={BING_KEY}, sites={SITE}) as stand_in:
        yield stand_in
