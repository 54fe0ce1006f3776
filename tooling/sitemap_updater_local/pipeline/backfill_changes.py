"""``backfill``'s engine: the records of every source turned into upserts, one per page.

The sources are read in the order given and their records judged on worker processes as
``build`` judges them (``judging``): a sitemap or spreadsheet listing leniently, its lastmod its
event time; a JSONL line as ingest judges it. The newest change of each page is kept by the one
ordering rule (``final_state``), so a page listed twice (by two child sitemaps, two sources, or
a News file and a regular one) is written once and a deleted page never comes back. Each live
page becomes one upsert of the producer contract (``page.model.Upsert``), carrying its event time
as ``occurred_at``, so that a change its site sends later wins over the backfilled one.
``sitemap-updater backfill`` is its command.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any

import msgspec

from sitemap_updater.page.model import Page, Upsert
from sitemap_updater.page.order import instant_text, key_time
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, page_of_item, section_of_item
from sitemap_updater.store.keys import ATTR_EVENT_KEY
from sitemap_updater_local.guessed_site import guess_site
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.opening import SourcePolicy
from sitemap_updater_local.inputs.source_records import (
    BodyLine,
    Dropped,
    Listing,
    Note,
    Problem,
    SourceError,
)
from sitemap_updater_local.inputs.sources import body_texts
from sitemap_updater_local.pipeline.final_state import FinalState
from sitemap_updater_local.pipeline.judging import JudgedWork, Judging, judge_all
from sitemap_updater_local.pipeline.ordered_pool import OrderedPool
from sitemap_updater_local.pipeline.source_blocks import Block, Chunk, Work, source_work

_encode = msgspec.json.Encoder().encode
#: Records read ahead, when no site is given, for one that tells it.
GUESS_AHEAD = 2000


@dataclass(slots=True)
class BackfillStats:
    """Records read, upserts written, records skipped, pages met more than once, and
    pages whose newest change deletes them."""

    read: int = 0
    upserts: int = 0
    problems: int = 0
    repeats: int = 0
    deleted: int = 0


def upsert_line(item: Item) -> tuple[str, str]:
    """The page of a live URL item as the upsert that stores it again: its url and the
    event's JSON line, with the section its change named and its event time."""
    page = page_of_item(item)
    values: dict[str, Any] = {name: getattr(page, name) for name in Page.__struct_fields__}
    at = key_time(str(item[ATTR_EVENT_KEY]["S"]))
    upsert = Upsert(**values, section=section_of_item(item), occurred_at=instant_text(at))
    return page.url, _encode(upsert).decode("utf-8")


class Backfill:
    """Turns the records of ``sources`` into upserts handed to ``emit`` as (url, line).

    ``sites``: the listed sites; none: the site of the first URL read, with ``media_hosts`` and
    ``alternates_any_host``. ``policy`` holds the budgets of the run; ``jobs`` processes judge
    the records; ``progress`` is told how many more records were read, now and then."""

    def __init__(
        self,
        emit: Callable[[str, str], None],
        *,
        sites: Sites | None = None,
        on_problem: Callable[[Problem | Note], None] = lambda p: None,
        now: datetime | None = None,
        policy: SourcePolicy | None = None,
        jobs: int = 1,
        progress: Callable[[int], object] | None = None,
        csv_format: CsvFormat | None = None,
        media_hosts: frozenset[str] | None = None,
        alternates_any_host: bool = False,
    ) -> None:
        self._emit = emit
        self._sites = sites
        self._on_problem = on_problem
        self._now = now or datetime.now(UTC)
        self._policy = policy or SourcePolicy()
        self._jobs = jobs
        self._progress = progress
        self._csv_format = csv_format
        self._media_hosts = media_hosts
        self._alternates_any_host = alternates_any_host
        self.stats = BackfillStats()

    def _problem(self, problem: Problem | Note) -> None:
        if isinstance(problem, Problem) and not isinstance(problem, Dropped):
            self.stats.problems += 1
        self._on_problem(problem)

    def _budgeted(self, work: Iterator[Work]) -> Iterator[Work]:
        """``work`` with the records of its chunks counted against the budget (a JSONL block's
        lines are counted as they are judged)."""
        for item in work:
            if isinstance(item, Chunk):
                for record in item.records:
                    if not isinstance(record, Note):
                        self._policy.count_record(record.where)
            yield item

    def _guess(self, work: Iterator[Work]) -> tuple[Sites | None, list[Work]]:
        """The site of the first URL read that tells one (``None``: no record was read), and
        the work read to find it; raises :class:`SiteUnknown` when the records of the first
        :data:`GUESS_AHEAD` tell none."""
        ahead: list[Work] = []
        first: Listing | BodyLine | None = None
        reason = ""
        looked = 0
        for item in work:
            ahead.append(item)
            if not isinstance(item, Chunk | Block):
                continue
            records = item.records if isinstance(item, Chunk) else [_first_line(item)]
            for record in records:
                if not isinstance(record, Listing | BodyLine):
                    continue
                first = first or record
                try:
                    return guess_site(
                        record, self._media_hosts, alternates_any_host=self._alternates_any_host
                    ), ahead
                except (SitemapError, ValueError) as exc:
                    reason = reason or str(exc)
                looked += 1
            if looked >= GUESS_AHEAD:
                break
        if first is None:
            return None, ahead
        raise SiteUnknown(
            f"{first.where}: cannot tell the site from this record ({reason}), nor from the "
            f"next {looked - 1:,}; pass --site"
        )

    def run(self, sources: Sequence[str]) -> BackfillStats:
        """Read, judge and resolve every source, then hand each page's event to ``emit``."""
        with (
            tempfile.TemporaryDirectory(prefix="sitemap-backfill-") as spool,
            OrderedPool[JudgedWork](self._jobs) as pool,
        ):
            state = FinalState(Path(spool))
            work: Iterator[Work] = self._budgeted(
                source_work(sources, self._csv_format, self._policy, refuse_empty=True)
            )
            sites = self._sites
            if sites is None:
                guessed, ahead = self._guess(work)
                if guessed is None:  # no record at all: what the sources said is all there is
                    for item in ahead:
                        said = item.records if isinstance(item, Chunk) else [item]
                        for record in said:
                            if isinstance(record, Problem | Note):
                                self.stats.read += isinstance(record, Problem)
                                self._problem(record)
                    return self.stats
                sites, work = guessed, chain(ahead, work)
            judging = Judging(sites, self._now, self._policy.keep_page)
            workers = pool if self._jobs > 1 else None
            for judged in judge_all(work, judging, workers):
                self.stats.read += judged.read
                for problem in judged.problems:
                    self._problem(problem)
                for change in judged.records:
                    state.add(change)
                if self._progress is not None:
                    self._progress(judged.read)
            for page in state.pages():
                self.stats.upserts += 1
                self._emit(*upsert_line(page))
            self.stats.repeats = state.repeats
            self.stats.deleted = state.deleted
        return self.stats


def _first_line(block: Block) -> BodyLine:
    for line in body_texts(block.text(), block.name, block.first_line):
        if not isinstance(line, Problem):
            return BodyLine(f"{block.name}:{line[0]}", *line)
    return BodyLine(f"{block.name}:{block.first_line}", block.first_line, "")


class SiteUnknown(SourceError):
    """No site was given, and no record read ahead tells it."""
