"""Command-line options that several commands share: the sites (every command that takes a
site takes several, the same way), how to read a CSV source, and the hosts media may live on
(``build``, ``backfill`` and ``send`` judge entries as the deployed ingest does)."""

from __future__ import annotations

import argparse
import codecs

from sitemap_updater.page.model import PROTOCOL_VALUES
from sitemap_updater.protocol.errors import InvalidUrlError
from sitemap_updater.sites import Sites, media_hosts_of
from sitemap_updater_local.errors import CommandError
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.lastmod_forms import DATE_ORDERS

#: What every ``--site`` option says of several hosts.
SITES_HELP = (
    "repeat it (or give a comma-separated list) for several hosts, as the stack's SiteUrl: "
    "the first is the primary, and a page's hreflang alternates may point to any listed host"
)


def add_sites_arguments(parser: argparse.ArgumentParser, *, required: bool, help: str) -> None:
    """``--site`` (repeatable, each a comma-separated list of origins, as ``SiteUrl``) and
    ``--alternates-any-host`` (the stack's ``AlternatesAnyHost``); :func:`sites_of` reads them."""
    parser.add_argument(
        "--site", action="append", required=required, metavar="URL", help=f"{help}; {SITES_HELP}"
    )
    parser.add_argument(
        "--alternates-any-host",
        action="store_true",
        help="hreflang alternates may point to any host, not only to a listed one, as the "
        "stack's AlternatesAnyHost=true",
    )


def sites_text(args: argparse.Namespace) -> str | None:
    """The ``--site`` origins as ``SiteUrl`` holds them (``None``: no ``--site``)."""
    return ",".join(args.site) if args.site else None


def sites_of(args: argparse.Namespace, media_hosts: frozenset[str] | None = None) -> Sites | None:
    """The sites ``--site`` lists, judged by the layer's one rule (``Sites.parse``), with the
    alternates rule of ``--alternates-any-host`` (``None``: no ``--site``); raises
    :class:`CommandError` (exit status 2) naming the entry and the rule."""
    text = sites_text(args)
    if text is None:
        return None
    try:
        return Sites.parse(
            text, media_hosts, alternates_any_host=getattr(args, "alternates_any_host", False)
        )
    except ValueError as exc:
        raise CommandError(f"--site: {exc}") from exc


def _delimiter(text: str) -> str:
    named = {"tab": "\t", "\\t": "\t"}
    value = named.get(text.lower(), text)
    if len(value) != 1 or value in {'"', "\r", "\n"}:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be one character other than a quote or a line break (or 'tab')"
        )
    return value


def _encoding(text: str) -> str:
    try:
        codecs.lookup(text)
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an encoding Python knows (e.g. utf-8, cp1252, latin-1)"
        ) from None
    return text


def add_csv_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say how to read a CSV source, and ``--strict-fields`` (for every
    source of entries: sitemaps and CSV files)."""
    group = parser.add_argument_group(
        "CSV sources",
        "by default the header names the columns: url or loc, and lastmod, "
        "updated_at or modified; the delimiter is the first of , ; tab | that finds them",
    )
    group.add_argument("--url-column", metavar="NAME", help="the header's name of the url column")
    group.add_argument(
        "--lastmod-column", metavar="NAME", help="the header's name of the lastmod column"
    )
    group.add_argument(
        "--delimiter", type=_delimiter, metavar="C", help="the delimiter: one character, or tab"
    )
    group.add_argument(
        "--encoding",
        type=_encoding,
        default="utf-8",
        metavar="NAME",
        help="the file's text encoding, e.g. cp1252 or latin-1 (default utf-8, with or "
        "without a BOM)",
    )
    group.add_argument(
        "--date-order",
        choices=DATE_ORDERS,
        metavar="dmy|mdy",
        help="read lastmods such as 27/11/2026 or 20.11.2026 day first (dmy) or month first "
        "(mdy); without it such a date is invalid",
    )
    parser.add_argument(
        "--strict-fields",
        action="store_true",
        help=f"a bad {' or '.join(PROTOCOL_VALUES)} skips its record (an error) instead of "
        "being left out of the page with a warning",
    )


def csv_format_of(args: argparse.Namespace) -> CsvFormat:
    """The CSV format the options of :func:`add_csv_arguments` give."""
    return CsvFormat(
        args.url_column,
        args.lastmod_column,
        args.delimiter,
        date_order=args.date_order,
        encoding=args.encoding,
    )


def _media_hosts(text: str) -> frozenset[str] | None:
    try:
        return media_hosts_of(text)
    except InvalidUrlError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_media_hosts_argument(parser: argparse.ArgumentParser) -> None:
    """``--media-hosts``: the deployment's ``MediaHosts``, so that the entries judged here are
    the ones its ingest accepts."""
    parser.add_argument(
        "--media-hosts",
        type=_media_hosts,
        default=None,
        metavar="HOSTS",
        help="hosts images and videos may live on besides the site's own, comma-separated, as "
        "the stack's MediaHosts ('' for the site's host alone; default '*': any host)",
    )
