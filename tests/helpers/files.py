"""Published files made in tests from judged pages, through the layer's own renderer and frame."""

from __future__ import annotations

from collections.abc import Iterable

from sitemap_updater.page.model import Page
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.urlset import urlset_of


def urlset_file(pages: Iterable[Page], *, stylesheet: bool = False) -> bytes:
    """The gzipped urlset of ``pages``, in the order given."""
    fragments = [url_element(page).encode("utf-8") for page in pages]
    return gzip_bytes(urlset_of(fragments, stylesheet=stylesheet))
