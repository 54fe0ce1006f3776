"""``backfill``'s engine: the records of one source turned into upsert events, one per page.

Sitemap and CSV entries are checked one by one and written as they come (``upsert_lines``);
JSONL lines are judged as ingest judges them, spooled and reduced to their final state
(``final_state``); the held News articles of a sitemap index are merged into their pages; the
children of an index are read on worker processes (``read_child``) and their events handed on
in the index's order. ``sitemap-updater backfill`` is its command.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from tempfile import NamedTemporaryFile
from typing import TYPE_CHECKING, Any

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater.sites import Sites, sites_of
from sitemap_updater_local.guessed_site import guess_site, site_of_first_entry
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.opening import BudgetError, SourcePolicy
from sitemap_updater_local.inputs.records import (
    BodyLine,
    Dropped,
    Note,
    Problem,
    RawEntry,
    Row,
    SourceError,
    raw_entry,
)
from sitemap_updater_local.inputs.sitemaps.news_articles import (
    MAX_HELD_ARTICLES,
    is_article,
    is_news_file,
    with_article,
)
from sitemap_updater_local.inputs.sitemaps.sitemap_rows import ChildSitemap, read_sitemap_rows
from sitemap_updater_local.outputs.line_writer import LineWriter
from sitemap_updater_local.pipeline.ordered_pool import OrderedPool
from sitemap_updater_local.pipeline.upsert_lines import UpsertLines, event_line, upsert_event

Item = Row | RawEntry | BodyLine | Problem | Note | ChildSitemap

if TYPE_CHECKING:
    from sitemap_updater_local.pipeline.change_reader import ChangeReader
    from sitemap_updater_local.pipeline.final_state import ChangeSpool

#: Records read between two updates of the progress bar.
PROGRESS_EVERY = 1024


@dataclass(slots=True)
class BackfillStats:
    read: int = 0
    events: int = 0
    problems: int = 0


@dataclass(slots=True)
class ChildResult:
    """What reading one child sitemap gave: the file of its event lines (each ending with a line
    break), how many records it held and events it gave, and its problems in order."""

    lines_file: str | None = None
    read: int = 0
    events: int = 0
    problems: list[Problem | Note] = field(default_factory=list)
    bytes_read: int = 0
    #: the locs of the held News articles merged into their pages
    merged: list[str] = field(default_factory=list)


def read_child(
    site: Sites,
    now: datetime,
    location: str,
    depth: int,
    policy: SourcePolicy,
    articles: dict[str, RawEntry],
    spool: str,
) -> ChildResult:
    """The events of one child sitemap, written as they come to a file of the ``spool``
    directory, so that no process holds a child's lines (run on a worker process, with a
    copy of the policy holding what the source read so far)."""
    problems: list[Problem | Note] = []
    read_before = policy.bytes_read
    with NamedTemporaryFile("w", encoding="utf-8", dir=spool, delete=False) as out:
        writer = LineWriter(out)
        backfill = Backfill(
            writer.add, site=site, on_problem=problems.append, now=now, policy=policy
        )
        backfill.articles = articles  # the articles no page meets are the index's to write
        try:
            stats = backfill.run(read_sitemap_rows(location, depth=depth, policy=policy))
        except BudgetError:
            raise
        except SourceError as exc:
            problems.append(Problem(location, str(exc)))
            stats = backfill.stats
        writer.flush()
    read = policy.bytes_read - read_before
    return ChildResult(out.name, stats.read, stats.events, problems, read, backfill.merged)


class Backfill:
    """Turns the records of one source into upsert events handed to ``emit`` as (url, line).

    Sitemap and CSV entries are checked one by one (``upsert_lines``); JSONL lines are
    judged as ingest judges them, spooled, and reduced to their final state at the end.
    ``site``: the listed sites (``Sites``, as ``SiteUrl`` lists them) or the one site; none:
    the site of the first URL, with ``media_hosts`` and ``alternates_any_host``.
    With a ``pool``, ``write`` and a ``spool`` directory, the children of a sitemap index are
    read on worker processes once the site is known (given, or told by the first entry of the
    first child file), each into a file of the spool, handed to ``write`` in order (then
    removed). The caller removes the spool itself once the workers are stopped.
    ``progress`` is told how many more records were read, now and then.
    """

    def __init__(
        self,
        emit: Callable[[str, str], None],
        *,
        site: Site | Sites | None = None,
        on_problem: Callable[[Problem | Note], None] = lambda p: None,
        now: datetime | None = None,
        policy: SourcePolicy | None = None,
        pool: OrderedPool[ChildResult] | None = None,
        write: Callable[[str], None] | None = None,
        spool: str | None = None,
        progress: Callable[[int], object] | None = None,
        csv_format: CsvFormat | None = None,
        media_hosts: frozenset[str] | None = None,
        alternates_any_host: bool = False,
    ) -> None:
        self._emit = emit
        self._csv_format = csv_format
        self._media_hosts = media_hosts
        self._alternates_any_host = alternates_any_host
        self._progress = progress
        self._shown = 0
        self._pool = pool if write is not None and spool is not None else None
        self._write = write
        self._spool_directory = spool
        self._on_problem = on_problem
        self._policy = policy or SourcePolicy()
        self._now = now or datetime.now(UTC)
        self._sites = sites_of(site) if isinstance(site, Site) else site
        self._lines: UpsertLines | None = None
        self._reader: ChangeReader | None = None
        self._spool: ChangeSpool | None = None
        self._children: list[ChildSitemap] = []
        #: News articles held for their pages (``news_articles``), by loc
        self.articles: dict[str, RawEntry] = {}
        self.merged: list[str] = []
        self.stats = BackfillStats()

    def _problem(self, problem: Problem | Note) -> None:
        if isinstance(problem, Problem) and not isinstance(problem, Dropped):
            self.stats.problems += 1
        self._on_problem(problem)

    def _count(self, where: str, records: int = 1) -> None:
        self.stats.read += records
        policy = self._policy
        policy.records_read += records
        if policy.records_read > policy.max_records:
            raise BudgetError(
                f"{where}: more than {policy.max_records:,} records read from one source: "
                "stopped (raise the cap with --max-records)"
            )

    def _site_for(self, record: RawEntry | BodyLine) -> Sites | None:
        if self._sites is None:
            try:
                self._sites = guess_site(
                    record, self._media_hosts, alternates_any_host=self._alternates_any_host
                )
            except (SitemapError, ValueError) as exc:
                self._problem(
                    Problem(
                        record.where, f"cannot tell the site from this record ({exc}); pass --site"
                    )
                )
        return self._sites

    def _lines_for(self, row: Row) -> UpsertLines | None:
        if self._lines is None:
            site = self._site_for(raw_entry(row))
            if site is not None:
                self._lines = UpsertLines(site, self._now, self._problem, self._policy.keep_page)
        return self._lines

    def _rich(self, raw: RawEntry) -> None:
        """An entry with videos or news: always the careful path."""
        if self.articles and raw.loc in self.articles and not is_article(raw):
            raw = with_article(raw, self._article(raw.loc))
        lines = self._lines
        if lines is None:
            site = self._site_for(raw)
            if site is None:
                return
            self._lines = UpsertLines(site, self._now, self._problem, self._policy.keep_page)
            lines = self._lines
        result = lines.careful(raw)
        if isinstance(result, Problem):
            self._problem(result)
        else:
            self.stats.events += 1
            self._emit(*result)

    def _article(self, loc: str) -> dict[str, Any]:
        news = self.articles.pop(loc).news
        assert news is not None
        self.merged.append(loc)
        return news

    def _entry(self, row: Row) -> None:
        if self.articles and row.loc in self.articles:
            self._rich(with_article(row, self._article(row.loc)))
            return
        lines = self._lines or self._lines_for(row)
        if lines is None:
            return
        text = lines.fast(row)
        if text is not None:
            self.stats.events += 1
            self._emit(row.loc, text)
            return
        result = lines.careful(row, self._csv_format.names if self._csv_format else ())
        if isinstance(result, Problem):
            self._problem(result)
        else:
            self.stats.events += 1
            self._emit(*result)

    def _body(self, line: BodyLine) -> None:
        # imported here: judging a JSONL line loads the ingest contract, which rows never need
        from sitemap_updater_local.pipeline.change_reader import ChangeReader
        from sitemap_updater_local.pipeline.final_state import ChangeSpool

        if self._reader is None:
            site = self._site_for(line)
            if site is None:
                return
            self._reader = ChangeReader(site, self._now)
        if self._spool is None:
            self._spool = ChangeSpool()
        for change in self._reader.from_body(line):
            if isinstance(change, Problem):
                self._problem(change)
            else:
                self._spool.add(change)

    def _final_state(self, spool: ChangeSpool) -> None:
        from sitemap_updater.store.items import entry_from_item, news_from_item

        if spool.changes:
            for item in spool.resolve().iter_all():
                # the page with its article: the regular sitemap's entry leaves the news out
                entry = entry_from_item(item)._replace(news=news_from_item(item))
                event = upsert_event(entry)
                self.stats.events += 1
                self._emit(str(event["url"]), event_line(event))

    def _read_children(self) -> None:
        """The children of an index: its News files first (their articles held), then the
        others, each page given its held article; then the articles no page met. A source
        that lists no children writes no held article: a child sitemap read on a worker holds
        a copy of the index's articles, which the index writes once, after every child."""
        children, self._children = self._children, []
        if not children:
            return
        news = [c for c in children if is_news_file(c.location, self._policy)]
        for child in news:
            self._child(child, hold=True)
        for child in children:
            if child not in news:
                self._child(child)
        self._drain()
        held, self.articles = self.articles, {}
        for article in held.values():
            self._rich(article)

    def _pool_lines(self, child: ChildSitemap) -> UpsertLines | None:
        """The site's lines when ``child`` can be read on a worker: the site is given, or told
        by the first entry of ``child``; ``None``: the child is read here."""
        if self._pool is not None and self._lines is None and self._sites is None:
            self._sites = site_of_first_entry(
                child.location,
                child.depth,
                replace(self._policy, seen=set()),
                self._media_hosts,
                alternates_any_host=self._alternates_any_host,
            )
        if self._pool is not None and self._lines is None and self._sites is not None:
            self._lines = UpsertLines(self._sites, self._now, self._problem, self._policy.keep_page)
        return self._lines if self._pool is not None else None

    def _child(self, child: ChildSitemap, *, hold: bool = False) -> None:
        lines = None if hold else self._pool_lines(child)
        if self._pool is not None and lines is not None:
            # the child's own copy: what was read so far, a set of its own of the locations seen
            policy = replace(self._policy, seen=set())
            args = (lines.sites, self._now, child.location, child.depth, policy, self.articles)
            for result in self._pool.submit(read_child, *args, self._spool_directory):
                self._apply(result)
            return
        records = read_sitemap_rows(child.location, depth=child.depth, policy=self._policy)
        for record in records:
            if isinstance(record, Note):
                self._problem(record)
                continue
            self._count(child.location)
            if isinstance(record, Problem):
                self._problem(record)
            elif isinstance(record, RawEntry):
                if hold and is_article(record) and len(self.articles) < MAX_HELD_ARTICLES:
                    self.articles[record.loc] = record
                else:
                    self._rich(record)
            else:
                self._entry(record)
            if not self.stats.read % PROGRESS_EVERY:
                self._tick()

    def _tick(self) -> None:
        if self._progress is not None and self.stats.read != self._shown:
            self._progress(self.stats.read - self._shown)
            self._shown = self.stats.read

    def _apply(self, result: ChildResult) -> None:
        self._policy.count_bytes("the children of the index", result.bytes_read)
        self._count("the children of the index", result.read)
        self.stats.events += result.events
        for loc in result.merged:
            self.articles.pop(loc, None)
        for problem in result.problems:
            self._problem(problem)
        if result.lines_file is not None and self._write is not None:
            self._write(result.lines_file)
            os.remove(result.lines_file)
        self._tick()

    def _source_problem(self, problem: Problem | Note) -> None:
        if self._pool is not None and self._pool.busy:
            for result in self._pool.ready(ChildResult(problems=[problem])):
                self._apply(result)
        else:
            self._problem(problem)

    def _drain(self) -> None:
        if self._pool is not None:
            for result in self._pool.drain():
                self._apply(result)

    def _read(self, records: Iterator[Item]) -> None:
        stats = self.stats
        policy = self._policy
        try:
            for record in records:
                if not stats.read % PROGRESS_EVERY:
                    self._tick()
                if type(record) is Row:  # most records: counted here, the cap checked
                    stats.read += 1
                    policy.records_read += 1
                    if policy.records_read > policy.max_records:
                        self._count(record.file, 0)  # raises: over the cap
                    self._entry(record)
                elif isinstance(record, ChildSitemap):
                    self._children.append(record)
                elif isinstance(record, Note):
                    self._source_problem(record)
                elif isinstance(record, Problem):
                    self._count(record.where)
                    self._source_problem(record)
                elif isinstance(record, RawEntry):
                    self._count(record.where)
                    self._rich(record)
                elif isinstance(record, BodyLine):
                    self._count(record.where)
                    self._body(record)
        except SourceError:
            # the children listed before the cut are read first, as when read one by one
            self._read_children()
            raise
        self._read_children()
        self._tick()

    def run(self, records: Iterator[Item]) -> BackfillStats:
        try:
            self._read(records)
            if self._spool is not None:
                self._final_state(self._spool)
        finally:
            if self._spool is not None:
                self._spool.__exit__(None, None, None)
        return self.stats
