"""Ctrl-C for a child command, wherever the suite runs.

A shell without job control (``sh -c 'make test' &``, a CI runner's) starts its background
commands with SIGINT ignored, and every process they start inherits that: Python then never
raises ``KeyboardInterrupt``. A test that stops a command with SIGINT starts it with
``preexec_fn=default_interrupt``, so that the command meets Ctrl-C as it does on a terminal.
"""

from __future__ import annotations

import signal


def default_interrupt() -> None:
    """In the child, before the command starts: SIGINT takes its default action again."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
