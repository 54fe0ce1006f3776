"""Sections: the named groups of a site's URLs, each published in files of its own.

A URL's section is a slug of 1 to :data:`MAX_SECTION_LEN` characters, each ``a-z``, ``0-9`` or
``-``; it names the section's files (``sitemap-<section>-<shard>.xml.gz``). A change may name
its section (the change object's ``section`` field); a URL without one is in
:data:`DEFAULT_SECTION`.
"""

from __future__ import annotations

import re
from typing import Final

from sitemap_updater.protocol.errors import InvalidSectionError

#: Most characters of a section name.
MAX_SECTION_LEN: Final = 32
#: The characters of a section name, as a regular expression (the JSON Schema's pattern).
SECTION_CHARS: Final = "[a-z0-9-]"
#: A whole section name (``SECTION_PATTERN.fullmatch``).
SECTION_PATTERN: Final = re.compile(f"{SECTION_CHARS}{{1,{MAX_SECTION_LEN}}}")
#: The section of a URL that names none and that no rule places.
DEFAULT_SECTION: Final = "pages"
#: The rule a section name must follow, in words.
SECTION_RULE: Final = (
    f"must be a slug of 1 to {MAX_SECTION_LEN} characters, each a lowercase letter a-z, "
    "a digit 0-9 or '-'"
)


def is_section(value: object) -> bool:
    """Whether ``value`` is a valid section name."""
    return type(value) is str and SECTION_PATTERN.fullmatch(value) is not None


def check_section(value: object, field: str = "section") -> str:
    """``value`` if it is a valid section name; else :class:`InvalidSectionError` naming
    ``field``, the value and the rule."""
    if not is_section(value):
        raise InvalidSectionError(field, value, SECTION_RULE)
    return str(value)
