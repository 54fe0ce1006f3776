from __future__ import annotations

import gzip
import io

import pytest

from sitemap_updater.protocol.gzipio import GZIP_HEADER, GzipOutput, gzip_bytes, is_gzip


def test_gzip_bytes_round_trip_and_determinism() -> None:
    data = b"<urlset>" * 10_000
    out = gzip_bytes(data)
    assert gzip.decompress(out) == data
    assert out == gzip_bytes(data)
    assert out.startswith(GZIP_HEADER)
    assert is_gzip(out) and not is_gzip(data)


def test_streamed_chunks_equal_one_shot() -> None:
    data = bytes(range(256)) * 4000
    sink = io.BytesIO()
    out = GzipOutput(sink, 6)
    for i in range(0, len(data), 1000):
        out.write(data[i : i + 1000])
    out.close()
    assert gzip.decompress(sink.getvalue()) == data


def test_level_is_checked() -> None:
    with pytest.raises(ValueError, match="compresslevel"):
        GzipOutput(io.BytesIO(), 10)
