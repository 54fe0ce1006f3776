"""``sitemap-updater local``: keep a local deployment running on 127.0.0.1 until Ctrl-C.

moto runs as a server; the stack is provisioned from template.yaml into it and registered in
its CloudFormation; the site, Search Console and Bing are loopback stand-ins; ingest is fed from
the queue and the rebuild and the observer run on the template's schedules
(``deployment.served``). It prints where everything listens and the ``export`` lines that let
``send``, ``status``, ``redrive``, ``coverage``, ``serve`` (after ``aws s3 sync``) and the AWS
CLI reach it as they reach a deployed stack, then one line for each invocation. The functions'
logs go to ``--log-file``.

Its synopsis is in ``docs/cli.md``. Exit status: 0 when stopped with Ctrl-C (the line
``sitemap-updater local: stopped``); 2 when it cannot start (a parameter the template refuses, a
port in use, a file it cannot write); 143 on SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import shlex
import sys
from pathlib import Path
from typing import TextIO

from sitemap_updater.printable import printable
from sitemap_updater_local.console import command_line
from sitemap_updater_local.deployment.local import DEFAULT_TEMPLATE
from sitemap_updater_local.deployment.served import DEFAULT_STACK_NAME, ServedDeployment
from sitemap_updater_local.deployment.stack.template import TemplateError
from sitemap_updater_local.errors import EXIT_OK, CommandError

DEFAULT_LOG_FILE = Path("sitemap-updater-local.log")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        metavar="N",
        help="the port of moto's server on 127.0.0.1 (default: any free one)",
    )
    parser.add_argument(
        "--stack-name",
        default=DEFAULT_STACK_NAME,
        metavar="NAME",
        help=f"the stack's name, as status and coverage take it (default {DEFAULT_STACK_NAME})",
    )
    parser.add_argument(
        "--parameter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a template parameter, as sam deploy --parameter-overrides takes it (repeatable)",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="N",
        help="run every schedule N times as often (default 1: the template's rates)",
    )
    parser.add_argument(
        "--env-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the export lines to FILE, for another shell to source",
    )
    parser.add_argument(
        "--log-file",
        type=Path,
        default=DEFAULT_LOG_FILE,
        metavar="FILE",
        help=f"where the functions' log lines go (default {DEFAULT_LOG_FILE})",
    )
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE, help=argparse.SUPPRESS)


def parameters_of(pairs: list[str]) -> dict[str, str]:
    """``--parameter KEY=VALUE`` options, by key; the last one of a key wins."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"--parameter {pair!r}: must be KEY=VALUE")
        found[key] = value
    return found


def exports(environment: dict[str, str]) -> list[str]:
    """The environment as shell ``export`` lines."""
    return [f"export {name}={shlex.quote(value)}" for name, value in environment.items()]


def banner(served: ServedDeployment, log_file: Path, env_file: Path | None) -> list[str]:
    observed = served.observed
    lines = [
        f"Local deployment of {served.template.name}, stack {served.stack_name} "
        "(Ctrl-C stops it; it starts empty and keeps nothing):",
        f"  AWS (moto's server):    {served.endpoint_url}",
        f"  site (stand-in):        {observed.site.url} (SiteUrl)",
        f"  Search Console, Bing:   {observed.console.url}, {observed.bing.url} (stand-ins)",
        f"  the functions' logs:    {log_file}",
    ]
    lines += [
        f"  schedule:               {s.function} {s.event} {s.expression}"
        + ("" if served.speed == 1 else f", every {s.seconds / served.speed:g} s at --speed")
        for s in served.schedules
    ]
    where = f" (also in {env_file})" if env_file is not None else ""
    lines.append(f"The other commands reach it with these variables{where}:")
    lines += exports(served.environment())
    return [printable(line) for line in lines]


def _open(path: Path, what: str) -> TextIO:
    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"{what} {path}: {exc.strerror}") from exc


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port}: must be 0 to 65535")
    if not (args.speed > 0 and math.isfinite(args.speed)):
        raise CommandError(f"--speed {args.speed:g}: must be a number above 0")
    parameters = parameters_of(args.parameter)
    with _open(args.log_file, "--log-file") as log, contextlib.ExitStack() as running:
        try:
            served = running.enter_context(
                ServedDeployment(
                    template=args.template,
                    parameters=parameters,
                    port=args.port,
                    stack_name=args.stack_name,
                    speed=args.speed,
                    log=log,
                )
            )
        except TemplateError as exc:  # a parameter the template refuses
            raise CommandError(str(exc)) from exc
        except OSError as exc:  # the port is taken
            raise CommandError(f"--port {args.port}: {exc.strerror or exc}") from exc
        if args.env_file is not None:
            with _open(args.env_file, "--env-file") as env:
                env.write("\n".join(exports(served.environment())) + "\n")
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C once it is up: stopped
            print("\n".join(banner(served, args.log_file, args.env_file)), flush=True)
            served.run(lambda line: print(line, flush=True))
    print(command_line("local", "stopped"), file=sys.stderr)
    return EXIT_OK
