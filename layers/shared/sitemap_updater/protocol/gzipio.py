"""Deterministic gzip (RFC 1952): the same bytes in always give the same bytes out.

The header carries no file name, a zero mtime, ``XFL = 0`` and ``OS = 255`` (unknown), and the
deflate stream comes from zlib-ng (a maintained, faster implementation of zlib's deflate; plain
gzip to any reader). Whatever sizes the caller writes, the compressor is fed the data in pieces
of exactly :data:`PIECE_BYTES` (the last one shorter), so the output depends only on the data,
the level and the zlib-ng version, never on how the writes were cut. The rebuild compares the
sha256 of the gzip bytes to skip unchanged files (a new zlib-ng version may change the bytes,
and so rewrite every file once).
"""

from __future__ import annotations

import struct
from typing import BinaryIO, Final, Protocol

from zlib_ng import zlib_ng

#: Magic, CM=deflate, FLG=0, MTIME=0, XFL=0, OS=255.
GZIP_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
GZIP_MAGIC: Final = b"\x1f\x8b"
#: Chosen by measurement (the level table of benchmarks/bench_render.py, zlib-ng 2.x through
#: the zlib-ng package, sitemap XML of realistic entries): level 2 gives 17.05% of the
#: input at about 3x the speed of level 6 (13.94%) and 1.8x stock zlib's level 2 (17.20%);
#: level 1 is zlib-ng's "quick" strategy, 21.89% of the input, and level 3 takes about 30%
#: more time for 15.89%.
DEFAULT_COMPRESSLEVEL: Final = 2
#: The most memory for the compressor's state (a slightly smaller output than the default 8,
#: at the same speed).
MEM_LEVEL: Final = 9
#: Bytes the compressor is given per call (see the module docstring).
PIECE_BYTES: Final = 1 << 16


class ByteSink(Protocol):
    def write(self, data: bytes, /) -> object: ...


class GzipOutput:
    """Streams one gzip member into the sink; call :meth:`close` once to write the trailer.

    Writes of any size are handed to the compressor in pieces of exactly :data:`PIECE_BYTES`
    (straight from the written bytes, only a piece's start or end is copied to be completed
    by the next write)."""

    __slots__ = ("_crc", "_deflate", "_pending", "_sink", "_size")

    def __init__(
        self, sink: BinaryIO | ByteSink, compresslevel: int = DEFAULT_COMPRESSLEVEL
    ) -> None:
        if not 0 <= compresslevel <= 9:
            raise ValueError(f"compresslevel {compresslevel} must be from 0 to 9")
        self._sink = sink
        # raw deflate (negative wbits): this class writes the gzip header and trailer itself
        self._deflate = zlib_ng.compressobj(
            compresslevel, zlib_ng.DEFLATED, -zlib_ng.MAX_WBITS, MEM_LEVEL
        )
        self._crc = 0
        self._size = 0
        self._pending = bytearray()
        sink.write(GZIP_HEADER)

    def write(self, data: bytes) -> None:
        self._crc = zlib_ng.crc32(data, self._crc)
        self._size += len(data)
        pending = self._pending
        compress = self._deflate.compress
        out: list[bytes] = []
        with memoryview(data) as view:
            start = 0
            if pending:  # complete the piece begun by earlier writes
                start = min(PIECE_BYTES - len(pending), len(view))
                pending += view[:start]
                if len(pending) < PIECE_BYTES:
                    return
                out.append(compress(pending))
                pending.clear()
            end = len(view) - (len(view) - start) % PIECE_BYTES
            out += [compress(view[i : i + PIECE_BYTES]) for i in range(start, end, PIECE_BYTES)]
            pending += view[end:]
        compressed = b"".join(out)
        if compressed:
            self._sink.write(compressed)

    def close(self) -> None:
        out = self._deflate.compress(self._pending) + self._deflate.flush()
        self._pending.clear()
        self._sink.write(out)
        self._sink.write(struct.pack("<II", self._crc, self._size & 0xFFFFFFFF))


def gzip_bytes(data: bytes, compresslevel: int = DEFAULT_COMPRESSLEVEL) -> bytes:
    """``data`` as one deterministic gzip member."""
    chunks: list[bytes] = []
    out = GzipOutput(_ListSink(chunks), compresslevel)
    out.write(data)
    out.close()
    return b"".join(chunks)


class InflateError(ValueError):
    """Bytes that are not one whole gzip member, or that inflate past the bound."""


def inflate(data: bytes, max_bytes: int) -> bytes:
    """The text of the gzip member ``data``, refused (:class:`InflateError`) once it passes
    ``max_bytes``: a bomb costs at most ``max_bytes`` of memory, never its inflated size."""
    inflater = zlib_ng.decompressobj(16 + zlib_ng.MAX_WBITS)
    try:
        text = inflater.decompress(data, max_bytes + 1)
    except Exception as error:  # zlib_ng.error (its stub does not type it as an exception)
        raise InflateError(f"not a gzip file: {error}") from error
    if len(text) > max_bytes:
        raise InflateError(f"inflates past the bound of {max_bytes} bytes")
    if not inflater.eof:
        raise InflateError("not a gzip file: the stream is truncated")
    return text


def is_gzip(data: bytes) -> bool:
    return data[:2] == GZIP_MAGIC


class _ListSink:
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def write(self, data: bytes, /) -> int:
        self._chunks.append(data)
        return len(data)
