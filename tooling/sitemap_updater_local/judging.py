"""Judge source records into spool bytes, on several processes when asked.

Checking and normalizing a record (URL rules, lastmod, content digest, ordering key) costs far
more than reading or rendering it, so a build hands chunks of records to worker processes.
Each record's default time depends only on its position among the records (see ``changes``),
so the result is the same whatever the number of processes. Chunks come back in order, and
at most two per process are in flight, which keeps memory bounded.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Final

from sitemap_updater.protocol import Site
from sitemap_updater_local.changes import ChangeReader
from sitemap_updater_local.finalstate import bucket_of, frame_change
from sitemap_updater_local.sources import BodyLine, Problem, RawEntry, Record

#: Records per chunk handed to a worker.
CHUNK: Final = 2000


@dataclass(slots=True)
class Judged:
    """The outcome of one chunk: spool bytes by bucket, change count, problems in order."""

    frames: dict[int, bytearray] = field(default_factory=dict)
    changes: int = 0
    problems: list[Problem] = field(default_factory=list)


@cache
def _site(origin: str) -> Site:
    return Site.parse(origin)


def judge_chunk(origin: str, now: datetime, seq: int, records: list[RawEntry | BodyLine]) -> Judged:
    """Judge ``records``, the first of which is preceded by ``seq`` others."""
    reader = ChangeReader(_site(origin), now, seq=seq)
    out = Judged()
    for record in records:
        results = (
            reader.from_body(record) if isinstance(record, BodyLine) else [reader.from_raw(record)]
        )
        for result in results:
            if isinstance(result, Problem):
                out.problems.append(result)
                continue
            bucket = bucket_of(result.uh)
            frames = out.frames.get(bucket)
            if frames is None:
                frames = out.frames[bucket] = bytearray()
            frames += frame_change(result)
            out.changes += 1
    return out


def _chunks(records: Iterable[Record]) -> Iterator[list[RawEntry | BodyLine] | Problem]:
    """Chunks of records to judge; problems of the source itself pass through alone."""
    chunk: list[RawEntry | BodyLine] = []
    for record in records:
        if isinstance(record, Problem):
            yield record
            continue
        chunk.append(record)
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def default_jobs() -> int:
    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))


def judge(
    records: Iterable[Record], site: Site, now: datetime, *, jobs: int = 1
) -> Iterator[Judged]:
    """The judged chunks of ``records``, in order (``jobs`` > 1: on that many processes)."""
    seq = 0
    if jobs <= 1:
        for item in _chunks(records):
            if isinstance(item, Problem):
                yield Judged(problems=[item])
            else:
                yield judge_chunk(site.origin, now, seq, item)
                seq += len(item)
        return
    pending: deque[Future[Judged] | Judged] = deque()
    # forkserver: workers never inherit the threads or open clients of the calling process
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for item in _chunks(records):
            if isinstance(item, Problem):
                pending.append(Judged(problems=[item]))
            else:
                pending.append(pool.submit(judge_chunk, site.origin, now, seq, item))
                seq += len(item)
            while len(pending) > 2 * jobs:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())


def _result(item: Future[Judged] | Judged) -> Judged:
    return item.result() if isinstance(item, Future) else item
