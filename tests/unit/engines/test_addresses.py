"""The health check connects to public addresses only, in whatever form an address comes, and to
loopback only for a site that is itself on loopback."""

from __future__ import annotations

import ipaddress

import pytest

from sitemap_updater.engines.addresses import (
    AddressRefused,
    checked_address,
    is_public,
    on_loopback,
)

REFUSED = [
    "127.0.0.1",
    "127.8.9.10",
    "::1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",  # shared address space (carrier-grade NAT)
    "169.254.169.254",  # link-local: the instance metadata service
    "fe80::1",
    "fd00::1",  # unique local
    "224.0.0.251",  # multicast
    "ff02::1",
    "0.0.0.0",
    "::",
    "240.0.0.1",  # reserved
    "192.0.2.1",  # documentation
    "::ffff:169.254.169.254",  # IPv4-mapped
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::169.254.169.254",  # IPv4-compatible
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
]
PUBLIC = ["93.184.216.34", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:8.8.8.8"]


@pytest.mark.parametrize("address", REFUSED)
def test_a_non_public_address_is_refused_in_every_form(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))
    with pytest.raises(AddressRefused, match="not a public address"):
        checked_address("www.example.com", 443, resolve=lambda host, port: [address])


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_is_taken(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))
    assert checked_address("www.example.com", 443, resolve=lambda h, p: [address]) == address


def test_the_first_public_address_of_the_answer_is_the_one_connected_to() -> None:
    answer = ["10.0.0.1", "93.184.216.34", "8.8.8.8"]
    assert checked_address("www.example.com", 443, resolve=lambda h, p: answer) == answer[1]


def test_a_name_is_resolved_once() -> None:
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["93.184.216.34"]

    checked_address("www.example.com", 443, resolve=resolve)
    assert asked == ["www.example.com"]


def test_loopback_only_for_a_site_on_loopback() -> None:
    assert on_loopback("127.0.0.1") and on_loopback("localhost") and on_loopback("[::1]")
    assert not on_loopback("www.example.com") and not on_loopback("10.0.0.1")
    assert checked_address("127.0.0.1", 8080, loopback=True) == "127.0.0.1"
    with pytest.raises(AddressRefused):  # a site on loopback is reached on loopback alone
        checked_address("localhost", 80, loopback=True, resolve=lambda h, p: ["10.0.0.1"])
