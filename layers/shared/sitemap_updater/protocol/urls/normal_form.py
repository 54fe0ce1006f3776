"""URL normalization (the identity of a page), by the full parse of RFC 3986.

Normalization follows RFC 3986 section 6.2.2/6.2.3 and changes only what those sections make
equivalent: scheme and host are lowercased, an IDN host becomes punycode (IDNA 2008 with UTS #46
mapping), a default port and the fragment are dropped, an empty path becomes ``/``, characters
that RFC 3986 does not allow in a path or query are percent-encoded (UTF-8), the hex digits of
every ``%XX`` are upper-cased (``%e2%82%ac`` is ``%E2%82%AC``), an encoded unreserved character
(``A-Z a-z 0-9 - . _ ~``) is decoded (``%7Euser`` is ``~user``), and the path's dot segments are
removed (RFC 3986 section 5.2.4: ``/a/b/../c/./d`` is ``/a/c/d``). Nothing else changes: case of
path and query, trailing slash, other escapes (``%2F`` stays) and query order are kept.

Whitespace inside the path or query is percent-encoded too (a space is ``%20``, U+00A0 is
``%C2%A0``). Rejected instead: C0 and C1 control characters and DEL (tab and line breaks
included: RFC 3986 appendix C treats them as layout, and browsers delete them, so neither
``%0A`` nor dropping it would be the page's address); lone surrogates (no UTF-8 form to encode);
whitespace at the very start or end (not part of the URI by the same appendix: a trailing
``%20`` would quietly make a second identity for the same page).
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import Final
from urllib.parse import quote

from sitemap_updater.protocol.errors import (
    InvalidUrlError,
    UrlLengthError,
)
from sitemap_updater.protocol.escape import escape, needs_escape
from sitemap_updater.protocol.limits import MAX_LOC_LENGTH, MAX_URL_TEXT_LENGTH, MIN_LOC_LENGTH

DEFAULT_PORTS: Final = {"http": 80, "https": 443}

# C0/C1 controls, DEL, lone surrogates: never encoded, always rejected (see the module text).
_BAD_CHAR: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
# RFC 3986 pchar minus pct-encoded, plus '/' (path) and '?' (query).
_SUB_DELIMS: Final = "!$&'()*+,;="
_PATH_SAFE: Final = _SUB_DELIMS + ":@/%"
_QUERY_SAFE: Final = _PATH_SAFE + "?"
_PATH_OK: Final = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*")
_QUERY_OK: Final = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*")
_LONE_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_LABEL: Final = re.compile(r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?")
# A URL already in normalized form, without a port: lower-case http(s) scheme, lower-case ASCII
# host labels, a path starting with '/', then only RFC 3986 path and query characters ('%' is
# checked apart, see already_normalized). normalize_url returns such a URL unchanged.
#: What follows the origin's ``/`` in a URL in normalized form ('%' is checked apart).
NORMALIZED_PATH: Final = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*"
#: The origin of a URL in normalized form without a port: a lower-case scheme and host.
NORMALIZED_ORIGIN: Final = (
    r"https?://[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*"
)
_NORMALIZED_NO_PORT: Final = re.compile(NORMALIZED_ORIGIN + "/" + NORMALIZED_PATH)
#: A ``%XX`` in normalized form: upper-case hex, and not an unreserved character's escape.
_NORMAL_ESCAPE: Final = re.compile(
    r"%(?!2[DE]|3[0-9]|4[1-9A-F]|5[0-9AF]|6[1-9A-F]|7[0-9AE])[0-9A-F]{2}"
)
_ANY_ESCAPE: Final = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: A URL this long or shorter fits the length rule however much XML escaping lengthens it (at
#: most six times, ``'`` becoming ``&apos;``).
NEVER_TOO_LONG: Final = MAX_LOC_LENGTH // 6


def _reject(value: object, rule: str, field: str = "loc") -> InvalidUrlError:
    return InvalidUrlError(field, value, rule)


def _encode(part: str, safe: str, ok: re.Pattern[str]) -> str:
    if ok.fullmatch(part):
        return part
    return quote(_LONE_PERCENT.sub("%25", part), safe=safe, encoding="utf-8")


#: Host parts up to this long (a DNS name has at most 253 characters) have their outcome
#: remembered, as a site's URLs name a few hosts many times over; memory stays bounded.
_REMEMBERED_HOST: Final = 255


def _normal_host(authority: str) -> tuple[str, str]:
    """The normalized host of the host part of an authority, and ``""``; or ``""`` and the rule
    it breaks."""
    if not authority:
        return "", "must have a host"
    if authority.startswith("["):
        end = authority.find("]")
        literal = authority[1:end] if end > 0 else ""
        try:
            return "[" + ipaddress.IPv6Address(literal).compressed + "]", ""
        except ValueError:
            return "", f"host [{literal}] is not a valid IPv6 address"
    if authority.isascii():
        host = authority.lower()
    else:
        import idna  # only an IDN host needs it: a cold start with ASCII hosts never loads it

        try:
            host = idna.encode(authority, uts46=True).decode("ascii").lower()
        except idna.IDNAError as exc:
            return "", f"host {authority!r} is not a valid IDN host name: {exc}"
    labels = host.split(".")
    if not all(_HOST_LABEL.fullmatch(label) for label in labels):
        return "", f"host {host!r} must be dot-separated labels of letters, digits, '-' and '_'"
    return host, ""


_remembered_host: Final = lru_cache(maxsize=1024)(_normal_host)


def _split_authority(raw: str, authority: str) -> tuple[str, str]:
    """Host part and port text (empty if none) of an authority without userinfo."""
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise _reject(raw, "IPv6 host must end with ']'")
        rest = authority[end + 1 :]
        if rest and not rest.startswith(":"):
            raise _reject(raw, "only a port may follow an IPv6 host")
        return authority[: end + 1], rest[1:]
    host, _, port = authority.partition(":")
    return host, port


def normal_url(raw: object, *, field: str = "loc") -> str:
    """:func:`~sitemap_updater.protocol.urls.normalize_url` without its cheap check: every value
    goes through the full parse."""
    url = normal_form(raw, field)
    length = len(url)
    if needs_escape(url):
        length = len(escape(url))
    if not MIN_LOC_LENGTH <= length <= MAX_LOC_LENGTH:
        escaped = "" if length == len(url) else f", {len(url)} before XML escaping"
        raise UrlLengthError(
            field,
            raw,
            f"must be {MIN_LOC_LENGTH} to {MAX_LOC_LENGTH} characters once normalized and "
            f"XML-escaped (it has {length}{escaped})",
        )
    return url


def already_normalized(url: str) -> bool:
    """Whether :func:`normalize_url` would return ``url`` itself, length rule included.

    The cheap check for the common case: a producer that sends URLs in normalized form (most
    do) costs one regular expression instead of the full parse. ``False`` only means "not sure":
    the full normalizer then decides, and names the rule a bad value breaks.
    """
    return (
        len(url) <= MAX_LOC_LENGTH
        and _NORMALIZED_NO_PORT.fullmatch(url) is not None
        and escapes_and_length_ok(url)
    )


def escapes_and_length_ok(url: str) -> bool:
    """The rest of :func:`already_normalized` once ``url`` has the normalized shape (scheme,
    plain host, the characters of :data:`NORMALIZED_PATH`): ``%`` only in ``%XX`` in normalized
    form, no dot segment in the path, and the length rule."""
    length = len(url)
    if length > MAX_LOC_LENGTH:
        return False
    if "%" in url and url.count("%") != len(_NORMAL_ESCAPE.findall(url)):
        return False
    if "/." in url and _has_dot_segment(url):
        return False
    if MIN_LOC_LENGTH <= length <= NEVER_TOO_LONG:
        return True
    return MIN_LOC_LENGTH <= xml_length(url) <= MAX_LOC_LENGTH


def check_text(raw: object, field: str) -> str:
    """``raw`` if it is a string a URL may be normalized from (see the module text)."""
    if not isinstance(raw, str):
        raise _reject(raw, "must be a string", field)
    if not raw:
        raise _reject(raw, "must not be empty", field)
    if len(raw) > MAX_URL_TEXT_LENGTH:  # before any parse, whose cost grows with the text
        raise UrlLengthError(
            field,
            raw,
            f"must be at most {MAX_URL_TEXT_LENGTH} characters as given, and {MAX_LOC_LENGTH} "
            f"once normalized and XML-escaped (it has {len(raw)})",
        )
    bad = _BAD_CHAR.search(raw)
    if bad is not None:
        raise _reject(
            raw,
            f"must not contain control characters or lone surrogates "
            f"(U+{ord(bad.group()):04X} at index {bad.start()})",
            field,
        )
    if raw[0].isspace() or raw[-1].isspace():
        raise _reject(raw, "must not begin or end with whitespace", field)
    return raw


def _scheme_and_rest(raw: str, field: str) -> tuple[str, str]:
    """The lowercased scheme, and what follows its ``//`` up to any fragment."""
    scheme_match = _SCHEME.match(raw)
    if scheme_match is None:
        raise _reject(raw, "must be an absolute http or https URL (no scheme found)", field)
    scheme = scheme_match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise _reject(raw, f"scheme {scheme!r} is not allowed: must be http or https", field)
    rest = raw[scheme_match.end() :]
    if not rest.startswith("//"):
        raise _reject(raw, "must be an absolute URL of the form scheme://host/path", field)
    return scheme, rest[2:].partition("#")[0]


def _port(raw: str, scheme: str, port_text: str, field: str) -> str:
    """The ``:port`` part of the normalized URL (empty for none or the scheme's default)."""
    if not port_text:
        return ""
    if not port_text.isascii() or not port_text.isdigit() or int(port_text) > 65535:
        raise _reject(raw, f"port {port_text!r} must be a number from 0 to 65535", field)
    return "" if int(port_text) == DEFAULT_PORTS[scheme] else ":" + str(int(port_text))


def normal_form(raw: object, field: str) -> str:
    """The normalized form of ``raw`` by the full parse, before the length rule; raises
    :class:`InvalidUrlError`."""
    text = check_text(raw, field)
    scheme, rest = _scheme_and_rest(text, field)
    cut = len(rest)
    for sep in "/?":
        pos = rest.find(sep)
        if 0 <= pos < cut:
            cut = pos
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        raise _reject(text, "must not contain user information (user:password@)", field)
    host_text, port_text = _split_authority(text, authority)
    normal = _remembered_host if len(host_text) <= _REMEMBERED_HOST else _normal_host
    host, broken = normal(host_text)
    if broken:
        raise _reject(text, broken, field)
    port = _port(text, scheme, port_text, field)
    path, question, query = tail.partition("?")
    path = remove_dot_segments(_normal_escapes(_encode(path, _PATH_SAFE, _PATH_OK))) or "/"
    url = f"{scheme}://{host}{port}{path}"
    if question:
        url += "?" + _normal_escapes(_encode(query, _QUERY_SAFE, _QUERY_OK))
    return url


def _normal_escape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else match.group().upper()


def _normal_escapes(part: str) -> str:
    """``part`` with upper-case hex in every ``%XX``, and unreserved characters decoded."""
    return _ANY_ESCAPE.sub(_normal_escape, part) if "%" in part else part


def remove_dot_segments(path: str) -> str:
    """``path`` (empty, or starting with ``/``) without ``.`` and ``..`` segments (RFC 3986
    section 5.2.4); a ``..`` above the root is dropped, and a path ending in a dot segment
    keeps its final ``/``."""
    if "/." not in path:
        return path
    segments = path.split("/")[1:]
    kept: list[str] = []
    for segment in segments:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    if segments[-1] in (".", ".."):
        kept.append("")
    return "/" + "/".join(kept)


#: Everything after the origin of a normalized URL: RFC 3986 path and query characters, ``%``
#: only as the start of a ``%XX`` escape, and no fragment (the writers' check of the values
#: they trust: it admits the spellings of earlier versions, which the table may still hold).
NORMALIZED_TAIL: Final = _QUERY_OK


def _has_dot_segment(url: str) -> bool:
    """Whether the path of a URL of the form ``scheme://host/path[?query]`` has a ``.`` or
    ``..`` segment."""
    path = url[url.index("/", url.index("//") + 2) :].partition("?")[0]
    return remove_dot_segments(path) != path


def xml_length(url: str) -> int:
    """Characters ``url`` takes once XML-escaped (a normalized URL holds no ``<``, ``>``, ``"``)."""
    return len(url) + 4 * url.count("&") + 5 * url.count("'")
