"""The records of a source judged into the URL items ingest would write, on worker processes.

A JSONL line is a message, judged as ingest judges it (``ingest.judge.judge_message``); a change
without a time of its own takes its place in the sources (``page.order.file_time``), so the later
of two lines of a page wins. A sitemap
or spreadsheet listing is judged leniently (``judge_listing``): a bad field or element is left out
with a warning and the page kept (strictly, with ``lenient`` false, a bad single value costs the
page); its event time is its lastmod, as the protocol makes it the time of the page's last change,
so the newest of two listings of a page wins (one without a lastmod loses to any with one).

Each judged change is the URL item ingest would write for it (``store.items``: a live page, or a
tombstone), as a spool record (``rebuild.inputs.spools``). The result of a block depends only on
its records and their positions, so a build is the same whatever the number of processes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.ingest.rejection import MISSING
from sitemap_updater.page.model import PROTOCOL_VALUES
from sitemap_updater.page.normalize import Repaired
from sitemap_updater.page.order import file_time
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.rebuild.inputs.spools import record_of
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import live_item, tombstone_item
from sitemap_updater_local.inputs.source_records import (
    BodyLine,
    Dropped,
    Listing,
    Note,
    Problem,
    quote,
)
from sitemap_updater_local.inputs.sources import body_texts
from sitemap_updater_local.pipeline.ordered_pool import OrderedPool
from sitemap_updater_local.pipeline.source_blocks import Block, Chunk, Work


@dataclass(frozen=True, slots=True)
class Judging:
    """What the records of a run are judged against: the sites, the run's clock (aware), and
    whether a listing's bad single value is left out (``lenient``) or costs the page."""

    sites: Sites
    now: datetime
    lenient: bool = True


@dataclass(slots=True)
class JudgedWork:
    """What one block or chunk gave: each change as a spool record, the number of changes, and
    the problems and warnings met, in order."""

    records: list[bytes] = field(default_factory=list)
    changes: int = 0
    #: the records judged (a source's own problem counts as one)
    read: int = 0
    problems: list[Problem | Note] = field(default_factory=list)


def invalid(field_name: str, value: object, rule: str) -> str:
    """One readable line naming the field, the value and the rule it breaks."""
    if value is MISSING:
        return f"{field_name}: missing: {rule}"
    if isinstance(value, list | tuple):  # a list over its bound: its size, not its text
        return f"{field_name}: {len(value):,} items is invalid: {rule}"
    return f"{field_name}: {quote(value)} is invalid: {rule}"


def rejected(where: str, field_name: str, value: object, rule: str) -> Problem:
    """The problem of a record that breaks ``rule``, counted by its field and rule."""
    return Problem(where, invalid(field_name, value, rule), f"{field_name}: {rule}")


def dropped(error: SitemapError, where: str, name: str) -> Dropped:
    """The warning of a field or element a lenient judgement left out or read as another."""
    reason = invalid(name, error.value, error.rule)
    rule = f"{error.field}: {error.rule}"
    if isinstance(error, Repaired):
        return Dropped(where, reason, rule, f"read as {error.to!r}, the page is kept")
    return Dropped(where, reason, rule)


def _record(change: Change) -> bytes:
    if change.page is None:
        return record_of(tombstone_item(change.url, change.key, change.digest, 0))
    return record_of(live_item(change.page, change.key, change.digest, change.section))


def _judge_line(judging: Judging, out: JudgedWork, where: str, text: str, stamp: datetime) -> None:
    judgement = judge_message(text, sent_at=stamp, sites=judging.sites, now=judging.now)
    for item in judgement.items:
        if isinstance(item, Change):
            out.records.append(_record(item))
            out.changes += 1
        else:
            at = where if item.index is None else f"{where}[{item.index}]"
            out.problems.append(rejected(at, item.field, item.value, item.rule))


def _judge_listing(judging: Judging, out: JudgedWork, listing: Listing) -> None:
    drops: list[SitemapError] = []
    try:
        change = judge_listing(listing.fields, sites=judging.sites, now=judging.now, drops=drops)
    except SitemapError as error:
        out.problems.append(
            rejected(listing.where, listing.name_of(error.field), error.value, error.rule)
        )
        return
    costly = [] if judging.lenient else [e for e in drops if e.field in PROTOCOL_VALUES]
    if costly:
        first = costly[0]
        out.problems.append(
            rejected(listing.where, listing.name_of(first.field), first.value, first.rule)
        )
        return
    for drop in drops:
        out.problems.append(dropped(drop, listing.where, listing.name_of(drop.field)))
    out.records.append(_record(change))
    out.changes += 1


def judge_work(judging: Judging, work: Block | Chunk) -> JudgedWork:
    """Judge one block of JSONL lines or one chunk of records (safe on a worker process)."""
    out = JudgedWork()
    position = work.seq
    if isinstance(work, Block):
        for line in body_texts(work.text(), work.name, work.first_line):
            out.read += 1
            if isinstance(line, Problem):
                out.problems.append(line)
                continue
            position += 1
            stamp = file_time(judging.now, position)
            _judge_line(judging, out, f"{work.name}:{line[0]}", line[1], stamp)
        return out
    for record in work.records:
        if isinstance(record, Note):
            out.problems.append(record)
            continue
        out.read += 1
        position += 1
        stamp = file_time(judging.now, position)
        if isinstance(record, Problem):
            out.problems.append(record)
        elif isinstance(record, BodyLine):
            _judge_line(judging, out, record.where, record.text, stamp)
        else:
            _judge_listing(judging, out, record)
    return out


def judge_all(
    work: Iterable[Work], judging: Judging, pool: OrderedPool[JudgedWork] | None
) -> Iterator[JudgedWork]:
    """The judged blocks and chunks of ``work``, in order, on ``pool``'s workers if given; a
    problem or note of a source itself in its place."""
    for item in work:
        if isinstance(item, Problem | Note):
            alone = JudgedWork(problems=[item], read=isinstance(item, Problem))
            if pool is None:
                yield alone
            else:
                yield from pool.ready(alone)
        elif pool is None:
            yield judge_work(judging, item)
        else:
            yield from pool.submit(judge_work, judging, item)
    if pool is not None:
        yield from pool.drain()
