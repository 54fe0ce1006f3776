"""Wave files: the messages ``simulate`` replays, one a non-empty line, and what becomes of
them on the way: a change without a time given its place in the wave, as ``build`` gives a line
of a file its place (``page.order.file_time``), and a dead letter traced back to its line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from sitemap_updater.ingest.judge import is_event
from sitemap_updater.page.order import instant_text


def read_wave(path: Path) -> list[str]:
    """The message bodies of a wave file: one per non-empty line, exactly as written."""
    return [body for _, body in wave_lines(path)]


def wave_lines(path: Path) -> list[tuple[int, str]]:
    """The non-empty lines of a wave file, each with its number (from 1)."""
    with path.open(encoding="utf-8", errors="surrogateescape", newline="\n") as handle:
        lines = [(n, line.rstrip("\r\n")) for n, line in enumerate(handle, 1)]
    return [(n, body) for n, body in lines if body]


def in_place(body: str, at: datetime) -> str:
    """``body`` with ``at`` as the ``occurred_at`` of each change of it that names none (a body
    that is not a change or an array of them is left as written)."""
    try:
        decoded = json.loads(body)
    except ValueError:
        return body
    changes = decoded if isinstance(decoded, list) else [decoded]
    if not changes or not all(isinstance(c, dict) and not is_event(c) for c in changes):
        return body
    if all(c.get("occurred_at") is not None for c in changes):
        return body
    for change in changes:
        if change.get("occurred_at") is None:
            change["occurred_at"] = instant_text(at)
    return json.dumps(decoded, ensure_ascii=False)


def position_in(sent: Sequence[str], body: str) -> int | None:
    """Which of the messages ``sent`` (from 1) a dead letter's ``body`` is: the message itself,
    or, for the bad changes of an array that the dead-letter queue holds, the array they came
    from; ``None``: none is."""
    if body in sent:
        return sent.index(body) + 1
    try:
        bad = json.loads(body)
    except ValueError:
        return None
    if not isinstance(bad, list) or not all(isinstance(b, dict) and "index" in b for b in bad):
        return None
    for position, text in enumerate(sent, 1):
        try:
            changes = json.loads(text)
        except ValueError:
            continue
        if isinstance(changes, list) and all(
            isinstance(b["index"], int)
            and b["index"] < len(changes)
            and changes[b["index"]] == b.get("change")
            for b in bad
        ):
            return position
    return None
