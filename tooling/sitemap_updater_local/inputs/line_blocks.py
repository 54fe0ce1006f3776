"""A stream read in blocks of whole lines, for the readers that work a block at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO


class LineBlocks:
    """Iterates over ``stream`` in blocks of about ``size`` bytes, each cut after its last line
    break (the final block may end without one). ``pending`` holds what has been read past the
    block last given, for a reader that stops and goes on by other means."""

    def __init__(self, stream: IO[bytes], size: int) -> None:
        self.stream = stream
        self.size = size
        self.pending = b""

    def __iter__(self) -> Iterator[bytes]:
        while True:
            data = self.stream.read(self.size)
            if not data:
                break
            data = self.pending + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                self.pending = data
                continue
            self.pending = data[cut:]
            yield data[:cut]
        if self.pending:
            last, self.pending = self.pending, b""
            yield last
