"""One output file replaced atomically: written under a unique temporary name beside it, then
moved over it.

The temporary file is made by ``tempfile`` (``O_CREAT | O_EXCL``, a random name), so a symlink
planted beside the output is never followed, and ``os.replace`` swaps the name in one step (a
symlink at the output's name is itself replaced, not followed). Until :meth:`ReplacedFile.commit`,
the previous file stays as it was; leaving the context without committing removes the
temporary file.
"""

from __future__ import annotations

import os
import tempfile
from typing import IO, Self

from sitemap_updater_local.errors import CommandError


def same_file(first: str, second: str) -> bool:
    """Whether both paths name one existing file (links and ``..`` resolved)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def refuse_same_file(source: str, out: str, option: str = "--out") -> None:
    """Raise :class:`CommandError` when writing ``out`` would overwrite the input ``source``."""
    if same_file(source, out):
        raise CommandError(f"{option} {out} is the input file {source}; write to another file")


def _new_file_mode(path: str) -> int:
    """The mode the output gets: the previous file's, else what ``open`` would give."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


class ReplacedFile:
    """A text file written beside ``path``; :meth:`commit` puts it in ``path``'s place."""

    def __init__(self, path: str) -> None:
        self.path = path
        directory, name = os.path.split(os.path.abspath(path))
        self._mode = _new_file_mode(path)
        self._file: IO[str] = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in commit/exit)
            "w", encoding="utf-8", dir=directory, prefix=f".{name}.", suffix=".tmp", delete=False
        )
        self._done = False

    @property
    def stream(self) -> IO[str]:
        return self._file

    def commit(self) -> None:
        """Write the file out to disk and move it over ``path``."""
        self._file.flush()
        os.fsync(self._file.fileno())
        os.fchmod(self._file.fileno(), self._mode)
        self._file.close()
        os.replace(self._file.name, self.path)
        self._done = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._done:
            self._file.close()
            os.unlink(self._file.name)


def open_replaced(path: str) -> ReplacedFile:
    """:class:`ReplacedFile` for ``path``; a path that cannot take it is one clear error, before
    any work is done."""
    if os.path.isdir(path):
        raise CommandError(f"cannot write {path}: it is a directory")
    try:
        return ReplacedFile(path)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from exc
