"""Sections: the named groups of a site's URLs, each published in files of its own.

A URL's section is a slug of 1 to :data:`MAX_SECTION_LEN` characters, each ``a-z``, ``0-9`` or
``-``; it names the section's files (``sitemap-<section>-<shard>.xml.gz``). A change may name
its section (the change object's ``section`` field); one that does not is placed by the
deployment's ordered path-prefix rules (``SECTION_RULES``, for example
``/p/=products,/blog/=articles``: the first rule whose prefix the URL's path starts with wins),
and a URL no rule places is in :data:`DEFAULT_SECTION`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from sitemap_updater.protocol.errors import InvalidSectionError, SitemapError

#: Most characters of a section name.
MAX_SECTION_LEN: Final = 32
#: The characters of a section name, as a regular expression (the JSON Schema's pattern).
SECTION_CHARS: Final = "[a-z0-9-]"
#: A whole section name (``SECTION_PATTERN.fullmatch``).
SECTION_PATTERN: Final = re.compile(f"{SECTION_CHARS}{{1,{MAX_SECTION_LEN}}}")
#: The section of a URL that names none and that no rule places.
DEFAULT_SECTION: Final = "pages"
#: Most sections a host has by default (``MAX_SECTIONS_PER_HOST``, ``store.spaces.Placement``):
#: its default section, its rules' and those its changes name, until it has this many.
DEFAULT_MAX_SECTIONS_PER_HOST: Final = 100
#: The largest cap a deployment may set.
MAX_SECTIONS_PER_HOST: Final = 1000
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


class SectionRuleError(SitemapError):
    """A path-prefix rule that is not ``/prefix=section``."""


@dataclass(frozen=True, slots=True)
class SectionRules:
    """Ordered (path prefix, section) rules; the first whose prefix a path starts with wins."""

    rules: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str, field: str = "SECTION_RULES") -> SectionRules:
        """Rules from ``"/p/=products,/blog/=articles"`` (empty text: no rule)."""
        rules: list[tuple[str, str]] = []
        for position, raw in enumerate(part.strip() for part in text.split(",")):
            if not raw:
                if text.strip():
                    raise SectionRuleError(f"{field}[{position}]", raw, "must not be empty")
                continue
            prefix, sep, section = raw.rpartition("=")
            if not sep or not prefix.startswith("/"):
                raise SectionRuleError(f"{field}[{position}]", raw, "must be /path-prefix=section")
            if any(prefix == seen for seen, _ in rules):
                raise SectionRuleError(f"{field}[{position}]", raw, "repeats an earlier prefix")
            rules.append((prefix, check_section(section.strip(), f"{field}[{position}]")))
        return cls(tuple(rules))

    def section_of(self, path: str, named: str | None = None) -> str:
        """The section of a URL whose path (from its first ``/``) is ``path``: ``named`` (the
        change's own) if given, else the first rule's that matches, else ``pages``."""
        if named is not None:
            return named
        for prefix, section in self.rules:
            if path.startswith(prefix):
                return section
        return DEFAULT_SECTION

    def text(self) -> str:
        """The rules in their setting's form (what ``parse`` reads)."""
        return ",".join(f"{prefix}={section}" for prefix, section in self.rules)
