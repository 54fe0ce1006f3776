"""Reading a stream for its positions only.

A full rebuild reads every open shard of the stream to its end before its Scan, to take the
checkpoint the next run starts from (``StreamFeed.tip``). It needs only each record's sequence
number, but botocore parses both images of every record through the service model, which costs
many times what reading the JSON costs: a first full rebuild after a bulk load reads every
record of the last hours. While :func:`positions_only` is active, each ``GetRecords`` answer the
client gets is cut down to its records' sequence numbers (and the next iterator) before
botocore parses it, through botocore's ``before-parse`` event of that client alone.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient

EVENT: Final = "before-parse.dynamodb-streams.GetRecords"
_HANDLER_ID: Final = "sitemap-updater-positions-only"


def keep_positions(response_dict: dict[str, Any], **_: Any) -> None:
    """Cut a successful ``GetRecords`` answer down to its records' sequence numbers."""
    if response_dict.get("status_code") != 200:
        return  # an error is parsed as it came
    answer = json.loads(response_dict["body"])
    answer["Records"] = [
        {"dynamodb": {"SequenceNumber": record["dynamodb"]["SequenceNumber"]}}
        for record in answer.get("Records", [])
    ]
    response_dict["body"] = json.dumps(answer).encode("utf-8")


@contextlib.contextmanager
def positions_only(client: DynamoDBStreamsClient) -> Iterator[None]:
    """``client``'s ``GetRecords`` answers carry only sequence numbers within the block."""
    client.meta.events.register(EVENT, keep_positions, unique_id=_HANDLER_ID)
    try:
        yield
    finally:
        client.meta.events.unregister(EVENT, unique_id=_HANDLER_ID)
