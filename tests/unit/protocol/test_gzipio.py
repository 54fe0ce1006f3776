from __future__ import annotations

import gzip
import io
import random
import tracemalloc
import zlib

import pytest

from sitemap_updater.protocol.gzipio import (
    GZIP_HEADER,
    PIECE_BYTES,
    GzipOutput,
    InflateError,
    gzip_bytes,
    inflate,
    is_gzip,
)


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


def _written_in(data: bytes, sizes: list[int], level: int) -> bytes:
    sink = io.BytesIO()
    out = GzipOutput(sink, level)
    start = 0
    for size in [*sizes, len(data)]:
        out.write(data[start : start + size])
        start += size
        if start >= len(data):
            break
    out.close()
    return sink.getvalue()


@pytest.mark.parametrize("level", [1, 2, 6])
def test_output_does_not_depend_on_how_the_writes_are_cut(level: int) -> None:
    # varied text, several compressor pieces long; zlib-ng's level 1 ("quick") by itself gives
    # different bytes for different cuts, so this holds only because the input is re-cut
    rng = random.Random(level)
    words = [b"shoes", b"red", b"&amp;", b"<url><loc>", b"2026-01-02", b"/", b"?q="]
    data = b"".join(rng.choice(words) + str(rng.randint(0, 10**6)).encode() for _ in range(60_000))
    assert len(data) > 3 * PIECE_BYTES
    one_write = _written_in(data, [], level)
    assert gzip.decompress(one_write) == data
    cuts = [
        [1, PIECE_BYTES - 1, PIECE_BYTES + 1],
        [rng.randint(1, 3 * PIECE_BYTES) for _ in range(12)],
        [1000] * 400,
    ]
    for sizes in cuts:
        assert _written_in(data, sizes, level) == one_write


def test_inflate_refuses_a_bomb_without_inflating_it() -> None:
    bound = 1 << 20
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1 << 20)
    bomb = b"".join(packer.compress(chunk) for _ in range(256)) + packer.flush()  # 256 MiB
    assert len(bomb) < bound  # a small object
    tracemalloc.start()
    try:
        with pytest.raises(InflateError, match=f"past the bound of {bound} bytes"):
            inflate(bomb, bound)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * bound


def test_inflate_gives_back_a_member_within_the_bound_and_refuses_the_rest() -> None:
    assert inflate(gzip_bytes(b"<urlset/>"), 9) == b"<urlset/>"
    with pytest.raises(InflateError, match="not a gzip file"):
        inflate(b"\xff" * 40, 1000)
    with pytest.raises(InflateError, match="truncated"):
        inflate(gzip_bytes(b"x" * 5000)[:-12], 10_000)
