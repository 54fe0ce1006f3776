"""Every way an input can break a sitemap rule, one class per failure, under one base.

An input error (:class:`SitemapError`) names the field, the offending value and the rule, so a
rejected change event can be dead-lettered with a reason a producer can act on.
"""

from __future__ import annotations

_MAX_SHOWN = 120


def show_value(value: object) -> str:
    """A one-line, bounded rendering of a rejected value (``repr`` escapes newlines)."""
    text = repr(value)
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 3] + "..."
    return text


class SitemapError(ValueError):
    """Base of every input error: ``field`` holds ``value``, which breaks ``rule``."""

    field: str
    value: object
    rule: str

    def __init__(self, field: str, value: object, rule: str) -> None:
        self.field = field
        self.value = value
        self.rule = rule
        super().__init__(f"{field}: {show_value(value)} is invalid: {rule}")

    def at(self, field: str) -> SitemapError:
        """The same error, reported for another field name (e.g. ``alternates[2].href``)."""
        return type(self)(field, self.value, self.rule)


class InvalidUrlError(SitemapError):
    """Not an absolute http(s) URL that can be normalized."""


class UrlLengthError(InvalidUrlError):
    """The normalized, XML-escaped URL is shorter than 12 or longer than 2,048 characters."""


class ForeignHostError(InvalidUrlError):
    """The URL is not on the site's scheme, host and port."""


class InvalidLastmodError(SitemapError):
    """Not a W3C date, or datetime with a zone, in the accepted range."""


class SitemapFullError(Exception):
    """Not an input error: one more file would push an index over ``limit``, ``"urls"`` (the
    files an index may list) or ``"bytes"``."""

    def __init__(self, limit: str, message: str) -> None:
        self.limit = limit
        super().__init__(message)


class EmptySitemapError(RuntimeError):
    """An index of no file: siteindex.xsd requires at least one ``<sitemap>``."""


class InvalidSectionError(SitemapError):
    """A section name is not a slug (``sitemap_updater.sections``)."""
