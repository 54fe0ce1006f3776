"""``sitemap-updater where``: which file lists a URL, or should, and if none does, why not.

Usage::

    sitemap-updater where URL --out DIR [--site URL ...] [--section-rules RULES] [--json]
    sitemap-updater where URL --stack-name NAME [--region R] [--endpoint-url URL] [--json]

Says, one finding a line: the URL's identity (its normalized form, ``normalize_url``), its site
and section, the file its host and section place it in and the leaf of the shard tree that
covers its hash (``store.spaces.Layout``, ``store.shards``), and whether that file lists it. On
a stack (found by name with CloudFormation, as ``status`` finds it; ``--endpoint-url`` for an
emulator such as the local deployment's) it also reads the URL's item, the rebuild's
checkpoint, publish record and shard map, and peeks at the dead-letter queue (left visible, as
``status`` does), to say why a URL is not listed: deleted, never received, rejected (with the
dead letter's reason), excluded as unhealthy, or not yet rebuilt. On a build output (``--out``,
what ``build`` wrote; ``--site`` and ``--section-rules`` as the build was given them) it says
where the URL belongs and whether it is there. It ends with the verdict,
``sitemap-updater where: listed in FILE`` or ``...: not listed: WHY``.

Exit status: 0 listed; 1 not listed (the lines say why); 2 a URL that cannot be normalized (the
line names the rule), a directory that is not a build output, a stack that does not exist or
lacks an output, or a failed AWS call.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from typing import Any

from sitemap_updater_local.commands.where import on_build
from sitemap_updater_local.commands.where.verdict import exit_status, render
from sitemap_updater_local.errors import CommandError
from sitemap_updater_local.options import sites_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="the page's URL, as a producer sends it")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", metavar="DIR", help="a directory sitemap-updater build wrote")
    where.add_argument(
        "--stack-name",
        metavar="NAME",
        help="the CloudFormation stack (the local deployment registers its own)",
    )
    parser.add_argument(
        "--site",
        action="append",
        metavar="URL",
        help="with --out: the sites the build was given, the primary first (repeatable, or "
        "comma-separated); default: the URL's own origin",
    )
    parser.add_argument(
        "--section-rules",
        default="",
        metavar="RULES",
        help="with --out: the build's --section-rules, e.g. /p/=products,/blog/=articles",
    )
    parser.add_argument(
        "--region", default=None, metavar="R", help="AWS region (default: from the environment)"
    )
    parser.add_argument(
        "--endpoint-url",
        default=None,
        metavar="URL",
        help="one endpoint for every AWS service (for emulators such as moto's server)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.stack_name is not None:
        if args.site or args.section_rules:
            raise CommandError(
                "--site and --section-rules are a build output's (--out): a stack's are read "
                "from the stack"
            )

        # here: a build output's answer needs neither boto3 nor the rebuild's state (1.4 s)
        from sitemap_updater_local.commands.status import show
        from sitemap_updater_local.commands.where import on_stack

        def collect(clients: Callable[[str], Any], name: str) -> Mapping[str, Any]:
            return on_stack.collect(clients, name, args.url)

        return show(args, collect, render, exit_status)
    found = on_build.collect(args.url, args.out, sites_text(args), args.section_rules)
    print(json.dumps(found, indent=2) if args.json else "\n".join(render(found)))
    return exit_status(found)
