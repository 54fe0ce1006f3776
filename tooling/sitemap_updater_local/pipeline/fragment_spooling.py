"""Judge source records into spool bytes, on several processes when asked.

Judging a record and rendering its ``<url>`` fragment cost far more than reading it, so a build
hands the records to worker processes: a JSONL file in blocks of whole lines, other sources in
chunks of records. A record's default time depends only on its position (``change_reader``), so
the result is the same whatever the number of processes. Blocks come back in order, at most two
per process in flight, which keeps memory bounded.

Each valid change is spooled as ``(hash, ordering key, space, payload)``: the space is where
the deployment's ``Layout`` publishes the URL (its host and section, ``Layout.space_for``), the
payload of an upsert is its ``<url>`` fragment as the writer renders it for the URL's own site
(or, if the writer refuses the entry, the reason, reported only if that change wins), of a
delete ``None``. The payload of an upsert that holds a News article is the pair of its fragment
(the regular sitemap lists the page without its article) and the URL item of the article
(``store.items.live_item``), which the News files are made of (``site_files``).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import IO, Final

from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.fast import fast_changes
from sitemap_updater.ingest.judged import ChangeEvent, Rejection, upsert_change
from sitemap_updater.ingest.wire import DecodeError, WireChange, decode_change
from sitemap_updater.protocol import SitemapError
from sitemap_updater.protocol.entry import Entry
from sitemap_updater.protocol.render.fragments import entry_fragments, recognized_fragment
from sitemap_updater.store.items import Item, live_item
from sitemap_updater.store.keys import url_hash
from sitemap_updater.store.spaces import Layout
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.line_blocks import LineBlocks, Overlong
from sitemap_updater_local.inputs.opening import is_url, open_source
from sitemap_updater_local.inputs.records import BodyLine, Problem, RawEntry, SourceError
from sitemap_updater_local.inputs.sources import (
    Record,
    body_texts,
    count_bodies,
    iter_records,
    sniff_kind,
)
from sitemap_updater_local.pipeline.change_reader import rejected
from sitemap_updater_local.pipeline.final_state import append_frames, bucket_of, frame_changes
from sitemap_updater_local.pipeline.ordered_pool import stop_workers, worker_signals
from sitemap_updater_local.pipeline.raw_entries import entry_from_raw

#: Records per chunk handed to a worker.
CHUNK: Final = 2000
#: Bytes of a JSONL file per block handed to a worker (cut after a line break).
BLOCK_BYTES: Final = 1024 << 10

#: One change as spooled: URL hash, ordering key, space, payload (fragment, refusal, either with
#: the item of the page's News article, or None: delete).
Spooled = tuple[str, str, str, bytes | str | tuple[bytes | str, Item] | None]


@dataclass(slots=True)
class Judged:
    """The outcome of one chunk: spool bytes by bucket, change count, problems in order."""

    frames: dict[int, bytes] = field(default_factory=dict)
    changes: int = 0
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Block:
    """Whole lines of a JSONL source, starting at line ``first_line`` (1-based), with ``seq``
    records before them: ``data``, or, for a local file, ``length`` bytes of it from ``offset``
    (so that a worker reads them itself instead of receiving them through a pipe)."""

    name: str
    first_line: int
    seq: int
    data: bytes = b""
    offset: int = 0
    length: int = 0

    def text(self) -> bytes:
        if self.length == 0:
            return self.data
        with open(self.name, "rb") as fh:
            fh.seek(self.offset)
            return fh.read(self.length)


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

    def recognized(self, event: ChangeEvent) -> None:
        """A change the fast path judged (``ingest.fast``): its fragment straight from its
        recognized entry (``render.fragments.recognized_fragment``)."""
        loc = event.loc
        uh = url_hash(loc)
        self._ready += 1
        changes = self._buckets[bucket_of(uh)]
        if event.entry is None:
            changes.append((uh, event.event_key, "", None))
            return
        payload = recognized_fragment(event.entry, max_bytes=self.max_bytes)
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
    events = dict(zip(places, fast_changes(changes, lengths, None, layout.sites, now), strict=True))
    seq = block.seq
    for place, line in enumerate(records):
        if isinstance(line, Problem):
            collect.out.problems.append(line)
            continue
        seq += 1
        event = events.get(place)
        if event is None:
            _judge_body(collect, name, line, _stamp(now, seq), now)
        else:
            collect.recognized(event)
    judged = collect.finish()
    if spool is not None:
        for bucket, data in judged.frames.items():
            append_frames(spool, bucket, data)
        judged.frames = {}
    return judged


Work = Block | list[RawEntry | BodyLine] | Problem


def jsonl_blocks(stream: IO[bytes], name: str, *, local: bool = False) -> Iterator[Block | Problem]:
    """The stream cut into blocks of whole lines, each knowing its first line and the records
    before it, and a problem in place of each line too long to read; ``local``: the stream is
    the file ``name`` itself, so blocks carry offsets."""
    line, seq, offset = 1, 0, 0
    for block in LineBlocks(stream, BLOCK_BYTES):
        if isinstance(block, Overlong):
            yield Problem(f"{name}:{line}", block.reason)
            line += 1
            offset += block.length
            continue
        yield _block(name, line, seq, block, offset if local else None)
        seq += count_bodies(block, name, line)
        line += block.count(b"\n")
        offset += len(block)


def _block(name: str, line: int, seq: int, data: bytes, offset: int | None) -> Block:
    if offset is None:
        return Block(name, line, seq, data)
    return Block(name, line, seq, offset=offset, length=len(data))


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


def source_work(location: str, csv_format: CsvFormat | None = None) -> Iterator[Work]:
    """The work of a source, in order: JSONL in blocks of lines, other kinds in chunks of
    records (``csv_format``: how to read a CSV source). Raises ``SourceError`` when the source
    as a whole cannot be read."""
    try:
        with open_source(location) as stream:
            if sniff_kind(stream) == "jsonl":
                local = not is_url(location) and not stream.gzipped
                yield from jsonl_blocks(stream, location, local=local)
            else:
                yield from _chunks(iter_records(stream, location, csv_format))
    except (OSError, EOFError) as exc:
        raise SourceError(f"{location}: cannot read: {exc}") from exc


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
    method = "fork" if _single_threaded() and "fork" in methods else "forkserver"
    context = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=worker_signals)
    try:
        yield pool
    except BaseException:
        stop_workers(pool)
        raise
    pool.shutdown()


def _single_threaded() -> bool:
    """Whether this process runs one thread, C-level threads included (Linux: its tasks)."""
    try:
        return threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


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
