"""A stream read in blocks of whole lines, for the readers that work a block at a time.

A line longer than :data:`MAX_LINE_BYTES` is never held: its bytes are read on and dropped up
to its line break, and it comes out as one :class:`Overlong` in its place, for the reader to
report. So memory stays within a block and a line, and time linear in the bytes read, whatever
the input (a line of a gigabyte, or a file with no line break at all).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Final

#: Longest line of a JSONL or CSV source, line break included: four times the largest message
#: body the queue takes (256 KiB), so every line a producer could send fits.
MAX_LINE_BYTES: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class Overlong:
    """A line of ``length`` bytes (its line break included), over :data:`MAX_LINE_BYTES`,
    skipped unread."""

    length: int

    @property
    def reason(self) -> str:
        return f"line is longer than {MAX_LINE_BYTES:,} bytes ({self.length:,}), skipped"


class LineBlocks:
    """Iterates over ``stream`` in blocks of about ``size`` bytes, each cut after its last line
    break (the final block may end without one), with an :class:`Overlong` in place of each
    line over ``max_line`` bytes."""

    def __init__(self, stream: IO[bytes], size: int, max_line: int = MAX_LINE_BYTES) -> None:
        self.stream = stream
        # a line inside one read is then never over the bound: only a line across reads is
        self.size = min(size, max_line)
        self.max_line = max_line
        #: the start of the line in progress (no line break in it), in the pieces read
        self._parts: list[bytes] = []
        self._held = 0
        #: bytes of an overlong line skipped so far, or -1 when none is being skipped
        self._skipped = -1

    def __iter__(self) -> Iterator[bytes | Overlong]:
        read = self.stream.read
        while data := read(self.size):
            if self._skipped >= 0:
                end = data.find(b"\n")
                if end < 0:
                    self._skipped += len(data)
                    continue
                yield Overlong(self._skipped + end + 1)
                self._skipped = -1
                data = data[end + 1 :]
            yield from self._block(data)
        if self._skipped >= 0:
            yield Overlong(self._skipped)
        elif self._parts:
            yield self._take()

    def _block(self, data: bytes) -> Iterator[bytes | Overlong]:
        """The whole lines that ``data`` completes; keeps the line it starts."""
        cut = data.rfind(b"\n") + 1
        if cut and self._parts:
            first = data.find(b"\n") + 1
            if self._held + first > self.max_line:
                yield Overlong(self._held + first)
                self._parts, self._held = [], 0
                data, cut = data[first:], cut - first
            else:
                cut += self._held
                data = self._take() + data
        if cut:
            yield data[:cut]
        self._hold(data[cut:] if cut else data)

    def _hold(self, start: bytes) -> None:
        if not start:
            return
        self._parts.append(start)
        self._held += len(start)
        if self._held > self.max_line:
            self._skipped, self._parts, self._held = self._held, [], 0

    def _take(self) -> bytes:
        held, self._parts, self._held = b"".join(self._parts), [], 0
        return held


def split_lines(blocks: Iterable[bytes | Overlong]) -> Iterator[bytes | Overlong]:
    """Each line of ``blocks`` (cut after each ``\\n``, which it keeps), overlong ones as they
    are."""
    for block in blocks:
        if isinstance(block, Overlong):
            yield block
            continue
        start = 0
        while (end := block.find(b"\n", start) + 1) > 0:
            yield block[start:end]
            start = end
        if start < len(block):
            yield block[start:]
