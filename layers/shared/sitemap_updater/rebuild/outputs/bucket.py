"""S3 writes of the published objects, with the headers from docs/architecture.md ("Objects").

The ``.xml.gz`` files are gzip files, not gzip transfer encoding, so they carry no
``Content-Encoding``: a client gets exactly the bytes whose hash the rebuild compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from sitemap_updater.indexnow import KEY_FILE_PREFIX
from sitemap_updater.protocol.limits import MAX_READ_BACK_BYTES
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME
from sitemap_updater.protocol.urlset import PublishedFormatError
from sitemap_updater.store.keys import ROBOTS_KEY
from sitemap_updater.store.spaces import index_number_of
from sitemap_updater.view import VIEW_NAMES

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client


@dataclass(frozen=True, slots=True)
class ObjectKind:
    content_type: str
    cache_control: str


#: Every object keeps its name and is rewritten in place, so its max-age bounds how stale an edge
#: copy can be; with no invalidation that is the freshness (docs/cost-and-freshness.md). Ten
#: seconds: an edge and a regional cache together add at most 20 s to a change's way to a crawler,
#: and a crawler's fetch still reaches S3 at most once in 10 s per object and edge.
MAX_AGE_SECONDS: Final = 10
INDEX: Final = ObjectKind("application/xml; charset=utf-8", f"public, max-age={MAX_AGE_SECONDS}")
SHARD_FILE: Final = ObjectKind("application/gzip", f"public, max-age={MAX_AGE_SECONDS}")
ROBOTS: Final = ObjectKind("text/plain; charset=utf-8", "public, max-age=3600")
KEY_FILE: Final = ObjectKind("text/plain; charset=utf-8", "public, max-age=3600")
#: The XSLT media type (RFC 3023's ``+xml`` form, registered with IANA): browsers load a
#: stylesheet only when it is served as XML, which ``+xml`` types are.
STYLESHEET: Final = ObjectKind("application/xslt+xml; charset=utf-8", "public, max-age=3600")
#: The view's page, script and style (``sitemap_updater.view``): put once per version of the
#: view; five minutes bounds how long an edge may pair a new page with an old script.
VIEW_MAX_AGE: Final = "public, max-age=300"
VIEW_KINDS: Final = {
    ".html": ObjectKind("text/html; charset=utf-8", VIEW_MAX_AGE),
    ".js": ObjectKind("text/javascript; charset=utf-8", VIEW_MAX_AGE),
    ".css": ObjectKind("text/css; charset=utf-8", VIEW_MAX_AGE),
}


def kind_of(key: str) -> ObjectKind:
    """Headers of the object stored under ``key`` (at the bucket root or a host's prefix)."""
    name = key[key.rfind("/") + 1 :]
    if index_number_of(key) is not None:
        return INDEX
    if key == ROBOTS_KEY:
        return ROBOTS
    if name == STYLESHEET_NAME:
        return STYLESHEET
    if name in VIEW_NAMES:
        return VIEW_KINDS[name[name.rfind(".") :]]
    if name.startswith("sitemap-") and name.endswith(".xml.gz"):
        return SHARD_FILE
    if name.startswith(KEY_FILE_PREFIX) and name.endswith(".txt"):
        return KEY_FILE
    raise ValueError(f"object key {key!r} is not one the rebuild publishes")


def robots_txt(index_urls: Sequence[str]) -> bytes:
    """A robots.txt that only points crawlers at the sitemap indexes (robots.txt ``Sitemap:``)."""
    return "".join(f"Sitemap: {url}\n" for url in index_urls).encode()


def read_bounded(s3: S3Client, bucket: str, key: str, max_bytes: int) -> bytes | None:
    """The object under ``key``, or None if there is none; at most ``max_bytes`` are read, and a
    larger object raises :class:`PublishedFormatError` (whoever can write to the bucket must
    not be able to fill the function's memory)."""
    try:
        response = s3.get_object(Bucket=bucket, Key=key)
    except s3.exceptions.NoSuchKey:
        return None
    stream = response["Body"]
    try:
        if response.get("ContentLength", 0) > max_bytes:
            raise PublishedFormatError(f"{key} is larger than {max_bytes} bytes")
        body = stream.read(max_bytes + 1)
    finally:
        stream.close()
    if len(body) > max_bytes:
        raise PublishedFormatError(f"{key} is larger than {max_bytes} bytes")
    return body


class Publisher:
    """Puts and deletes the sitemap objects of one bucket."""

    def __init__(self, s3: S3Client, bucket: str) -> None:
        self._s3 = s3
        self._bucket = bucket

    def put(self, key: str, body: bytes) -> None:
        kind = kind_of(key)
        self._s3.put_object(
            Bucket=self._bucket,
            Key=key,
            Body=body,
            ContentType=kind.content_type,
            CacheControl=kind.cache_control,
        )

    def get(self, key: str) -> bytes | None:
        """The published object under ``key``, or None if there is none; raises
        :class:`PublishedFormatError` for one larger than :data:`MAX_READ_BACK_BYTES`, which the
        rebuild never wrote (read no further than the bound)."""
        kind_of(key)  # only ever reads objects the rebuild owns
        return read_bounded(self._s3, self._bucket, key, MAX_READ_BACK_BYTES)

    def delete(self, key: str) -> None:
        kind_of(key)  # only ever deletes objects the rebuild owns
        self._s3.delete_object(Bucket=self._bucket, Key=key)
