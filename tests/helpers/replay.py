"""Replay message bodies through the local deployment and collect what a proof compares.

``replay(bodies, ...)`` provisions a :class:`LocalDeployment` (optionally with a seeded
:class:`FaultPlan`), then for each wave: send the wave's bodies, drain the queue through the
emulated event source mapping, and run the scheduled rebuild until it reports complete. The
result holds the bucket's objects (key -> bytes), the dead-lettered messages with their reasons,
and the counters of the run. With faults, the SDK's retry waits are skipped (see
:mod:`tests.helpers.backoff`); every retry still happens.

Everything in :class:`ReplayOutcome` is plain data, so a replay can run in a worker process
(:func:`replay_in_worker` takes only picklable arguments), and several processes can share one
replay through :class:`SharedReplay` (computed by the first that asks, read by the others).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import multiprocessing
import pickle
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.faults import FaultPlan
from tests.helpers.backoff import skipped_backoff


@dataclass(frozen=True, slots=True)
class DeadLetterRecord:
    body: str
    #: the reason the ingest function attached; None for a message SQS redrove after
    #: ``maxReceiveCount`` failed receives (a record that was never judged invalid)
    reason: str | None
    receive_count: int


@dataclass
class ReplayOutcome:
    objects: dict[str, bytes]
    dead_letters: list[DeadLetterRecord]
    accepted: int = 0
    stale: int = 0
    rejected: int = 0
    batches: int = 0
    #: records reported as batch item failures (each one was received again)
    retried: int = 0
    invocation_errors: list[str] = field(default_factory=list)
    rebuild_runs: int = 0
    #: rebuild invocations that failed (raised) before one reported complete
    rebuild_failures: int = 0
    faults_injected: int = 0
    faults_by_code: dict[str, int] = field(default_factory=dict)
    faults_by_operation: dict[str, int] = field(default_factory=dict)
    backoff_skipped_seconds: float = 0.0
    seconds: float = 0.0


def _waves(bodies: Sequence[str], waves: int) -> list[Sequence[str]]:
    if waves < 1:
        raise ValueError(f"waves={waves} must be >= 1")
    size = -(-len(bodies) // waves) if bodies else 1
    return [bodies[i : i + size] for i in range(0, len(bodies), size)] or [bodies]


def replay(
    bodies: Sequence[str],
    *,
    site: str = "https://www.example.com",
    parameters: Mapping[str, str] | None = None,
    faults: FaultPlan | None = None,
    waves: int = 1,
    template: Path = DEFAULT_TEMPLATE,
    max_rebuild_runs: int = 50,
) -> ReplayOutcome:
    """Send, drain and rebuild ``bodies`` in ``waves`` consecutive parts; see the module doc."""
    started = time.perf_counter()
    params = {"PublicBaseUrl": site, **(parameters or {})}
    waits = skipped_backoff() if faults is not None else contextlib.nullcontext()
    with waits as skipped, LocalDeployment(template, site, params, faults=faults) as dep:
        outcome = ReplayOutcome(objects={}, dead_letters=[])
        for wave in _waves(bodies, waves):
            refused = dep.send(wave)
            if refused:
                raise ValueError(f"SQS refused {len(refused)} bodies: {refused[0]}")
            drained = dep.drain()
            outcome.accepted += drained.count("AcceptedRecords")
            outcome.stale += drained.count("StaleRecords")
            outcome.rejected += drained.count("RejectedRecords")
            outcome.batches += drained.batches
            outcome.retried += drained.retried
            outcome.invocation_errors += drained.invocation_errors
            calls_before = dep.rebuild_function.invocations
            runs = dep.rebuild_until_clean(max_runs=max_rebuild_runs)
            calls = dep.rebuild_function.invocations - calls_before
            outcome.rebuild_runs += calls
            outcome.rebuild_failures += calls - len(runs)
        outcome.objects = {
            key: dep.s3.get_object(Bucket=dep.bucket_name, Key=key)["Body"].read()
            for key in sorted(dep.objects())
        }
        outcome.dead_letters = [
            DeadLetterRecord(d.body, d.reason, int(d.attributes.get("ApproximateReceiveCount", 0)))
            for d in dep.dead_letters()
        ]
    if faults is not None:
        outcome.faults_injected = len(faults.injected)
        outcome.faults_by_code = faults.counts()
        for fault in faults.injected:
            name = f"{fault.service}.{fault.operation}"
            outcome.faults_by_operation[name] = outcome.faults_by_operation.get(name, 0) + 1
    if skipped is not None:
        outcome.backoff_skipped_seconds = round(skipped.seconds, 3)
    outcome.seconds = round(time.perf_counter() - started, 3)
    return outcome


def replay_in_worker(
    bodies: Sequence[str],
    site: str,
    parameters: Mapping[str, str],
    fault_rate: float | None,
    fault_seed: int | None,
    waves: int,
) -> ReplayOutcome:
    """:func:`replay` with the fault plan given as plain values, for a process pool."""
    plan = None
    if fault_rate is not None:
        plan = FaultPlan(fault_rate, seed=fault_seed if fault_seed is not None else 0)
    return replay(bodies, site=site, parameters=parameters, faults=plan, waves=waves)


def replay_key(
    bodies: Sequence[str],
    site: str,
    parameters: Mapping[str, str],
    fault_rate: float | None,
    fault_seed: int | None,
    waves: int,
) -> str:
    """A name for one replay: the sha256 of everything :func:`replay_in_worker` is given."""
    digest = hashlib.sha256()
    for body in bodies:
        digest.update(hashlib.sha256(body.encode("utf-8", "surrogatepass")).digest())
    spec = [site, sorted(parameters.items()), fault_rate, fault_seed, waves]
    digest.update(json.dumps(spec).encode("utf-8"))
    return digest.hexdigest()


@dataclass(frozen=True)
class SharedReplay:
    """One replay outcome shared by processes through ``directory`` (one run of tests, say).

    The first process to take the lock computes the outcome and stores it; a process that finds
    the lock taken waits for it (an exclusive ``flock``) and reads what was stored. If the holder
    failed, nothing was stored and the next holder computes it.
    """

    directory: Path
    key: str

    @property
    def _data(self) -> Path:
        return self.directory / f"replay-{self.key}.pickle"

    @contextlib.contextmanager
    def lock(self, *, wait: bool) -> Iterator[bool]:
        """Hold the lock for the duration; yields False (``wait=False``) if another holds it."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with (self.directory / f"replay-{self.key}.lock").open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def load(self) -> ReplayOutcome | None:
        if not self._data.exists():
            return None
        outcome = pickle.loads(self._data.read_bytes())
        if not isinstance(outcome, ReplayOutcome):
            raise TypeError(f"{self._data} holds {type(outcome).__name__}, not a ReplayOutcome")
        return outcome

    def load_stored(self) -> ReplayOutcome:
        outcome = self.load()
        if outcome is None:
            raise FileNotFoundError(f"{self._data} was not stored")
        return outcome

    def store(self, outcome: ReplayOutcome) -> None:
        partial = self._data.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(outcome))
        partial.replace(self._data)


FaultRun = tuple[float, int]


def replay_runs(
    bodies: Sequence[str],
    site: str,
    parameters: Mapping[str, str],
    runs: Sequence[FaultRun],
    *,
    waves: int,
    workers: int,
    shared: Path | None = None,
) -> dict[FaultRun | None, ReplayOutcome]:
    """The replay without faults (key None) and one per ``(rate, seed)`` of ``runs``.

    The replays run in a pool of ``workers`` spawned processes. With ``shared`` (a directory every
    process of one test run sees), the replay without faults is computed once for all of them
    (:class:`SharedReplay`); the faulted ones start at once, whoever computes it.
    """
    args = (list(bodies), site, dict(parameters))
    clean = SharedReplay(shared, replay_key(*args, None, None, waves)) if shared else None
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:

        def submit(run: FaultRun | None) -> Future[ReplayOutcome]:
            rate, seed = (None, None) if run is None else run
            return pool.submit(replay_in_worker, *args, rate, seed, waves)

        if clean is None:
            futures = {run: submit(run) for run in [None, *runs]}
            return {run: future.result() for run, future in futures.items()}
        outcomes: dict[FaultRun | None, ReplayOutcome] = {}
        faulted: dict[FaultRun, Future[ReplayOutcome]] = {}
        with clean.lock(wait=False) as held:
            if held:
                stored = clean.load()
                pending = submit(None) if stored is None else None
                faulted = {run: submit(run) for run in runs}
                if pending is not None:
                    clean.store(pending.result())
                outcomes[None] = pending.result() if pending is not None else clean.load_stored()
        if not held:
            faulted = {run: submit(run) for run in runs}
            with clean.lock(wait=True):
                stored = clean.load()
                if stored is None:  # the holder failed: compute it here
                    stored = submit(None).result()
                    clean.store(stored)
                outcomes[None] = stored
        outcomes.update({run: future.result() for run, future in faulted.items()})
    return outcomes
