"""What changed in the table since a checkpoint, read from its DynamoDB Stream
(``NEW_AND_OLD_IMAGES``).

A run reads every stream record after the stored checkpoint and keeps, per URL item, the image
of its last record (or ``None`` for a ``REMOVE``, e.g. an expired tombstone) and the old image of
its first (what the item was when the checkpoint was saved, so a page that moved to another
section leaves the file it was published in); records of every other item (meta items, shard
states, lease, retired ledger) are read and skipped. The result carries a new checkpoint just
after everything it reflects.

The rules follow the DynamoDB Streams documentation:

- The stream is a log kept for 24 hours, each record appears exactly once, and the records of
  one item appear in the order of its modifications
  (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html). A checkpoint
  older than the retention minus a safety margin may point at trimmed records: that is a gap.
- DescribeStream pages through the shards (``ExclusiveStartShardId`` = the previous answer's
  ``LastEvaluatedShardId``); a shard whose ``SequenceNumberRange`` has an
  ``EndingSequenceNumber`` is closed and receives nothing more
  (https://docs.amazonaws.cn/goto/WebAPI/streams-dynamodb-2012-08-10/DescribeStream). The
  stream ARN ends in the label of the stream (the time it was enabled), so another ARN is
  another stream and positions of the old one mean nothing there.
- The shards come in no particular order; ``ParentShardId`` gives the lineage, and a parent is
  read to its end before its children
  (https://repost.aws/questions/QU6by8UGM8Q8miP3pzivCZGA/dynamo-db-streams-are-shards-ordered-in-the-stream-description).
  A parent that DescribeStream no longer lists has aged out of the stream: its children are
  read from their trim horizon.
- GetRecords answers at most 1000 records
  (https://boto3.amazonaws.com/v1/documentation/api/1.26.138/reference/services/dynamodbstreams/client/get_records.html);
  a missing ``NextShardIterator`` means the shard is closed and read to its end
  (https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/dynamodbstreams/aws.sdk.kotlin.services.dynamodbstreams.model/-get-records-response/next-shard-iterator.html).
- ``TrimmedDataAccessException`` (an iterator before the trim point, or records trimmed before
  the iterator was used) means records were lost to this reader: a gap. An iterator expires
  15 minutes after it was issued (``ExpiredIteratorException``): a new one is taken after the
  last sequence number read
  (https://docs.aws.amazon.com/sdkfornet/v3/apidocs/items/DynamoDBv2/MDynamoDBStreamsGetShardIteratorGetShardIteratorRequest.html,
  https://docs.aws.amazon.com/sdkfornet/latest/apidocs/items/MDynamoDBv2DynamoDBStreamsGetRecordsStringNET45.html).

Sequence numbers are decimal strings of varying length, so they are compared as integers.
The checkpoint keeps a position only for shards not yet read to their end, and forgets finished
shards once DescribeStream stops listing them, so its item stays small.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, cast

from botocore.exceptions import ClientError

from sitemap_updater.rebuild.inputs.positions import positions_only
from sitemap_updater.rebuild.state.checkpoint import Checkpoint
from sitemap_updater.store.items import Item
from sitemap_updater.store.keys import URL_PK_PREFIX

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient
    from mypy_boto3_dynamodbstreams.type_defs import (
        GetRecordsOutputTypeDef,
        RecordTypeDef,
        ShardTypeDef,
    )

#: GetRecords returns at most this many records per call.
GET_RECORDS_LIMIT: Final = 1000
TRIMMED: Final = "TrimmedDataAccessException"
EXPIRED: Final = "ExpiredIteratorException"


class FeedGapError(Exception):
    """The feed cannot prove it holds every change since the checkpoint (rebuild in full)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class FeedRead:
    """The outcome of one read (see :meth:`StreamFeed.read`)."""

    #: URL hash (``sk``) -> new image of the URL item from its last record, None for REMOVE
    changes: dict[str, Item | None]
    #: position just after every record reflected in ``changes``
    checkpoint: Checkpoint
    #: stream records read (every key, meta items included)
    records: int
    #: GetRecords calls made
    requests: int
    #: False if the read stopped early (``max_records`` reached or out of time)
    complete: bool
    #: URL hash -> old image of the URL item in its first record (absent: the item was new,
    #: or the stream carries no old images)
    before: dict[str, Item] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StreamShard:
    """One shard as DescribeStream lists it; ``ending`` is None while it is open."""

    shard_id: str
    parent_id: str | None
    ending: str | None

    @property
    def closed(self) -> bool:
        return self.ending is not None


def shard_from_description(shard: ShardTypeDef) -> StreamShard:
    numbers = shard.get("SequenceNumberRange", {})
    return StreamShard(
        shard_id=shard.get("ShardId", ""),
        parent_id=shard.get("ParentShardId"),
        ending=numbers.get("EndingSequenceNumber"),
    )


def _error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


@dataclass(slots=True)
class _Run:
    """Mutable state of one pass over the stream."""

    positions: dict[str, str]
    finished: set[str]
    max_records: int | None
    out_of_time: Callable[[], bool]
    keep_changes: bool
    changes: dict[str, Item | None] = field(default_factory=dict)
    before: dict[str, Item] = field(default_factory=dict)
    records: int = 0
    requests: int = 0
    stopped: bool = False

    def must_stop(self) -> bool:
        if self.max_records is not None and self.records >= self.max_records:
            return True
        return self.out_of_time()

    def limit(self) -> int:
        if self.max_records is None:
            return GET_RECORDS_LIMIT
        return min(GET_RECORDS_LIMIT, self.max_records - self.records)

    def apply(self, shard_id: str, record: RecordTypeDef) -> None:
        """Count ``record``, move the shard's position, keep a URL item's new image."""
        data = record.get("dynamodb", {})
        self.records += 1
        self.positions[shard_id] = data.get("SequenceNumber", "")
        if not self.keep_changes:
            return
        keys = data.get("Keys", {})
        pk = keys.get("pk", {}).get("S", "")
        if not pk.startswith(URL_PK_PREFIX):
            return
        sk = keys.get("sk", {}).get("S", "")
        old = data.get("OldImage")
        if old is not None and sk not in self.changes:
            self.before[sk] = cast(Item, old)
        if record.get("eventName") == "REMOVE":
            self.changes[sk] = None
            return
        image = data.get("NewImage")
        if image is None:
            raise FeedGapError(
                f"record {data.get('SequenceNumber')} of shard {shard_id} carries no NewImage "
                f"(stream view type {data.get('StreamViewType')}; NEW_AND_OLD_IMAGES is required)"
            )
        self.changes[sk] = cast(Item, image)


class StreamFeed:
    """Reads the table's stream from a checkpoint (DescribeStream, GetShardIterator, GetRecords)."""

    def __init__(
        self,
        client: DynamoDBStreamsClient,
        stream_arn: str,
        *,
        clock: Callable[[], float] = time.time,
        retention_seconds: int = 86400,
        safety_seconds: int = 3600,
    ) -> None:
        self._client = client
        self._arn = stream_arn
        self._clock = clock
        self._max_age = retention_seconds - safety_seconds

    # -- public ------------------------------------------------------------------------------
    def read(
        self, checkpoint: Checkpoint | None, *, max_records: int, out_of_time: Callable[[], bool]
    ) -> FeedRead:
        """Every URL change after ``checkpoint``, at most ``max_records`` records, while time
        remains. Raises :class:`FeedGapError` when changes may have been lost."""
        if max_records < 1:
            raise ValueError(f"max_records must be at least 1, not {max_records}")
        now = int(self._clock())
        checkpoint = self._check_checkpoint(checkpoint, now)
        shards = self.describe()
        self._check_listed(checkpoint, shards)
        run = _Run(
            positions=dict(checkpoint.positions),
            finished=set(checkpoint.finished),
            max_records=max_records,
            out_of_time=out_of_time,
            keep_changes=True,
        )
        self._read_in_lineage_order(run, shards)
        return FeedRead(
            changes=run.changes,
            before=run.before,
            checkpoint=self._checkpoint(run, shards, now),
            records=run.records,
            requests=run.requests,
            complete=not run.stopped,
        )

    def tip(self, checkpoint: Checkpoint | None) -> Checkpoint:
        """A checkpoint at the end of every shard now (for a full rebuild taken now): closed
        shards count as finished unread, open shards are drained without keeping records.
        A ``checkpoint`` of this stream only saves reading open shards from their start. The
        records are read for their sequence numbers only (``positions``)."""
        now = int(self._clock())
        shards = self.describe()
        known = (
            checkpoint if checkpoint is not None and checkpoint.stream_arn == self._arn else None
        )
        run = _Run(
            positions=dict(known.positions) if known else {},
            finished={s.shard_id for s in shards if s.closed},
            max_records=None,
            out_of_time=lambda: False,
            keep_changes=False,
        )
        with positions_only(self._client):
            for shard in shards:
                if not shard.closed:
                    self._drain(run, shard, tolerate_trim=True)
        return self._checkpoint(run, shards, now)

    def describe(self) -> list[StreamShard]:
        """Every shard DescribeStream lists, over all its pages."""
        shards: list[StreamShard] = []
        start: str | None = None
        while True:
            kwargs: dict[str, Any] = {"StreamArn": self._arn}
            if start is not None:
                kwargs["ExclusiveStartShardId"] = start
            description = self._client.describe_stream(**kwargs)["StreamDescription"]
            shards.extend(shard_from_description(s) for s in description.get("Shards", []))
            start = description.get("LastEvaluatedShardId")
            if start is None:
                return shards

    # -- gap rules ---------------------------------------------------------------------------
    def _check_checkpoint(self, checkpoint: Checkpoint | None, now: int) -> Checkpoint:
        """``checkpoint`` if it can be read from: present, of this stream, young enough."""
        if checkpoint is None:
            raise FeedGapError("no checkpoint yet")
        if checkpoint.stream_arn != self._arn:
            raise FeedGapError(
                f"stream changed: checkpoint of {checkpoint.stream_arn}, "
                f"table stream is {self._arn}"
            )
        age = now - checkpoint.saved_at
        if age > self._max_age:
            raise FeedGapError(
                f"checkpoint too old: saved at {checkpoint.saved_at}, {age} s ago, "
                f"more than retention minus safety ({self._max_age} s)"
            )
        return checkpoint

    @staticmethod
    def _check_listed(checkpoint: Checkpoint, shards: Iterable[StreamShard]) -> None:
        listed = {s.shard_id for s in shards}
        for shard_id in sorted(checkpoint.positions):
            if shard_id not in listed and shard_id not in checkpoint.finished:
                raise FeedGapError(
                    f"checkpointed shard {shard_id} (at {checkpoint.positions[shard_id]}) "
                    "is no longer listed: its unread records were trimmed"
                )

    # -- reading -----------------------------------------------------------------------------
    def _read_in_lineage_order(self, run: _Run, shards: list[StreamShard]) -> None:
        """Read every shard whose parent is done, round after round, until none is ready."""
        listed = {s.shard_id for s in shards}
        pending = [s for s in shards if s.shard_id not in run.finished]
        while pending and not run.stopped:
            ready = [s for s in pending if _parent_done(s, run.finished, listed)]
            if not ready:
                return
            for shard in ready:
                self._drain(run, shard, tolerate_trim=False)
                if run.stopped:
                    return
            pending = [s for s in pending if s not in ready]

    def _drain(self, run: _Run, shard: StreamShard, *, tolerate_trim: bool) -> None:
        """Read ``shard`` from its position: a closed shard to its end, an open one until a
        call returns no records; stops early (``run.stopped``) on the run's bounds."""
        position = run.positions.get(shard.shard_id)
        if shard.ending is not None and position and int(position) >= int(shard.ending):
            run.finished.add(shard.shard_id)
            return
        iterator: str | None = self._iterator(run, shard, tolerate_trim=tolerate_trim)
        renewed = False
        while iterator is not None:
            if run.must_stop():
                run.stopped = True
                return
            try:
                response = self._get_records(run, iterator)
            except ClientError as error:
                code = _error_code(error)
                if code == EXPIRED and not renewed:
                    iterator = self._iterator(run, shard, tolerate_trim=tolerate_trim)
                    renewed = True
                    continue
                if code == TRIMMED and tolerate_trim:
                    run.positions.pop(shard.shard_id, None)
                    iterator = self._iterator(run, shard, tolerate_trim=False)
                    renewed = True
                    continue
                if code == TRIMMED:
                    raise _trimmed(
                        shard, run.positions.get(shard.shard_id), "GetRecords"
                    ) from error
                raise
            renewed = False
            records = response.get("Records", [])
            for record in records:
                run.apply(shard.shard_id, record)
            iterator = response.get("NextShardIterator")
            if iterator is not None and not records and not shard.closed:
                return
        run.finished.add(shard.shard_id)

    def _get_records(self, run: _Run, iterator: str) -> GetRecordsOutputTypeDef:
        run.requests += 1
        return self._client.get_records(ShardIterator=iterator, Limit=run.limit())

    def _iterator(self, run: _Run, shard: StreamShard, *, tolerate_trim: bool) -> str | None:
        """An iterator just after the shard's position, or at its trim horizon without one."""
        position = run.positions.get(shard.shard_id)
        kwargs: dict[str, Any] = {
            "StreamArn": self._arn,
            "ShardId": shard.shard_id,
            "ShardIteratorType": "TRIM_HORIZON",
        }
        if position:
            kwargs.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=position)
        try:
            return self._client.get_shard_iterator(**kwargs).get("ShardIterator")
        except ClientError as error:
            if _error_code(error) != TRIMMED:
                raise
            if not tolerate_trim or not position:
                raise _trimmed(shard, position, "GetShardIterator") from error
        run.positions.pop(shard.shard_id, None)
        return self._iterator(run, shard, tolerate_trim=False)

    def _checkpoint(self, run: _Run, shards: Iterable[StreamShard], now: int) -> Checkpoint:
        listed = {s.shard_id for s in shards}
        finished = frozenset(s for s in run.finished if s in listed)
        positions = {
            shard_id: seq
            for shard_id, seq in run.positions.items()
            if shard_id in listed and shard_id not in finished and seq
        }
        return Checkpoint(self._arn, positions, finished, now)


def _parent_done(shard: StreamShard, finished: set[str], listed: set[str]) -> bool:
    """A shard may be read once its parent is read to its end, or has aged out of the stream."""
    parent = shard.parent_id
    return parent is None or parent in finished or parent not in listed


def _trimmed(shard: StreamShard, position: str | None, operation: str) -> FeedGapError:
    where = f"after {position}" if position else "from TRIM_HORIZON"
    return FeedGapError(
        f"{TRIMMED} from {operation} on shard {shard.shard_id} {where}: "
        "records were trimmed before they were read"
    )
