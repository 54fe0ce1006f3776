"""The line blocks of a stream are its lines, in order, each line over the bound replaced by
one ``Overlong`` of its length, whatever the bytes, the read size and the bound."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater_local.inputs.line_blocks import LineBlocks, Overlong, split_lines
from tests.property.strategies import SETTINGS


def _reference(data: bytes, max_line: int) -> list[bytes | Overlong]:
    lines = [line + b"\n" for line in data.split(b"\n")]
    lines[-1] = lines[-1][:-1]  # after the last line break: what follows it, if anything
    if not lines[-1]:
        lines.pop()
    return [Overlong(len(line)) if len(line) > max_line else line for line in lines]


@SETTINGS
@given(
    st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r\n", b"x" * 7, b"\xff"]), max_size=60).map(
        b"".join
    ),
    st.integers(1, 12),
    st.integers(1, 12),
)
def test_blocks_are_the_lines_with_the_overlong_ones_replaced(
    data: bytes, size: int, max_line: int
) -> None:
    blocks = list(LineBlocks(io.BytesIO(data), size, max_line))
    assert list(split_lines(blocks)) == _reference(data, max_line)
    texts = [b for b in blocks if isinstance(b, bytes)]
    assert all(block.endswith(b"\n") for block in texts[:-1])
