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
applied, on disk; see ``finalstate``) and each live URL becomes one upsert, so replaying the
events of a site never resurrects a deleted page. Sitemaps and CSV files are streamed straight
through. Memory stays flat in every case.

The events go to a queue (``--queue-url``, batches of 10, see ``send``) or to a JSONL file
(``--out``; ``-`` for stdout), which ``send`` or ``simulate`` can replay later.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any
from urllib.parse import urlsplit

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from tqdm import tqdm

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater.protocol.entry import Entry
from sitemap_updater.store.items import entry_from_item
from sitemap_updater_local.changes import ChangeReader, describe, entry_from_raw
from sitemap_updater_local.finalstate import ChangeSpool
from sitemap_updater_local.send import BatchSender
from sitemap_updater_local.sources import (
    BodyLine,
    Problem,
    RawEntry,
    Record,
    SourceError,
    iter_source,
)


def upsert_event(entry: Entry) -> dict[str, Any]:
    """The producer-contract upsert of a normalized entry (absent fields left out)."""
    event: dict[str, Any] = {"action": "upsert", "url": entry.loc}
    if entry.lastmod is not None:
        event["lastmod"] = entry.lastmod
    if entry.changefreq is not None:
        event["changefreq"] = entry.changefreq
    if entry.priority is not None:
        event["priority"] = entry.priority
    if entry.alternates:
        event["alternates"] = [{"hreflang": a.hreflang, "href": a.href} for a in entry.alternates]
    if entry.images:
        event["images"] = [{"loc": i.loc} for i in entry.images]
    return event


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


class Backfill:
    """Turns the records of one source into upsert events handed to ``emit``."""

    def __init__(
        self,
        emit: Callable[[dict[str, Any]], None],
        *,
        site: Site | None = None,
        on_problem: Callable[[Problem], None] = lambda p: None,
        now: datetime | None = None,
    ) -> None:
        self._emit = emit
        self._on_problem = on_problem
        self._now = now or datetime.now(UTC)
        self._reader = None if site is None else ChangeReader(site, self._now)
        self.stats = BackfillStats()

    def _problem(self, problem: Problem) -> None:
        self.stats.problems += 1
        self._on_problem(problem)

    def _event(self, event: dict[str, Any]) -> None:
        self.stats.events += 1
        self._emit(event)

    def _reader_for(self, record: RawEntry | BodyLine) -> ChangeReader | None:
        if self._reader is None:
            try:
                self._reader = ChangeReader(guess_site(record), self._now)
            except (SitemapError, ValueError) as exc:
                self._problem(
                    Problem(
                        record.where, f"cannot tell the site from this record ({exc}); pass --site"
                    )
                )
        return self._reader

    def run(self, records: Iterator[Record]) -> BackfillStats:
        with ChangeSpool() as spool:
            for record in records:
                self.stats.read += 1
                if isinstance(record, Problem):
                    self._problem(record)
                    continue
                reader = self._reader_for(record)
                if reader is None:
                    continue
                if isinstance(record, RawEntry):
                    try:
                        entry = entry_from_raw(reader.site, record, self._now)
                    except SitemapError as exc:
                        self._problem(
                            Problem(record.where, describe(exc.field, exc.value, exc.rule))
                        )
                        continue
                    self._event(upsert_event(entry))
                    continue
                for change in reader.from_body(record):
                    if isinstance(change, Problem):
                        self._problem(change)
                    else:
                        spool.add(change)
            if spool.changes:
                for item in spool.resolve().iter_all():
                    self._event(upsert_event(entry_from_item(item)))
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


def _line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def run(args: argparse.Namespace) -> int:
    site = None
    if args.site:
        try:
            site = Site.parse(args.site)
        except ValueError as exc:
            print(f"--site: {exc}", file=sys.stderr)
            return 2

    def report(problem: Problem) -> None:
        print(problem, file=sys.stderr)

    with ExitStack() as stack:
        sender: BatchSender | None = None
        if args.queue_url:
            sqs = boto3.client("sqs", region_name=args.region, endpoint_url=args.endpoint_url)
            sender = stack.enter_context(
                BatchSender(sqs, args.queue_url, on_failure=lambda f: print(f, file=sys.stderr))
            )
            queue = sender

            def emit(event: dict[str, Any]) -> None:
                queue.add(str(event["url"]), _line(event))
        else:
            out: IO[str] = (
                sys.stdout
                if args.out == "-"
                else stack.enter_context(open(args.out, "w", encoding="utf-8"))
            )

            def emit(event: dict[str, Any]) -> None:
                out.write(_line(event) + "\n")

        backfill = Backfill(emit, site=site, on_problem=report)
        bar = stack.enter_context(
            tqdm(
                iter_source(args.source),
                unit=" entries",
                file=sys.stderr,
                disable=True if args.no_progress else None,
            )
        )
        try:
            stats = backfill.run(iter(bar))
            if sender is not None:
                sender.flush()
        except (SourceError, ClientError, BotoCoreError) as exc:
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
