"""The addresses the URL health check may connect to: public ones only.

A listed host's name is resolved once; the check connects to an address of that one answer
that is public (``bounded_http`` connects to it by number, so a second resolution, which DNS
rebinding would answer otherwise, never happens). Refused are loopback, private (RFC 1918, ULA,
shared address space), link-local (the cloud metadata address 169.254.169.254 among them),
multicast, unspecified and reserved addresses, in every form: an IPv4 address mapped into or
embedded in IPv6 (``::ffff:169.254.169.254``, IPv4-compatible, 6to4, Teredo, NAT64) is judged as
that IPv4 address. A site that is itself on loopback (``http://127.0.0.1:PORT``, ``localhost``: the
tests and the demo) may be reached on loopback, and on nothing else.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Final

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: (host, port) -> the addresses the host resolves to, in the resolver's order
Resolver = Callable[[str, int], list[str]]
#: Host names that are loopback by definition (RFC 6761).
LOOPBACK_NAMES: Final = frozenset({"localhost"})


class AddressRefused(Exception):
    """The host has no address the check may connect to; ``reason`` says which it has."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses ``getaddrinfo`` gives for a TCP connection to ``host``, each once."""
    found: list[str] = []
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        address = str(sockaddr[0])
        if address not in found:
            found.append(address)
    return found


def _parsed(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 zone index aside
    except ValueError:
        return None


#: the well-known NAT64 prefix (RFC 6052): its low 32 bits are an IPv4 address
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")


def _judged(address: IPAddress) -> list[IPAddress]:
    """What an address is judged as: an IPv4 address mapped into IPv6 as that IPv4 address
    alone (it is the one connected to); any other IPv6 address as itself and each IPv4 address
    it carries (IPv4-compatible, 6to4, Teredo, NAT64)."""
    if isinstance(address, ipaddress.IPv4Address):
        return [address]
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    inner: list[IPAddress] = [address]
    if address.sixtofour is not None:
        inner.append(address.sixtofour)
    if address.teredo is not None:
        inner += list(address.teredo)
    if address in _NAT64 or 1 < int(address) < 2**32:  # NAT64, or IPv4-compatible ::a.b.c.d
        inner.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return inner


def _public_one(address: IPAddress) -> bool:
    return address.is_global and not (
        address.is_multicast
        or address.is_unspecified
        or address.is_reserved
        or address.is_loopback
        or address.is_link_local
        or address.is_private
    )


def is_public(address: IPAddress) -> bool:
    """Whether ``address``, and every IPv4 address it carries, is a public unicast address."""
    return all(_public_one(each) for each in _judged(address))


def is_loopback(address: IPAddress) -> bool:
    """Whether ``address`` is a loopback address (an IPv4 one mapped into IPv6 included)."""
    return any(each.is_loopback for each in _judged(address))


def on_loopback(host: str) -> bool:
    """Whether a site's host is itself on loopback: ``localhost`` or a loopback literal."""
    address = _parsed(host.strip("[]"))
    return host.lower() in LOOPBACK_NAMES if address is None else is_loopback(address)


def checked_address(
    host: str, port: int, *, loopback: bool = False, resolve: Resolver = system_resolver
) -> str:
    """The address to connect to for ``host``: a literal is judged as it is, a name resolved
    once and its first public address taken (with ``loopback``, its first loopback address
    instead: the site itself is on loopback). Raises :class:`AddressRefused` when there is
    none, naming what the host resolved to; ``OSError`` when it does not resolve."""
    literal = _parsed(host.strip("[]"))
    candidates = [host.strip("[]")] if literal is not None else resolve(host, port)
    for text in candidates:
        address = _parsed(text)
        if address is None:
            continue
        if is_loopback(address) if loopback else is_public(address):
            return text
    shown = ", ".join(candidates[:4]) or "no address"
    wanted = "loopback" if loopback else "public"
    raise AddressRefused(f"{host} resolves to {shown}: not a {wanted} address, not connected to")
