"""Lines written to a text file a batch at a time, instead of one write call each."""

from __future__ import annotations

from typing import IO, Final

#: Lines written to the file at a time.
WRITE_BATCH: Final = 4096


class LineWriter:
    """Writes lines to a text file in batches; :meth:`flush` writes what is left."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lines: list[str] = []

    def add(self, url: str, line: str) -> None:
        """One line (without its line break); ``url``: the page it is about (unused here, so
        that the writer can stand where a queue's sender stands)."""
        lines = self._lines
        lines.append(line)
        if len(lines) >= WRITE_BATCH:
            self.flush()

    def flush(self) -> None:
        if self._lines:
            self._out.write("\n".join(self._lines) + "\n")
            self._lines.clear()
