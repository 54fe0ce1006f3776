"""Deterministic gzip (RFC 1952): the same bytes in always give the same bytes out.

The header carries no file name, a zero mtime, ``XFL = 0`` and ``OS = 255`` (unknown), so the
output depends only on the data, the level and the zlib build. The rebuild compares the sha256
of the gzip bytes to skip unchanged files.
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO, Final, Protocol

#: Magic, CM=deflate, FLG=0, MTIME=0, XFL=0, OS=255.
GZIP_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
GZIP_MAGIC: Final = b"\x1f\x8b"
#: Chosen by measurement (benchmarks/bench_render.py, zlib 1.2.13, sitemap XML of realistic
#: entries): level 2 gives 17.2% of the input against 18.3% at level 1, 14.8% at level 5 and
#: 14.1% at level 6, while compressing at about 85-90% of level 1's speed (level 5: about 40%).
#: Python rendering costs about as much as level-1 compression, so a faster level would raise
#: the ratio to zlib alone and a slower one would cut entries per second.
DEFAULT_COMPRESSLEVEL: Final = 2


class ByteSink(Protocol):
    def write(self, data: bytes, /) -> object: ...


class PlainOutput:
    """Writes bytes to the sink unchanged."""

    def __init__(self, sink: BinaryIO | ByteSink) -> None:
        self._sink = sink

    def write(self, data: bytes) -> None:
        self._sink.write(data)

    def close(self) -> None:
        return None


class GzipOutput:
    """Streams one gzip member into the sink; call :meth:`close` once to write the trailer."""

    def __init__(
        self, sink: BinaryIO | ByteSink, compresslevel: int = DEFAULT_COMPRESSLEVEL
    ) -> None:
        if not 0 <= compresslevel <= 9:
            raise ValueError(f"compresslevel {compresslevel} must be from 0 to 9")
        self._sink = sink
        self._deflate = zlib.compressobj(compresslevel, zlib.DEFLATED, -zlib.MAX_WBITS, 9)
        self._crc = 0
        self._size = 0
        sink.write(GZIP_HEADER)

    def write(self, data: bytes) -> None:
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        out = self._deflate.compress(data)
        if out:
            self._sink.write(out)

    def close(self) -> None:
        self._sink.write(self._deflate.flush())
        self._sink.write(struct.pack("<II", self._crc, self._size & 0xFFFFFFFF))


#: Bytes of text buffered before it is encoded and compressed in one call.
FLUSH_BYTES: Final = 1 << 18


class TextBuffer:
    """Collects text fragments and hands them to the output encoded, in large chunks."""

    __slots__ = ("_out", "_parts", "_pending")

    def __init__(self, out: GzipOutput | PlainOutput) -> None:
        self._out = out
        self._parts: list[str] = []
        self._pending = 0

    def append(self, text: str, size: int) -> None:
        """Queue ``text``, whose UTF-8 encoding is ``size`` bytes."""
        self._parts.append(text)
        self._pending += size
        if self._pending >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self._parts:
            self._out.write("".join(self._parts).encode("utf-8"))
            self._parts.clear()
            self._pending = 0


def utf8_len(text: str) -> int:
    """Exact UTF-8 size of ``text``."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def gzip_bytes(data: bytes, compresslevel: int = DEFAULT_COMPRESSLEVEL) -> bytes:
    """``data`` as one deterministic gzip member."""
    chunks: list[bytes] = []
    out = GzipOutput(_ListSink(chunks), compresslevel)
    out.write(data)
    out.close()
    return b"".join(chunks)


def is_gzip(data: bytes) -> bool:
    return data[:2] == GZIP_MAGIC


class _ListSink:
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def write(self, data: bytes, /) -> int:
        self._chunks.append(data)
        return len(data)
