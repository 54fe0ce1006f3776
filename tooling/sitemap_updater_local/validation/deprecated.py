"""The tags and attributes Google deprecated in its sitemap extensions: Google ignores them, so
``validate`` warns of each (once per file, with a count and the line it first appears on) and
takes it out of an entry before the entry is judged and checked against the XSDs, rather than
failing the file for it.

The lists are Google's announcement of May 2022 for image and video sitemaps
(https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions) and the
News tags its News sitemap documentation dropped; the News and video ones are those the page
declares (``page.model``), which a producer's change is refused for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from lxml import etree

from sitemap_updater.page.model import (
    DEPRECATED_IMAGE_TAGS,
    DEPRECATED_NEWS_TAGS,
    DEPRECATED_VIDEO_TAGS,
)
from sitemap_updater.protocol.limits import IMAGE_NS, NEWS_NS, VIDEO_NS
from sitemap_updater_local.validation.report import Finding, line_of

#: The deprecated video tags that are attributes of ``<video:player_loc>``.
_PLAYER_ATTRIBUTES: Final = ("allow_embed", "autoplay")
#: Every deprecated tag, by its ``{namespace}name``, with its short name.
_TAGS: Final = {
    **{f"{{{IMAGE_NS}}}{name}": f"image:{name}" for name in DEPRECATED_IMAGE_TAGS},
    **{f"{{{NEWS_NS}}}{name}": f"news:{name}" for name in DEPRECATED_NEWS_TAGS},
    **{
        f"{{{VIDEO_NS}}}{name}": f"video:{name}"
        for name in DEPRECATED_VIDEO_TAGS
        if name not in _PLAYER_ATTRIBUTES
    },
}
_PLAYER_LOC: Final = f"{{{VIDEO_NS}}}player_loc"


@dataclass
class Deprecated:
    """The deprecated tags and attributes found in one file: how often, and first where."""

    counts: dict[str, int] = field(default_factory=dict)
    first_lines: dict[str, int | None] = field(default_factory=dict)

    def _found(self, name: str, line: int | None) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
        self.first_lines.setdefault(name, line)

    def take_out(self, batch: etree._Element) -> None:
        """Remove every deprecated tag and attribute from the entries of ``batch``, counting
        each by its short name (``news:keywords``, ``video:player_loc@allow_embed``)."""
        for element in list(batch.iter(*_TAGS)):
            parent = element.getparent()
            if parent is not None:
                self._found(_TAGS[str(element.tag)], line_of(element))
                parent.remove(element)
        for player in batch.iter(_PLAYER_LOC):
            for name in _PLAYER_ATTRIBUTES:
                if name in player.attrib:
                    self._found(f"video:player_loc@{name}", line_of(player))
                    del player.attrib[name]

    def warnings(self) -> list[Finding]:
        """One warning per deprecated tag or attribute found, at its first line."""
        return [
            Finding(
                self.first_lines[name],
                f"{name} in {count:,} place{'s' if count > 1 else ''}: Google deprecated it in "
                "2022 and ignores it (remove it; it was not checked)",
            )
            for name, count in sorted(self.counts.items())
        ]
