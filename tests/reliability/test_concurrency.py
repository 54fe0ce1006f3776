"""Concurrency: parallel ingest invocations over overlapping URLs while a rebuild runs publish the
same sitemap as the same events applied one batch at a time.

Each thread is one execution environment: its own instance of the handler module (own Powertools
``BatchProcessor``, own boto3 clients, own service), as Lambda runs concurrent invocations in
separate environments. The threads share the moto table, bucket and queue.

The overlap is forced, not hoped for (no sleeps): every ingest thread applies its first batch,
then all meet the rebuild thread at a barrier; the rebuild plans from those marks; the ingest
threads go on only once the rebuild has read its first shard; and the rebuild's first state
write (``UpdateItem``) waits until every ingest thread is done. So changes land in shards the
rebuild has planned and is reading, and their marks arrive before it clears its markers.
``botocore`` ``before-call``/``after-call`` hooks on the default session observe the calls.

moto has no lock around a conditional write: its check and its store are separate Python steps,
and two threads may interleave between them, which DynamoDB never allows for one item. The
``atomic_moto_requests`` fixture makes each moto request atomic (one at a time), which is the
guarantee the system relies on; requests of different threads still interleave freely.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.core.botocore_stubber import BotocoreStubber

from sitemap_updater_local.deployment import LambdaContext, LocalDeployment
from sitemap_updater_local.deployment.event_source import Batch, lambda_record
from sitemap_updater_local.deployment.runtime import LOCAL_ENVIRONMENT, LocalFunction
from tests.helpers.mixed_stream import BASE_TIME, MixedStream, mixed_stream
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

SITE = "https://www.example.com"
PARAMETERS = {"PublicBaseUrl": SITE, "MaxUrlsPerSitemap": "100"}
INGEST_THREADS = 4
BATCH_RECORDS = 2
WAIT = 120.0  # seconds; a gate that is not reached by then fails the test


@pytest.fixture
def atomic_moto_requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    lock = threading.RLock()
    original = BotocoreStubber.__call__

    def atomic(self: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, event_name, request, **kwargs)

    monkeypatch.setattr(BotocoreStubber, "__call__", atomic)
    yield


def _stream() -> MixedStream:
    return mixed_stream(1_000, site=SITE, seed=77, array_size=40)


def _first_versions(stream: MixedStream) -> list[str]:
    """One upsert per page, older than every change of the stream: the site before the test."""
    at = (BASE_TIME.replace(month=9)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    changes = [
        {"action": "upsert", "url": url, "occurred_at": at, "lastmod": "2026-09-01"}
        for url in stream.expected
    ]
    return [json.dumps(changes[i : i + 100]) for i in range(0, len(changes), 100)]


def _published(dep: LocalDeployment) -> dict[str, bytes]:
    """The index and every file it lists (each schema-checked), by key."""
    index = dep.s3.get_object(Bucket=dep.bucket_name, Key="sitemap.xml")["Body"].read()
    files = {"sitemap.xml": index}
    for loc in assert_valid_index(index):
        key = loc.rsplit("/", 1)[-1]
        files[key] = dep.s3.get_object(Bucket=dep.bucket_name, Key=key)["Body"].read()
    return files


def _urls(files: dict[str, bytes]) -> set[str]:
    return {
        u for key, body in files.items() if key != "sitemap.xml" for u in assert_valid_urlset(body)
    }


def _serial(stream: MixedStream) -> dict[str, bytes]:
    with LocalDeployment(site_url=SITE, parameters=PARAMETERS) as dep:
        for wave in (_first_versions(stream), stream.bodies):
            assert dep.send(wave) == []
            dep.drain()
            dep.rebuild_until_clean()
        return _published(dep)


def _receive_all(dep: LocalDeployment) -> list[Batch]:
    batches: list[Batch] = []
    while batch := dep.mapping.receive_batch():
        batches.append(batch)
    return batches


class Gates:
    """The forced interleaving; every wait is bounded and a timeout is recorded as an error."""

    def __init__(self, ingest_threads: int) -> None:
        self.first_batches = threading.Barrier(ingest_threads + 1, timeout=WAIT)
        self.rebuild_reading = threading.Event()
        self.ingest_done = threading.Event()
        self.ingest_left = ingest_threads
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.ingest_puts_while_rebuilding = 0

    def wait(self, event: threading.Event, what: str) -> None:
        if not event.wait(WAIT):
            self.errors.append(f"timed out waiting for {what}")

    def before_call(self, event_name: str, **_: Any) -> None:
        thread = threading.current_thread().name
        if thread == "rebuild" and event_name.endswith(".UpdateItem"):  # its first write
            self.wait(self.ingest_done, "the ingest threads to finish")
        elif (
            thread.startswith("ingest")
            and event_name.endswith(".PutItem")
            and self.rebuild_reading.is_set()
            and not self.ingest_done.is_set()
        ):
            with self.lock:
                self.ingest_puts_while_rebuilding += 1

    def after_call(self, event_name: str, **_: Any) -> None:
        # the rebuild has read the change feed: writes from now on are after its read
        if threading.current_thread().name == "rebuild" and event_name.endswith(".GetRecords"):
            self.rebuild_reading.set()

    def one_ingest_finished(self) -> None:
        with self.lock:
            self.ingest_left -= 1
            if self.ingest_left == 0:
                self.ingest_done.set()


def _concurrent(stream: MixedStream) -> tuple[dict[str, bytes], dict[str, Any], Gates]:
    gates = Gates(INGEST_THREADS)
    with LocalDeployment(site_url=SITE, parameters=PARAMETERS) as dep:
        assert dep.send(_first_versions(stream)) == []
        dep.drain()
        dep.rebuild_until_clean()

        assert dep.send(stream.bodies) == []
        received = _receive_all(dep)
        messages = [m for batch in received for m in batch.messages]
        assert len(messages) == len(stream.bodies)
        batches = [messages[i : i + BATCH_RECORDS] for i in range(0, len(messages), BATCH_RECORDS)]
        per_thread = [batches[t::INGEST_THREADS] for t in range(INGEST_THREADS)]

        # Hooks first, then fresh handler instances: clients copy the session's hooks when made.
        if boto3.DEFAULT_SESSION is None:
            boto3.setup_default_session()
        session = boto3.DEFAULT_SESSION
        assert session is not None
        session.events.register("before-call.dynamodb", gates.before_call)
        session.events.register("after-call.dynamodbstreams", gates.after_call)
        ingest = [
            LocalFunction(dep.ingest.spec, dep.ingest.environment, dep.output).load()
            for _ in range(INGEST_THREADS)
        ]
        rebuild = LocalFunction(
            dep.rebuild_function.spec, dep.rebuild_function.environment, dep.output
        ).load()
        failures: list[str] = []
        rebuild_report: dict[str, Any] = {}

        def invoke(module: Any, batch: list[dict[str, Any]]) -> None:
            event = {"Records": [lambda_record(m, dep.queue_arn) for m in batch]}
            context = LambdaContext("ingest", 1024, 150_000)
            result = module.lambda_handler(event, context)
            failures.extend(f["itemIdentifier"] for f in result["batchItemFailures"])

        def ingest_thread(t: int) -> None:
            try:
                first, *rest = per_thread[t]
                invoke(ingest[t], first)
                gates.first_batches.wait()
                gates.wait(gates.rebuild_reading, "the rebuild to read a shard")
                for batch in rest:
                    invoke(ingest[t], batch)
            except Exception as exc:
                gates.errors.append(f"ingest thread {t}: {exc!r}")
                gates.first_batches.abort()
            finally:
                gates.one_ingest_finished()

        def rebuild_thread() -> None:
            try:
                gates.first_batches.wait()
                context = LambdaContext("rebuild", 3008, 900_000)
                rebuild_report.update(rebuild.lambda_handler({}, context))
            except Exception as exc:
                gates.errors.append(f"rebuild thread: {exc!r}")
            finally:
                gates.rebuild_reading.set()

        env = {**dep.ingest.environment, **dep.rebuild_function.environment, **LOCAL_ENVIRONMENT}
        with pytest.MonkeyPatch.context() as mp:
            for name, value in env.items():
                mp.setenv(name, value)
            threads = [
                threading.Thread(target=ingest_thread, args=(t,), name=f"ingest-{t}")
                for t in range(INGEST_THREADS)
            ]
            threads.append(threading.Thread(target=rebuild_thread, name="rebuild"))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(WAIT * 3)
        session.events.unregister("before-call.dynamodb", gates.before_call)
        session.events.unregister("after-call.dynamodbstreams", gates.after_call)
        assert not any(thread.is_alive() for thread in threads)
        assert gates.errors == []
        assert failures == [], "no record should fail against moto without faults"

        for done in received:  # what the event source mapping does after a successful batch
            done.delete()
        assert dep.drain().records == 0
        follow_up = dep.rebuild_until_clean()
        rebuild_report["follow_up_feed_records"] = follow_up[0]["feed_records"]
        return _published(dep), rebuild_report, gates


@pytest.mark.usefixtures("atomic_moto_requests")
def test_parallel_ingest_during_a_rebuild_publishes_the_serial_result() -> None:
    stream = _stream()
    serial = _serial(stream)
    concurrent, mid_run, gates = _concurrent(stream)

    # the overlap happened: writes landed after the rebuild read the change feed; the run
    # published what it read, and its checkpoint left those writes for the next run
    assert gates.ingest_puts_while_rebuilding > 0
    assert mid_run["status"] == "published"
    assert mid_run["follow_up_feed_records"] > 0

    assert _urls(serial) == set(stream.live())
    assert concurrent.keys() == serial.keys()
    for key, body in serial.items():
        assert concurrent[key] == body, f"{key} differs from the serial result"
