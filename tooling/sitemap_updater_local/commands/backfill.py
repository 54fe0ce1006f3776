"""``sitemap-updater backfill``: the migration path for a site that already has sitemaps.

SOURCE is an existing sitemap or sitemap index (a URL, a file, plain or gzip; the children of
an index are followed), a CSV of ``url,lastmod``, or a JSONL file of changes; ``--from``
may be given more than once, and every source is read, in the order given. Every page becomes
one upsert of the producer contract::

    {"action": "upsert", "url": "...", "lastmod": "...", "priority": 0.5, "occurred_at": "..."}

(fields the page does not have are left out; language alternates, images, videos and News
articles are carried over). Each listing is judged by ingest's own judge, leniently: a field or
element that breaks a rule is left out with a warning and the page kept, and a listing whose url
breaks one is reported on stderr with where it is, skipped, and makes the exit status 1.

A page listed more than once (by two child sitemaps, two sources, a JSONL file's later lines) is
written once, by the one ordering rule: a listing's lastmod is its time, so the newest wins, and
a JSONL file's deletes are applied (``pipeline.backfill_changes``); the summary counts the pages
met more than once. Each event carries its time as ``occurred_at``, so a change the site sends
after the backfill wins over it. The records are judged on worker processes (one per core) and
resolved on disk: memory stays flat in every case.

The changes go to a queue (``--queue-url``, batches of 10, see ``send``) or to a JSONL file
(``--out``; ``-`` for stdout), which ``send`` or ``simulate`` can replay later. The file is
written under a unique temporary name beside it and moved over ``--out`` only when the run
gets to its end (``outputs.replaced_file``): a run that stops early leaves the previous file as
it was, and ``--out`` naming a ``--from`` file is refused.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import ExitStack
from typing import IO

from sitemap_updater.printable import printable
from sitemap_updater_local.console import ProblemReport, command_line
from sitemap_updater_local.errors import EXIT_SKIPPED, NothingKept
from sitemap_updater_local.inputs.opening import (
    MAX_SOURCE_BYTES,
    MAX_SOURCE_RECORDS,
    SourcePolicy,
    origin_of,
)
from sitemap_updater_local.options import (
    add_csv_arguments,
    add_media_hosts_argument,
    add_sites_arguments,
    csv_format_of,
    sites_of,
)
from sitemap_updater_local.outputs.line_writer import LineWriter
from sitemap_updater_local.outputs.replaced_file import open_replaced, refuse_same_file
from sitemap_updater_local.pipeline.backfill_changes import Backfill, BackfillStats
from sitemap_updater_local.pipeline.ordered_pool import default_jobs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="sources",
        action="append",
        required=True,
        metavar="SOURCE",
        help="sitemap or sitemap index (URL or file, plain or .gz), CSV with a header naming "
        "url and lastmod columns, or JSONL changes; repeatable, read in the order given",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--queue-url", metavar="URL", help="send the changes to this SQS queue")
    target.add_argument(
        "--out", metavar="FILE.jsonl", help="write the changes to a file ('-': stdout)"
    )
    add_sites_arguments(
        parser, required=False, help="site origin (default: the origin of the first URL)"
    )
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
        help="most bytes (uncompressed) read from the sources in total "
        f"(default {MAX_SOURCE_BYTES})",
    )
    parser.add_argument(
        "--max-records",
        type=_positive,
        default=MAX_SOURCE_RECORDS,
        metavar="N",
        help=f"most records read from the sources in total (default {MAX_SOURCE_RECORDS})",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _progress(args: argparse.Namespace, stack: ExitStack) -> Callable[[int], object] | None:
    """What counts the records read on a progress bar, unless ``--no-progress``."""
    if args.no_progress:
        return None
    from tqdm import tqdm  # imported here: only a progress bar needs it

    return stack.enter_context(tqdm(unit=" entries", file=sys.stderr, disable=None)).update


def run(args: argparse.Namespace) -> int:
    sites = sites_of(args, args.media_hosts)
    emit: Callable[[str, str], None]
    report = ProblemReport()
    with ExitStack() as stack:
        sender = replaced = None
        if args.queue_url:
            # imported here: only a queue needs boto3
            import boto3

            from sitemap_updater.producer.batches import BatchSender

            sqs = boto3.client("sqs", region_name=args.region, endpoint_url=args.endpoint_url)
            sender = stack.enter_context(
                BatchSender(
                    sqs,
                    args.queue_url,
                    on_failure=lambda f: print(command_line("backfill", str(f)), file=sys.stderr),
                )
            )
            emit = sender.add
        else:
            out: IO[str] = sys.stdout
            if args.out != "-":
                for source in args.sources:
                    refuse_same_file(source, args.out)
                replaced = stack.enter_context(open_replaced(args.out))
                out = replaced.stream
            writer = LineWriter(out)
            if replaced is None:  # what stdout got so far is out anyway: let it have the rest
                stack.callback(writer.flush)
            emit = writer.add
        policy = SourcePolicy(
            origins=frozenset(origin_of(o) for o in args.allow_origin),
            max_bytes=args.max_bytes,
            max_records=args.max_records,
            keep_page=not args.strict_fields,
        )
        backfill = Backfill(
            emit,
            sites=sites,
            on_problem=report,
            jobs=default_jobs(),
            progress=_progress(args, stack),
            policy=policy,
            csv_format=csv_format_of(args),
            media_hosts=args.media_hosts,
            alternates_any_host=args.alternates_any_host,
        )
        # a source that cannot be read, or an AWS error, ends the command (exit status 2)
        stats = backfill.run(args.sources)
        if sender is not None:
            sender.flush()
        failed = 0 if sender is None else len(sender.stats.failures)
        _print_totals(args, stats, report, failed)
        if not stats.upserts:
            what = "nothing read" if not stats.read else f"no record of {stats.read} kept"
            kept = f"{args.out} is unchanged" if replaced is not None else "nothing sent"
            raise NothingKept(f"{what} from {', '.join(args.sources)}; {kept}")
        if replaced is not None:
            writer.flush()
            replaced.commit()
    return EXIT_SKIPPED if report.count - report.warnings or failed else 0


def _print_totals(
    args: argparse.Namespace, stats: BackfillStats, report: ProblemReport, failed: int
) -> None:
    """The summary line, whose parts add up to the records read, then the problems by rule."""
    target = f"sent to {args.queue_url}" if args.queue_url else f"written to {args.out}"
    skipped = report.count - report.warnings
    parts = [
        f"{stats.upserts - failed} upsert(s) {target}",
        f"{skipped} skipped",
        f"{stats.repeats} more change(s) of a page written once",
        f"{stats.deleted} page(s) deleted",
        f"{failed} not sent",
    ]
    print(
        printable("; ".join([f"read {stats.read} record(s)", *parts])),
        file=sys.stderr if args.out == "-" else sys.stdout,
    )
    for line in report.summary():
        print(line, file=sys.stderr)
