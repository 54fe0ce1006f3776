"""The hreflang rule, the one check of every reader and writer of alternates.

An hreflang is ``x-default`` or a BCP 47 language tag (RFC 5646, section 2.1): a language
subtag (2 or 3 letters, with up to three extended subtags, or 5 to 8 letters), then optionally a
script (4 letters), a region (2 letters or 3 digits), variants, extensions and a private-use part,
in that order and separated by ``-``, in any case. Its language subtag must be registered: one of
the language subtags of the IANA Language Subtag Registry (``subtags.txt``, the ISO 639 codes and
the registry's own), as the ``langcodes`` package knows them, so ``english`` or ``jp`` is refused
while ``en``, ``en-GB``, ``zh-Hant-TW`` and ``de-CH-1996`` pass. Script, region and variant codes
are checked for their form only. The grandfathered tags of the registry (``i-klingon``) and tags
of a private-use part alone (``x-whatever``) are refused: Google's hreflang takes neither, and
``x-default`` is the one such value it defines.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from typing import Final


@cache
def languages() -> frozenset[str]:
    """Every registered language subtag, lowercase, from ``subtags.txt`` (read on first use: a
    function that never sees an alternate never pays for it at its start)."""
    text = files(__package__).joinpath("subtags.txt").read_text(encoding="ascii")
    return frozenset(line for line in text.splitlines() if not line.startswith("#"))


#: A well-formed BCP 47 language tag (RFC 5646 ``langtag``), its language subtag as a group.
_LANGTAG: Final = re.compile(
    r"(?P<language>[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{5,8})"
    r"(?:-[A-Za-z]{4})?"  # script
    r"(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"  # region
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"  # variants
    r"(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"  # extensions
    r"(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?"  # private use
)
DEFAULT: Final = "x-default"
#: The rule a refused hreflang breaks.
RULE: Final = (
    "must be a BCP 47 language tag whose language is registered (ISO 639), such as 'de', "
    "'en-GB' or 'zh-Hant', or 'x-default'"
)
#: Values judged so far (a site's hreflangs are few and repeat), emptied when it is this full.
_MOST_KNOWN: Final = 4096
_known: dict[str, bool] = {}


def _judge(value: str) -> bool:
    if value == DEFAULT:
        return True
    match = _LANGTAG.fullmatch(value)
    return match is not None and match["language"].split("-", 1)[0].lower() in languages()


def is_hreflang(value: str) -> bool:
    """Whether ``value`` is ``x-default`` or a language tag with a registered language."""
    known = _known.get(value)
    if known is None:
        if len(_known) >= _MOST_KNOWN:
            _known.clear()
        known = _known[value] = _judge(value)
    return known


def hreflang_rule(value: object) -> str:
    """The rule a refused hreflang ``value`` breaks, naming an unregistered language."""
    if isinstance(value, str):
        match = _LANGTAG.fullmatch(value)
        if match is not None:
            language = match["language"].split("-", 1)[0]
            return f"language {language!r} is not a registered language subtag: {RULE}"
    return RULE
