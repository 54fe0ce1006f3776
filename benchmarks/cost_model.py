"""Cost and freshness model: every request count measured on the local deployment, then priced.

    .venv/bin/python benchmarks/cost_model.py [--json] [--sizes 1000000:100000 ...]
        [--urls-per-leaf 40] [--idle-pollers 5] [--no-sections] [--schedule 'rate(3 minutes)']
        [--no-observer] [--reconcile 'rate(7 days)'] [--urgent-share 0.001]

For each site size (``URLS:CHANGES_PER_DAY``; by default 100,000:10,000, 1,000,000:100,000 and
10,000,000:1,000,000, and then the multi-section site below unless ``--no-sections``) it runs,
on template.yaml deployed on moto (the real handlers, the emulated SQS event source mapping, the
table's stream):

1. A small site with exactly as many shard files as the real site has at the default cap
   (shards are hash prefixes: 2^ceil(log2(urls / 40,000)) leaves, so 4, 32 and 256), with
   ``--urls-per-leaf`` URLs in each, built and published once and not counted.
2. One scheduled slice: the changes of one schedule period (changes a day / 360 at
   ``rate(4 minutes)``: 28, 278, 2,778; ``--schedule`` deploys another period) sent as
   single-change messages, drained through the ingest function, then ONE scheduled
   (incremental) rebuild. Everything is metered.
3. One reconciling full rebuild (``{"full_rebuild": true}``, the ``ReconcileSchedule`` input),
   metered, then scaled to the real site by its URL items and its files (labelled as scaled);
   ``--reconcile`` deploys another ``ReconcileSchedule``, priced at its number of runs.

What it counts, with botocore events (nothing is estimated from the code):

* every AWS request the handlers make, on the default boto3 session their clients come from, by
  ``service.Operation``; for DynamoDB the capacity units of each request by table (the URL table
  and the state table), by DynamoDB's published rules (item sizes from the request and response
  items, and from the stored item before and after each write, read back by the emulator's own
  client), and the time spent inside calls;
* DynamoDB Streams: each ``GetRecords`` call is one streams read request unit; DescribeStream
  and GetShardIterator are not billed;
* every SQS request the emulated event source mapping and the producer make (the emulator's
  own SQS client), and the AWS upper figure (see below);
* every invocation of each function as the emulator makes it, with the CPU time of the thread
  that ran the handler (less the CPU of the meter's own reads of stored items, which run in that
  thread), and the CPU time moto spends answering each call (between the first and the last
  botocore ``before-send`` handler: moto answers in between).

Rebuild CPU at the real size: the local files are tiny, so the CPU of patching real files is
measured in this process: one published file of urls / leaves entries rendered by the project's
writer, patched (``rebuild.patch.patch_shard``) with the changes one leaf gets in a slice, best of
3 by ``time.process_time()``, times the leaves the local run touched. The handler's CPU outside
patching (the calls, moto answering them included, and the index) is the local run's.

Lambda duration: CPU time stretched by the CPU share of the function's memory (a function has the
equivalent of one vCPU at 1,769 MB; below that, proportionally less), with moto's answering
inside the handler counted: the upper figure. The figure without moto's answering is printed too.

SQS, emulator to AWS: the upper figure takes one ``SendMessage`` per change (a producer that
does not batch), one ``ReceiveMessage`` per message plus the empty 20-second long polls of
``--idle-pollers`` idle pollers, and the measured deletes and dead-letter sends.

The multi-section site (``SECTION_MIX``): 1,000,000 URLs in five sections placed by
``SectionRules``, 100,000 changes a day of which one section takes 80%. Its local site has each
section's real files (2^ceil(log2(urls / 40,000)) each), its slice draws each change's section by
its share, and the patch CPU is measured at the mean file size. It also reports how old the
index lastmods get: one day of changes (and one run's) is drawn with the real sections' sizes
and files, each change on a uniformly drawn URL of its section, and the files no change reached
keep their lastmod; beside it, the same changes on the hash-only layout of 32 files.

Freshness (change event -> every CloudFront edge, and a crawler fetching then, serves it): the
batching window and the schedule from template.yaml, the measured ingest and rebuild durations,
and the objects' ``max-age`` from ``sitemap_updater.rebuild.outputs.bucket`` counted twice (a
regional edge cache and then an edge location may each hold a copy for its whole lifetime).
By kind: the other changes wait for the schedule; a news article written and a listed URL
deleted (``news``, ``delete``) wait instead for the urgent event source mapping: Lambda's poll
of the stream, its ``UrgentBatchingWindowSeconds``, a run already going, then the run. The runs
that mapping starts are priced as measured scheduled runs, one per urgent change, the urgent
changes an assumed share of all (``--urgent-share``).

List prices (us-east-1, on-demand, without the free tiers), from these pages:

* DynamoDB on-demand: $0.625 per million write request units, $0.125 per million read request
  units (a strongly consistent read of up to 4 KB is 1 RRU); storage $0.25 per GB-month;
  DynamoDB Streams $0.02 per 100,000 streams read request units, one per ``GetRecords`` call.
  https://aws.amazon.com/dynamodb/pricing/on-demand/ ; item sizes:
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html ;
  "None of the other DynamoDB Stream APIs are charged":
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CostOptimization_StreamsUsage.html
* Lambda (arm64): $0.0000133334 per GB-second, $0.20 per million requests.
  https://aws.amazon.com/lambda/pricing/ ; CPU share of memory:
  https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html
* S3 Standard: $0.005 per 1,000 PUT, COPY, POST and LIST requests, $0.0004 per 1,000 GET.
  https://aws.amazon.com/s3/pricing/
* CloudFront invalidations: the first 1,000 paths a month are free, then $0.005 per path; a
  wildcard path counts as one. https://aws.amazon.com/cloudfront/pricing/
* SQS standard queue: $0.40 per million requests (each 64 KB chunk of a payload is one).
  https://aws.amazon.com/sqs/pricing/
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tooling"))
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater.config import DEFAULT_MAX_URLS_PER_SITEMAP  # noqa: E402
from sitemap_updater_local.deployment import LocalDeployment  # noqa: E402
from sitemap_updater_local.deployment.runtime import (  # noqa: E402
    FunctionOutput,
    Invocation,
    LocalFunction,
)

# The functions' logger binds the stdout of the moment it is first imported: import the layer
# while stdout is a function output, so that the handlers' log lines never reach this script's
# stdout (``--json`` prints one JSON object and nothing else).
with FunctionOutput().capture():
    from bench_rebuild import patch_cpu_meter  # the one meter of the patch's CPU
    from observer_cost import measure as measure_observer
    from observer_cost import model as observer_model

    from sitemap_updater.page.model import Page
    from sitemap_updater.producer.client import DEFAULT_MAX_AGE_SECONDS, ChangeSender
    from sitemap_updater.protocol.urls import Site
    from sitemap_updater.rebuild.inputs.spools import Spools
    from sitemap_updater.rebuild.news import is_news_key
    from sitemap_updater.rebuild.outputs.bucket import INDEX, SHARD_FILE
    from sitemap_updater.rebuild.patch import Recorded, patch_shard
    from sitemap_updater.rebuild.render import render_shard
    from sitemap_updater.store.items import Item, item_size, live_item
    from sitemap_updater.store.keys import hash_bits, url_hash
    from sitemap_updater.view import VIEW_NAMES

SITE = "https://www.example.com"
DAYS = 30
DEFAULT_CAP = DEFAULT_MAX_URLS_PER_SITEMAP
MAX_BYTES = 47_185_920
SIZES: tuple[tuple[int, int], ...] = (
    (100_000, 10_000),
    (1_000_000, 100_000),
    (10_000_000, 1_000_000),
)
#: The monthly ceilings the design is held to, by site size (printed as checks, never asserted).
TOTAL_TARGETS = {100_000: 2.0, 1_000_000: 10.0, 10_000_000: 80.0}
#: Per-run read budget on the 1M slice: read units per changed URL, plus a constant.
READS_PER_CHANGE, READS_CONSTANT = 3.0, 50.0
REBUILD_CPU_TARGET_S = 5.0
INGEST_WRU_TARGET = 2.0
FRESHNESS_TARGETS_S = {"worst": 5 * 60, "typical": 2.5 * 60}
#: A news article written and a listed URL deleted: on every edge within a minute, half typical.
URGENT_FRESHNESS_TARGETS_S = {"worst": 60, "typical": 30}
#: The kinds of change the urgent event source mapping publishes at once (UrgentPublish).
URGENT_KINDS = ("news", "delete")
#: "Lambda polls shards in your DynamoDB stream for records at a base rate of 4 times per
#: second" (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html).
STREAM_POLL_SECONDS = 0.25
#: Of the changes, the share that are urgent (news and deletes): an assumption, not a
#: measurement (``--urgent-share``); 0.1% is 100 a day on the 1,000,000-URL site.
DEFAULT_URGENT_SHARE = 0.001
#: "At 1,769 MB, a function has the equivalent of one vCPU" (configuration-memory.html).
MB_PER_VCPU = 1769
#: AWS's ReceiveMessage long-poll maximum (WaitTimeSeconds 20): one empty poll per 20 s per poller.
LONG_POLL_SECONDS = 20
#: The regional edge cache and the edge location each keep a copy up to its max-age.
CACHE_LAYERS = 2
#: SQS bills each 64 KiB chunk of a request's payload as one request.
SQS_CHUNK_BYTES = 64 * 1024
#: The monthly ceiling with a producer that sends through the producer client, by site size.
CLIENT_TOTAL_TARGETS = {1_000_000: 5.0}
#: The multi-section site: (section, URLs, share of the changes); one section takes 80%, and
#: the help pages hardly change. Section k's local page numbers start at k * SECTION_STRIDE.
SECTION_MIX: tuple[tuple[str, int, float], ...] = (
    ("products", 400_000, 0.80),
    ("articles", 250_000, 0.15),
    ("categories", 150_000, 0.049),
    ("pages", 150_000, 0.00099),
    ("help", 50_000, 0.00001),
)
SECTION_SIZE = (sum(n for _, n, _ in SECTION_MIX), 100_000)
SECTION_STRIDE = 10_000_000
SECTION_RULES = ",".join(f"/{name}/={name}" for name, _, _ in SECTION_MIX if name != "pages")

PRICE = {
    "wru": 0.625 / 1e6,
    "rru": 0.125 / 1e6,
    "streams_rru": 0.02 / 1e5,
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
    """Bytes of an item by DynamoDB's rules (``store.items.item_size``); 0 if absent."""
    return item_size(item) if item else 0


def read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)


def write_units(size: int) -> float:
    return float(max(1, math.ceil(size / 1024)))


class Meter:
    """Counts the requests made through one botocore event emitter, with DynamoDB capacity units
    by table (``units`` keys are ``<table>|rru.<Operation>`` and ``<table>|wru.<Operation>``).

    ``lookup(table, key)`` returns the stored item (through a client that is not metered), so a
    write is charged, as DynamoDB charges it, for the larger of the item before and after. Those
    lookups run in the calling thread, inside the handler's invocation: ``lookup_cpu()`` gives the
    CPU they took in the current thread, so that ``_timed`` takes it out of the handler's CPU.
    """

    _WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem"})

    def __init__(self, events: Any, lookup: Callable[[str, dict[str, Any]], dict[str, Any] | None]):
        self._lookup = lookup
        #: off while the site is built (not counted): no lookups, nothing recorded
        self.enabled = False
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.units: defaultdict[str, float] = defaultdict(float)
        self.cpu = 0.0
        self.op_cpu: Counter[str] = Counter()
        #: CPU time moto spends answering (between the first and the last ``before-send``
        #: handler: moto's own handler runs between them), by operation
        self.emulated_cpu: Counter[str] = Counter()
        self._send = threading.local()
        self._lookups = threading.local()
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
                "cpu_in_aws_calls": round(self.cpu, 4),
                "cpu_by_call": {k: round(v, 4) for k, v in sorted(self.op_cpu.items())},
                "cpu_in_moto": round(sum(self.emulated_cpu.values()), 4),
                "cpu_in_moto_by_call": {
                    k: round(v, 4) for k, v in sorted(self.emulated_cpu.items())
                },
            }
            self.calls, self.units, self.cpu = Counter(), defaultdict(float), 0.0
            self.op_cpu, self.emulated_cpu = Counter(), Counter()
        return taken

    def lookup_cpu(self) -> float:
        """CPU seconds the current thread has spent in this meter's own lookups so far."""
        spent: float = getattr(self._lookups, "cpu", 0.0)
        return spent

    def _stored_size(self, table: str, key: dict[str, Any]) -> int:
        started = time.thread_time()
        try:
            return stored_size(self._lookup(table, key))
        finally:
            self._lookups.cpu = self.lookup_cpu() + time.thread_time() - started

    @staticmethod
    def _key(params: dict[str, Any]) -> dict[str, Any] | None:
        if "Key" in params:
            return dict(params["Key"])
        item = params.get("Item")
        if item and "pk" in item and "sk" in item:
            return {"pk": item["pk"], "sk": item["sk"]}
        return None

    def _before_build(self, params: dict[str, Any], model: Any, context: Any, **_: Any) -> None:
        if not self.enabled:
            return
        context["meter_params"] = dict(params)
        if model.service_model.service_name == "dynamodb" and model.name in self._WRITES:
            key = self._key(params)
            if key is not None:
                context["meter_before"] = self._stored_size(params["TableName"], key)

    def _send_started(self, **_: Any) -> None:
        if not self.enabled:
            return
        self._send.started = time.thread_time()

    def _send_answered(self, event_name: str, **_: Any) -> None:
        started = getattr(self._send, "started", None)
        if started is None:
            return
        self._send.started = None
        _event, service, op = [*event_name.split("."), "", ""][:3]
        with self._lock:
            self.emulated_cpu[f"{service}.{op}"] += time.thread_time() - started

    def _before_call(self, context: Any, **_: Any) -> None:
        if not self.enabled:
            return
        context["meter_cpu"] = time.thread_time()

    def _after_call(self, parsed: Any, model: Any, context: Any, **_: Any) -> None:
        if not self.enabled:
            return
        cpu = time.thread_time() - context.get("meter_cpu", time.thread_time())
        service, op = model.service_model.service_name, model.name
        params: dict[str, Any] = context.get("meter_params", {})
        units: dict[str, float] = {}
        if service == "dynamodb":
            units = self._capacity(op, params, parsed, context)
        with self._lock:
            self.calls[f"{service}.{op}"] += 1
            self.cpu += cpu
            self.op_cpu[f"{service}.{op}"] += cpu
            for name, value in units.items():
                self.units[name] += value

    def _capacity(
        self, op: str, params: dict[str, Any], parsed: Any, context: Any
    ) -> dict[str, float]:
        consistent = bool(params.get("ConsistentRead", False))
        table = str(params.get("TableName", ""))
        if op in self._WRITES:
            key = self._key(params)
            after = self._stored_size(table, key) if key else 0
            return {f"{table}|wru.{op}": write_units(max(context.get("meter_before", 0), after))}
        if op == "GetItem":
            return {f"{table}|rru.{op}": read_units(stored_size(parsed.get("Item")), consistent)}
        if op == "BatchGetItem":
            units: dict[str, float] = {}
            for name, request in params.get("RequestItems", {}).items():
                strong = bool(request.get("ConsistentRead", False))
                got = parsed.get("Responses", {}).get(name, [])
                total = sum(read_units(stored_size(i), strong) for i in got)
                total += read_units(0, strong) * max(0, len(request.get("Keys", [])) - len(got))
                units[f"{name}|rru.{op}"] = total
            return units
        if op in ("Query", "Scan"):
            items = parsed.get("Items", [])
            size = sum(stored_size(i) for i in items)
            count, scanned = int(parsed.get("Count", 0)), int(parsed.get("ScannedCount", 0))
            if count and scanned > count:  # filtered-out items are read (and billed) too
                size = size * scanned // count
            return {f"{table}|rru.{op}": read_units(size, consistent)}
        return {}


def _units(metered: dict[str, Any], table: str, kind: str) -> float:
    """Sum of ``kind`` (``rru``/``wru``) units of ``table`` in a ``Meter.take()``."""
    return float(sum(v for k, v in metered["units"].items() if k.startswith(f"{table}|{kind}.")))


def _timed(
    function: LocalFunction, durations: list[tuple[float, float]], meters: tuple[Meter, ...]
) -> None:
    """Record (wall seconds, CPU seconds of the invoking thread) of every invocation of
    ``function`` as the emulator makes it (the handlers below run in that thread), without the
    CPU the ``meters``' own lookups took in that thread (they are the benchmark's, not the
    handler's)."""
    original = function.invoke

    def metering() -> float:
        return time.thread_time() - sum(meter.lookup_cpu() for meter in meters)

    def invoke(event: dict[str, Any], remaining_ms: int | None = None) -> Invocation:
        cpu = metering()
        inv = original(event, remaining_ms)
        durations.append((inv.seconds, metering() - cpu))
        return inv

    function.invoke = invoke  # type: ignore[method-assign]


# --- the site -------------------------------------------------------------------------------


def real_leaves(urls: int) -> int:
    return int(2 ** max(0, math.ceil(math.log2(urls / DEFAULT_CAP))))


def _url(i: int) -> str:
    """Page ``i``: under ``/products/`` below SECTION_STRIDE, else under the path of section
    ``i // SECTION_STRIDE - 1`` of SECTION_MIX."""
    section = "products" if i < SECTION_STRIDE else SECTION_MIX[i // SECTION_STRIDE - 1][0]
    return f"{SITE}/{section}/{i % SECTION_STRIDE}-{('red', 'blue', 'green')[i % 3]}-shoe"


def _page(i: int, day: int) -> dict[str, Any]:
    """One change event of about 300 bytes once stored (the URL item)."""
    return {
        "action": "upsert",
        "url": _url(i),
        "lastmod": f"2026-11-{day:02d}",
        "changefreq": "weekly",
        "priority": 0.5,
    }


def balanced_urls(leaves: int, per_leaf: int, first: int = 0) -> list[int]:
    """Page numbers from ``first`` whose URLs put exactly ``per_leaf`` URLs under each of the
    ``leaves`` hash prefixes, so the local site has exactly the real site's leaves."""
    depth = int(math.log2(leaves))
    room: Counter[str] = Counter()
    chosen: list[int] = []
    i = first
    while len(chosen) < leaves * per_leaf:
        prefix = hash_bits(url_hash(_url(i)), depth)
        if room[prefix] < per_leaf:
            room[prefix] += 1
            chosen.append(i)
        i += 1
    return chosen


def _item(i: int, day: int) -> Item:
    page = _page(i, day)
    entry = Page(
        url=page["url"],
        lastmod=page["lastmod"],
        changefreq=page["changefreq"],
        priority=page["priority"],
    )
    digest = hashlib.sha256(repr(entry).encode()).hexdigest()
    return live_item(entry, f"2026110{day % 10}T000000.000000Z#0#{digest}", digest)


def patch_cpu(urls_in_file: int, changes: int) -> dict[str, Any]:
    """CPU seconds (best of 3) of patching one published file of ``urls_in_file`` URLs with
    ``changes`` changed entries, as an incremental run does for each leaf with a change."""
    site = Site.parse(SITE)
    items = sorted((_item(i, 5) for i in range(urls_in_file)), key=lambda it: it["sk"]["S"])
    [published] = render_shard(
        "r", items, site, max_urls=DEFAULT_CAP, max_bytes=MAX_BYTES, stylesheet=True
    )
    assert published.body is not None
    rng = random.Random(11)
    changed = {
        it["sk"]["S"]: it for it in (_item(i, 21) for i in rng.sample(range(urls_in_file), changes))
    }
    best = math.inf
    for _ in range(3):
        started = time.process_time()
        patched = patch_shard(
            "r",
            published.body,
            changed,
            site,
            max_urls=DEFAULT_CAP,
            max_bytes=MAX_BYTES,
            stylesheet=True,
            recorded=Recorded(published.url_count, published.newest_lastmod),
        )
        best = min(best, time.process_time() - started)
    if len(patched.changed_locs) != changes or len(patched.rendered) != 1:
        raise RuntimeError(f"patching changed {len(patched.changed_locs)} of {changes} entries")
    return {
        "urls_in_file": urls_in_file,
        "changes": changes,
        "gzip_bytes": len(published.body),
        "cpu_seconds": best,
    }


def full_rebuild_cpu_per_url(urls_in_file: int) -> dict[str, Any]:
    """CPU seconds per URL (best of 3) of what a full rebuild does for every item after the
    Scan, at the real file size: spool it (``rebuild.inputs.spools.Spools``), load it back in
    hash order, render and gzip it (``render_shard``)."""
    site = Site.parse(SITE)
    items = [_item(i, 5) for i in range(urls_in_file)]
    best = math.inf
    for _ in range(3):
        with tempfile.TemporaryDirectory(prefix="cost-spool-") as tmp:
            started = time.process_time()
            spools = Spools(Path(tmp), ["pages/r"], lambda _item: "pages/")
            spools.fill(iter(items), lambda: False)
            for part, loaded in spools.load("pages/r", DEFAULT_CAP, MAX_BYTES):
                render_shard(
                    part, loaded, site, max_urls=DEFAULT_CAP, max_bytes=MAX_BYTES, stylesheet=True
                )
            best = min(best, time.process_time() - started)
    return {"urls_in_file": urls_in_file, "cpu_seconds_per_url": best / urls_in_file}


# --- measuring ------------------------------------------------------------------------------


def _rate_minutes(expression: str) -> float:
    match = re.fullmatch(r"rate\((\d+) (minute|minutes|hour|hours|day|days)\)", expression.strip())
    if match is None:
        raise ValueError(f"schedule {expression!r}: only rate(N unit) is modelled")
    n, unit = int(match.group(1)), match.group(2)
    return n * {"minute": 1, "minutes": 1, "hour": 60, "hours": 60, "day": 1440, "days": 1440}[unit]


def _max_age(cache_control: str) -> int:
    match = re.search(r"max-age=(\d+)", cache_control)
    if match is None:
        raise ValueError(f"no max-age in {cache_control!r}")
    return int(match.group(1))


def _invocations(durations: list[tuple[float, float]]) -> dict[str, Any]:
    cpus = [c for _, c in durations]
    return {
        "invocations": len(durations),
        "handler_cpu_seconds": round(sum(cpus), 4),
        "handler_cpu_seconds_max": round(max(cpus, default=0.0), 4),
    }


def client_slice(
    dep: LocalDeployment,
    numbers: list[int],
    changes_per_day: int,
    slice_changes: int,
    window: int,
    metered: tuple[Meter, Meter],
    ingest_durations: list[tuple[float, float]],
) -> dict[str, Any]:
    """One slice of changes sent through the producer client at its defaults, then drained.

    The client's clock moves by the site's average time between two changes at each change, so
    its own time rule (the oldest change ``DEFAULT_MAX_AGE_SECONDS`` old) decides how many
    changes share a message. Metered like the single-change slice, plus the bytes of each body
    and of each ``SendMessageBatch`` call (SQS bills a request per 64 KiB chunk).
    """
    handlers, emulator_sqs = metered
    gap = timedelta(seconds=86_400 / changes_per_day)
    clock = {"now": datetime.now(UTC) - gap * slice_changes}
    bodies: list[int] = []
    calls: list[int] = []

    def measure_call(params: dict[str, Any], **_: Any) -> None:
        sizes = [len(e["MessageBody"].encode("utf-8")) for e in params["Entries"]]
        bodies.extend(sizes)
        calls.append(sum(sizes))

    dep.sqs.meta.events.register("provide-client-params.sqs.SendMessageBatch", measure_call)
    ingest_durations.clear()
    with ChangeSender(dep.queue_url, site=SITE, sqs=dep.sqs, clock=lambda: clock["now"]) as sender:
        for i in random.Random(8).sample(numbers, slice_changes):
            sender.add(_page(i, 22))
            clock["now"] += gap
    dep.sqs.meta.events.unregister("provide-client-params.sqs.SendMessageBatch", measure_call)
    # the messages that arrive in one batching window at the average rate close a batch
    messages_a_day = changes_per_day * sender.stats.messages / max(1, sender.stats.changes)
    batch = max(1, min(dep.batch_size, math.ceil(messages_a_day / 86_400 * window)))
    dep.mapping.batch_size = batch
    drained = dep.drain()
    return {
        "max_age_seconds": DEFAULT_MAX_AGE_SECONDS,
        "changes": sender.stats.changes,
        "messages": sender.stats.messages,
        "changes_per_message": round(sender.stats.changes / max(1, sender.stats.messages), 1),
        "body_bytes": bodies,
        "call_payload_bytes": calls,
        "ingest_batch_size": batch,
        "ingest": {**handlers.take(), **_invocations(ingest_durations), "records": drained.records},
        "ingest_sqs_emulator": emulator_sqs.take(),
    }


def _local_site(urls: int, per_leaf: int, sections: bool) -> tuple[int, list[list[int]]]:
    """The real site's files and the local page numbers: one group, or one per section."""
    if not sections:
        leaves = real_leaves(urls)
        return leaves, [balanced_urls(leaves, per_leaf)]
    groups = [
        balanced_urls(real_leaves(n), per_leaf, (k + 1) * SECTION_STRIDE)
        for k, (_, n, _) in enumerate(SECTION_MIX)
    ]
    return sum(real_leaves(n) for _, n, _ in SECTION_MIX), groups


def _slice(groups: list[list[int]], changes: int, sections: bool) -> list[int]:
    """The pages one slice changes: uniformly drawn, or each in a section drawn by its share."""
    rng = random.Random(7)
    if not sections:
        return rng.sample(groups[0], changes)
    weights = [share for _, _, share in SECTION_MIX]
    chosen: set[int] = set()
    while len(chosen) < changes:
        group = rng.choices(groups, weights)[0]
        chosen.add(rng.choice(group))
    return sorted(chosen)


def lastmod_ages(changes_per_day: int, runs_per_day: float) -> dict[str, Any]:
    """How many files' index lastmod stays put over a day and over one run, drawn with the
    real sections' sizes and files (each change on a uniformly drawn URL of its section),
    beside the hash-only layout of the same URLs."""
    rng = random.Random(11)
    urls = SECTION_SIZE[0]
    flat_depth = int(math.log2(real_leaves(urls)))
    result: dict[str, Any] = {}
    for label, draws in (("day", changes_per_day), ("run", round(changes_per_day / runs_per_day))):
        touched: set[tuple[str, str]] = set()
        flat: set[str] = set()
        for _ in range(draws):
            name, size, _ = rng.choices(SECTION_MIX, [w for _, _, w in SECTION_MIX])[0]
            uh = url_hash(f"{SITE}/{name}/{rng.randrange(size)}")
            depth = int(math.log2(real_leaves(size)))
            touched.add((name, hash_bits(uh, depth)))
            flat.add(hash_bits(uh, flat_depth))
        files = sum(real_leaves(n) for _, n, _ in SECTION_MIX)
        result[f"files_unchanged_in_a_{label}"] = files - len(touched)
        result[f"share_unchanged_in_a_{label}"] = round(1 - len(touched) / files, 4)
        result[f"hash_only_share_unchanged_in_a_{label}"] = round(
            1 - len(flat) / real_leaves(urls), 4
        )
    result["files"] = sum(real_leaves(n) for _, n, _ in SECTION_MIX)
    result["by_section"] = {
        name: {
            "files": real_leaves(n),
            "changes_a_day_per_file": changes_per_day * w / real_leaves(n),
        }
        for name, n, w in SECTION_MIX
    }
    return result


def measure(
    urls: int,
    changes_per_day: int,
    per_leaf: int,
    sections: bool = False,
    schedule: str | None = None,
    reconcile_schedule: str | None = None,
) -> dict[str, Any]:
    """Build the local site of ``urls``' leaves (in SECTION_MIX's sections, with ``sections``),
    then meter one slice and one reconcile; ``schedule`` and ``reconcile_schedule``: the
    ``RebuildSchedule`` and ``ReconcileSchedule`` deployed, in place of the template's."""
    leaves, groups = _local_site(urls, per_leaf, sections)
    numbers = [i for group in groups for i in group]
    cap = max(1, math.ceil(per_leaf * 1.5)) if leaves > 1 else per_leaf * 2
    params = {"MaxUrlsPerSitemap": str(cap)}
    if sections:
        params["SectionRules"] = SECTION_RULES
    if schedule:
        params["RebuildSchedule"] = schedule
    if reconcile_schedule:
        params["ReconcileSchedule"] = reconcile_schedule
    with LocalDeployment(site_url=SITE, parameters=params) as dep:
        window = int(dep.template.resolve({"Ref": "IngestBatchingWindowSeconds"}))
        schedule = str(dep.template.resolve({"Ref": "RebuildSchedule"}))
        reconcile = str(dep.template.resolve({"Ref": "ReconcileSchedule"}))
        urgent_on = str(dep.template.resolve({"Ref": "UrgentPublish"})) == "true"
        urgent_window = int(dep.template.resolve({"Ref": "UrgentBatchingWindowSeconds"}))
        period_min = _rate_minutes(schedule)
        slice_changes = round(changes_per_day * period_min / 1440)
        if slice_changes > len(numbers):
            raise SystemExit(
                f"{urls:,} URLs: a slice of {slice_changes} changes needs at least that many "
                f"local URLs; raise --urls-per-leaf above {per_leaf}"
            )
        # the messages that arrive in one batching window at the average rate close a batch
        batch = max(1, min(dep.batch_size, math.ceil(changes_per_day / 86_400 * window)))
        dep.mapping.batch_size = batch
        if boto3.DEFAULT_SESSION is None:
            boto3.setup_default_session()
        assert boto3.DEFAULT_SESSION is not None
        state_table = dep.rebuild_function.environment["STATE_TABLE_NAME"]

        def lookup(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
            got = dep.dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)
            item: dict[str, Any] | None = got.get("Item")
            return item

        handlers = Meter(boto3.DEFAULT_SESSION.events, lookup)
        emulator_sqs = Meter(dep.sqs.meta.events, lookup)
        ingest_durations: list[tuple[float, float]] = []
        rebuild_durations: list[tuple[float, float]] = []
        _timed(dep.ingest, ingest_durations, (handlers, emulator_sqs))
        _timed(dep.rebuild_function, rebuild_durations, (handlers, emulator_sqs))

        # the site, built and published once: not counted
        pages = [_page(i, 5) for i in numbers]
        dep.send(json.dumps(pages[i : i + 500]) for i in range(0, len(pages), 500))
        dep.drain()
        dep.rebuild_until_clean()
        built = sorted(
            k
            for k in dep.objects()
            if k.startswith("sitemap-") and k.endswith(".xml.gz") and not is_news_key(k)
        )
        view_once = _view_puts(dep.objects())
        handlers.enabled = emulator_sqs.enabled = True
        ingest_durations.clear()
        rebuild_durations.clear()

        # one slice: its changes, drained, then one scheduled run
        changed = _slice(groups, slice_changes, sections)
        failed = dep.send(json.dumps(_page(i, 21)) for i in changed)
        if failed:
            raise RuntimeError(f"SQS refused {len(failed)} bodies: {failed[0]}")
        drained = dep.drain()
        ingest = handlers.take()
        ingest_sqs = emulator_sqs.take()
        ingest_runs = _invocations(ingest_durations)
        with patch_cpu_meter() as patching:
            run = dep.rebuild()
        incremental = handlers.take()
        incremental_runs = _invocations(rebuild_durations)
        rebuild_durations.clear()
        if run["mode"] != "incremental" or run["feed_gap"]:
            raise RuntimeError(f"the scheduled run was not incremental: {run}")

        # the reconcile (ReconcileSchedule)
        full = dep.rebuild(full=True)
        reconcile_metered = handlers.take()
        reconcile_runs = _invocations(rebuild_durations)

        # the same number of changes through the producer client
        with_client = client_slice(
            dep,
            numbers,
            changes_per_day,
            slice_changes,
            window,
            (handlers, emulator_sqs),
            ingest_durations,
        )

        url_sizes: list[int] = []
        for page_items in dep.dynamodb.get_paginator("scan").paginate(TableName=dep.table_name):
            url_sizes += [stored_size(i) for i in page_items["Items"]]
        memory = {
            "ingest": dep.ingest.spec.memory_mb,
            "rebuild": dep.rebuild_function.spec.memory_mb,
        }
        distribution = dep.rebuild_function.environment.get("DISTRIBUTION_ID", "")
        table = dep.table_name
    return {
        "urls": urls,
        "label": f"{urls / 1e6:g}M, {len(SECTION_MIX)} sections" if sections else f"{urls:,}",
        "sections": sections,
        "changes_per_day": changes_per_day,
        "leaves": leaves,
        "local": {
            "urls": len(numbers),
            "cap": cap,
            "files": len(built),
            "url_item_bytes_mean": round(sum(url_sizes) / max(1, len(url_sizes)), 1),
        },
        "slice_changes": slice_changes,
        "view_objects_published_once": view_once,
        "ingest_batch_size": batch,
        "ingest": {**ingest, **ingest_runs, "records": drained.records},
        "ingest_sqs_emulator": ingest_sqs,
        "with_client": with_client,
        "incremental": {
            **incremental,
            **incremental_runs,
            "patch_cpu_seconds": round(sum(patching), 4),
            "leaves_patched": len(patching),
            "report": {
                k: run[k]
                for k in (
                    "mode",
                    "feed_records",
                    "dynamodb_items_read",
                    "urls_changed",
                    "state_objects_written",
                    "invalidated_paths",
                )
            }
            | {
                "s3_objects_read": len(run["s3_objects_read"]),
                "objects_written": len(run["objects_written"]),
                "view_objects_written": _view_puts(run["objects_written"]),
            },
        },
        "reconcile": {
            **reconcile_metered,
            **reconcile_runs,
            "report": {k: full[k] for k in ("mode", "drift_repaired", "files", "urls_published")}
            | {
                "objects_written": len(full["objects_written"]),
                "view_objects_written": _view_puts(full["objects_written"]),
            },
        },
        "tables": {"url": table, "state": state_table},
        "template": {
            "RebuildSchedule": schedule,
            "ReconcileSchedule": reconcile,
            "IngestBatchingWindowSeconds": window,
            "UrgentPublish": urgent_on,
            "UrgentBatchingWindowSeconds": urgent_window,
            "MemorySize": memory,
            "DISTRIBUTION_ID": distribution,
        },
    }


def _view_puts(keys: Iterable[str]) -> int:
    """How many of ``keys`` are files of the human view (``sitemap.html`` and its script and
    style): put with the first publish, then only when the view itself changes."""
    return sum(1 for key in keys if key.rsplit("/", 1)[-1] in VIEW_NAMES)


# --- pricing --------------------------------------------------------------------------------


def _share(memory_mb: int) -> float:
    """Wall seconds per CPU second of a single-threaded handler at ``memory_mb``."""
    return max(1.0, MB_PER_VCPU / memory_mb)


def _s3(metered: dict[str, Any]) -> tuple[int, int]:
    s3 = Counter({k.split(".", 1)[1]: v for k, v in metered["calls"].items() if k[:3] == "s3."})
    return sum(s3[k] for k in S3_PUT_CLASS), sum(s3[k] for k in S3_GET_CLASS)


def model(
    m: dict[str, Any], idle_pollers: int, urgent_share: float = DEFAULT_URGENT_SHARE
) -> dict[str, Any]:
    """Price one measured site over a 30-day month; ``urgent_share``: of its changes, the share
    that are news or deletes, each batch of which starts a run of its own."""
    url_t, state_t = m["tables"]["url"], m["tables"]["state"]
    tpl = m["template"]
    period_min = _rate_minutes(tpl["RebuildSchedule"])
    runs = DAYS * 1440 / period_min
    reconciles = DAYS * 1440 / _rate_minutes(tpl["ReconcileSchedule"])
    changes_month = m["changes_per_day"] * DAYS
    per_change = 1 / m["slice_changes"]
    ing, inc, rec = m["ingest"], m["incremental"], m["reconcile"]
    mem = tpl["MemorySize"]
    leaves = m["leaves"]

    # -- one incremental run, as measured (the local site has the real site's leaves)
    touched = max(1, inc["leaves_patched"])
    per_leaf_changes = math.ceil(m["slice_changes"] / touched)
    patch = patch_cpu(round(m["urls"] / leaves), per_leaf_changes)
    outside_patch = inc["handler_cpu_seconds"] - inc["patch_cpu_seconds"]
    run_cpu = touched * patch["cpu_seconds"] + outside_patch
    run_cpu_without_moto = run_cpu - inc["cpu_in_moto"]
    run_seconds = run_cpu * _share(mem["rebuild"])
    streams_units = inc["calls"].get("dynamodbstreams.GetRecords", 0)
    state_rru = _units(inc, state_t, "rru")
    leaf_state_rru = inc["units"].get(f"{state_t}|rru.BatchGetItem", 0.0)
    url_rru = _units(inc, url_t, "rru")
    per_url_reads = streams_units + url_rru + leaf_state_rru
    constant_reads = state_rru - leaf_state_rru
    put, get = _s3(inc)
    per_run = {
        "changes": m["slice_changes"],
        "feed_records": inc["report"]["feed_records"],
        "urls_changed": inc["report"]["urls_changed"],
        "leaves_touched": touched,
        "streams_get_records": streams_units,
        "streams_calls_not_billed": inc["calls"].get("dynamodbstreams.DescribeStream", 0)
        + inc["calls"].get("dynamodbstreams.GetShardIterator", 0),
        "url_table_rru": url_rru,
        "state_table_rru": state_rru,
        "state_table_wru": _units(inc, state_t, "wru"),
        "read_units_per_changed_url_part": per_url_reads,
        "read_units_constant_part": constant_reads,
        "read_units_per_changed_url": round(
            (per_url_reads + constant_reads) / m["slice_changes"], 3
        ),
        "s3_get": get,
        "s3_put": put,
        "state_objects_written": len(inc["report"]["state_objects_written"]),
        "cloudfront_create_invalidation": inc["calls"].get("cloudfront.CreateInvalidation", 0),
        "patch": patch,
        "handler_cpu_outside_patching_s": round(outside_patch, 3),
        "rebuild_cpu_s": round(run_cpu, 3),
        "rebuild_cpu_without_moto_s": round(run_cpu_without_moto, 3),
        "rebuild_duration_s": round(run_seconds, 3),
    }

    # -- ingest, per change
    ingest_invocations = changes_month / m["ingest_batch_size"]
    ingest_s = ing["handler_cpu_seconds"] / max(1, ing["invocations"]) * _share(mem["ingest"])
    ingest_wru_per_change = _units(ing, url_t, "wru") * per_change
    ingest_rru_per_change = _units(ing, url_t, "rru") * per_change

    # -- the reconcile: the local run has the real site's files, so its per-file work is taken
    # as measured; what grows with the URLs (the SDK reading Scan pages, spooling, rendering
    # and gzip) is measured per URL (the SDK from the local Scan without moto's answering, the
    # rest at the real file size in this process) and multiplied by the real site's URLs
    items_scale = m["urls"] / m["local"]["urls"]
    rec_put, rec_get = _s3(rec)
    rec_scan_rru = _units(rec, url_t, "rru") * items_scale
    rec_state = _units(rec, state_t, "rru") + _units(rec, state_t, "wru")
    scan_cpu = rec["cpu_by_call"].get("dynamodb.Scan", 0.0)
    scan_moto = rec["cpu_in_moto_by_call"].get("dynamodb.Scan", 0.0)
    # the Scan segments run in threads of their own: their calls' CPU adds to the handler's
    rec_local_cpu = rec["handler_cpu_seconds"] + scan_cpu
    rec_local_without_moto = rec_local_cpu - rec["cpu_in_moto"]
    sdk_per_url = max(0.0, scan_cpu - scan_moto) / max(1, m["local"]["urls"])
    work = full_rebuild_cpu_per_url(round(m["urls"] / leaves))
    per_url = sdk_per_url + work["cpu_seconds_per_url"]
    per_file_part = max(0.0, rec_local_without_moto - per_url * m["local"]["urls"])
    rec_cpu = per_file_part + per_url * m["urls"]
    rec_seconds = rec_cpu * _share(mem["rebuild"])
    reconcile = {
        "scaled_from_local_urls": m["local"]["urls"],
        "url_table_rru_scaled": round(rec_scan_rru),
        "state_table_units": rec_state,
        "state_table_wru": _units(rec, state_t, "wru"),
        "state_table_rru": _units(rec, state_t, "rru"),
        "streams_get_records": rec["calls"].get("dynamodbstreams.GetRecords", 0),
        "s3_put": rec_put,
        "s3_get": rec_get,
        "cpu_s_per_url": round(per_url * 1e6, 2),
        "cpu_s_scaled": round(rec_cpu, 1),
        "duration_s_scaled": round(rec_seconds, 1),
        "invocations_scaled": math.ceil(rec_seconds / 840),
        "drift_repaired": rec["report"]["drift_repaired"],
    }

    storage_gb = m["urls"] * (m["local"]["url_item_bytes_mean"] + 100) / 1e9  # +100 B overhead

    sqs = Counter({k.split(".", 1)[1]: v for k, v in m["ingest_sqs_emulator"]["calls"].items()})
    sqs_upper = (
        changes_month  # one SendMessage per change
        + changes_month  # one ReceiveMessage per message
        + idle_pollers * DAYS * 86400 / LONG_POLL_SECONDS
        + changes_month
        * per_change
        * (sqs["DeleteMessageBatch"] + sqs["DeleteMessage"] + sqs["ChangeMessageVisibilityBatch"])
        + changes_month * per_change * ing["calls"].get("sqs.SendMessage", 0)
    )

    def part(
        wru: float,
        rru: float,
        streams: float,
        gb_s: float,
        requests: float,
        s3_put: float,
        s3_get: float,
    ) -> dict[str, float]:
        return {
            "dynamodb": wru * PRICE["wru"] + rru * PRICE["rru"],
            "dynamodb_streams": streams * PRICE["streams_rru"],
            "lambda": gb_s * PRICE["gb_s"] + requests * PRICE["lambda_req"],
            "s3": s3_put * PRICE["s3_put"] + s3_get * PRICE["s3_get"],
        }

    ingest_part = part(
        changes_month * ingest_wru_per_change,
        changes_month * ingest_rru_per_change,
        0,
        ingest_invocations * ingest_s * mem["ingest"] / 1024,
        ingest_invocations,
        0,
        0,
    )
    runs_part = part(
        runs * per_run["state_table_wru"] + runs * _units(inc, url_t, "wru"),
        runs * (state_rru + url_rru),
        runs * streams_units,
        runs * run_seconds * mem["rebuild"] / 1024,
        runs,
        runs * put,
        runs * get,
    )
    reconcile_part = part(
        reconciles * reconcile["state_table_wru"],
        reconciles * (rec_scan_rru + reconcile["state_table_rru"]),
        reconciles * reconcile["streams_get_records"],
        reconciles * rec_seconds * mem["rebuild"] / 1024,
        reconciles,
        reconciles * rec_put * leaves / max(1, m["local"]["files"]),
        reconciles * rec_get * leaves / max(1, m["local"]["files"]),
    )
    storage = storage_gb * PRICE["ddb_storage_gb"]
    sqs_usd = sqs_upper * PRICE["sqs_req"]
    inval_paths = runs * per_run["cloudfront_create_invalidation"]
    inval_usd = max(0.0, inval_paths - PRICE["inval_free_paths"]) * PRICE["inval_path"]

    def total(parts: list[dict[str, float]], sqs: float = sqs_usd) -> dict[str, float]:
        usd = {k: sum(p[k] for p in parts) for k in parts[0]}
        usd["dynamodb"] += storage
        usd["sqs"] = sqs
        usd["cloudfront_invalidations"] = inval_usd
        return {k: round(v, 4) for k, v in usd.items()}

    urgent = urgent_runs(m, urgent_share, run_seconds, runs)
    urgent_part = {k: v * urgent["runs_per_month"] / runs for k, v in runs_part.items()}
    usd = total([ingest_part, runs_part, reconcile_part, urgent_part])
    nightly_usd = total([ingest_part, reconcile_part])
    # invalidation if someone turns it on: each run's changed files and the index, exact paths
    opt_in_paths = runs * (put - 0)  # every object a run puts
    opt_in = {
        "paths_per_month_exact": opt_in_paths,
        "usd_exact": round(max(0.0, opt_in_paths - 1000) * PRICE["inval_path"], 2),
        "usd_wildcard": round(max(0.0, runs - 1000) * PRICE["inval_path"], 2),
    }

    fresh = freshness(m, ingest_s, run_seconds, period_min)
    nightly_fresh = freshness(m, ingest_s, rec_seconds, 1440)

    # -- a producer that sends through the producer client: the same runs, another ingest
    wc = m["with_client"]
    wc_ing = wc["ingest"]
    wc_scale = changes_month / max(1, wc["changes"])
    wc_invocations = wc_ing["invocations"] * wc_scale
    wc_ingest_s = (
        wc_ing["handler_cpu_seconds"] / max(1, wc_ing["invocations"]) * _share(mem["ingest"])
    )
    wc_ingest_part = part(
        changes_month * _units(wc_ing, url_t, "wru") / max(1, wc["changes"]),
        changes_month * _units(wc_ing, url_t, "rru") / max(1, wc["changes"]),
        0,
        wc_invocations * wc_ingest_s * mem["ingest"] / 1024,
        wc_invocations,
        0,
        0,
    )
    wc_calls = Counter(
        {k.split(".", 1)[1]: v for k, v in wc["ingest_sqs_emulator"]["calls"].items()}
    )

    def chunks(sizes: list[int]) -> int:
        return sum(max(1, math.ceil(size / SQS_CHUNK_BYTES)) for size in sizes)

    wc_sqs_requests = (
        chunks(wc["call_payload_bytes"]) * wc_scale  # the client's SendMessageBatch calls
        + chunks(wc["body_bytes"]) * wc_scale  # one ReceiveMessage per message
        + idle_pollers * DAYS * 86400 / LONG_POLL_SECONDS
        + wc_scale
        * (
            wc_calls["DeleteMessageBatch"]
            + wc_calls["DeleteMessage"]
            + wc_calls["ChangeMessageVisibilityBatch"]
        )
        + wc_scale * wc_ing["calls"].get("sqs.SendMessage", 0)
    )
    wc_usd = total(
        [wc_ingest_part, runs_part, reconcile_part, urgent_part],
        wc_sqs_requests * PRICE["sqs_req"],
    )
    wc_fresh = freshness(
        m, wc_ingest_s, run_seconds, period_min, wc["max_age_seconds"], ingest=wc_ing
    )
    with_client = {
        "max_age_seconds": wc["max_age_seconds"],
        "changes_per_message": wc["changes_per_message"],
        "body_bytes_mean": round(sum(wc["body_bytes"]) / max(1, len(wc["body_bytes"]))),
        "messages_per_month": round(wc["messages"] * wc_scale),
        "ingest_batch_size": wc["ingest_batch_size"],
        "ingest_invocations_per_month": round(wc_invocations),
        "ingest_duration_s_per_invocation": round(wc_ingest_s, 4),
        "ingest_duration_s_per_change": round(
            wc_ingest_s * wc_invocations / max(1, changes_month), 5
        ),
        # the same without moto answering the handler's calls (its PutItem above all)
        "ingest_duration_s_per_change_without_moto": round(
            (wc_ing["handler_cpu_seconds"] - wc_ing["cpu_in_moto"])
            / max(1, wc["changes"])
            * _share(mem["ingest"]),
            5,
        ),
        "sqs_requests_upper": round(wc_sqs_requests),
        "usd_per_month": wc_usd,
        "total_usd_per_month": round(sum(wc_usd.values()), 2),
        "usd_per_month_by_part": {
            "ingest": round(sum(wc_ingest_part.values()), 2),
            "sqs_upper": round(wc_usd["sqs"], 2),
        },
        "freshness_seconds": wc_fresh,
    }
    return {
        "urls": m["urls"],
        "label": m["label"],
        "changes_per_day": m["changes_per_day"],
        "leaves": leaves,
        "lastmod_ages": lastmod_ages(m["changes_per_day"], runs / DAYS) if m["sections"] else None,
        "runs_per_month": runs,
        "reconciles_per_month": reconciles,
        "ingest_batch_size": m["ingest_batch_size"],
        "usd_per_month": usd,
        "total_usd_per_month": round(sum(usd.values()), 2),
        "usd_per_month_by_part": {
            "ingest": round(sum(ingest_part.values()), 2),
            "incremental_runs": round(sum(runs_part.values()), 2),
            "urgent_runs": round(sum(urgent_part.values()), 2),
            "reconcile": round(sum(reconcile_part.values()), 2),
            "dynamodb_storage": round(storage, 2),
            "sqs_upper": round(sqs_usd, 2),
        },
        "per_run": per_run,
        "ingest": {
            "wru_per_change": round(ingest_wru_per_change, 3),
            "rru_per_change": round(ingest_rru_per_change, 3),
            "invocations_per_month": round(ingest_invocations),
            "duration_s_per_invocation": round(ingest_s, 4),
            "url_item_bytes_mean": m["local"]["url_item_bytes_mean"],
        },
        "reconcile": reconcile,
        "urgent": urgent
        | {
            "usd_per_month": round(sum(urgent_part.values()), 2),
            "usd_per_run": round(sum(runs_part.values()) / runs, 6),
        },
        "sqs_requests_upper": round(sqs_upper),
        "dynamodb_storage_gb": round(storage_gb, 3),
        "invalidation_if_enabled": opt_in,
        "freshness_seconds": fresh,
        "with_producer_client": with_client,
        "nightly_full_rebuild": {
            "usd_per_month": nightly_usd,
            "total_usd_per_month": round(sum(nightly_usd.values()), 2),
            "freshness_seconds": nightly_fresh,
        },
        "checks": checks(m, per_run, usd, ingest_wru_per_change, fresh, with_client),
        "measured": m,
    }


def urgent_runs(
    m: dict[str, Any], share: float, rebuild_s: float, scheduled_runs: float
) -> dict[str, Any]:
    """The runs the urgent event source mapping starts in a month: one per urgent change (the
    upper figure: a burst inside the batching window is one run), at most one per window and
    run; each is priced as one measured scheduled run (another upper figure: it publishes only
    what arrived since the last run)."""
    per_day = m["changes_per_day"] * share if m["template"]["UrgentPublish"] else 0.0
    window = m["template"]["UrgentBatchingWindowSeconds"]
    most_per_day = 86_400 / max(window + rebuild_s, 1.0)
    return {
        "share_of_changes": share,
        "changes_per_day": round(per_day, 1),
        "runs_per_month": round(DAYS * min(per_day, most_per_day), 1),
        "scheduled_runs_per_month": scheduled_runs,
    }


def freshness(
    m: dict[str, Any],
    ingest_s: float,
    rebuild_s: float,
    period_min: float,
    producer_max_age: float = 0.0,
    ingest: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Seconds from a change event to every edge (and a crawler fetching then) serving it;
    ``producer_max_age``: how long a producer may hold a change before sending it.

    ``worst`` and ``typical`` are for the changes the schedule publishes; ``news`` and
    ``delete`` (each a ``worst`` and a ``typical``) for those the urgent event source mapping
    publishes (a news article written, a listed URL deleted; with UrgentPublish false, the
    schedule's)."""
    window = m["template"]["IngestBatchingWindowSeconds"]
    ingest_max = (ingest or m["ingest"])["handler_cpu_seconds_max"] * _share(
        m["template"]["MemorySize"]["ingest"]
    )
    # a run that outlasts the period delays the next one (reserved concurrency 1 and the lease)
    wait = max(period_min * 60, rebuild_s)
    max_age = max(_max_age(INDEX.cache_control), _max_age(SHARD_FILE.cache_control))
    cached = CACHE_LAYERS * max_age
    held = produced = producer_max_age
    worst = round(held + window + ingest_max + wait + rebuild_s + cached, 1)
    typical = round(held / 2 + window / 2 + ingest_s + wait / 2 + rebuild_s + cached / 2, 1)
    urgent = {"worst": worst, "typical": typical}
    if m["template"]["UrgentPublish"]:
        # the mapping polls the stream, then waits its whole window for a lone record; worst, a
        # run (the schedule's) holds the one concurrent execution and the invoke is retried
        urgent_window = m["template"]["UrgentBatchingWindowSeconds"]
        urgent = {
            "worst": round(
                produced
                + window
                + ingest_max
                + STREAM_POLL_SECONDS
                + urgent_window
                + rebuild_s
                + rebuild_s
                + cached,
                1,
            ),
            "typical": round(
                produced / 2
                + window / 2
                + ingest_s
                + STREAM_POLL_SECONDS / 2
                + urgent_window
                + rebuild_s
                + cached / 2,
                1,
            ),
        }
    return {
        "producer_max_age": held,
        "batching_window": window,
        "ingest_worst": round(ingest_max, 2),
        "ingest_typical": round(ingest_s, 2),
        "wait_for_run": wait,
        "rebuild_run": round(rebuild_s, 1),
        "max_age": max_age,
        "edge_cache_worst": cached,
        "worst": worst,
        "typical": typical,
        "stream_poll": STREAM_POLL_SECONDS,
        "urgent_batching_window": m["template"]["UrgentBatchingWindowSeconds"],
        **{kind: dict(urgent) for kind in URGENT_KINDS},
    }


def checks(
    m: dict[str, Any],
    per_run: dict[str, Any],
    usd: dict[str, float],
    ingest_wru: float,
    fresh: dict[str, Any],
    with_client: dict[str, Any],
) -> dict[str, dict[str, Any]]:
    reads = per_run["read_units_per_changed_url_part"] + per_run["read_units_constant_part"]
    budget = READS_PER_CHANGE * m["slice_changes"] + READS_CONSTANT
    found: dict[str, dict[str, Any]] = {
        "total_usd_per_month": {
            "value": round(sum(usd.values()), 2),
            "at_most": TOTAL_TARGETS.get(m["urls"]),
        },
        "cloudfront_invalidations_usd": {"value": usd["cloudfront_invalidations"], "at_most": 0.0},
        # the view is put once (view_objects_published_once), never by a run
        "view_puts_per_run": {
            "value": m["incremental"]["report"]["view_objects_written"]
            + m["reconcile"]["report"]["view_objects_written"],
            "at_most": 0,
        },
        "read_units_per_run": {
            "value": reads,
            "at_most": budget,
            "rule": f"{READS_PER_CHANGE:g} per changed URL + {READS_CONSTANT:g}",
        },
        "constant_read_units_per_run": {
            "value": per_run["read_units_constant_part"],
            "at_most": READS_CONSTANT,
        },
        "rebuild_cpu_s_per_run": {"value": per_run["rebuild_cpu_s"], "at_most": None},
        "rebuild_memory_mb": {
            "value": m["template"]["MemorySize"]["rebuild"],
            "at_most": 1024,
        },
        "ingest_wru_per_change": {"value": round(ingest_wru, 3), "at_most": INGEST_WRU_TARGET},
        "freshness_worst_s": {"value": fresh["worst"], "at_most": FRESHNESS_TARGETS_S["worst"]},
        "freshness_typical_s": {
            "value": fresh["typical"],
            "at_most": FRESHNESS_TARGETS_S["typical"],
        },
        "total_usd_per_month_with_client": {
            "value": with_client["total_usd_per_month"],
            "at_most": CLIENT_TOTAL_TARGETS.get(m["urls"]),
        },
        "freshness_worst_s_with_client": {
            "value": with_client["freshness_seconds"]["worst"],
            "at_most": FRESHNESS_TARGETS_S["worst"],
        },
        "freshness_typical_s_with_client": {
            "value": with_client["freshness_seconds"]["typical"],
            "at_most": FRESHNESS_TARGETS_S["typical"],
        },
    }
    for kind in URGENT_KINDS:
        for case in ("worst", "typical"):
            for suffix, figures in (
                ("", fresh),
                ("_with_client", with_client["freshness_seconds"]),
            ):
                found[f"freshness_{kind}_{case}_s{suffix}"] = {
                    "value": figures[kind][case],
                    "at_most": URGENT_FRESHNESS_TARGETS_S[case],
                }
    if m["urls"] == 1_000_000:
        found["rebuild_cpu_s_per_run"]["at_most"] = REBUILD_CPU_TARGET_S
    for check in found.values():
        limit = check["at_most"]
        check["met"] = None if limit is None else bool(check["value"] <= limit)
    return found


# --- output ---------------------------------------------------------------------------------


def _size(text: str) -> tuple[int, int]:
    urls, _, changes = text.partition(":")
    if not changes:
        raise argparse.ArgumentTypeError(f"{text!r}: expected URLS:CHANGES_PER_DAY")
    return int(urls.replace(",", "").replace("_", "")), int(
        changes.replace(",", "").replace("_", "")
    )


def print_lastmod_ages(sites: list[dict[str, Any]]) -> None:
    """How many files of a multi-section site keep their index lastmod over a day and a run."""
    for s in sites:
        ages = s["lastmod_ages"]
        if ages is None:
            continue
        print(f"\nIndex lastmods of the {s['label']} site ({ages['files']} files), drawn:")
        for name, row in ages["by_section"].items():
            print(
                f"  {name:<16} {row['files']:>4} files, "
                f"{row['changes_a_day_per_file']:>10,.2f} changes a day per file"
            )
        for span in ("day", "run"):
            print(
                f"  files whose lastmod stays put over a {span}: "
                f"{ages[f'files_unchanged_in_a_{span}']} "
                f"({ages[f'share_unchanged_in_a_{span}']:.1%}; hash-only layout "
                f"{ages[f'hash_only_share_unchanged_in_a_{span}']:.1%})"
            )


def print_urgent(sites: list[dict[str, Any]]) -> None:
    """Freshness of news and deletes, and the runs the urgent event source mapping starts."""
    print("\nNews and deletes (the urgent event source mapping), seconds:")
    for key in ("stream_poll", "urgent_batching_window"):
        print(f"  {key:<32}" + "".join(f"{s['freshness_seconds'][key]:>16,.2f}" for s in sites))
    for kind in URGENT_KINDS:
        for case in ("worst", "typical"):
            print(
                f"  {kind + ' ' + case:<32}"
                + "".join(f"{s['freshness_seconds'][kind][case]:>16,.1f}" for s in sites)
            )
    print("  urgent runs (an assumed share of the changes; each priced as a scheduled run):")
    for key in ("changes_per_day", "runs_per_month", "usd_per_run", "usd_per_month"):
        print(f"  {key:<32}" + "".join(f"{s['urgent'][key]:>16,.4f}" for s in sites))


def print_table(sites: list[dict[str, Any]]) -> None:
    services = ("dynamodb", "dynamodb_streams", "lambda", "s3", "sqs", "cloudfront_invalidations")
    head = f"{'':<34}" + "".join(f"{s['label']:>16}" for s in sites)
    print("\nMonthly (30 days), us-east-1 list prices, SQS and Lambda at their upper figures")
    print(head + "  URLs")
    print(f"{'changes a day':<34}" + "".join(f"{s['changes_per_day']:>16,}" for s in sites))
    print(f"{'leaves (files)':<34}" + "".join(f"{s['leaves']:>16,}" for s in sites))
    for name in services:
        print(f"{'$ ' + name:<34}" + "".join(f"{s['usd_per_month'][name]:>16,.2f}" for s in sites))
    print(f"{'$ TOTAL':<34}" + "".join(f"{s['total_usd_per_month']:>16,.2f}" for s in sites))
    for name in (
        "ingest",
        "incremental_runs",
        "urgent_runs",
        "reconcile",
        "dynamodb_storage",
        "sqs_upper",
    ):
        print(
            f"{'  of which ' + name:<34}"
            + "".join(f"{s['usd_per_month_by_part'][name]:>16,.2f}" for s in sites)
        )
    print(
        f"{'$ nightly full rebuild instead':<34}"
        + "".join(f"{s['nightly_full_rebuild']['total_usd_per_month']:>16,.2f}" for s in sites)
    )
    print(
        "\nWith a producer that sends through the producer client at its defaults "
        "(sitemap_updater.producer.client), measured:"
    )
    client_rows: list[tuple[str, Callable[[dict[str, Any]], float], str]] = [
        ("producer max age (s)", lambda c: c["max_age_seconds"], ",.0f"),
        ("changes a message", lambda c: c["changes_per_message"], ",.1f"),
        ("messages a month", lambda c: c["messages_per_month"], ",.0f"),
        ("ingest invocations a month", lambda c: c["ingest_invocations_per_month"], ",.0f"),
        ("ingest s per invocation", lambda c: c["ingest_duration_s_per_invocation"], ",.4f"),
        ("ingest s per change", lambda c: c["ingest_duration_s_per_change"], ",.5f"),
        (
            "  without moto's answering",
            lambda c: c["ingest_duration_s_per_change_without_moto"],
            ",.5f",
        ),
        ("SQS requests (upper)", lambda c: c["sqs_requests_upper"], ",.0f"),
    ]
    client_rows += [
        (f"$ {name}", lambda c, name=name: c["usd_per_month"][name], ",.2f") for name in services
    ]
    client_rows += [
        ("$ TOTAL with the client", lambda c: c["total_usd_per_month"], ",.2f"),
        ("  of which ingest", lambda c: c["usd_per_month_by_part"]["ingest"], ",.2f"),
        ("  of which sqs_upper", lambda c: c["usd_per_month_by_part"]["sqs_upper"], ",.2f"),
        ("freshness worst (s)", lambda c: c["freshness_seconds"]["worst"], ",.1f"),
        ("freshness typical (s)", lambda c: c["freshness_seconds"]["typical"], ",.1f"),
        ("news/delete worst (s)", lambda c: c["freshness_seconds"]["news"]["worst"], ",.1f"),
        ("news/delete typical (s)", lambda c: c["freshness_seconds"]["news"]["typical"], ",.1f"),
    ]
    for label, value, spec in client_rows:
        print(
            f"  {label:<32}"
            + "".join(f"{value(s['with_producer_client']):>16{spec}}" for s in sites)
        )
    print("\nOne scheduled run (the slice), measured:")
    keys = (
        "changes",
        "feed_records",
        "urls_changed",
        "leaves_touched",
        "streams_get_records",
        "streams_calls_not_billed",
        "url_table_rru",
        "state_table_rru",
        "state_table_wru",
        "read_units_per_changed_url_part",
        "read_units_constant_part",
        "read_units_per_changed_url",
        "s3_get",
        "s3_put",
        "state_objects_written",
        "cloudfront_create_invalidation",
        "handler_cpu_outside_patching_s",
        "rebuild_cpu_s",
        "rebuild_cpu_without_moto_s",
        "rebuild_duration_s",
    )
    for key in keys:
        print(f"  {key:<32}" + "".join(f"{s['per_run'][key]:>16,.3f}" for s in sites))
    print(
        f"  {'patch CPU per file (s)':<32}"
        + "".join(f"{s['per_run']['patch']['cpu_seconds']:>16,.3f}" for s in sites)
    )
    print(
        f"  {'  file URLs / changes':<32}"
        + "".join(
            f"{s['per_run']['patch']['urls_in_file']:>9,} / {s['per_run']['patch']['changes']:<4}"
            for s in sites
        )
    )
    print("\nIngest, per change / per invocation:")
    for key in ("wru_per_change", "rru_per_change", "duration_s_per_invocation"):
        print(f"  {key:<32}" + "".join(f"{s['ingest'][key]:>16,.4f}" for s in sites))
    print(
        "\nThe reconcile (full rebuild): per-file work as measured, per-URL work times the "
        "real URLs:"
    )
    for key in (
        "url_table_rru_scaled",
        "cpu_s_scaled",
        "duration_s_scaled",
        "invocations_scaled",
        "drift_repaired",
    ):
        print(f"  {key:<32}" + "".join(f"{s['reconcile'][key]:>16,.1f}" for s in sites))
    print("\nFreshness, change event -> every edge and a crawler fetching then (seconds):")
    for key in (
        "batching_window",
        "ingest_worst",
        "ingest_typical",
        "wait_for_run",
        "rebuild_run",
        "edge_cache_worst",
        "worst",
        "typical",
    ):
        print(f"  {key:<32}" + "".join(f"{s['freshness_seconds'][key]:>16,.1f}" for s in sites))
    print(
        f"  {'nightly full rebuild, worst':<32}"
        + "".join(
            f"{s['nightly_full_rebuild']['freshness_seconds']['worst']:>16,.0f}" for s in sites
        )
    )
    print("\nIf invalidation is turned on (InvalidateOnPublish=true), $ a month:")
    print(
        f"  {'exact paths':<32}"
        + "".join(f"{s['invalidation_if_enabled']['usd_exact']:>16,.2f}" for s in sites)
    )
    print(
        f"  {'InvalidationMaxPaths=1':<32}"
        + "".join(f"{s['invalidation_if_enabled']['usd_wildcard']:>16,.2f}" for s in sites)
    )
    print("\nChecks:")
    for s in sites:
        for name, check in s["checks"].items():
            if check["at_most"] is None:
                continue
            verdict = "met" if check["met"] else "NOT met"
            print(
                f"  {s['label']:>24} URLs  {name:<30} {check['value']:>12,.2f} "
                f"<= {check['at_most']:,.2f}: {verdict}"
            )


# --- the search engine observer (benchmarks/observer_cost.py) -------------------------------

#: what a site with the observer on may cost a month
OBSERVER_TOTAL_TARGETS = {1_000_000: 10.0}


def with_observer(sites: list[dict[str, Any]]) -> dict[str, Any]:
    """The observer's monthly cost (one host of five sections, both engines on, measured on the
    local stand-ins), and each site's total with it."""
    priced = observer_model(measure_observer(5))
    totals = []
    for site in sites:
        total = round(site["total_usd_per_month"] + priced["total_usd_per_month"], 2)
        limit = OBSERVER_TOTAL_TARGETS.get(site["urls"])
        totals.append(
            {
                "label": site.get("label", f"{site['urls']:,} URLs"),
                "urls": site["urls"],
                "total_usd_per_month": total,
                "at_most": limit,
                "met": None if limit is None else total <= limit,
            }
        )
    return {**priced, "sites_with_observer": totals}


def print_observer(observer: dict[str, Any]) -> None:
    usd = observer["usd_per_month"]
    print(
        "\nThe search engine observer (hourly, Search Console and Bing on, one host of five "
        f"sections, {observer['run_seconds']} s a run): ${observer['total_usd_per_month']:.2f} "
        "a month: " + ", ".join(f"{name} ${value:.2f}" for name, value in usd.items())
    )
    for site in observer["sites_with_observer"]:
        limit = "" if site["at_most"] is None else f" (at most ${site['at_most']:.2f})"
        print(f"  {site['label']}: ${site['total_usd_per_month']:.2f} a month with it{limit}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    parser.add_argument(
        "--sizes",
        type=_size,
        action="append",
        help=(
            "a site as URLS:CHANGES_PER_DAY (repeat; default the three sizes of"
            " docs/cost-and-freshness.md)"
        ),
    )
    parser.add_argument(
        "--urls-per-leaf", type=int, default=16, help="URLs in each file of the local site"
    )
    parser.add_argument(
        "--no-sections",
        action="store_true",
        help="leave out the multi-section site (1,000,000 URLs in five sections)",
    )
    parser.add_argument(
        "--idle-pollers",
        type=int,
        default=5,
        help="event source mapping pollers long-polling an idle queue (AWS does not publish it)",
    )
    parser.add_argument(
        "--schedule",
        metavar="RATE",
        help="deploy with this RebuildSchedule, e.g. 'rate(3 minutes)' (default: the template's)",
    )
    parser.add_argument(
        "--reconcile",
        metavar="RATE",
        help="deploy with this ReconcileSchedule, e.g. 'rate(7 days)' (default: the template's)",
    )
    parser.add_argument(
        "--urgent-share",
        type=float,
        default=DEFAULT_URGENT_SHARE,
        help="of the changes, the share that are news or deletes, each its own run (an assumption)",
    )
    parser.add_argument(
        "--no-observer",
        action="store_true",
        help="leave out the search engine observer (measured by benchmarks/observer_cost.py)",
    )
    args = parser.parse_args()
    for expression in (args.schedule, args.reconcile):
        if expression:
            _rate_minutes(expression)  # only rate(N unit) is modelled
    started = time.perf_counter()
    sites = [
        model(
            measure(urls, changes, args.urls_per_leaf, False, args.schedule, args.reconcile),
            args.idle_pollers,
            args.urgent_share,
        )
        for urls, changes in (args.sizes or SIZES)
    ]
    if not args.no_sections:
        urls, changes = SECTION_SIZE
        measured = measure(urls, changes, args.urls_per_leaf, True, args.schedule, args.reconcile)
        sites.append(model(measured, args.idle_pollers, args.urgent_share))
    prices = {k: v for k, v in PRICE.items()}
    observer = None if args.no_observer else with_observer(sites)
    if args.json:
        print(json.dumps({"sites": sites, "prices": prices, "observer": observer}))
        return 0
    print_table(sites)
    print_urgent(sites)
    print_lastmod_ages(sites)
    if observer is not None:
        print_observer(observer)
    print(f"\nmeasured and priced in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
