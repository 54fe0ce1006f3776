"""Sections: which group of a host's files a URL's entry is published in (docs/configuration.md).

A section is a slug of 1 to 32 characters in ``[a-z0-9-]``. A change may name its section; one
that does not is placed by the deployment's ordered path-prefix rules (``SECTION_RULES``, for
example ``/p/=products,/blog/=articles``: the first rule whose prefix the URL's path starts with
wins), and a URL no rule places is in ``pages``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from sitemap_updater.protocol.errors import SitemapError

MAX_SECTION_LEN: Final = 32
SECTION_PATTERN: Final = re.compile(r"[a-z0-9-]{1,32}")
SECTION_RULE_TEXT: Final = f"must be 1 to {MAX_SECTION_LEN} characters of a-z, 0-9 and '-'"
DEFAULT_SECTION: Final = "pages"


class InvalidSectionError(SitemapError):
    """A section name that is not a slug of 1 to 32 characters in ``[a-z0-9-]``."""


class SectionRuleError(SitemapError):
    """A path-prefix rule that is not ``/prefix=section``."""


def check_section(value: object, field: str = "section") -> str:
    """``value`` if it is a section slug; else :class:`InvalidSectionError`."""
    if type(value) is not str or SECTION_PATTERN.fullmatch(value) is None:
        raise InvalidSectionError(field, value, SECTION_RULE_TEXT)
    return value


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
