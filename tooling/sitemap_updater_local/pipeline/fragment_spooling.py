"""Judge source records into spool bytes, on several processes when asked.

Judging a record and rendering its ``<url>`` fragment cost far more than reading it, so a build
hands the records to worker processes: a JSONL file in blocks of whole lines, other sources in
chunks of records (``source_blocks``). A record's default time depends only on its position
(``change_reader``), so the result is the same whatever the number of processes. Blocks come
back in order, at most two per process in flight, which keeps memory bounded.

Each valid change is spooled as ``(hash, ordering key, space, payload)``: the space is where
the deployment's ``Layout`` publishes the URL (its host and section, ``Layout.space_for``), the
payload of an upsert is its ``<url>`` fragment as the writer renders it for the URL's own site
(or, if the writer refuses the entry, the reason, reported only if that change wins), of a
delete ``None``. The payload of an upsert that holds a News article is the pair of its fragment
(the regular sitemap lists the page without its article) and the URL item of the article
(``store.items.live_item``), which the News files are made of (``site_files``).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.fast import Decided, decide_together, decided_keys, fast_change
from sitemap_updater.ingest.judged import ChangeEvent, Rejection, upsert_change
from sitemap_updater.ingest.wire import DecodeError, WireChange, decode_change
from sitemap_updater.protocol import SitemapError
from sitemap_updater.protocol.entry import Entry, plain_fields
from sitemap_updater.protocol.render.fragments import entry_fragments, recognized_fragment
from sitemap_updater.store.items import Item, live_item
from sitemap_updater.store.keys import url_hash, url_hashes
from sitemap_updater.store.spaces import Layout
from sitemap_updater_local.inputs.records import BodyLine, Problem, RawEntry
from sitemap_updater_local.inputs.sources import (
    body_texts,
)
from sitemap_updater_local.pipeline.change_reader import rejected
from sitemap_updater_local.pipeline.final_state import append_frames, bucket_of, frame_changes
from sitemap_updater_local.pipeline.ordered_pool import (
    single_threaded,
    stop_workers,
    worker_signals,
)
from sitemap_updater_local.pipeline.raw_entries import entry_from_raw
from sitemap_updater_local.pipeline.source_blocks import Block, Work

#: One change as spooled: URL hash, ordering key, space, payload (fragment, refusal, either with
#: the item of the page's News article, or None: delete).
Spooled = tuple[str, str, str, bytes | str | tuple[bytes | str, Item] | None]


@dataclass(slots=True)
class Judged:
    """The outcome of one chunk: spool bytes by bucket, change count, problems in order."""

    frames: dict[int, bytes] = field(default_factory=dict)
    changes: int = 0
    problems: list[Problem] = field(default_factory=list)


class _Collector:
    """Valid changes of one chunk, in order, until their fragments are rendered together."""

    def __init__(self, layout: Layout, max_bytes: int) -> None:
        self.layout = layout
        self.max_bytes = max_bytes
        self.out = Judged()
        self._upserts: list[tuple[str, str, str, Entry]] = []
        #: the item of each News article, by its upsert's place in ``_upserts``
        self._articles: dict[int, Item] = {}
        self._deletes: list[tuple[str, str]] = []
        #: changes ready to spool, by bucket, and how many
        self._buckets: defaultdict[int, list[Spooled]] = defaultdict(list)
        self._ready = 0

    def decided(self, changes: list[Decided]) -> None:
        """The changes the fast path decided with their batch (``ingest.fast.batch``): each
        fragment straight from its plain values (``render.fragments.recognized_fragment``)."""
        space_for, max_bytes, buckets = self.layout.space_for, self.max_bytes, self._buckets
        hashes = url_hashes([change[1] for change in changes])
        for uh, (_, key), (_, url, _, _, section, fields) in zip(
            hashes, decided_keys(changes), changes, strict=True
        ):
            if fields is None:
                buckets[bucket_of(uh)].append((uh, key, "", None))
                continue
            payload = recognized_fragment(fields, max_bytes=max_bytes)
            buckets[bucket_of(uh)].append((uh, key, space_for(url, section), payload))
        self._ready += len(changes)

    def recognized(self, event: ChangeEvent) -> None:
        """A change the fast path judged alone (``ingest.fast``): its fragment straight from
        its recognized entry (``render.fragments.recognized_fragment``)."""
        loc = event.loc
        uh = url_hash(loc)
        self._ready += 1
        changes = self._buckets[bucket_of(uh)]
        if event.entry is None:
            changes.append((uh, event.event_key, "", None))
            return
        payload = recognized_fragment(plain_fields(event.entry), max_bytes=self.max_bytes)
        changes.append((uh, event.event_key, self.layout.space_for(loc, event.section), payload))

    def upsert(self, loc: str, ev: str, entry: Entry, section: str | None = None) -> None:
        """An upsert judged the careful way; ``section``: the one the change named."""
        if entry.news is not None:  # the regular sitemap lists the article without its news
            article = Entry(loc=entry.loc, news=entry.news)
            self._articles[len(self._upserts)] = live_item(article, ev, "")
            entry = entry._replace(news=None)
        self._upserts.append((url_hash(loc), ev, self.layout.space_for(loc, section), entry))

    def delete(self, loc: str, ev: str) -> None:
        self._deletes.append((url_hash(loc), ev))

    def _fragments(self) -> list[bytes | str]:
        """The fragment (or refusal) of each upsert, rendered for the site its URL is on."""
        entries = [entry for _, _, _, entry in self._upserts]
        sites = self.layout.sites
        if len(sites) == 1:
            return entry_fragments(entries, sites.primary, max_bytes=self.max_bytes)
        places: dict[str, list[int]] = defaultdict(list)
        for place, entry in enumerate(entries):
            places[(sites.site_of(entry.loc) or sites.primary).origin].append(place)
        fragments: list[bytes | str] = [b""] * len(entries)
        for site in sites:
            group = places.get(site.origin, [])
            rendered = entry_fragments(
                [entries[place] for place in group], site, max_bytes=self.max_bytes
            )
            for place, fragment in zip(group, rendered, strict=True):
                fragments[place] = fragment
        return fragments

    def finish(self) -> Judged:
        buckets = self._buckets
        articles = self._articles
        for place, ((uh, ev, space, _), fragment) in enumerate(
            zip(self._upserts, self._fragments(), strict=True)
        ):
            article = articles.get(place) if articles else None
            payload = fragment if article is None else (fragment, article)
            buckets[bucket_of(uh)].append((uh, ev, space, payload))
        for uh, ev in self._deletes:
            buckets[bucket_of(uh)].append((uh, ev, "", None))
        self.out.frames = {bucket: frame_changes(changes) for bucket, changes in buckets.items()}
        self.out.changes = len(self._upserts) + len(self._deletes) + self._ready
        return self.out


def _judge_body(
    collect: _Collector, name: str, line: tuple[int, str], sent_at: datetime, now: datetime
) -> None:
    decoded = decode_body(line[1], sent_at=sent_at, site=collect.layout.sites, now=now)
    for judged in decoded.items:
        if isinstance(judged, Rejection):
            where = f"{name}:{line[0]}"
            if judged.index is not None:
                where += f"[{judged.index}]"
            collect.out.problems.append(rejected(where, judged.field, judged.value, judged.rule))
        elif judged.entry is None:
            collect.delete(judged.loc, judged.event_key)
        else:
            collect.upsert(judged.loc, judged.event_key, judged.entry, judged.section)


def _judge_raw(
    collect: _Collector, raw: RawEntry, stamp: datetime, now: datetime, keep_page: bool
) -> None:
    try:
        entry = entry_from_raw(
            collect.layout.sites, raw, now, collect.out.problems.append, keep_page=keep_page
        )
    except SitemapError as exc:
        collect.out.problems.append(
            rejected(raw.where, raw.name_of(exc.field), exc.value, exc.rule)
        )
        return
    collect.upsert(entry.loc, upsert_change(entry, stamp).event_key, entry)


def _stamp(now: datetime, seq: int) -> datetime:
    """The time a queue would have stamped on the ``seq``-th record (1-based) of the run."""
    return now + timedelta(microseconds=seq)


def judge_chunk(
    layout: Layout,
    now: datetime,
    seq: int,
    records: list[RawEntry | BodyLine],
    max_bytes: int,
    keep_page: bool = True,
) -> Judged:
    """Judge ``records``, the first of which is preceded by ``seq`` others; ``keep_page``: a
    bad lastmod, changefreq or priority of a sitemap or CSV record is left out, not the page."""
    collect = _Collector(layout, max_bytes)
    for record in records:
        seq += 1
        if isinstance(record, BodyLine):
            where = record.where
            _judge_body(
                collect,
                where[: where.rindex(":")],
                (record.line, record.text),
                _stamp(now, seq),
                now,
            )
        else:
            _judge_raw(collect, record, _stamp(now, seq), now, keep_page)
    return collect.finish()


def judge_block(
    layout: Layout, now: datetime, block: Block, max_bytes: int, spool: str | None = None
) -> Judged:
    """Judge the lines of one JSONL block; with ``spool`` (a spool's directory), append the
    changes to its files here instead of returning them."""
    with _no_cycle_collection():
        judged = _judge_lines(layout, now, block, max_bytes)
    if spool is not None:
        for bucket, data in judged.frames.items():
            append_frames(spool, bucket, data)
        judged.frames = {}
    return judged


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cycle collector paused: judging a block allocates many small containers and makes
    no reference cycle, so the collections they would set off (each scanning every object
    still alive) find nothing."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _judge_lines(layout: Layout, now: datetime, block: Block, max_bytes: int) -> Judged:
    collect = _Collector(layout, max_bytes)
    name = block.name
    # most lines are one change object with its own time, in normalized form: the fast path
    # decides them together, without a default time; the rest get the full judge
    records: list[tuple[int, str] | Problem] = list(
        body_texts(block.text(), name, block.first_line)
    )
    places: list[int] = []
    changes: list[WireChange] = []
    lengths: list[int] = []
    for place, line in enumerate(records):
        if type(line) is tuple:
            try:
                changes.append(decode_change(line[1]))
            except DecodeError:
                continue
            places.append(place)
            lengths.append(len(line[1]))
    sites = layout.sites
    batch = decide_together(changes, lengths, None, sites, now)
    collect.decided(batch.decided)
    settled = {places[change[0]] for change in batch.decided}
    for n in batch.alone:
        event = fast_change(changes[n], None, None, sites, now, lengths[n])
        if event is not None:
            collect.recognized(event)
            settled.add(places[n])
    if len(settled) == len(records):  # the common block: all decided
        return collect.finish()
    seq = block.seq
    for place, line in enumerate(records):
        if isinstance(line, Problem):
            collect.out.problems.append(line)
            continue
        seq += 1
        if place not in settled:
            _judge_body(collect, name, line, _stamp(now, seq), now)
    return collect.finish()


def default_jobs() -> int:
    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))


@contextmanager
def worker_pool(jobs: int) -> Iterator[Executor | None]:
    """``jobs`` worker processes (``None`` for one: the work runs in the calling process).

    They are forked when the calling process runs no other thread (a command line run: the
    workers start at once with every module loaded), else started from a fork server, so that
    they never inherit the threads or open clients of the caller. They ignore SIGINT, and
    are ended at once when the caller stops early (see ``ordered_pool``).
    """
    if jobs <= 1:
        yield None
        return
    methods = multiprocessing.get_all_start_methods()
    method = "fork" if single_threaded() and "fork" in methods else "forkserver"
    context = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start_worker)
    try:
        yield pool
    except BaseException:
        stop_workers(pool)
        raise
    pool.shutdown()


def _start_worker() -> None:
    """A worker's signals (``ordered_pool``), and every object it starts with kept out of the
    cycle collector's scans: a forked worker holds all the modules of the caller."""
    worker_signals()
    gc.freeze()


def judge(
    work: Iterable[Work],
    layout: Layout,
    now: datetime,
    *,
    max_bytes: int,
    pool: Executor | None,
    spool: str,
    keep_page: bool = True,
) -> Iterator[Judged]:
    """The judged blocks and chunks of ``work``, in order (on ``pool``'s processes if given,
    which append the changes of JSONL blocks to the files of the ``spool`` directory
    themselves)."""
    seq = 0
    pending: deque[Future[Judged] | Judged] = deque()
    most = 2 * getattr(pool, "_max_workers", 1)
    for item in work:
        if isinstance(item, Problem):
            pending.append(Judged(problems=[item]))
        elif isinstance(item, Block):
            if pool is None:
                pending.append(judge_block(layout, now, item, max_bytes))
            else:
                pending.append(pool.submit(judge_block, layout, now, item, max_bytes, spool))
        else:
            if pool is None:
                pending.append(judge_chunk(layout, now, seq, item, max_bytes, keep_page))
            else:
                pending.append(
                    pool.submit(judge_chunk, layout, now, seq, item, max_bytes, keep_page)
                )
            seq += len(item)
        while len(pending) > most:
            yield _result(pending.popleft())
    while pending:
        yield _result(pending.popleft())


def _result(item: Future[Judged] | Judged) -> Judged:
    return item.result() if isinstance(item, Future) else item
