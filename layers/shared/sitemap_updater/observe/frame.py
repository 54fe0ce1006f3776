"""The sampling frame: what the last publish lists, per host and section, read back from S3.

The publish record (``meta``/``published``) lists every file with its lastmod and URL count; a
section's files are found by their key (``store.spaces``). A file is read back as the rebuild
reads it to patch it (``protocol.render.fragments``): cut at the writer's own markup, no XML
parser, so a published file is never trusted further than the writer's format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitemap_updater.observe.sampling import Listed, lastmod_seconds
from sitemap_updater.protocol.render.fragments import fragment_loc, fragments_of
from sitemap_updater.rebuild.render import newest_lastmod
from sitemap_updater.rebuild.state.published import PublishedRecord
from sitemap_updater.store.keys import INDEX_KEY
from sitemap_updater.store.spaces import Layout, key_prefix_of, section_of_file

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client


@dataclass(frozen=True, slots=True)
class HostFrame:
    """One host: its origin, its index's key and URL (None before its first publish), and
    each section's files (key -> (lastmod, URL count))."""

    origin: str
    index_key: str
    index_url: str | None
    sections: Mapping[str, Mapping[str, tuple[str | None, int]]]

    def published(self, section: str) -> int:
        return sum(count for _, count in self.sections.get(section, {}).values())


def frames(record: PublishedRecord | None, layout: Layout) -> list[HostFrame]:
    """Each listed host's frame, in list order."""
    listing = (record.listing() if record else None) or {}
    out = []
    for prefix, site in layout.prefixes().items():
        sections: dict[str, dict[str, tuple[str | None, int]]] = {}
        for key, entry in listing.items():
            section = section_of_file(key)
            if section is not None and key_prefix_of(key) == prefix:
                sections.setdefault(section, {})[key] = entry
        index_key = f"{prefix}{INDEX_KEY}"
        written = record is not None and record.sha256_of(index_key) is not None
        out.append(
            HostFrame(
                origin=site.origin,
                index_key=index_key,
                index_url=layout.url_of(index_key) if written else None,
                sections=sections,
            )
        )
    return out


def read_listed(s3: S3Client, bucket: str, key: str) -> list[Listed]:
    """The URLs a published file lists, each with its lastmod."""
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    return [
        Listed(fragment_loc(fragment), lastmod_seconds(newest_lastmod(fragment)))
        for fragment in fragments_of(body)
    ]
