"""Opening a source: a local file or an http(s) URL, plain or gzip (told by its magic bytes).

A source is read within a :class:`SourcePolicy`: the origins its URLs may be fetched from (a
remote index's own origin, plus those named with ``--allow-origin``; redirects obey the same
rule), and caps on the bytes (uncompressed) and records read from it in total. Every refusal is
a :class:`SourceError` naming the URL or file and the rule.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Final, cast
from urllib.parse import urljoin, urlsplit

from sitemap_updater.protocol.gzipio import is_gzip
from sitemap_updater_local.inputs.source_records import EmptySource, SourceError

if TYPE_CHECKING:
    import urllib.request

#: Seconds to wait for a remote source before giving up.
HTTP_TIMEOUT: Final = 60.0
#: Seconds one fetch may take in all, the reading of the answer included (an overall deadline:
#: a server that sends a byte now and then cannot hold a run). A sitemap file of the protocol's
#: 50 MiB gets through at 175 kB/s.
FETCH_SECONDS: Final = 300.0
USER_AGENT: Final = "sitemap-updater-backfill/0.1"
#: The schemes a source or a child sitemap may use.
SCHEMES: Final = frozenset({"http", "https"})
#: Default caps on what one source gives in total (uncompressed bytes, records), raised with
#: ``--max-bytes`` and ``--max-records``. One sitemap file is capped lower, by the protocol's
#: 52,428,800 bytes (``xml_guard.RootProbe``).
MAX_SOURCE_BYTES: Final = 4 << 30
MAX_SOURCE_RECORDS: Final = 50_000_000
_CHUNK: Final = 1 << 16


class BudgetError(SourceError):
    """A source gave more than its caps allow: the whole run stops."""


@dataclass(slots=True)
class SourcePolicy:
    """What one source may read: extra origins, and the remaining byte and record budgets."""

    origins: frozenset[str] = frozenset()
    max_bytes: int = MAX_SOURCE_BYTES
    max_records: int = MAX_SOURCE_RECORDS
    bytes_read: int = 0
    records_read: int = 0
    #: the origin of the remote source itself, once it is known
    home: str | None = None
    #: the overall deadline of one fetch, in seconds
    fetch_seconds: float = FETCH_SECONDS
    seen: set[str] = field(default_factory=set)
    #: a bad single value of a page (``PROTOCOL_VALUES``) is left out with a warning, the page kept
    #: (false: the record is skipped, a problem)
    keep_page: bool = True

    def count_bytes(self, location: str, size: int) -> None:
        self.bytes_read += size
        if self.bytes_read > self.max_bytes:
            raise BudgetError(
                f"{location}: more than {self.max_bytes:,} bytes (uncompressed) read from one "
                "source: stopped (raise the cap with --max-bytes)"
            )

    def count_record(self, location: str) -> None:
        self.records_read += 1
        if self.records_read > self.max_records:
            raise BudgetError(
                f"{location}: more than {self.max_records:,} records read from one source: "
                "stopped (raise the cap with --max-records)"
            )

    def check_url(self, url: str, *, what: str = "URL") -> None:
        """Refuse a URL whose scheme is not http(s), or whose origin is neither the source's
        own nor one named with ``--allow-origin``."""
        scheme = urlsplit(url).scheme.lower()
        if scheme not in SCHEMES:
            raise SourceError(
                f"{url}: {what} refused: scheme {scheme or '(none)'!r} is not allowed "
                "(only http and https)"
            )
        origin = origin_of(url)
        if self.home is None:
            self.home = origin
        elif origin != self.home and origin not in self.origins:
            raise SourceError(
                f"{url}: {what} refused: origin {origin} is not the source's own ({self.home}); "
                "name it with --allow-origin to read it"
            )


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower case."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def is_url(location: str) -> bool:
    return urlsplit(location).scheme.lower() in SCHEMES


def _opener(policy: SourcePolicy) -> urllib.request.OpenerDirector:
    # imported here: urllib.request (http.client, ssl, email) is only needed for a URL
    import urllib.request

    from sitemap_updater.bounded_http import Deadline, opener

    class Redirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(
            self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
        ) -> Any:
            policy.check_url(newurl, what=f"redirect from {req.full_url}")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return opener(Deadline(policy.fetch_seconds), Redirects)


def _fetch(location: str, policy: SourcePolicy) -> IO[bytes]:
    import urllib.request

    policy.check_url(location)
    request = urllib.request.Request(location, headers={"User-Agent": USER_AGENT})
    return cast(IO[bytes], _opener(policy).open(request, timeout=HTTP_TIMEOUT))


class _Counted(io.RawIOBase):
    """The uncompressed bytes of a source, counted against its policy; a broken gzip stream
    becomes one :class:`SourceError`."""

    def __init__(self, stream: IO[bytes], location: str, policy: SourcePolicy) -> None:
        self._stream = stream
        self._location = location
        self._policy = policy

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._stream.read(min(len(buffer), _CHUNK))
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise SourceError(f"{self._location}: not a readable gzip file: {exc}") from exc
        self._policy.count_bytes(self._location, len(data))
        buffer[: len(data)] = data
        return len(data)


class SourceStream(io.BufferedReader):
    """The uncompressed bytes of a source; ``gzipped`` tells whether it was inflated."""

    gzipped = False


@contextmanager
def open_source(
    location: str, policy: SourcePolicy | None = None, *, refuse_empty: bool = False
) -> Iterator[SourceStream]:
    """The decompressed bytes of a file or URL, gzip detected by its magic bytes; with
    ``refuse_empty``, an empty source is refused (``backfill`` and ``validate``; what an empty
    export means to ``build`` is for ``build`` to say)."""
    policy = policy or SourcePolicy()
    scheme = urlsplit(location).scheme.lower()
    if "://" in location and scheme not in SCHEMES:
        raise SourceError(
            f"{location}: refused: scheme {scheme!r} is not allowed (only http and https)"
        )
    try:
        raw = _fetch(location, policy) if is_url(location) else open(location, "rb")  # noqa: SIM115
    except OSError as exc:  # urllib's URLError and HTTPError are OSErrors
        raise SourceError(f"{location}: cannot open: {exc}") from exc
    try:
        buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(cast(Any, raw))
        gzipped = is_gzip(buffered.peek(2))
        inner: IO[bytes] = (
            cast(IO[bytes], gzip.GzipFile(fileobj=buffered, mode="rb")) if gzipped else buffered
        )
        stream = SourceStream(_Counted(inner, location, policy), _CHUNK)
        stream.gzipped = gzipped
        if refuse_empty and not stream.peek(1):
            raise EmptySource(
                f"{location}: empty {'after gunzip' if gzipped else 'file'}: nothing to read"
            )
        yield stream
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
