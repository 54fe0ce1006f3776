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


#: The ``eventSource`` of a record Lambda's DynamoDB Streams event source mapping delivers
#: (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html, "Example event").
STREAM_EVENT_SOURCE: Final = "aws:dynamodb"


class UrgentRunLocked(RuntimeError):
    """An urgent run found the lease held: raised so that the event source mapping retries the
    batch, rather than taking it as published while the holder may have read the stream before
    the urgent change."""


def is_urgent(event: Any) -> bool:
    """True for a batch of the table's stream records (the urgent event source mapping: a news
    article or a delete); the run reads the stream itself, so the records are only the signal."""
    if not isinstance(event, Mapping):
        return False
    records = event.get("Records")
    return (
        isinstance(records, list)
        and bool(records)
        and all(
            isinstance(r, Mapping) and r.get("eventSource") == STREAM_EVENT_SOURCE for r in records
        )
    )
