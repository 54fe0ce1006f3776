"""Faults, nothing lost: thousands of mixed events under 10% and 30% injected AWS errors publish
exactly the sitemap the same events publish without faults, and only the poison records are
dead-lettered.

The stream (``tests.helpers.mixed_stream``) mixes upserts, deletes, duplicates,
out-of-order deliveries, same-instant ties and poison records, packed into 500-change arrays. It
is replayed through the local deployment (template.yaml on moto, the real handlers, the emulated
SQS event source mapping with its redrive policy) in two waves, each drained and then rebuilt
until clean: once without faults, and once per (rate, seed) with a seeded share of the
functions' DynamoDB and S3 calls failing with throttling or 5xx errors. The SDK's retry waits are
skipped (every retry still happens; see ``tests.helpers.backoff``).

Each (rate, seed) runs with two seeds per rate, split over two files so that pytest-xdist runs
them on two workers: this file (seeds 1 and 2) and ``test_faults_more_seeds.py`` (seeds 3 and 4).
The replay without faults is computed once per test run and shared by both files
(``tests.helpers.replay.SharedReplay``). moto costs a few ms per conditional
write, so one replay of 3,000 events takes tens of seconds of CPU; each file runs its replays
in a pool of worker processes. Environment knobs:

* ``SITEMAP_FAULTS_EVENTS``: events per stream (default 3000; the suite's time budget, 10
  minutes on two cores, sets it; a deeper run sets more, e.g. 50000). The shard cap is a tenth
  of it, at most 1,000, so the pages spread over several files at any size;
* ``SITEMAP_FAULTS_RUNS``: this file's faulted runs as ``rate:seed`` pairs (default
  ``0.1:1,0.3:2``); ``SITEMAP_FAULTS_MORE_RUNS`` the other file's (default ``0.1:3,0.3:4``);
* ``SITEMAP_FAULTS_WORKERS``: worker processes per file (default: 2, at most the CPU count).
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from lxml import etree

from tests.helpers.mixed_stream import MixedStream, PageState, mixed_stream
from tests.helpers.replay import FaultRun, ReplayOutcome, replay_runs
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

SITE = "https://www.example.com"
STREAM_SEED = 2026
WAVES = 2

EVENTS = int(os.environ.get("SITEMAP_FAULTS_EVENTS", "3000"))
#: A small shard cap, so the pages (about one per seven events live at the end) spread over
#: several files that split during the run.
PARAMETERS = {"MaxUrlsPerSitemap": str(max(1, min(1000, EVENTS // 10)))}
WORKERS = max(1, min(int(os.environ.get("SITEMAP_FAULTS_WORKERS", "2")), os.cpu_count() or 1))


def fault_runs(variable: str, default: str) -> tuple[FaultRun, ...]:
    """``rate:seed`` pairs from the environment variable ``variable`` (else ``default``)."""
    return tuple(
        (float(rate), int(seed))
        for rate, seed in (pair.split(":") for pair in os.environ.get(variable, default).split(","))
    )


FAULT_RUNS = fault_runs("SITEMAP_FAULTS_RUNS", "0.1:1,0.3:2")

NS = {
    "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "x": "http://www.w3.org/1999/xhtml",
    "i": "http://www.google.com/schemas/sitemap-image/1.1",
}

Run = FaultRun | None  # (rate, seed), or None for the run without faults


@dataclass
class Proof:
    stream: MixedStream
    outcomes: dict[Run, ReplayOutcome]


def shared_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every pytest-xdist worker of this test run sees (the run's own temp root)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "fault-replays"


def build_proof(runs: tuple[FaultRun, ...], tmp_path_factory: pytest.TempPathFactory) -> Proof:
    """The stream, its replay without faults (shared across files) and one replay per run."""
    stream = mixed_stream(EVENTS, site=SITE, seed=STREAM_SEED)
    outcomes: dict[Run, ReplayOutcome] = dict(
        replay_runs(
            stream.bodies,
            SITE,
            PARAMETERS,
            runs,
            waves=WAVES,
            workers=WORKERS,
            shared=shared_directory(tmp_path_factory),
        )
    )
    for run, out in outcomes.items():
        print(
            f"\nreplay {run or 'without faults'}: {out.seconds:.1f} s, {out.batches} batches, "
            f"{out.retried} records retried, {out.faults_injected} faults "
            f"{out.faults_by_code}, {out.rebuild_runs} rebuild runs "
            f"({out.rebuild_failures} failed), SDK waits skipped {out.backoff_skipped_seconds} s"
        )
    return Proof(stream, outcomes)


@pytest.fixture(scope="module")
def faults_proof(tmp_path_factory: pytest.TempPathFactory) -> Proof:
    return build_proof(FAULT_RUNS, tmp_path_factory)


def _published(objects: dict[str, bytes]) -> dict[str, etree._Element]:
    """url -> its <url> element, from every file the index lists (schema-checked on the way)."""
    urls: dict[str, etree._Element] = {}
    for loc in assert_valid_index(objects["sitemap.xml"]):
        key = loc.rsplit("/", 1)[-1]
        assert key in objects, f"the index lists {key}, which is not in the bucket"
        assert_valid_urlset(objects[key])
        root = etree.fromstring(gzip.decompress(objects[key]))
        for url in root.iterfind("s:url", NS):
            text = url.findtext("s:loc", namespaces=NS)
            assert text is not None and text not in urls, f"{text} listed twice"
            urls[text] = url
    return urls


def _fields(url: etree._Element) -> PageState:
    priority = url.findtext("s:priority", namespaces=NS)
    return PageState(
        url=url.findtext("s:loc", default="", namespaces=NS),
        lastmod=url.findtext("s:lastmod", default="", namespaces=NS),
        changefreq=url.findtext("s:changefreq", default="", namespaces=NS),
        priority=float(priority) if priority is not None else -1.0,
        alternates=tuple(
            (str(link.get("hreflang")), str(link.get("href")))
            for link in url.iterfind("x:link", NS)
        ),
        images=tuple(str(loc.text) for loc in url.iterfind("i:image/i:loc", NS)),
    )


def test_the_stream_mixes_every_case() -> None:
    stream = mixed_stream(EVENTS, site=SITE, seed=STREAM_SEED)
    assert stream.changes >= EVENTS
    assert stream.duplicates >= EVENTS // 20
    assert stream.out_of_order >= EVENTS // 10
    assert stream.ties, "some pages end with two upserts at the same instant"
    deleted = [url for url, state in stream.expected.items() if state is None]
    assert len(deleted) >= len(stream.expected) // 20
    poison = {p.body for p in stream.poison}
    actions = {
        change["action"]
        for body in stream.bodies
        if body not in poison
        for change in json.loads(body)
    }
    assert actions == {"upsert", "delete"}
    assert len(stream.poison) >= 6
    assert all(len(body.encode()) <= 262_144 for body in stream.bodies)


def test_without_faults_the_sitemap_is_the_streams_answer(faults_proof: Proof) -> None:
    outcome = faults_proof.outcomes[None]
    # the cap split the pages over several files
    assert len(assert_valid_index(outcome.objects["sitemap.xml"])) > 1
    published = _published(outcome.objects)
    expected = faults_proof.stream.live()
    assert set(published) == set(expected)
    for url, element in published.items():
        got = _fields(element)
        if url in faults_proof.stream.ties:
            assert got in faults_proof.stream.ties[url], url
        else:
            assert got == expected[url], url


def assert_faulted_bytes_equal_clean(proof: Proof, run: FaultRun) -> None:
    clean = proof.outcomes[None]
    faulted = proof.outcomes[run]
    # the faults did happen, in both services, and the SDK retried them
    assert faulted.faults_injected >= run[0] * EVENTS * 0.8
    assert faulted.faults_by_operation.get("dynamodb.PutItem", 0) > 0
    assert faulted.backoff_skipped_seconds > 0
    listed = assert_valid_index(clean.objects["sitemap.xml"])
    assert faulted.objects["sitemap.xml"] == clean.objects["sitemap.xml"]
    for loc in listed:
        key = loc.rsplit("/", 1)[-1]
        assert faulted.objects[key] == clean.objects[key], f"{key} differs under faults {run}"
    assert set(faulted.objects) == set(clean.objects)


def assert_only_poison_dead_lettered(proof: Proof, run: Run) -> None:
    dead = proof.outcomes[run].dead_letters
    redriven = [d for d in dead if d.reason is None]
    assert redriven == [], "a valid record was dead-lettered after maxReceiveCount receives"
    poison = proof.stream.poison
    assert len(dead) == len(poison)
    by_body = {p.body: p for p in poison if p.bad_index is None}
    arrays = [p for p in poison if p.bad_index is not None]
    whole = [d for d in dead if d.body in by_body]
    assert len(whole) == len(by_body)
    for letter in whole:
        assert letter.reason and "field " in letter.reason and "rejected:" in letter.reason
    partial = [d for d in dead if d.body not in by_body]
    assert len(partial) == len(arrays)
    for letter in partial:
        [bad] = json.loads(letter.body)
        source = next(p for p in arrays if json.loads(p.body)[1] == bad["change"])
        assert bad["index"] == source.bad_index
        assert letter.reason and letter.reason.startswith(f"change {source.bad_index}: field ")


@pytest.mark.parametrize("run", FAULT_RUNS, ids=[f"rate{r}-seed{s}" for r, s in FAULT_RUNS])
def test_with_faults_the_published_bytes_equal_the_run_without(
    faults_proof: Proof, run: FaultRun
) -> None:
    assert_faulted_bytes_equal_clean(faults_proof, run)


@pytest.mark.parametrize(
    "run", [None, *FAULT_RUNS], ids=["no-faults"] + [f"rate{r}-seed{s}" for r, s in FAULT_RUNS]
)
def test_only_the_poison_records_reach_the_dlq_each_with_its_reason(
    faults_proof: Proof, run: Run
) -> None:
    assert_only_poison_dead_lettered(faults_proof, run)
