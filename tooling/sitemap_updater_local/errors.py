"""How a command ends: its exit codes, and the errors that end it with one line.

A command returns its exit code, or raises an error the entry point knows
(:func:`known_error`): :class:`CommandError`, a source that cannot be read, an operating-system
error (a path that cannot be used, a full disk), a worker process that died or, once botocore is
loaded, an AWS error. The entry point prints such an error as one line on stderr and exits with
its code; any other exception is a bug and keeps its traceback. The codes are listed in
``docs/cli.md``.
"""

from __future__ import annotations

import sys
from typing import Final

from sitemap_updater_local.inputs.source_records import EmptySource, SourceError

#: Done, nothing skipped.
EXIT_OK: Final = 0
#: Done, but some records or messages were skipped or not sent; each was reported.
EXIT_SKIPPED: Final = 1
#: Stopped: an argument, the input, the output or a service could not be used.
EXIT_UNUSABLE: Final = 2
#: Nothing read, or nothing kept (no record, message or file read; every one skipped; no live
#: URL left): the previous output, if any, is unchanged.
EXIT_EMPTY: Final = 3
#: Stopped by Ctrl-C (SIGINT), 128 + 2 as shells report it.
EXIT_INTERRUPTED: Final = 130
#: Stopped by SIGTERM (``kill``, a service manager, ``timeout``), 128 + 15.
EXIT_TERMINATED: Final = 143


class Terminated(BaseException):
    """SIGTERM, raised where the command is (as Ctrl-C raises ``KeyboardInterrupt``), so that
    the same clean-up runs: workers stopped, temporary files removed, previous output kept."""


class CommandError(Exception):
    """A command cannot go on; the message is its one line, ``exit_code`` its status."""

    def __init__(self, message: str, exit_code: int = EXIT_UNUSABLE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class NothingKept(CommandError):
    """Nothing was read, or nothing of it kept: the command ends with :data:`EXIT_EMPTY`, its
    previous output left as it was."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_EMPTY)


def describe_os_error(exc: OSError) -> str:
    """One line for an operating-system error: the path(s) it names and its reason."""
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return reason
    if exc.filename2 is not None:
        return f"{exc.filename} -> {exc.filename2}: {reason}"
    return f"{exc.filename}: {reason}"


def known_error(exc: Exception) -> tuple[str, int] | None:
    """The line and exit status a command ends with for ``exc``; ``None``: a bug."""
    if isinstance(exc, CommandError):
        return str(exc), exc.exit_code
    if isinstance(exc, EmptySource):
        return str(exc), EXIT_EMPTY
    if isinstance(exc, SourceError):
        return str(exc), EXIT_UNUSABLE
    if isinstance(exc, OSError):
        return describe_os_error(exc), EXIT_UNUSABLE
    # looked up, not imported: a command that never loads them need not pay for them
    aws = sys.modules.get("botocore.exceptions")
    if aws is not None and isinstance(exc, aws.BotoCoreError | aws.ClientError):
        return " ".join(str(exc).split()), EXIT_UNUSABLE
    pool = sys.modules.get("concurrent.futures.process")
    if pool is not None and isinstance(exc, pool.BrokenProcessPool):
        return "a worker process died (out of memory? try fewer --jobs)", EXIT_UNUSABLE
    return None
