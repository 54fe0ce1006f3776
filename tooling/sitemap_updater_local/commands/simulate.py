"""``sitemap-updater simulate``: replay wave files through the local deployment.

Its synopsis is in ``docs/cli.md``.

Each line of a wave file is one raw SQS message body, sent as written (it may be invalid on
purpose; empty lines are skipped; an empty wave file only runs the scheduled rebuild), but that
a change without an ``occurred_at`` is given its place in the wave as its time, as ``build`` gives
a line of a file (``page.order.file_time``): of two changes of a page the later line wins, through
``simulate`` as through ``build``. For each wave, in
order: send its messages, drain the queue completely
through the emulated SQS event source mapping (retries and dead-lettering included), then run the
scheduled rebuild until it reports that no dirty shard remains. The system runs on moto from
template.yaml, with ``SiteUrl`` and ``PublicBaseUrl`` set to the ``--site`` origins (the files
are published as each site's own ``/sitemap.xml``; ``--site`` given more than once serves several
hosts, the first at the bucket root and each other under ``<host>/``, where its index says its
files are), ``AlternatesAnyHost`` to ``--alternates-any-host``, and ``SectionRules`` to
``--section-rules``. ``--faults RATE --seed S`` makes a
seeded share RATE of the functions' DynamoDB and S3 calls fail with throttling or 5xx errors.

``--indexnow-key KEY`` deploys with ``IndexNowKey`` set and ``IndexNowEndpoint`` pointing at a
local recording endpoint on 127.0.0.1 (nothing is sent to the internet). ``--start ISO8601`` is the
clock both functions see when the first wave starts (it runs on from there); before each later
wave it moves on by ``--wave-gap`` seconds (300, one schedule tick, by default). Give the events an
``occurred_at`` near that clock: one more than 5 minutes ahead of it is rejected.

After the last wave, DIR holds the bucket's objects under their keys, and ``DIR/report.json``
(UTF-8 JSON) one object per wave, in order: what it sent, what ingest accepted, held stale and
rejected (with each reason), what the rebuild's runs wrote, deleted, invalidated, read and sent
to IndexNow, and the freshness of what they published (the fields are listed in docs/cli.md).

The lags are measured on the clock the deployment runs on (``--start`` sets it; the system's
otherwise), the same figures as the rebuild's ``FreshnessMaxSeconds`` and
``FreshnessMedianSeconds`` metrics. A change held back (a leaf left pending, a run that failed)
counts in the wave whose run publishes it, with the waves' gaps in its lag.

``accepted`` and ``stale`` count changes (an array body holds several); ``rejected`` lists the
messages. The ``body`` of a rejected array message is what the DLQ holds: the bad entries with
their indexes. A message SQS itself refuses (for example over 256 KiB) is listed in ``rejected``
with a reason that starts with ``not accepted by SQS`` and is not counted as dead-lettered.
Exit status, as ``build``'s: 0; 1 when a message was rejected or dead-lettered (the first 20
rejections are printed in full, then a count per rule); 2 for unusable arguments or files; 3 when
the wave files hold no message, or no change of them was accepted: DIR is then left as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_updater.indexnow import IndexNowConfigError, check_key
from sitemap_updater.ingest.dlq import rejection_kinds
from sitemap_updater.page.order import file_time
from sitemap_updater.printable import printable
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.sections import SectionRules
from sitemap_updater_local.console import ProblemReport
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment, SimulatedClock
from sitemap_updater_local.deployment.faults import FaultPlan
from sitemap_updater_local.deployment.indexnow_endpoint import RecordingEndpoint
from sitemap_updater_local.deployment.stack.template import TemplateError
from sitemap_updater_local.errors import EXIT_SKIPPED, CommandError, NothingKept
from sitemap_updater_local.inputs.source_records import Problem
from sitemap_updater_local.inputs.waves import in_place, position_in, read_wave, wave_lines
from sitemap_updater_local.options import add_sites_arguments, sites_of, sites_text

DEFAULT_SITE = "https://www.example.com"
DEFAULT_WAVE_GAP = 300.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "waves",
        nargs="+",
        type=Path,
        metavar="WAVE.jsonl",
        help="wave files, in order: one raw message body per line (an empty file only runs "
        "the scheduled rebuild)",
    )
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help="where to write the bucket's objects and report.json",
    )
    add_sites_arguments(
        parser,
        required=False,
        help=f"site origin, published as PublicBaseUrl (default {DEFAULT_SITE})",
    )
    parser.add_argument(
        "--section-rules",
        default=None,
        metavar="RULES",
        help="ordered path-prefix rules that place a URL without a section, e.g. "
        "/p/=products,/blog/=articles (default: none, every such URL is in 'pages')",
    )
    parser.add_argument(
        "--max-urls-per-sitemap",
        type=int,
        default=None,
        metavar="N",
        help="shard cap: a shard above it is split (default: the template's)",
    )
    parser.add_argument(
        "--faults",
        type=float,
        default=None,
        metavar="RATE",
        help="share (0 to 1) of the functions' DynamoDB and S3 calls that fail; needs --seed",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed of the --faults draw"
    )
    parser.add_argument(
        "--indexnow-key",
        default=None,
        metavar="KEY",
        help="turn IndexNow on, against a local recording endpoint on 127.0.0.1",
    )
    parser.add_argument(
        "--start",
        default=None,
        metavar="ISO8601",
        help="the clock both functions see when the first wave starts, with a zone "
        "(default: the real clock)",
    )
    parser.add_argument(
        "--wave-gap",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"how far the clock moves on before each later wave, with --start "
        f"(default {DEFAULT_WAVE_GAP:g})",
    )
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE, help=argparse.SUPPRESS)


def simulate(
    waves: Sequence[Sequence[str]],
    out: Path,
    *,
    site: str = DEFAULT_SITE,
    template: Path = DEFAULT_TEMPLATE,
    section_rules: str | None = None,
    max_urls_per_sitemap: int | None = None,
    faults: FaultPlan | None = None,
    indexnow_key: str | None = None,
    start: datetime | None = None,
    wave_gap: float = DEFAULT_WAVE_GAP,
    replace_when_empty: bool = True,
    alternates_any_host: bool = False,
) -> dict[str, Any]:
    """Run the waves; write the bucket and report.json into ``out``; return the report.
    ``site`` is one origin or a comma-separated list of them. Unless ``replace_when_empty``,
    ``out`` is left as it was when no wave had a change accepted."""
    parameters = {"PublicBaseUrl": site}
    if alternates_any_host:
        parameters["AlternatesAnyHost"] = "true"
    if section_rules is not None:
        parameters["SectionRules"] = section_rules
    if max_urls_per_sitemap is not None:
        parameters["MaxUrlsPerSitemap"] = str(max_urls_per_sitemap)
    report: dict[str, Any] = {"waves": []}
    clock = SimulatedClock(start) if start is not None else None
    with contextlib.ExitStack() as stack:
        endpoint = None
        if indexnow_key is not None:
            endpoint = stack.enter_context(RecordingEndpoint())
            parameters.update(IndexNowKey=indexnow_key, IndexNowEndpoint=endpoint.url)
        dep = stack.enter_context(
            LocalDeployment(template, site, parameters=parameters, faults=faults, clock=clock)
        )
        seen_dead: set[str] = set()
        invalidations_seen = 0
        for number, bodies in enumerate(waves):
            if clock is not None and number > 0:
                clock.advance(wave_gap)
            requests_seen = len(endpoint.requests) if endpoint else 0
            now = datetime.fromtimestamp(clock(), UTC) if clock is not None else datetime.now(UTC)
            sent = [in_place(body, file_time(now, n)) for n, body in enumerate(bodies, 1)]
            refused = dep.send(sent)
            drained = dep.drain()
            runs = dep.rebuild_until_clean(max_runs=50)
            new_dead = [d for d in dep.dead_letters() if d.message_id not in seen_dead]
            seen_dead.update(d.message_id for d in new_dead)
            invalidations = dep.invalidations()
            paths = [p for _, ps in invalidations[invalidations_seen:] for p in ps]
            invalidations_seen = len(invalidations)
            rejected = [
                {
                    "message": d.body,
                    "reason": d.reason,
                    "rules": rejection_kinds(d.message_attributes),
                    "position": position_in(sent, d.body),
                }
                for d in new_dead
                if d.reason
            ]
            rejected += [
                {
                    "message": f.body,
                    "reason": f"not accepted by SQS: {f.code}: {f.message}",
                    "rules": [f"not accepted by SQS: {f.code}"],
                    "position": position_in(sent, f.body),
                }
                for f in refused
            ]
            report["waves"].append(
                {
                    "messages": len(bodies),
                    "accepted": drained.count("AcceptedRecords"),
                    "stale": drained.count("StaleRecords"),
                    "rejected": rejected,
                    "dead_lettered": len(new_dead),
                    "objects_written": sorted({k for r in runs for k in r["objects_written"]}),
                    "objects_deleted": sorted({k for r in runs for k in r["objects_deleted"]}),
                    "invalidated_paths": paths,
                    "dynamodb_items_read": sum(int(r["dynamodb_items_read"]) for r in runs),
                    "state_objects_written": sorted(
                        {k for r in runs for k in r["state_objects_written"]}
                    ),
                    "s3_objects_read": [k for r in runs for k in r["s3_objects_read"]],
                    "indexnow_submitted": [
                        str(u)
                        for sent in (endpoint.requests[requests_seen:] if endpoint else [])
                        for u in sent.body.get("urlList", [])
                    ],
                    "indexnow_requests": len(endpoint.requests) - requests_seen if endpoint else 0,
                    **_freshness(runs),
                }
            )
        if not replace_when_empty and nothing_kept(report):
            return report
        out.mkdir(parents=True, exist_ok=True)
        dep.download(out)
    # a lone surrogate from an undecodable wave line is written as its JSON escape
    (out / "report.json").write_text(
        json.dumps(report, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
        errors="backslashreplace",
    )
    return report


def _freshness(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The lag from ingest to publish of the changes the wave's runs published, per run that
    published some, and the largest."""
    published = [run["freshness"] for run in runs if run["freshness"]["changes"]]
    return {
        "freshness_max_seconds": max((f["max_seconds"] for f in published), default=None),
        "freshness_runs": published,
    }


def run(args: argparse.Namespace) -> int:
    waves, start, plan = _checked_inputs(args)
    if not any(waves):
        raise NothingKept(f"the wave files hold no message; {args.out} is unchanged")
    try:
        report = simulate(
            waves,
            args.out,
            site=site_list(args),
            template=args.template,
            section_rules=args.section_rules,
            max_urls_per_sitemap=args.max_urls_per_sitemap,
            faults=plan,
            indexnow_key=args.indexnow_key,
            start=start,
            wave_gap=DEFAULT_WAVE_GAP if args.wave_gap is None else args.wave_gap,
            replace_when_empty=False,
            alternates_any_host=args.alternates_any_host,
        )
    # TemplateError: a --site or --max-urls-per-sitemap the template refuses
    except TemplateError as exc:
        raise CommandError(str(exc)) from exc
    waves_done = report["waves"]
    _print_waves(waves_done, indexnow=args.indexnow_key is not None)
    if plan is not None:
        counts = ", ".join(f"{n} {code}" for code, n in sorted(plan.counts().items()))
        print(f"faults injected: {len(plan.injected)}" + (f" ({counts})" if counts else ""))
    problems = ProblemReport()
    for path, wave in zip(args.waves, waves_done, strict=True):
        numbers = [n for n, _ in wave_lines(path)]
        for rejected in wave["rejected"]:
            problems(_rejection(path, numbers, rejected))
    for line in problems.summary("message(s) rejected"):
        print(line, file=sys.stderr)
    if nothing_kept(report):
        raise NothingKept(f"no change was accepted; {args.out} is unchanged")
    print(printable(f"files and report.json written to {args.out}"))
    lost = any(wave["rejected"] or wave["dead_lettered"] for wave in waves_done)
    return EXIT_SKIPPED if lost else 0


def nothing_kept(report: dict[str, Any]) -> bool:
    """Whether no wave had a change accepted: the bucket holds nothing of the waves."""
    return not any(wave["accepted"] for wave in report["waves"])


def _rejection(wave: Path, numbers: Sequence[int], rejected: dict[str, Any]) -> Problem:
    """A rejected message as a problem at its line of its wave file, counted by its fields and
    rules (the ``rejections`` the ingest function wrote: without the values)."""
    position = rejected["position"]
    where = f"{wave}:{numbers[position - 1]}" if position is not None else str(wave)
    return Problem(where, rejected["reason"], "; ".join(rejected["rules"]))


def _checked_inputs(
    args: argparse.Namespace,
) -> tuple[list[list[str]], datetime | None, FaultPlan | None]:
    """The waves, the start and the fault plan of ``args``, checked in the order they are
    given; raises :class:`CommandError` for the first one that cannot be used."""
    if (args.faults is None) != (args.seed is None):
        raise CommandError("--faults RATE and --seed S go together")
    waves = [_read_wave_file(path) for path in args.waves]
    if args.wave_gap is not None and args.start is None:
        raise CommandError("--wave-gap SECONDS needs --start ISO8601")
    if args.wave_gap is not None and args.wave_gap < 0:
        raise CommandError(f"--wave-gap {args.wave_gap}: must not be negative")
    start = None if args.start is None else _start(args.start)
    if args.indexnow_key is not None:
        try:
            check_key(args.indexnow_key, field="--indexnow-key")
        except IndexNowConfigError as exc:
            raise CommandError(str(exc)) from exc
    try:
        plan = FaultPlan(args.faults, args.seed) if args.faults is not None else None
    except ValueError as exc:
        raise CommandError(f"--faults: {exc}") from exc
    sites_of(args)
    try:
        SectionRules.parse(args.section_rules or "", field="--section-rules")
    except SitemapError as exc:
        raise CommandError(str(exc)) from exc
    return waves, start, plan


def site_list(args: argparse.Namespace) -> str:
    """The ``--site`` origins as the ``SiteUrl`` parameter holds them."""
    return sites_text(args) or DEFAULT_SITE


def _read_wave_file(path: Path) -> list[str]:
    try:
        return read_wave(path)
    except OSError as exc:
        raise CommandError(f"cannot read wave file {path}: {exc.strerror}") from exc


def _start(text: str) -> datetime:
    """``--start``: an ISO 8601 date-time with a zone."""
    try:
        start = datetime.fromisoformat(text)
    except ValueError:
        start = None
    if start is None or start.tzinfo is None:
        raise CommandError(
            f"--start {text!r}: must be an ISO 8601 date-time with a zone "
            "(for example 2026-01-05T08:00:00Z)"
        )
    return start


def _print_waves(waves: list[dict[str, Any]], *, indexnow: bool) -> None:
    """One line per wave of the report."""
    for number, wave in enumerate(waves, start=1):
        print(
            f"wave {number}: {wave['messages']} messages, {wave['accepted']} accepted, "
            f"{wave['stale']} stale, {len(wave['rejected'])} rejected, "
            f"{wave['dead_lettered']} dead-lettered, {len(wave['objects_written'])} objects "
            f"written, {len(wave['invalidated_paths'])} paths invalidated"
            + (
                f", freshness max {wave['freshness_max_seconds']:.1f} s"
                if wave["freshness_max_seconds"] is not None
                else ""
            )
            + (
                f", {len(wave['indexnow_submitted'])} URLs sent to IndexNow in "
                f"{wave['indexnow_requests']} requests"
                if indexnow
                else ""
            )
        )
