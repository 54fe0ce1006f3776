"""What a rebuild invocation asks for: a scheduled event means incremental, a flag means full."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

FULL_REBUILD_FIELD: Final = "full_rebuild"


class RebuildRequestError(ValueError):
    """The invocation payload is not one the rebuild understands."""


def wants_full_rebuild(event: Any) -> bool:
    """True for ``{"full_rebuild": true}``; False for anything without the field (a schedule).

    A ``full_rebuild`` that is not a JSON boolean is rejected rather than guessed at.
    """
    if not isinstance(event, Mapping) or FULL_REBUILD_FIELD not in event:
        return False
    value = event[FULL_REBUILD_FIELD]
    if not isinstance(value, bool):
        raise RebuildRequestError(
            f"field {FULL_REBUILD_FIELD!r} has value {value!r}: it must be a JSON boolean"
            " (true or false)"
        )
    return value
