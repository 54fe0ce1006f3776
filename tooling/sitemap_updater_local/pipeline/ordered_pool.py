"""Tasks run on worker processes, their results handed back in the order they were given.

At most two tasks per worker are in flight: a result is taken back before a further task is
handed out, so memory stays bounded whatever the number of tasks. Results that need no
worker (:meth:`OrderedPool.ready`) wait their turn behind the tasks given before them.

Workers are forked from the calling process when it runs no other thread (a command line run:
they start at once, every module loaded), else from a fork server that has loaded the modules
the tasks need (``preload``), so that they never inherit the caller's threads and no worker
loads those modules again. Workers ignore SIGINT: Ctrl-C on a terminal
reaches every process of the group, and only the calling process decides what it means. When
the caller stops early (Ctrl-C, an error), its workers are ended at once (:func:`stop_workers`)
instead of finishing the tasks in flight.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Final

#: Tasks in flight per worker.
IN_FLIGHT_PER_WORKER: Final = 2


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def default_jobs() -> int:
    """The worker processes a command runs by default: one a core, at most 8."""
    return max(1, min(8, usable_cores()))


def worker_signals() -> None:
    """A worker's initializer: SIGINT is the calling process's to handle, and SIGTERM ends the
    worker as by default (a forked worker would inherit the command's handler)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def stop_workers(executor: ProcessPoolExecutor) -> None:
    """Cancel what has not started and kill the workers, waiting until they are gone (so that
    no worker still writes to files the caller is about to remove). What they were doing is
    thrown away, so nothing of theirs needs to run: SIGKILL."""
    # ProcessPoolExecutor has no public way to end its workers before Python 3.14; shutdown
    # forgets them, so they are taken first
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    for process in processes:
        process.join()


def single_threaded() -> bool:
    """Whether this process runs one thread, C-level threads included (Linux: its tasks)."""
    try:
        return threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _context(preload: Sequence[str]) -> multiprocessing.context.BaseContext:
    """fork when this process runs one thread (multiprocessing flushes the standard streams
    first); else a fork server that has imported ``preload`` (one already running keeps what
    it imported)."""
    if "fork" in multiprocessing.get_all_start_methods() and single_threaded():
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", *preload])
    return context


class OrderedPool[T]:
    """Runs tasks on ``workers`` processes (started on the first task; ``preload``: the modules
    the tasks need); use as a context manager, which stops them."""

    def __init__(self, workers: int, preload: Sequence[str] = ()) -> None:
        self._workers = workers
        self._preload = preload
        self._executor: ProcessPoolExecutor | None = None
        self._pending: deque[Future[T] | T] = deque()
        self._in_flight = 0

    @property
    def busy(self) -> bool:
        """Whether results are still waiting to be handed back."""
        return bool(self._pending)

    def submit(self, task: Callable[..., T], *args: Any) -> Iterator[T]:
        """Hands ``task(*args)`` to a worker; yields the results whose turn has come."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=_context(self._preload),
                initializer=worker_signals,
            )
        self._pending.append(self._executor.submit(task, *args))
        self._in_flight += 1
        while self._in_flight > IN_FLIGHT_PER_WORKER * self._workers:
            yield self._next()

    def ready(self, result: T) -> Iterator[T]:
        """Queues a result that needs no worker; yields it (and any before it) if none is
        waiting."""
        self._pending.append(result)
        while self._pending and not isinstance(self._pending[0], Future):
            yield self._next()

    def drain(self) -> Iterator[T]:
        """Every result still waiting, in order."""
        while self._pending:
            yield self._next()

    def _next(self) -> T:
        item = self._pending.popleft()
        if isinstance(item, Future):
            self._in_flight -= 1
            return item.result()
        return item

    def __enter__(self) -> OrderedPool[T]:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if self._executor is None:
            return
        if kind is None:
            self._executor.shutdown(cancel_futures=True)
        else:
            stop_workers(self._executor)


def in_order[T, A](
    pool: OrderedPool[T] | None, task: Callable[[A], T], work: Iterable[A]
) -> Iterator[T]:
    """``task`` of each of ``work``, in order: on ``pool``'s workers, or here without one."""
    if pool is None:
        yield from map(task, work)
        return
    for each in work:
        yield from pool.submit(task, each)
    yield from pool.drain()
