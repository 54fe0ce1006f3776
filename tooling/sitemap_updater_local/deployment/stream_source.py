"""Emulation of Lambda's DynamoDB Streams event source mapping, with its filter criteria.

The template's ``AWS::Lambda::EventSourceMapping`` resources on the table's stream (the urgent
mapping, which starts a rebuild for news and deletes) are run here, step by step as Lambda
describes them (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html and
with-ddb-filtering.html):

1. From ``StartingPosition: LATEST`` (the iterators are taken when the deployment starts), read
   each shard's new records with GetRecords.
2. Keep a record only if it matches one of the ``FilterCriteria`` patterns (ORed); Lambda drops
   the others without invoking anything.
3. Invoke the function with one event of the kept records (``{"Records": [...]}``, each with
   ``eventSourceARN``) once the first of them has waited ``MaximumBatchingWindowInSeconds`` by
   the deployment's clock, or ``BatchSize`` of them are waiting.
4. A failed invocation keeps the batch, retried at the next poll, until ``MaximumRetryAttempts``
   retries have failed; then Lambda's description of the batch goes to the ``OnFailure``
   destination queue and the batch is dropped.

A poll happens when a test or a tool calls :meth:`StreamEventSourceMapping.poll`; nothing runs in
the background, so a test moves the clock and polls. Not emulated, because they shape timing,
not outcomes: the four polls a second, ``MaximumRecordAgeInSeconds``, the retries' backoff, and
``ParallelizationFactor`` (one batch at a time, which is what 1 gives).

Patterns: the subset of Lambda's filter syntax the template uses, exact values and ``exists``;
any other operator is refused with the pattern that holds it, rather than guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sitemap_updater_local.deployment.stack.template import Template, TemplateError

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient

    from sitemap_updater_local.deployment.runtime import LocalFunction

#: Lambda's default BatchSize for a DynamoDB stream (CreateEventSourceMapping).
DEFAULT_BATCH_SIZE = 100


@dataclass(frozen=True, slots=True)
class StreamMappingSpec:
    """One event source mapping on a DynamoDB stream, as the template resolves it."""

    logical_id: str
    stream_arn: str
    function_name: str
    batch_size: int
    window_seconds: float
    max_retries: int
    patterns: tuple[dict[str, Any], ...]
    failure_queue_arn: str | None


def _is_stream(arn: Any) -> bool:
    return isinstance(arn, str) and ":dynamodb:" in arn and "/stream/" in arn


def stream_mappings(template: Template) -> list[StreamMappingSpec]:
    """Every event source mapping of the template (its condition true) on a DynamoDB stream."""
    found: list[StreamMappingSpec] = []
    for logical_id in template.resources("AWS::Lambda::EventSourceMapping"):
        props = template.properties(logical_id)
        arn = props.get("EventSourceArn")
        if not _is_stream(arn):
            continue
        if props.get("StartingPosition") != "LATEST":
            raise TemplateError(f"{logical_id}: only StartingPosition LATEST is run locally")
        patterns = tuple(
            json.loads(f["Pattern"]) for f in props.get("FilterCriteria", {}).get("Filters", [])
        )
        for pattern in patterns:
            _check(pattern, logical_id)
        failure = props.get("DestinationConfig", {}).get("OnFailure", {}).get("Destination")
        found.append(
            StreamMappingSpec(
                logical_id=logical_id,
                stream_arn=str(arn),
                function_name=str(props["FunctionName"]),
                batch_size=int(props.get("BatchSize", DEFAULT_BATCH_SIZE)),
                window_seconds=float(props.get("MaximumBatchingWindowInSeconds", 0)),
                max_retries=int(props.get("MaximumRetryAttempts", -1)),
                patterns=patterns,
                failure_queue_arn=None if failure is None else str(failure),
            )
        )
    return found


def _check(pattern: Any, where: str) -> None:
    """Refuse a pattern with an operator this emulator does not evaluate."""
    if isinstance(pattern, dict):
        for value in pattern.values():
            _check(value, where)
        return
    if not isinstance(pattern, list):
        raise TemplateError(f"{where}: filter value {pattern!r} must be a list or an object")
    for rule in pattern:
        if isinstance(rule, dict) and set(rule) != {"exists"}:
            raise TemplateError(
                f"{where}: filter rule {json.dumps(rule)} is not run locally (only exact values "
                "and exists are)"
            )


_MISSING = object()


def matches(pattern: Mapping[str, Any], record: Mapping[str, Any]) -> bool:
    """Whether ``record`` matches ``pattern`` (every field of it; a list: any of its rules)."""
    for key, rule in pattern.items():
        value = record.get(key, _MISSING) if isinstance(record, Mapping) else _MISSING
        if isinstance(rule, dict):
            if not matches(rule, value if isinstance(value, Mapping) else {}):
                return False
            continue
        if not any(_rule_matches(r, value) for r in rule):
            return False
    return True


def _rule_matches(rule: Any, value: Any) -> bool:
    if isinstance(rule, dict):
        return bool(rule["exists"]) == (value is not _MISSING and not isinstance(value, dict))
    if value is _MISSING:
        return False
    return rule in value if isinstance(value, list) else bool(rule == value)


def _plain(value: Any) -> Any:
    """A GetRecords answer as Lambda delivers it in JSON: times as epoch seconds."""
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


#: One invocation: the event in, the exception it raised (None when it succeeded) and its result.
Invoke = Callable[[dict[str, Any]], tuple[Any, BaseException | None]]


@dataclass
class StreamPoll:
    """What one poll did: records read and kept, and each invocation's result or error."""

    records_read: int = 0
    records_matched: int = 0
    results: list[Any] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    abandoned: int = 0


class StreamEventSourceMapping:
    """One stream mapping: its shards' positions, the batch waiting, its failed attempts."""

    @classmethod
    def wired(
        cls,
        spec: StreamMappingSpec,
        streams: DynamoDBStreamsClient,
        function: LocalFunction,
        failures: tuple[Any, str | None],
        clock: Callable[[], float],
    ) -> StreamEventSourceMapping:
        """The mapping of ``spec`` invoking ``function``, its failed batches described on the
        queue ``failures`` names (an SQS client and the queue's URL, or none)."""

        def invoke(event: dict[str, Any]) -> tuple[Any, BaseException | None]:
            inv = function.invoke(event)
            return inv.result, inv.error

        sqs, failure_url = failures
        send_failure: Callable[[str], None] | None = None
        if failure_url is not None:

            def send_failure(body: str) -> None:
                sqs.send_message(QueueUrl=failure_url, MessageBody=body)

        return cls(spec, streams, invoke, send_failure, clock)

    def __init__(
        self,
        spec: StreamMappingSpec,
        streams: DynamoDBStreamsClient,
        invoke: Invoke,
        send_failure: Callable[[str], None] | None,
        clock: Callable[[], float],
    ) -> None:
        self.spec = spec
        self._streams = streams
        self._invoke = invoke
        self._send_failure = send_failure
        self._clock = clock
        self._iterators: dict[str, str | None] = {}
        self._pending: list[dict[str, Any]] = []
        self._first_seen: float | None = None
        self._failures = 0
        for shard in streams.describe_stream(StreamArn=spec.stream_arn)["StreamDescription"][
            "Shards"
        ]:
            shard_id = shard["ShardId"]
            self._iterators[shard_id] = streams.get_shard_iterator(
                StreamArn=spec.stream_arn, ShardId=shard_id, ShardIteratorType="LATEST"
            )["ShardIterator"]

    @property
    def waiting(self) -> int:
        """Records kept and not yet delivered."""
        return len(self._pending)

    def poll(self) -> StreamPoll:
        """Read what is new, then invoke once if the batch is due (window passed, or full)."""
        report = StreamPoll()
        for shard_id, iterator in list(self._iterators.items()):
            while iterator is not None:
                got = self._streams.get_records(ShardIterator=iterator)
                records = got.get("Records", [])
                iterator = got.get("NextShardIterator")
                report.records_read += len(records)
                for raw in records:
                    record = _plain(dict(raw))
                    record["eventSourceARN"] = self.spec.stream_arn
                    if not self.spec.patterns or any(
                        matches(p, record) for p in self.spec.patterns
                    ):
                        report.records_matched += 1
                        self._keep(record)
                if not records:
                    break
            self._iterators[shard_id] = iterator
        if self._due():
            self._deliver(report)
        return report

    def _keep(self, record: dict[str, Any]) -> None:
        if self._first_seen is None:
            self._first_seen = self._clock()
        self._pending.append(record)

    def _due(self) -> bool:
        if not self._pending or self._first_seen is None:
            return False
        waited = self._clock() - self._first_seen
        return len(self._pending) >= self.spec.batch_size or waited >= self.spec.window_seconds

    def _deliver(self, report: StreamPoll) -> None:
        batch = self._pending[: self.spec.batch_size]
        result, error = self._invoke({"Records": batch})
        if error is None:
            report.results.append(result)
            self._drop(len(batch))
            return
        report.errors.append(error)
        self._failures += 1
        if 0 <= self.spec.max_retries < self._failures:
            if self._send_failure is not None:
                self._send_failure(json.dumps(self._failure_description(batch, error)))
            report.abandoned += len(batch)
            self._drop(len(batch))

    def _drop(self, count: int) -> None:
        self._pending = self._pending[count:]
        self._failures = 0
        self._first_seen = self._clock() if self._pending else None

    def _failure_description(
        self, batch: list[dict[str, Any]], error: BaseException
    ) -> dict[str, Any]:
        """What Lambda sends to an OnFailure destination: the batch's place, not its records."""
        numbers = [r["dynamodb"]["SequenceNumber"] for r in batch]
        return {
            "requestContext": {
                "condition": "RetryAttemptsExhausted",
                "approximateInvokeCount": self._failures,
            },
            "responseContext": {"functionError": type(error).__name__},
            "DDBStreamBatchInfo": {
                "startSequenceNumber": numbers[0],
                "endSequenceNumber": numbers[-1],
                "batchSize": len(batch),
                "streamArn": self.spec.stream_arn,
            },
        }
