"""The ``sitemap-updater`` command.

Each subcommand lives in its own module, named after it in ``commands/``, which defines
``add_arguments(parser)`` and ``run(args) -> int``; only the chosen one is imported. Every
command ends the same way (``errors``): a known error is one line on stderr and its exit
status, Ctrl-C is one line and 130, SIGTERM one line and 143; only a bug shows a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sitemap_updater_local.console import PROGRAM, command_line
from sitemap_updater_local.errors import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    known_error,
)

#: Each command's module is ``sitemap_updater_local.commands.<command>``.
COMMANDS: dict[str, str] = {
    "demo": "run the whole flow locally on an embedded AWS",
    "simulate": "replay wave files through the local system",
    "validate": "validate sitemap and index files or URLs",
    "build": "static build from a JSONL or CSV export",
    "send": "send JSONL changes to a real SQS queue",
    "backfill": "turn existing sitemaps/CSV/JSONL into changes",
    "redrive": "move dead-lettered messages back to the queue",
    "status": "show how a deployed stack is doing",
    "coverage": "show what search engines fetched, indexed and crawled, per section",
    "serve": "preview an output directory in the browser, on 127.0.0.1",
    "local": "keep a local deployment running on 127.0.0.1, for status, redrive and the rest",
    "where": "which file lists a URL, or should, and if none, why not",
}


def _usage() -> str:
    lines = [f"usage: {PROGRAM} COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<10} {help_text}" for name, help_text in COMMANDS.items()]
    lines += ["", f"Run '{PROGRAM} COMMAND --help' for the options of a command."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print(_usage())
        return 0 if args else 2
    if args[0] not in COMMANDS:
        print(f"{PROGRAM}: unknown command {args[0]!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    help_text = COMMANDS[args[0]]
    module = importlib.import_module(f"sitemap_updater_local.commands.{args[0]}")
    parser = argparse.ArgumentParser(prog=f"{PROGRAM} {args[0]}", description=help_text)
    module.add_arguments(parser)
    parsed = parser.parse_args(args[1:])
    with _sigterm_raised():
        try:
            return int(module.run(parsed))
        except KeyboardInterrupt:
            print(command_line(args[0], "interrupted"), file=sys.stderr)
            return EXIT_INTERRUPTED
        except Terminated:
            print(command_line(args[0], "terminated"), file=sys.stderr)
            return EXIT_TERMINATED
        except Exception as exc:
            ending = known_error(exc)
            if ending is None:
                raise
            print(command_line(args[0], ending[0]), file=sys.stderr)
            return ending[1]


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextmanager
def _sigterm_raised() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the command (only the main thread can say so)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def entry() -> None:
    """The ``sitemap-updater`` program: :func:`main`, then its exit status. A command stopped
    by Ctrl-C or SIGTERM has already ended its worker processes and cleaned up after itself;
    its process then ends at once, without waiting for the threads that watched those workers
    (one may wait forever on a result a killed worker had half written)."""
    code = main()
    if code in {EXIT_INTERRUPTED, EXIT_TERMINATED}:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
