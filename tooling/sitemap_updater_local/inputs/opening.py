"""Opening a source: a local file or an http(s) URL, plain or gzip (told by its magic bytes)."""

from __future__ import annotations

import gzip
import io
import os
import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Final, cast
from urllib.parse import urljoin, urlsplit

from sitemap_updater.protocol.gzipio import is_gzip
from sitemap_updater_local.inputs.records import SourceError

#: Seconds to wait for a remote source before giving up.
HTTP_TIMEOUT: Final = 60.0
USER_AGENT: Final = "sitemap-updater-backfill/0.1"


def is_url(location: str) -> bool:
    return urlsplit(location).scheme.lower() in {"http", "https"}


def _fetch(location: str) -> IO[bytes]:
    # imported here: urllib.request (http.client, ssl, email) is only needed for a URL
    import urllib.request

    request = urllib.request.Request(location, headers={"User-Agent": USER_AGENT})
    return cast(IO[bytes], urllib.request.urlopen(request, timeout=HTTP_TIMEOUT))


@contextmanager
def open_source(location: str) -> Iterator[IO[bytes]]:
    """The decompressed bytes of a file or URL, gzip detected by its magic bytes."""
    try:
        raw = _fetch(location) if is_url(location) else open(location, "rb")  # noqa: SIM115
    except OSError as exc:  # urllib's URLError and HTTPError are OSErrors
        raise SourceError(f"{location}: cannot open: {exc}") from exc
    try:
        buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(cast(Any, raw))
        if is_gzip(buffered.peek(2)):
            with gzip.GzipFile(fileobj=buffered, mode="rb") as unzipped:
                yield cast(IO[bytes], unzipped)
        else:
            yield cast(IO[bytes], buffered)
    finally:
        raw.close()


def child_location(index_location: str, child_loc: str) -> str:
    """Where to read a child sitemap listed by an index.

    Relative to the index URL when the index was fetched; for a local index, the file with the
    child's last path segment in the index file's directory.
    """
    if is_url(index_location):
        return urljoin(index_location, child_loc)
    segment = posixpath.basename(urlsplit(child_loc).path)
    return os.path.join(os.path.dirname(index_location), segment)
