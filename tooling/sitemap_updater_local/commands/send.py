"""``sitemap-updater send``: the changes of a JSONL file to the ingest queue, through the
producer client (``sitemap_updater.producer.client``).

Each line is a message body of the contract: a change object, an array of them, or an
EventBridge event (sent as its ``detail``, with its ``time`` as the ``occurred_at`` of a detail
that has none). Every change is judged as ingest would judge it before anything is sent: a
rejected change is reported with its line, field, value and rule, and the others are packed
into array messages of up to 500 changes. Changes SQS did not take after the client's retries
are reported too. The region is the one the queue URL names, unless ``--region`` says another.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError
from tqdm import tqdm

from sitemap_updater.ingest.judge import is_event
from sitemap_updater.printable import printable
from sitemap_updater.producer.checks import ChangeRejected, SendFailed
from sitemap_updater.producer.client import ChangeSender
from sitemap_updater.sites import Sites
from sitemap_updater_local.console import command_line
from sitemap_updater_local.errors import EXIT_SKIPPED, CommandError, NothingKept
from sitemap_updater_local.guessed_site import guess_site
from sitemap_updater_local.inputs.opening import open_source
from sitemap_updater_local.inputs.source_records import BodyLine, Problem, SourceError
from sitemap_updater_local.inputs.sources import iter_jsonl
from sitemap_updater_local.options import add_sites_arguments, sites_of


@dataclass(slots=True)
class SendReport:
    lines: int = 0
    rejected: int = 0
    unsent: int = 0


def changes_of(line: BodyLine) -> Iterator[tuple[str, Any]]:
    """Each change a line holds, with where it is; raises ``ValueError`` for a line that is
    not JSON."""
    try:
        decoded = json.loads(line.text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"must be JSON ({exc.msg} at column {exc.colno})") from None
    if isinstance(decoded, list):
        for i, change in enumerate(decoded):
            yield f"{line.where} change {i}", change
        return
    if isinstance(decoded, dict) and is_event(decoded):
        detail = decoded.get("detail")
        if isinstance(detail, dict):
            change = dict(detail)
            if change.get("occurred_at") is None and decoded.get("time") is not None:
                change["occurred_at"] = decoded["time"]
            decoded = change
    yield line.where, decoded


class LineSender:
    """Feeds the changes of body lines to a :class:`ChangeSender` made on the first change."""

    def __init__(self, args: argparse.Namespace, sites: Sites | None, report: SendReport) -> None:
        self._args, self._sites, self.report = args, sites, report
        self.sender: ChangeSender | None = None

    def _sender_for(self, change: Any) -> ChangeSender:
        if self.sender is None:
            site = self._sites or guess_site(
                change if isinstance(change, dict) else {},
                alternates_any_host=self._args.alternates_any_host,
            )
            self.sender = ChangeSender(
                self._args.queue_url,
                site=site,
                region=self._args.region,
                endpoint_url=self._args.endpoint_url,
            )
        return self.sender

    def send_line(self, line: BodyLine) -> None:
        self.report.lines += 1
        try:
            changes = list(changes_of(line))
        except ValueError as exc:
            self._rejected(f"{line.where}: field message rejected: {exc}")
            return
        for where, change in changes:
            try:
                self._sender_for(change).add(change)
            except ChangeRejected as exc:
                self._rejected(f"{where}: {exc}")
            except ValueError as exc:  # no site from a first change without a usable url
                self._rejected(
                    f"{where}: cannot tell the site from this change ({exc}); pass --site"
                )
            except SendFailed as exc:
                self.unsent(exc)

    def _rejected(self, message: str) -> None:
        self.report.rejected += 1
        print(printable(f"{message}; not sent"), file=sys.stderr)

    def unsent(self, failed: SendFailed) -> None:
        self.report.unsent += len(failed.changes)
        first = failed.changes[0].get("url") if failed.changes else None
        print(command_line("send", f"{failed} (the first: {first})"), file=sys.stderr)

    def close(self) -> None:
        if self.sender is not None:
            try:
                self.sender.close()
            except SendFailed as exc:
                self.unsent(exc)


def send_lines(records: Iterable[BodyLine | Problem], lines: LineSender, bar: Any) -> int:
    """Send the changes of every line; returns the number of lines that could not be read."""
    unreadable = 0
    for record in records:
        if isinstance(record, Problem):
            unreadable += 1
            print(record, file=sys.stderr)
        else:
            lines.send_line(record)
        bar.update(1)
    lines.close()
    return unreadable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.jsonl", help="one message body per line")
    parser.add_argument("--queue-url", required=True, metavar="URL", help="the ingest queue")
    add_sites_arguments(
        parser,
        required=False,
        help="the stack's SiteUrl (default: the origin of the first change's url)",
    )
    parser.add_argument(
        "--region",
        metavar="R",
        help="AWS region (default: the queue URL's, else the environment's)",
    )
    parser.add_argument("--endpoint-url", metavar="URL", help="SQS endpoint (for emulators)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    sites = sites_of(args)
    report = SendReport()
    lines = LineSender(args, sites, report)
    bar = tqdm(unit=" lines", file=sys.stderr, disable=True if args.no_progress else None)
    try:
        with open_source(args.file) as stream:
            unreadable = send_lines(iter_jsonl(stream, args.file), lines, bar)
    except (SourceError, BotoCoreError) as exc:
        raise CommandError(f"{exc}; stopped after {report.lines} line(s)") from exc
    finally:
        bar.close()
    stats = lines.sender.stats if lines.sender is not None else None
    sent = f"sent {stats.changes if stats else 0} change(s) in {stats.messages if stats else 0}"
    calls = stats.batch_calls if stats else 0
    failed = report.rejected + report.unsent + unreadable
    print(
        f"{sent} message(s), {calls} batch call(s); {report.rejected} rejected, "
        f"{report.unsent} not sent, {unreadable} unreadable"
    )
    if not (stats and stats.changes) and not report.unsent:
        what = "nothing read from" if not report.lines + unreadable else "no change to send in"
        raise NothingKept(f"{what} {args.file}; nothing sent")
    return EXIT_SKIPPED if failed else 0
