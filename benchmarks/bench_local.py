"""Benchmark: the local flow grows linearly with the number of messages and items.

In one run, on the local deployment (template.yaml on moto, in this process):

  * ``simulate`` of one wave of N single-change messages, then of FACTOR x N: the ratio of their
    times (target: at most 12 for a factor of 10; O(n^2) would give 100);
  * a plain Scan paging loop over the URL table holding M items, then FACTOR x M (target: at
    most 12 for a factor of 10);
  * with ``--big N``, ``simulate`` of N single-change messages alone (target for 100,000: under
    3 minutes);
  * with ``--split N``, where one conditional ``PutItem`` (ingest's one request per change, made
    by ingest's own ``UrlWriter``) spends its CPU, best of 3 runs of N writes of new URLs:
    the whole request; moto's model in it (``DynamoDBBackend.put_item``, timed in the same
    requests); botocore's client alone, answered with moto's recorded answer while moto's stub
    is off; and moto's request layer, the rest (werkzeug's request, routing, parsing,
    validating and serializing). The ratio printed is the whole request against botocore and
    moto's model alone: what the local flow would save per change without moto's request layer.

Each figure is wall time and this process's CPU time (``time.process_time``): the machine may be
shared, and CPU time is what another process's load changes least.

    .venv/bin/python benchmarks/bench_local.py [--messages 2000] [--items 20000] [--factor 10]
        [--big 100000] [--split 5000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

from botocore.awsrequest import AWSResponse
from moto.core.botocore_stubber import MockRawResponse
from moto.core.models import DEFAULT_ACCOUNT_ID, botocore_stubber
from moto.dynamodb.models import dynamodb_backends

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater.ingest.apply import UrlWriter  # noqa: E402
from sitemap_updater.ingest.events import decode_body  # noqa: E402
from sitemap_updater.ingest.judged import ChangeEvent  # noqa: E402
from sitemap_updater.protocol.urls import Site
from sitemap_updater_local.commands.simulate import simulate  # noqa: E402
from sitemap_updater_local.deployment import LocalDeployment  # noqa: E402

SITE = "https://www.example.com"
#: what one run of a factor-10 size step may cost at most, as a multiple of the smaller run
RATIO_TARGET = 12.0


def single_changes(n: int) -> list[str]:
    """``n`` one-change message bodies, each a different URL."""
    return [
        json.dumps(
            {
                "action": "upsert",
                "url": f"{SITE}/catalogue/{i}/item-{i * 7919 % 100_003}",
                "lastmod": "2026-11-19",
                "changefreq": "weekly",
                "occurred_at": "2026-11-20T09:00:00Z",
            }
        )
        for i in range(n)
    ]


def timed(work: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, result) of ``work()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def run_simulate(n: int) -> tuple[float, float]:
    bodies = single_changes(n)
    with tempfile.TemporaryDirectory() as out:
        wall, cpu, report = timed(lambda: simulate([bodies], Path(out) / "site", site=SITE))
    accepted = report["waves"][0]["accepted"]
    if accepted != n:
        raise RuntimeError(f"simulate accepted {accepted} of {n} changes")
    print(f"simulate {n:>9,} messages: {wall:8.2f} s wall, {cpu:8.2f} s CPU", flush=True)
    return wall, cpu


def _populate(dep: LocalDeployment, n: int) -> None:
    batch: list[dict[str, Any]] = []
    for i in range(n):
        uh = f"{i * 2654435761 % 2**32:08x}{i:024x}"
        item = {
            "pk": {"S": f"u#{uh[0]}"},
            "sk": {"S": uh},
            "loc": {"S": f"{SITE}/catalogue/{i}"},
            "st": {"S": "live"},
            "ev": {"S": f"20261120T090000.000000Z#1#{uh}"},
            "digest": {"S": uh},
        }
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25 or i == n - 1:
            request: dict[str, Any] = {dep.table_name: batch}
            while request:
                request = dep.dynamodb.batch_write_item(RequestItems=request).get(
                    "UnprocessedItems", {}
                )
            batch = []


def _scan(dep: LocalDeployment) -> int:
    count = 0
    kwargs: dict[str, Any] = {"TableName": dep.table_name}
    while True:
        page = dep.dynamodb.scan(**kwargs)
        count += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            return count
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def run_scan(n: int) -> tuple[float, float]:
    with LocalDeployment(site_url=SITE) as dep:
        _populate(dep, n)
        wall, cpu, count = timed(lambda: _scan(dep))
    if count != n:
        raise RuntimeError(f"the Scan found {count} of {n} items")
    print(f"plain Scan {n:>9,} items:    {wall:8.2f} s wall, {cpu:8.2f} s CPU", flush=True)
    return wall, cpu


def change_events(n: int) -> list[ChangeEvent]:
    """The changes of :func:`single_changes`, judged as ingest judges them."""
    now = datetime.now(UTC)
    site = Site.parse(SITE)
    return [
        decode_body(body, sent_at=now, site=site, now=now).events[0] for body in single_changes(n)
    ]


def _cpu_per_write(writer: UrlWriter, events: list[ChangeEvent], now_ms: int) -> float:
    """Microseconds of CPU per write of ``events``."""
    started = time.process_time()
    for event in events:
        writer.apply(event, now_ms=now_ms)
    return (time.process_time() - started) / len(events) * 1e6


@contextmanager
def _model_timed(region: str, spent: list[float]) -> Iterator[None]:
    """Adds the CPU seconds moto's model spends in ``put_item`` to ``spent[0]``."""
    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][region]
    original = backend.put_item

    def put_item(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    with mock.patch.object(backend, "put_item", put_item):
        yield


def _recorded_answer(client: Any, write: Callable[[], Any]) -> dict[str, Any]:
    """moto's HTTP answer (status, headers, body) to the PutItem ``write`` makes."""
    answer: dict[str, Any] = {}

    def record(response_dict: dict[str, Any], **_: Any) -> None:
        answer.update(response_dict)

    client.meta.events.register("response-received.dynamodb.PutItem", record)
    try:
        write()
    finally:
        client.meta.events.unregister("response-received.dynamodb.PutItem", record)
    return answer


@contextmanager
def _answered_without_moto(client: Any, answer: dict[str, Any]) -> Iterator[None]:
    """moto's stub off, and ``client``'s PutItems answered with ``answer``."""

    def replay(request: Any, **_: Any) -> AWSResponse:
        raw = MockRawResponse(answer["body"])
        return AWSResponse(request.url, answer["status_code"], answer["headers"], raw)  # type: ignore[arg-type]

    client.meta.events.register_first("before-send.dynamodb.PutItem", replay)
    was_enabled, botocore_stubber.enabled = botocore_stubber.enabled, False
    try:
        yield
    finally:
        botocore_stubber.enabled = was_enabled
        client.meta.events.unregister("before-send.dynamodb.PutItem", replay)


def run_split(n: int, rounds: int = 3) -> None:
    events = change_events(n * (2 * rounds + 1))
    now_ms = int(time.time() * 1000)
    with LocalDeployment(site_url=SITE) as dep:
        client = dep.dynamodb
        writer = UrlWriter(client, dep.table_name, tombstone_ttl_days=30)
        answer = _recorded_answer(client, lambda: writer.apply(events.pop(), now_ms=now_ms))
        whole = model = alone = float("inf")
        for _ in range(rounds):
            batch, events = events[:n], events[n:]
            spent = [0.0]
            with _model_timed(client.meta.region_name, spent):
                cpu = _cpu_per_write(writer, batch, now_ms)
            if cpu < whole:
                whole, model = cpu, spent[0] / n * 1e6
            batch, events = events[:n], events[n:]
            with _answered_without_moto(client, answer):
                alone = min(alone, _cpu_per_write(writer, batch, now_ms))
        stored = _scan(dep)
    if stored != 1 + rounds * n:  # the recorded write and the whole ones; no replayed one
        raise RuntimeError(f"moto holds {stored} items, not {1 + rounds * n}")
    layer = whole - model - alone
    print(
        f"PutItem, best of {rounds} x {n:,} writes: {whole:.0f} µs of CPU; moto's model "
        f"{model:.0f} µs, botocore's client alone {alone:.0f} µs, moto's request layer "
        f"{layer:.0f} µs ({layer / whole:.0%})",
        flush=True,
    )
    print(f"RATIO PutItem / (botocore alone + moto's model) = {whole / (alone + model):.2f}")


def ratio_line(what: str, small: tuple[float, float], large: tuple[float, float]) -> str:
    wall, cpu = large[0] / small[0], large[1] / small[1]
    verdict = "met" if max(wall, cpu) <= RATIO_TARGET else "NOT met"
    return f"RATIO {what}: {wall:.2f} wall, {cpu:.2f} CPU (target <= {RATIO_TARGET:g}: {verdict})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2_000, help="the smaller wave")
    parser.add_argument("--items", type=int, default=20_000, help="the smaller table")
    parser.add_argument("--factor", type=int, default=10, help="larger size / smaller size")
    parser.add_argument("--big", type=int, default=0, help="also simulate this many messages")
    parser.add_argument("--split", type=int, default=0, help="also split this many PutItems")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as out:  # not timed: loads the functions' modules once
        simulate([single_changes(10)], Path(out) / "site", site=SITE)
    small = run_simulate(args.messages)
    large = run_simulate(args.messages * args.factor)
    print(ratio_line(f"simulate {args.factor}x messages", small, large), flush=True)

    small = run_scan(args.items)
    large = run_scan(args.items * args.factor)
    print(ratio_line(f"plain Scan {args.factor}x items", small, large), flush=True)

    if args.big:
        wall, _ = run_simulate(args.big)
        verdict = "met" if wall < 180 else "NOT met"
        print(f"simulate {args.big:,} messages in {wall:.1f} s wall (target < 180 s: {verdict})")
    if args.split:
        run_split(args.split)
    return 0


if __name__ == "__main__":
    sys.exit(main())
