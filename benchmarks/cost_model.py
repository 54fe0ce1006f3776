"""Cost and freshness model: every request count measured on the local deployment, then scaled.

    python benchmarks/cost_model.py [--site-urls 10000] [--changes 347] [--ingest-batch-size 6]

What it runs (template.yaml on moto, the real handlers, the emulated SQS event source mapping):

1. A site of ``--site-urls`` URLs split into as many shards as a 1,000,000-URL site has at the
   default cap (shards are hash prefixes: 1,000,000 / 40,000 -> 32 leaves), built once and not
   counted.
2. One five-minute slice of a day with 100,000 changes: ``--changes`` (100,000 / 288 = 347)
   single-change messages sent, drained through the ingest function, then one scheduled rebuild.

What it counts, with botocore events (nothing is estimated from the code):

* every AWS request the handlers make, on the default boto3 session their clients come from, by
  ``service.Operation``; for DynamoDB also the capacity units of each request, by DynamoDB's
  published rules (item sizes from the request and response items, and from the stored item before
  and after each write, read back by the emulator's own client), and the time spent inside calls;
* every SQS request the emulated event source mapping and the producer make, on the emulator's
  own SQS client;
* every invocation of each function as the emulator makes it, with its wall time and the CPU
  time of the thread that ran the handler, and the CPU time moto spends answering each call
  (between the first and the last botocore ``before-send`` handler: moto answers in between).

The ingest batch size is the number of messages that arrive in one batching window at the
average rate (100,000 / 86,400 s x 5 s = 6): at this rate the window, not the batch size of 20,
closes a batch, so the slice runs with that batch size to measure invocations as AWS makes them.

How the emulator's SQS requests map onto AWS (printed with the figures):

* producer: ``SendMessageBatch``, up to 10 bodies per request (``LocalDeployment.send``, the same
  as ``sitemap-updater send``); one ``SendMessage`` per change if the producer does not batch;
* event source mapping: the emulator receives a batch with ``ReceiveMessage`` calls of up to 10
  messages and deletes the processed records with ``DeleteMessageBatch``, as AWS's mapping does.
  AWS long-polls (20 s) and, at a trickle, a receive may return one message: the upper bound
  used in the total is one ``ReceiveMessage`` per message plus the empty long polls of the idle
  pollers (``--idle-pollers``, at most three 20-second polls a minute each).

Lambda GB-seconds: each function's ``MemorySize`` from template.yaml times the measured handler
duration, as CPU time (on a shared machine wall time also counts the wait for a core). Locally
every AWS call is answered by moto in the handler's thread, so that duration is an upper bound of
what a handler takes on AWS (moto's Query costs far more than reading the items); the lower figure
leaves moto's answering out (the handler and the SDK only), and DynamoDB's own service time on AWS
comes on top of it. Both are printed, and the freshness for both.

Freshness: the batching window and the schedule from template.yaml, the measured ingest and
rebuild durations, the cache lifetimes from ``sitemap_updater.rebuild.publish``, and AWS's
figure for an invalidation to reach every edge (``INVALIDATION_SECONDS_WORST``).

List prices (us-east-1, on-demand, without the free tiers), from these pages:

* DynamoDB on-demand: $0.625 per million write request units, $0.125 per million read request
  units (a strongly consistent read of up to 4 KB is 1 RRU); storage $0.25 per GB-month.
  https://aws.amazon.com/dynamodb/pricing/on-demand/ ; item sizes:
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
* Lambda (arm64): $0.0000133334 per GB-second, $0.20 per million requests.
  https://aws.amazon.com/lambda/pricing/
* S3 Standard: $0.005 per 1,000 PUT, COPY, POST and LIST requests, $0.0004 per 1,000 GET.
  https://aws.amazon.com/s3/pricing/
* CloudFront invalidations: the first 1,000 paths a month are free, then $0.005 per path; a
  wildcard path counts as one. https://aws.amazon.com/cloudfront/pricing/
* SQS standard queue: $0.40 per million requests (each 64 KB chunk of a payload is one).
  https://aws.amazon.com/sqs/pricing/
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tooling"))
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater.ingest.item_size import item_size  # noqa: E402
from sitemap_updater.rebuild.invalidate import paths_to_invalidate  # noqa: E402
from sitemap_updater.rebuild.publish import INDEX, SHARD_FILE  # noqa: E402
from sitemap_updater_local.deployment import LocalDeployment  # noqa: E402
from sitemap_updater_local.deployment.runtime import Invocation, LocalFunction  # noqa: E402

SITE = "https://www.example.com"
REAL_URLS = 1_000_000
REAL_CHANGES_PER_DAY = 100_000
DAYS = 30
DEFAULT_CAP = 40_000
REAL_LEAVES = 2 ** math.ceil(math.log2(REAL_URLS / DEFAULT_CAP))
#: The two InvalidationMaxPaths values compared: the template's current default, and one path.
MAX_PATHS_CHOICES = (1000, 1)
#: AWS: "the objects will be removed from all of the edge locations within minutes ...
#: (typically 10 to 15 minutes)" (https://aws.amazon.com/blogs/aws/new-cloudfront-feature-invalidation/),
#: and "wildcard invalidations take no more time than those for individual objects"
#: (https://aws.amazon.com/blogs/aws/simplified-multiple-object-invalidation-for-amazon-cloudfront/).
INVALIDATION_SECONDS_WORST = 15 * 60
#: AWS's ReceiveMessage long-poll maximum (WaitTimeSeconds 20): one empty poll per 20 s per poller.
LONG_POLL_SECONDS = 20

PRICE = {
    "wru": 0.625 / 1e6,
    "rru": 0.125 / 1e6,
    "ddb_storage_gb": 0.25,
    "gb_s": 0.0000133334,
    "lambda_req": 0.20 / 1e6,
    "s3_put": 0.005 / 1000,
    "s3_get": 0.0004 / 1000,
    "inval_path": 0.005,
    "inval_free_paths": 1000,
    "sqs_req": 0.40 / 1e6,
}
S3_PUT_CLASS = {"PutObject", "CopyObject", "PostObject", "ListObjects", "ListObjectsV2"}
S3_GET_CLASS = {"GetObject", "HeadObject"}

# --- DynamoDB capacity units (CapacityUnitCalculations.html, ReadWriteCapacityMode.html) ------


def stored_size(item: dict[str, Any] | None) -> int:
    """Bytes of an item by DynamoDB's rules (``sitemap_updater.ingest.item_size``); 0 if absent."""
    return item_size(item) if item else 0


def read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)


def write_units(size: int) -> float:
    return float(max(1, math.ceil(size / 1024)))


class Meter:
    """Counts the requests made through one botocore event emitter, with DynamoDB capacity units.

    ``lookup(table, key)`` returns the stored item (through a client that is not metered), so a
    write is charged, as DynamoDB charges it, for the larger of the item before and after.
    """

    _WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem"})

    def __init__(self, events: Any, lookup: Callable[[str, dict[str, Any]], dict[str, Any] | None]):
        self._lookup = lookup
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.units: Counter[str] = Counter()
        self.seconds = 0.0
        self.op_seconds: Counter[str] = Counter()
        self.cpu = 0.0
        self.op_cpu: Counter[str] = Counter()
        #: CPU time moto spends answering (between the first and the last ``before-send``
        #: handler: moto's own handler runs between them), by operation
        self.emulated_cpu: Counter[str] = Counter()
        self._send = threading.local()
        events.register("before-parameter-build", self._before_build)
        events.register("before-call", self._before_call)
        events.register("after-call", self._after_call)
        events.register_first("before-send", self._send_started)
        events.register_last("before-send", self._send_answered)

    def take(self) -> dict[str, Any]:
        with self._lock:
            taken = {
                "calls": dict(sorted(self.calls.items())),
                "units": {k: round(v, 1) for k, v in sorted(self.units.items())},
                "seconds_in_aws_calls": round(self.seconds, 3),
                "seconds_by_call": {k: round(v, 3) for k, v in sorted(self.op_seconds.items())},
                "cpu_in_aws_calls": round(self.cpu, 3),
                "cpu_by_call": {k: round(v, 3) for k, v in sorted(self.op_cpu.items())},
                "cpu_in_moto": round(sum(self.emulated_cpu.values()), 3),
                "cpu_in_moto_by_call": {
                    k: round(v, 3) for k, v in sorted(self.emulated_cpu.items())
                },
            }
            self.calls, self.units, self.seconds = Counter(), Counter(), 0.0
            self.op_seconds, self.cpu, self.op_cpu = Counter(), 0.0, Counter()
            self.emulated_cpu = Counter()
        return taken

    @staticmethod
    def _key(params: dict[str, Any]) -> dict[str, Any] | None:
        if "Key" in params:
            return dict(params["Key"])
        item = params.get("Item")
        if item and "pk" in item and "sk" in item:
            return {"pk": item["pk"], "sk": item["sk"]}
        return None

    def _before_build(self, params: dict[str, Any], model: Any, context: Any, **_: Any) -> None:
        context["meter_params"] = dict(params)
        if model.service_model.service_name == "dynamodb" and model.name in self._WRITES:
            key = self._key(params)
            if key is not None:
                context["meter_before"] = stored_size(self._lookup(params["TableName"], key))

    def _send_started(self, **_: Any) -> None:
        self._send.started = time.thread_time()

    def _send_answered(self, event_name: str, **_: Any) -> None:
        started = getattr(self._send, "started", None)
        if started is None:
            return
        self._send.started = None
        _, service, op = [*event_name.split("."), "", ""][:3]
        with self._lock:
            self.emulated_cpu[f"{service}.{op}"] += time.thread_time() - started

    def _before_call(self, context: Any, **_: Any) -> None:
        context["meter_started"] = time.perf_counter()
        context["meter_cpu"] = time.thread_time()

    def _after_call(self, parsed: Any, model: Any, context: Any, **_: Any) -> None:
        elapsed = time.perf_counter() - context.get("meter_started", time.perf_counter())
        cpu = time.thread_time() - context.get("meter_cpu", time.thread_time())
        service, op = model.service_model.service_name, model.name
        params: dict[str, Any] = context.get("meter_params", {})
        units: dict[str, float] = {}
        if service == "dynamodb":
            units = self._capacity(op, params, parsed, context)
        with self._lock:
            self.calls[f"{service}.{op}"] += 1
            self.seconds += elapsed
            self.op_seconds[f"{service}.{op}"] += elapsed
            self.cpu += cpu
            self.op_cpu[f"{service}.{op}"] += cpu
            for name, value in units.items():
                self.units[name] += value

    def _capacity(
        self, op: str, params: dict[str, Any], parsed: Any, context: Any
    ) -> dict[str, float]:
        consistent = bool(params.get("ConsistentRead", False))
        if op in self._WRITES:
            key = self._key(params)
            after = stored_size(self._lookup(params["TableName"], key)) if key else 0
            return {f"wru.{op}": write_units(max(context.get("meter_before", 0), after))}
        if op == "GetItem":
            return {f"rru.{op}": read_units(stored_size(parsed.get("Item")), consistent)}
        if op == "BatchGetItem":
            total = 0.0
            for table, request in params.get("RequestItems", {}).items():
                got = parsed.get("Responses", {}).get(table, [])
                total += sum(
                    read_units(stored_size(i), request.get("ConsistentRead", False)) for i in got
                )
                total += read_units(0, request.get("ConsistentRead", False)) * max(
                    0, len(request.get("Keys", [])) - len(got)
                )
            return {f"rru.{op}": total}
        if op in ("Query", "Scan"):
            items = parsed.get("Items", [])
            size = sum(stored_size(i) for i in items)
            count, scanned = int(parsed.get("Count", 0)), int(parsed.get("ScannedCount", 0))
            if count and scanned > count:  # filtered-out items are read (and billed) too
                size = size * scanned // count
            return {f"rru.{op}": read_units(size, consistent)}
        return {}


def _timed(function: LocalFunction, durations: list[tuple[float, float]]) -> None:
    """Record (wall seconds, CPU seconds of the invoking thread) of every invocation of
    ``function`` as the emulator makes it (the handlers below run in that thread)."""
    original = function.invoke

    def invoke(event: dict[str, Any], remaining_ms: int | None = None) -> Invocation:
        cpu = time.thread_time()
        inv = original(event, remaining_ms)
        durations.append((inv.seconds, time.thread_time() - cpu))
        return inv

    function.invoke = invoke  # type: ignore[method-assign]


def _page(i: int, rng: random.Random) -> dict[str, Any]:
    return {
        "action": "upsert",
        "url": f"{SITE}/products/{i}-{rng.choice(['red', 'blue', 'green'])}-shoe",
        "lastmod": f"2026-11-{rng.randint(1, 20):02d}",
        "changefreq": "weekly",
        "priority": 0.5,
    }


def _rate_minutes(expression: str) -> float:
    match = re.fullmatch(r"rate\((\d+) (minute|minutes|hour|hours|day|days)\)", expression.strip())
    if match is None:
        raise ValueError(f"RebuildSchedule {expression!r}: only rate(N unit) is modelled")
    n, unit = int(match.group(1)), match.group(2)
    return n * {"minute": 1, "minutes": 1, "hour": 60, "hours": 60, "day": 1440, "days": 1440}[unit]


def _max_age(cache_control: str) -> int:
    match = re.search(r"max-age=(\d+)", cache_control)
    if match is None:
        raise ValueError(f"no max-age in {cache_control!r}")
    return int(match.group(1))


def measure(site_urls: int, changes: int, batch_size: int) -> dict[str, Any]:
    rng = random.Random(7)
    cap = max(1, math.ceil(site_urls / REAL_LEAVES * 1.25))
    pages = [_page(i, rng) for i in range(site_urls)]
    params = {"MaxUrlsPerSitemap": str(cap), "IngestBatchSize": str(batch_size)}
    with LocalDeployment(site_url=SITE, parameters=params) as dep:
        if boto3.DEFAULT_SESSION is None:
            boto3.setup_default_session()
        assert boto3.DEFAULT_SESSION is not None

        def lookup(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
            got = dep.dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)
            item: dict[str, Any] | None = got.get("Item")
            return item

        handlers = Meter(boto3.DEFAULT_SESSION.events, lookup)
        emulator_sqs = Meter(dep.sqs.meta.events, lookup)
        ingest_durations: list[tuple[float, float]] = []
        rebuild_durations: list[tuple[float, float]] = []
        _timed(dep.ingest, ingest_durations)
        _timed(dep.rebuild_function, rebuild_durations)

        dep.send(json.dumps(pages[i : i + 500]) for i in range(0, site_urls, 500))
        dep.drain()
        dep.rebuild_until_clean()
        leaves = len([k for k in dep.objects() if k.startswith("sitemap-r")])
        handlers.take()
        emulator_sqs.take()
        ingest_durations.clear()
        rebuild_durations.clear()

        changed = rng.sample(pages, changes)
        for page in changed:
            page["lastmod"] = "2026-11-21"
        sent = dep.send(json.dumps(page) for page in changed)
        if sent:
            raise RuntimeError(f"SQS refused {len(sent)} bodies: {sent[0]}")
        drained = dep.drain()
        ingest = handlers.take()
        ingest_sqs = emulator_sqs.take()
        ingest_invocations = list(ingest_durations)
        run = dep.rebuild()
        rebuild = handlers.take()
        rebuild_invocations = list(rebuild_durations)

        url_sizes = []
        for page_items in dep.dynamodb.get_paginator("scan").paginate(TableName=dep.table_name):
            url_sizes += [stored_size(i) for i in page_items["Items"] if i["pk"]["S"][:2] == "u#"]
        schedule = str(dep.template.resolve({"Ref": "RebuildSchedule"}))
        window = int(dep.template.resolve({"Ref": "IngestBatchingWindowSeconds"}))
        memory = {
            "ingest": dep.ingest.spec.memory_mb,
            "rebuild": dep.rebuild_function.spec.memory_mb,
        }
    changed_paths = {p: "" for p in run["invalidated_paths"]}
    return {
        "site_urls": site_urls,
        "cap": cap,
        "leaves": leaves,
        "changes": changes,
        "ingest_batch_size": batch_size,
        "ingest": {
            **ingest,
            "invocations": len(ingest_invocations),
            "records": drained.records,
            "handler_seconds": round(sum(w for w, _ in ingest_invocations), 3),
            "handler_cpu_seconds": round(sum(c for _, c in ingest_invocations), 3),
            "handler_cpu_seconds_max": round(max(c for _, c in ingest_invocations), 3),
        },
        "ingest_sqs_emulator": ingest_sqs,
        "rebuild": {
            **rebuild,
            "invocations": len(rebuild_invocations),
            "handler_seconds": round(sum(w for w, _ in rebuild_invocations), 3),
            "handler_cpu_seconds": round(sum(c for _, c in rebuild_invocations), 3),
        },
        "run": {k: run[k] for k in ("shards_rebuilt", "dynamodb_items_read", "files")},
        "objects_written": len(run["objects_written"]),
        "invalidated_paths": {
            str(n): len(paths_to_invalidate(changed_paths, n)) for n in MAX_PATHS_CHOICES
        },
        "url_item_bytes_mean": round(sum(url_sizes) / max(1, len(url_sizes)), 1),
        "template": {
            "RebuildSchedule": schedule,
            "IngestBatchingWindowSeconds": window,
            "MemorySize": memory,
        },
    }


def monthly(m: dict[str, Any], idle_pollers: int) -> dict[str, Any]:
    """Scale the measured slice to 1M URLs and 100k changes a day, over 30 days."""
    period_min = _rate_minutes(m["template"]["RebuildSchedule"])
    runs = DAYS * 1440 / period_min
    changes = REAL_CHANGES_PER_DAY * DAYS
    per_run_changes = REAL_CHANGES_PER_DAY * period_min / 1440
    # shards a run finds dirty: at the real size, and in the measured slice
    real_dirty = REAL_LEAVES * (1 - (1 - 1 / REAL_LEAVES) ** per_run_changes)
    slice_dirty = m["run"]["shards_rebuilt"]
    items_per_run = REAL_URLS * real_dirty / REAL_LEAVES
    items_scale = items_per_run / max(1, m["run"]["dynamodb_items_read"])
    shard_scale = real_dirty / max(1, slice_dirty)

    ing, reb = m["ingest"], m["rebuild"]
    per_change = 1 / m["changes"]
    query_rru = reb["units"].get("rru.Query", 0.0)
    other_rebuild_rru = sum(v for k, v in reb["units"].items() if k.startswith("rru.")) - query_rru
    est: dict[str, float] = {
        "dynamodb_wru_ingest": changes
        * per_change
        * sum(v for k, v in ing["units"].items() if k.startswith("wru.")),
        "dynamodb_rru_ingest": changes
        * per_change
        * sum(v for k, v in ing["units"].items() if k.startswith("rru.")),
        "dynamodb_wru_rebuild": runs
        * shard_scale
        * sum(v for k, v in reb["units"].items() if k.startswith("wru.")),
        "dynamodb_rru_rebuild": runs * (query_rru * items_scale + other_rebuild_rru * shard_scale),
    }
    ingest_invocations = changes * ing["invocations"] / m["changes"]
    mem = m["template"]["MemorySize"]
    # Durations are the CPU time of the thread that ran the handler: on a shared machine wall
    # time also counts the wait for a core. moto answers every AWS call in that thread, so the
    # figure is an upper bound of a handler's duration on AWS; "own work" leaves the calls out.
    ingest_s = ing["handler_cpu_seconds"] / max(1, ing["invocations"])
    # Rebuild time: what reads items (Query) and the handler's own work (decode, render, gzip)
    # grow with the items read; the other AWS calls (one put and one state update per file,
    # the run's fixed reads and writes) with the dirty shards.
    query_s = reb["cpu_by_call"].get("dynamodb.Query", 0.0)
    query_moto_s = reb["cpu_in_moto_by_call"].get("dynamodb.Query", 0.0)
    own_s = reb["handler_cpu_seconds"] - reb["cpu_in_aws_calls"]
    other_aws_s = reb["cpu_in_aws_calls"] - query_s
    other_moto_s = reb["cpu_in_moto"] - query_moto_s
    rebuild_own_s = own_s * items_scale
    rebuild_s = (query_s + own_s) * items_scale + other_aws_s * shard_scale
    # the same without moto's answering: the handler and the SDK (request, response parsing)
    rebuild_client_s = (query_s - query_moto_s + own_s) * items_scale + (
        other_aws_s - other_moto_s
    ) * shard_scale
    ingest_client_s = (ing["handler_cpu_seconds"] - ing["cpu_in_moto"]) / max(1, ing["invocations"])
    est["lambda_requests"] = ingest_invocations + runs
    est["lambda_gb_s_ingest"] = ingest_invocations * ingest_s * mem["ingest"] / 1024
    est["lambda_gb_s_rebuild"] = runs * rebuild_s * mem["rebuild"] / 1024
    est["lambda_gb_s_rebuild_own_work"] = runs * rebuild_own_s * mem["rebuild"] / 1024
    est["lambda_gb_s_ingest_without_moto"] = (
        ingest_invocations * ingest_client_s * mem["ingest"] / 1024
    )
    est["lambda_gb_s_rebuild_without_moto"] = runs * rebuild_client_s * mem["rebuild"] / 1024
    s3 = Counter({k.split(".", 1)[1]: v for k, v in reb["calls"].items() if k.startswith("s3.")})
    est["s3_put_list_requests"] = runs * shard_scale * sum(s3[k] for k in S3_PUT_CLASS)
    est["s3_get_requests"] = runs * shard_scale * sum(s3[k] for k in S3_GET_CLASS)
    est["s3_other_requests"] = (
        runs * shard_scale * sum(v for k, v in s3.items() if k not in S3_PUT_CLASS | S3_GET_CLASS)
    )
    for n in MAX_PATHS_CHOICES:
        est[f"cloudfront_paths_max{n}"] = runs * m["invalidated_paths"][str(n)]
    sqs = Counter({k.split(".", 1)[1]: v for k, v in m["ingest_sqs_emulator"]["calls"].items()})
    est["sqs_emulator_measured"] = changes * per_change * sum(sqs.values())
    # AWS, upper bound: a producer that does not batch (one SendMessage per change), one receive
    # per message (a long poll may return a single message at this rate), the empty long polls of
    # the idle pollers; deletes, retries and dead-letter sends as measured.
    est["sqs_producer_batched"] = changes * per_change * sqs["SendMessageBatch"]
    est["sqs_producer_unbatched"] = float(changes)
    est["sqs_receive_measured"] = changes * per_change * sqs["ReceiveMessage"]
    est["sqs_receive_upper"] = changes + idle_pollers * DAYS * 86400 / LONG_POLL_SECONDS
    est["sqs_delete_measured"] = (
        changes
        * per_change
        * (sqs["DeleteMessageBatch"] + sqs["DeleteMessage"] + sqs["ChangeMessageVisibilityBatch"])
    )
    est["sqs_dead_letter_sends"] = changes * per_change * ing["calls"].get("sqs.SendMessage", 0)
    est["sqs_aws_upper_bound"] = (
        est["sqs_producer_unbatched"]
        + est["sqs_receive_upper"]
        + est["sqs_delete_measured"]
        + est["sqs_dead_letter_sends"]
    )
    storage_gb = REAL_URLS * (m["url_item_bytes_mean"] + 100) / 1e9  # +100 B indexing overhead

    usd: dict[str, float] = {
        "dynamodb": (est["dynamodb_wru_ingest"] + est["dynamodb_wru_rebuild"]) * PRICE["wru"]
        + (est["dynamodb_rru_ingest"] + est["dynamodb_rru_rebuild"]) * PRICE["rru"]
        + storage_gb * PRICE["ddb_storage_gb"],
        "lambda": (est["lambda_gb_s_ingest"] + est["lambda_gb_s_rebuild"]) * PRICE["gb_s"]
        + est["lambda_requests"] * PRICE["lambda_req"],
        "s3": (est["s3_put_list_requests"] + est["s3_other_requests"]) * PRICE["s3_put"]
        + est["s3_get_requests"] * PRICE["s3_get"],
        "sqs": est["sqs_aws_upper_bound"] * PRICE["sqs_req"],
    }
    for n in MAX_PATHS_CHOICES:
        paths = est[f"cloudfront_paths_max{n}"]
        usd[f"cloudfront_max{n}"] = (
            max(0.0, paths - PRICE["inval_free_paths"]) * PRICE["inval_path"]
        )
    base = usd["dynamodb"] + usd["lambda"] + usd["s3"] + usd["sqs"]
    totals = {n: base + usd[f"cloudfront_max{n}"] for n in MAX_PATHS_CHOICES}
    return {
        "runs": runs,
        "changes": changes,
        "dirty_shards_per_run": real_dirty,
        "items_read_per_run": items_per_run,
        "rebuild_seconds_per_run": rebuild_s,
        "rebuild_own_seconds_per_run": rebuild_own_s,
        "rebuild_client_seconds_per_run": rebuild_client_s,
        "lambda_without_moto_usd": (
            est["lambda_gb_s_ingest_without_moto"] + est["lambda_gb_s_rebuild_without_moto"]
        )
        * PRICE["gb_s"]
        + est["lambda_requests"] * PRICE["lambda_req"],
        "ingest_seconds_per_invocation": ingest_s,
        "storage_gb": storage_gb,
        "est": est,
        "usd": usd,
        "totals": totals,
        "lambda_gb_s_own_work_usd": (
            est["lambda_gb_s_ingest"] + est["lambda_gb_s_rebuild_own_work"]
        )
        * PRICE["gb_s"],
        "period_min": period_min,
    }


def freshness(m: dict[str, Any], model: dict[str, Any], rebuild: float) -> dict[str, float]:
    """Seconds from a change event to CloudFront serving the new sitemap, for a run of
    ``rebuild`` seconds: each step, the worst and the typical total."""
    window = m["template"]["IngestBatchingWindowSeconds"]
    ingest_mean = model["ingest_seconds_per_invocation"]
    ingest_max = m["ingest"]["handler_cpu_seconds_max"]
    period = model["period_min"] * 60
    index_ttl, file_ttl = _max_age(INDEX.cache_control), _max_age(SHARD_FILE.cache_control)
    # a run that outlasts the period delays the next one (reserved concurrency 1 and the lease)
    wait = max(period, rebuild)
    # an edge serves its old copy until the invalidation reaches it or the copy expires
    edge_worst = max(
        min(INVALIDATION_SECONDS_WORST, index_ttl), min(INVALIDATION_SECONDS_WORST, file_ttl)
    )
    return {
        "batching_window": window,
        "ingest_invocation_max": ingest_max,
        "wait_for_run_worst": wait,
        "rebuild_run": rebuild,
        "index_max_age": index_ttl,
        "file_max_age": file_ttl,
        "edge_stale_worst": edge_worst,
        "worst": window + ingest_max + wait + rebuild + edge_worst,
        "typical_until_published": window / 2 + ingest_mean + wait / 2 + rebuild,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--site-urls", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=round(REAL_CHANGES_PER_DAY / 288))
    parser.add_argument(
        "--ingest-batch-size",
        type=int,
        default=None,
        help="messages per ingest invocation (default: the arrivals in one batching window "
        "at the average rate, at most the template's IngestBatchSize)",
    )
    parser.add_argument(
        "--idle-pollers",
        type=int,
        default=5,
        help="event source mapping pollers long-polling an idle queue (AWS does not publish it)",
    )
    args = parser.parse_args()
    batch = args.ingest_batch_size or min(20, math.ceil(REAL_CHANGES_PER_DAY / 86_400 * 5))
    started = time.perf_counter()
    m = measure(args.site_urls, args.changes, batch)
    print(json.dumps(m, indent=2))
    print(f"measured in {time.perf_counter() - started:.1f} s")
    model = monthly(m, args.idle_pollers)
    est, usd = model["est"], model["usd"]
    print(
        f"\nMonthly ({DAYS} days), {REAL_URLS:,} URLs, {REAL_CHANGES_PER_DAY:,} changes/day, "
        f"{model['runs']:,.0f} runs ({m['template']['RebuildSchedule']}), {REAL_LEAVES} shards, "
        f"{model['dirty_shards_per_run']:.2f} dirty per run, "
        f"{model['items_read_per_run']:,.0f} items read per run:"
    )
    for key, value in est.items():
        print(f"  {key:<34} {value:>18,.0f}")
    print(f"  {'dynamodb_storage_gb':<34} {model['storage_gb']:>18,.3f}")
    for key, value in usd.items():
        print(f"  usd_{key:<30} {value:>18,.2f}")
    print(f"  {'usd_total (exact paths)':<34} {model['totals'][1000]:>18,.2f}")
    print(f"  {'usd_total (InvalidationMaxPaths=1)':<34} {model['totals'][1]:>18,.2f}")
    print(
        f"  usd_lambda without moto's answering (handler + SDK CPU only): "
        f"{model['lambda_without_moto_usd']:,.2f}; rebuild run "
        f"{model['rebuild_seconds_per_run']:,.1f} s with moto, "
        f"{model['rebuild_client_seconds_per_run']:,.1f} s without, "
        f"{model['rebuild_own_seconds_per_run']:,.1f} s outside AWS calls"
    )
    totals_without = {
        n: total - usd["lambda"] + model["lambda_without_moto_usd"]
        for n, total in model["totals"].items()
    }
    print(f"  {'usd_total without moto, exact paths':<38} {totals_without[1000]:>14,.2f}")
    print(f"  {'usd_total without moto, MaxPaths=1':<38} {totals_without[1]:>14,.2f}")
    upper = freshness(m, model, model["rebuild_seconds_per_run"])
    lower = freshness(m, model, model["rebuild_client_seconds_per_run"])
    print(
        "\nFreshness, change event -> CloudFront serves the new sitemap (seconds; the rebuild run "
        "with moto's answering / without it):"
    )
    for key in upper:
        print(f"  {key:<26} {upper[key]:>10,.1f} {lower[key]:>10,.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
