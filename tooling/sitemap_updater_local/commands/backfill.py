"""``sitemap-updater backfill``: the migration path for a site that already has sitemaps.

SOURCE is an existing sitemap or sitemap index (a URL, a file, plain or gzip; the children of
an index are followed), a CSV of ``url,lastmod``, or a JSONL file of change events. Every
entry becomes one upsert event of the producer contract::

    {"action": "upsert", "url": "...", "lastmod": "...", "changefreq": "...", "priority": 0.5}

(fields the entry does not have are left out; language alternates and images are carried
over as ``alternates`` and ``images``). Entries are checked and normalized with the same
rules as ingest, so every event written or sent will be accepted; an entry that breaks a
rule is reported on stderr with where it is, skipped, and makes the exit status 1.

A JSONL source is first reduced to its final state (last writer wins per URL, deletes
applied, on disk; see ``final_state``) and each live URL becomes one upsert, so replaying the
events of a site never resurrects a deleted page. Sitemaps and CSV files are streamed straight
through; an entry whose values are already in normalized form takes a fast path that writes
the same line (``upsert_lines``). Writing to a file, the children of a sitemap index are read
on worker processes (one per core), and their events written in the index's order. Memory
stays flat in every case.

The events go to a queue (``--queue-url``, batches of 10, see ``send``) or to a JSONL file
(``--out``; ``-`` for stdout), which ``send`` or ``simulate`` can replay later. The file is
written under a unique temporary name beside it and moved over ``--out`` only when the run
gets to its end (``outputs.replaced_file``): a run that stops early leaves the previous file as
it was, and ``--out`` naming the ``--from`` file is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.news_articles import (
    MAX_HELD_ARTICLES,
    is_article,
    is_news_file,
    with_article,
)
from sitemap_updater_local.inputs.opening import (
    MAX_SOURCE_BYTES,
    MAX_SOURCE_RECORDS,
    BudgetError,
    SourcePolicy,
    origin_of,
)
from sitemap_updater_local.inputs.records import (
    BodyLine,
    Dropped,
    Note,
    Problem,
    RawEntry,
    Row,
    SourceError,
    print_problem,
    raw_entry,
)
from sitemap_updater_local.inputs.sitemap_rows import ChildSitemap, read_sitemap_rows
from sitemap_updater_local.inputs.sources import iter_source_items
from sitemap_updater_local.options import (
    add_csv_arguments,
    add_media_hosts_argument,
    csv_format_of,
)
from sitemap_updater_local.outputs.replaced_file import open_replaced, refuse_same_file
from sitemap_updater_local.pipeline.ordered_pool import OrderedPool, usable_cores
from sitemap_updater_local.pipeline.upsert_lines import UpsertLines, event_line, upsert_event

Item = Row | RawEntry | BodyLine | Problem | Note | ChildSitemap

if TYPE_CHECKING:
    from sitemap_updater_local.pipeline.change_reader import ChangeReader
    from sitemap_updater_local.pipeline.final_state import ChangeSpool

#: Lines written to the output at a time.
WRITE_BATCH = 4096
#: Records read between two updates of the progress bar.
PROGRESS_EVERY = 1024


def _first_url(record: RawEntry | BodyLine) -> object:
    if isinstance(record, RawEntry):
        return record.loc
    try:
        body: Any = json.loads(record.text)
    except ValueError:
        return None
    if isinstance(body, list) and body:
        body = body[0]
    if isinstance(body, dict) and isinstance(body.get("detail"), dict):
        body = body["detail"]
    return body.get("url") if isinstance(body, dict) else None


def guess_site(record: RawEntry | BodyLine) -> Site:
    """The site of the first URL a record holds; raises ``SitemapError`` or ``ValueError``."""
    url = _first_url(record)
    if not isinstance(url, str):
        raise ValueError("holds no url")
    parts = urlsplit(url.strip())
    return Site.parse(f"{parts.scheme}://{parts.netloc}")


@dataclass(slots=True)
class BackfillStats:
    read: int = 0
    events: int = 0
    problems: int = 0


@dataclass(slots=True)
class ChildResult:
    """What reading one child sitemap gave: its event lines (each ending with a line break),
    how many records it held, how many events it gave, and its problems in order."""

    text: str = ""
    read: int = 0
    events: int = 0
    problems: list[Problem | Note] = field(default_factory=list)
    bytes_read: int = 0
    #: the locs of the held News articles merged into their pages
    merged: list[str] = field(default_factory=list)


def read_child(
    site: Site,
    now: datetime,
    location: str,
    depth: int,
    policy: SourcePolicy,
    articles: dict[str, RawEntry],
) -> ChildResult:
    """The events of one child sitemap (run on a worker process, with a copy of the policy
    holding what the source read so far)."""
    lines: list[str] = []
    problems: list[Problem | Note] = []
    backfill = Backfill(
        lambda url, line: lines.append(line),
        site=site,
        on_problem=problems.append,
        now=now,
        policy=policy,
    )
    backfill.articles = articles
    read_before = policy.bytes_read
    try:
        stats = backfill.run(read_sitemap_rows(location, depth=depth, policy=policy))
    except BudgetError:
        raise
    except SourceError as exc:
        problems.append(Problem(location, str(exc)))
        stats = backfill.stats
    text = "\n".join(lines) + "\n" if lines else ""
    read = policy.bytes_read - read_before
    return ChildResult(text, stats.read, stats.events, problems, read, backfill.merged)


def _child_policy(policy: SourcePolicy) -> SourcePolicy:
    """A copy of ``policy`` for one child: its origins, its caps and what was read so far."""
    return SourcePolicy(
        origins=policy.origins,
        max_bytes=policy.max_bytes,
        max_records=policy.max_records,
        bytes_read=policy.bytes_read,
        records_read=policy.records_read,
        home=policy.home,
    )


class Backfill:
    """Turns the records of one source into upsert events handed to ``emit`` as (url, line).

    Sitemap and CSV entries are checked one by one (``upsert_lines``); JSONL lines are
    judged as ingest judges them, spooled, and reduced to their final state at the end.
    With a ``pool`` and ``write``, the children of a sitemap index after the one that told the
    site are read on worker processes, and their lines handed to ``write`` in order.
    ``progress`` is told how many more records were read, now and then.
    """

    def __init__(
        self,
        emit: Callable[[str, str], None],
        *,
        site: Site | None = None,
        on_problem: Callable[[Problem | Note], None] = lambda p: None,
        now: datetime | None = None,
        policy: SourcePolicy | None = None,
        pool: OrderedPool[ChildResult] | None = None,
        write: Callable[[str], None] | None = None,
        progress: Callable[[int], object] | None = None,
        csv_format: CsvFormat | None = None,
        media_hosts: frozenset[str] | None = None,
    ) -> None:
        self._emit = emit
        self._csv_format = csv_format
        self._media_hosts = media_hosts
        self._progress = progress
        self._shown = 0
        self._pool = pool if write is not None else None
        self._write = write
        self._on_problem = on_problem
        self._policy = policy or SourcePolicy()
        self._now = now or datetime.now(UTC)
        self._site = site
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

    def _site_for(self, record: RawEntry | BodyLine) -> Site | None:
        if self._site is None:
            try:
                self._site = replace(guess_site(record), media_hosts=self._media_hosts)
            except (SitemapError, ValueError) as exc:
                self._problem(
                    Problem(
                        record.where, f"cannot tell the site from this record ({exc}); pass --site"
                    )
                )
        return self._site

    def _lines_for(self, row: Row) -> UpsertLines | None:
        if self._lines is None:
            site = self._site_for(raw_entry(row))
            if site is not None:
                self._lines = UpsertLines(site, self._now, self._problem)
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
            lines = self._lines = UpsertLines(site, self._now, self._problem)
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
        if self.articles and row[2] in self.articles:
            self._rich(with_article(row, self._article(row[2])))
            return
        lines = self._lines or self._lines_for(row)
        if lines is None:
            return
        text = lines.fast(row[2], row[3], row[4], row[5], row[6], row[7])
        if text is not None:
            self.stats.events += 1
            self._emit(row[2], text)
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
        from sitemap_updater.store.items import entry_from_item

        if spool.changes:
            for item in spool.resolve().iter_all():
                event = upsert_event(entry_from_item(item))
                self.stats.events += 1
                self._emit(str(event["url"]), event_line(event))

    def _read_children(self) -> None:
        """The children of an index: its News files first (their articles held), then the
        others, each page given its held article; then the articles no page met."""
        children, self._children = self._children, []
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

    def _child(self, child: ChildSitemap, *, hold: bool = False) -> None:
        if self._pool is not None and self._lines is not None and not hold:
            policy = _child_policy(self._policy)
            args = (self._lines.site, self._now, child.location, child.depth, policy)
            for result in self._pool.submit(read_child, *args, self.articles):
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
        if result.text and self._write is not None:
            self._write(result.text)
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
        try:
            for record in records:
                if not stats.read % PROGRESS_EVERY:
                    self._tick()
                if type(record) is tuple:
                    self._count(record[0])
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="SOURCE",
        help="sitemap or sitemap index (URL or file, plain or .gz), CSV with a header naming "
        "url and lastmod columns, or JSONL events",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--queue-url", metavar="URL", help="send the events to this SQS queue")
    target.add_argument(
        "--out", metavar="FILE.jsonl", help="write the events to a file ('-': stdout)"
    )
    parser.add_argument("--site", metavar="URL", help="site origin (default: from the first URL)")
    parser.add_argument("--region", metavar="R", help="AWS region of the queue")
    parser.add_argument("--endpoint-url", metavar="URL", help="SQS endpoint (for emulators)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_csv_arguments(parser)
    add_media_hosts_argument(parser)
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="also read child sitemaps and follow redirects on this origin "
        "(scheme://host[:port]; repeatable); by default only the source's own origin",
    )
    parser.add_argument(
        "--max-bytes",
        type=_positive,
        default=MAX_SOURCE_BYTES,
        metavar="N",
        help="most bytes (uncompressed) read from the source in total "
        f"(default {MAX_SOURCE_BYTES})",
    )
    parser.add_argument(
        "--max-records",
        type=_positive,
        default=MAX_SOURCE_RECORDS,
        metavar="N",
        help=f"most records read from the source in total (default {MAX_SOURCE_RECORDS})",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


class _LineWriter:
    """Writes lines to a text file in batches; :meth:`flush` writes what is left."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lines: list[str] = []

    def add(self, url: str, line: str) -> None:
        lines = self._lines
        lines.append(line)
        if len(lines) >= WRITE_BATCH:
            self.flush()

    def write(self, text: str) -> None:
        """Lines already joined, each ending with a line break."""
        self.flush()
        self._out.write(text)

    def flush(self) -> None:
        if self._lines:
            self._out.write("\n".join(self._lines) + "\n")
            self._lines.clear()


def _progress(args: argparse.Namespace, stack: ExitStack) -> Callable[[int], object] | None:
    """What counts the records read on a progress bar, unless ``--no-progress``."""
    if args.no_progress:
        return None
    from tqdm import tqdm  # imported here: only a progress bar needs it

    return stack.enter_context(tqdm(unit=" entries", file=sys.stderr, disable=None)).update


def run(args: argparse.Namespace) -> int:
    site = None
    if args.site:
        try:
            site = Site.parse(args.site, args.media_hosts)
        except ValueError as exc:
            print(f"--site: {exc}", file=sys.stderr)
            return 2

    emit: Callable[[str, str], None]
    write: Callable[[str], None] | None = None
    with ExitStack() as stack:
        sender = replaced = None
        if args.queue_url:
            # imported here: only a queue needs boto3
            import boto3
            from botocore.exceptions import BotoCoreError, ClientError

            from sitemap_updater.producer.batches import BatchSender

            errors: tuple[type[Exception], ...] = (SourceError, ClientError, BotoCoreError)
            sqs = boto3.client("sqs", region_name=args.region, endpoint_url=args.endpoint_url)
            sender = stack.enter_context(
                BatchSender(sqs, args.queue_url, on_failure=lambda f: print(f, file=sys.stderr))
            )
            emit = sender.add
        else:
            errors = (SourceError,)
            out: IO[str] = sys.stdout
            if args.out != "-":
                refuse_same_file(args.source, args.out)
                replaced = stack.enter_context(open_replaced(args.out))
                out = replaced.stream
            writer = _LineWriter(out)
            if replaced is None:  # what stdout got so far is out anyway: let it have the rest
                stack.callback(writer.flush)
            emit, write = writer.add, writer.write

        cores = usable_cores()
        pool = stack.enter_context(OrderedPool[ChildResult](cores)) if cores > 1 else None
        progress = _progress(args, stack)
        policy = SourcePolicy(
            origins=frozenset(origin_of(o) for o in args.allow_origin),
            max_bytes=args.max_bytes,
            max_records=args.max_records,
        )
        csv_format = csv_format_of(args)
        backfill = Backfill(
            emit,
            site=site,
            on_problem=print_problem,
            pool=pool,
            write=write,
            progress=progress,
            policy=policy,
            csv_format=csv_format,
            media_hosts=args.media_hosts,
        )
        records = iter_source_items(args.source, policy, csv_format)
        stack.callback(records.close)
        try:
            stats = backfill.run(records)
            if sender is not None:
                sender.flush()
        except errors as exc:
            print(exc, file=sys.stderr)
            return 2
        if replaced is not None:
            writer.flush()
            replaced.commit()
    failed = 0 if sender is None else len(sender.stats.failures)
    target = f"sent to {args.queue_url}" if sender is not None else f"written to {args.out}"
    print(
        f"read {stats.read} record(s); {stats.events - failed} upsert event(s) {target}; "
        f"{stats.problems} skipped; {failed} not sent",
        file=sys.stderr if args.out == "-" else sys.stdout,
    )
    return 1 if stats.problems or failed else 0
