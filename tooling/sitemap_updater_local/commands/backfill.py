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
(``--out``; ``-`` for stdout), which ``send`` or ``simulate`` can replay later.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater_local.inputs.records import (
    BodyLine,
    Problem,
    RawEntry,
    Row,
    SourceError,
    print_problem,
    raw_entry,
)
from sitemap_updater_local.inputs.sitemap_rows import ChildSitemap, read_sitemap_rows
from sitemap_updater_local.inputs.sources import iter_source_items
from sitemap_updater_local.pipeline.ordered_pool import OrderedPool, usable_cores
from sitemap_updater_local.pipeline.upsert_lines import UpsertLines, event_line, upsert_event

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
    problems: list[Problem] = field(default_factory=list)


def read_child(site: Site, now: datetime, location: str, depth: int) -> ChildResult:
    """The events of one child sitemap (run on a worker process)."""
    lines: list[str] = []
    problems: list[Problem] = []
    backfill = Backfill(
        lambda url, line: lines.append(line), site=site, on_problem=problems.append, now=now
    )
    stats = backfill.run(read_sitemap_rows(location, depth=depth))
    text = "\n".join(lines) + "\n" if lines else ""
    return ChildResult(text, stats.read, stats.events, problems)


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
        on_problem: Callable[[Problem], None] = lambda p: None,
        now: datetime | None = None,
        pool: OrderedPool[ChildResult] | None = None,
        write: Callable[[str], None] | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        self._emit = emit
        self._progress = progress
        self._shown = 0
        self._pool = pool if write is not None else None
        self._write = write
        self._on_problem = on_problem
        self._now = now or datetime.now(UTC)
        self._site = site
        self._lines: UpsertLines | None = None
        self._reader: ChangeReader | None = None
        self._spool: ChangeSpool | None = None
        self.stats = BackfillStats()

    def _problem(self, problem: Problem) -> None:
        self.stats.problems += 1
        self._on_problem(problem)

    def _site_for(self, record: RawEntry | BodyLine) -> Site | None:
        if self._site is None:
            try:
                self._site = guess_site(record)
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
                self._lines = UpsertLines(site, self._now)
        return self._lines

    def _entry(self, row: Row) -> None:
        lines = self._lines or self._lines_for(row)
        if lines is None:
            return
        text = lines.fast(row[2], row[3], row[4], row[5], row[6], row[7])
        if text is not None:
            self.stats.events += 1
            self._emit(row[2], text)
            return
        result = lines.careful(row)
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

    def _child(self, child: ChildSitemap) -> None:
        if self._pool is not None and self._lines is not None:
            args = (self._lines.site, self._now, child.location, child.depth)
            for result in self._pool.submit(read_child, *args):
                self._apply(result)
            return
        for record in read_sitemap_rows(child.location, depth=child.depth):
            self.stats.read += 1
            if isinstance(record, Problem):
                self._problem(record)
            else:
                self._entry(record)
            if not self.stats.read % PROGRESS_EVERY:
                self._tick()

    def _tick(self) -> None:
        if self._progress is not None and self.stats.read != self._shown:
            self._progress(self.stats.read - self._shown)
            self._shown = self.stats.read

    def _apply(self, result: ChildResult) -> None:
        self.stats.read += result.read
        self.stats.events += result.events
        for problem in result.problems:
            self._problem(problem)
        if result.text and self._write is not None:
            self._write(result.text)
        self._tick()

    def _source_problem(self, problem: Problem) -> None:
        if self._pool is not None and self._pool.busy:
            for result in self._pool.ready(ChildResult(problems=[problem])):
                self._apply(result)
        else:
            self._problem(problem)

    def _drain(self) -> None:
        if self._pool is not None:
            for result in self._pool.drain():
                self._apply(result)

    def _read(self, records: Iterator[Row | BodyLine | Problem | ChildSitemap]) -> None:
        stats = self.stats
        try:
            for record in records:
                if not stats.read % PROGRESS_EVERY:
                    self._tick()
                if type(record) is tuple:
                    stats.read += 1
                    self._entry(record)
                elif isinstance(record, ChildSitemap):
                    self._child(record)
                elif isinstance(record, Problem):
                    stats.read += 1
                    self._source_problem(record)
                elif isinstance(record, BodyLine):
                    stats.read += 1
                    self._body(record)
        except SourceError:
            # the children read so far are written first, as when read one after the other
            self._drain()
            raise
        self._drain()
        self._tick()

    def run(self, records: Iterator[Row | BodyLine | Problem | ChildSitemap]) -> BackfillStats:
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
        help="sitemap or sitemap index (URL or file, plain or .gz), CSV url,lastmod, "
        "or JSONL events",
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
            site = Site.parse(args.site)
        except ValueError as exc:
            print(f"--site: {exc}", file=sys.stderr)
            return 2

    emit: Callable[[str, str], None]
    write: Callable[[str], None] | None = None
    with ExitStack() as stack:
        sender = None
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
            out: IO[str] = (
                sys.stdout
                if args.out == "-"
                else stack.enter_context(open(args.out, "w", encoding="utf-8"))
            )
            writer = _LineWriter(out)
            stack.callback(writer.flush)
            emit, write = writer.add, writer.write

        cores = usable_cores()
        pool = stack.enter_context(OrderedPool[ChildResult](cores)) if cores > 1 else None
        progress = _progress(args, stack)
        backfill = Backfill(
            emit, site=site, on_problem=print_problem, pool=pool, write=write, progress=progress
        )
        records = iter_source_items(args.source)
        stack.callback(records.close)
        try:
            stats = backfill.run(records)
            if sender is not None:
                sender.flush()
        except errors as exc:
            print(exc, file=sys.stderr)
            return 2
    failed = 0 if sender is None else len(sender.stats.failures)
    target = f"sent to {args.queue_url}" if sender is not None else f"written to {args.out}"
    print(
        f"read {stats.read} record(s); {stats.events - failed} upsert event(s) {target}; "
        f"{stats.problems} skipped; {failed} not sent",
        file=sys.stderr if args.out == "-" else sys.stdout,
    )
    return 1 if stats.problems or failed else 0
