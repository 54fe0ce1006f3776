"""``sitemap-updater demo``: the whole flow on an embedded AWS (moto), start to finish.

1. Generate N realistic page changes on the primary host (``www.example.com``), the German twin of
   each translated page on a second host (``www.example.de``, hreflang links in both directions,
   each page listing itself too), a few news articles and a page with a video, and send them to
   the queue. The deployment serves both hosts and places pages in three sections: ``products``
   and ``articles`` by path rules, category pages by their own ``section`` field, and the rest in
   ``pages``.
2. Drain the queue through the ingest function, and rebuild.
3. Change a few pages, delete a few, and send a few poison messages.
4. Rebuild again.
5. Download the bucket into DIR (files from an earlier demo run are replaced): the primary
   host's files at its top, the second host's under ``DIR/www.example.de/``, where its index
   says they are.
6. Validate every file against the official schemas and the protocol rules.
7. Print a summary: files, URLs, rejected messages with reasons, what the incremental run after
   the changes read and wrote, what IndexNow would have been sent (the demo deploys with an
   IndexNow key and a local endpoint on 127.0.0.1 that records the POSTs), timings.
8. Observe a small site with the search engine observer and print its coverage table, labelled
   as coming from local stand-ins: the site is a web server on 127.0.0.1 with real redirects,
   404s, noindex pages and canonicals, and Search Console and Bing are loopback stand-ins that
   answer as their APIs document (``deployment.observed``).

The functions' JSON log lines go to a log file (``--log-file``, ``sitemap-demo.log`` by default),
not to the terminal; the summary names it, and its last line is a command that serves the
download directory, runnable as printed from the directory the demo was run in.

Exit status 0 when every file is valid and the published URLs are exactly the ones sent minus
the deleted ones, 1 otherwise.
"""

from __future__ import annotations

import argparse
import gzip
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from sitemap_updater.indexnow import DEFAULT_ENDPOINT
from sitemap_updater.printable import printable
from sitemap_updater_local import demo_changes
from sitemap_updater_local.commands.coverage import render as render_coverage
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.indexnow_endpoint import RecordingEndpoint
from sitemap_updater_local.deployment.observed import demo_coverage
from sitemap_updater_local.deployment.runtime import FunctionOutput
from sitemap_updater_local.errors import CommandError
from sitemap_updater_local.validation.document import validate_path
from sitemap_updater_local.validation.report import FileReport

DEFAULT_URLS = 2_000
DEFAULT_OUT = Path("sitemap-out")
DEFAULT_LOG_FILE = Path("sitemap-demo.log")
SITE = "https://www.example.com"
#: the second host: the German twins of the translated pages
TWIN_SITE = "https://www.example.de"
SITES = (SITE, TWIN_SITE)
#: the demo's path rules (category pages name their section themselves)
SECTION_RULES = "/products/=products,/blog/=articles"
#: A small shard cap, so that even a small demo publishes several files and the second rebuild
#: shows that only the files holding a changed page are rewritten and invalidated.
DEMO_MAX_URLS_PER_SITEMAP = 250
#: "A few" pages changed and deleted after the first rebuild.
DEMO_CHANGES = 5
DEMO_DELETES = 3
#: The IndexNow key the demo deploys with (its POSTs go to a local recording endpoint).
DEMO_INDEXNOW_KEY = "sitemap-updater-demo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--urls", type=int, default=DEFAULT_URLS, metavar="N", help="pages to generate (2,000)"
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, metavar="DIR", help="where to download the files"
    )
    parser.add_argument(
        "--log-file",
        type=Path,
        default=DEFAULT_LOG_FILE,
        metavar="FILE",
        help="where the functions' JSON log lines go (sitemap-demo.log; replaced each run)",
    )
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE, help=argparse.SUPPRESS)


@dataclass
class DemoResult:
    files: list[FileReport]
    urls_sent: int
    urls_deleted: int
    urls_published: int
    rejected: list[tuple[str, str]]
    #: the reports of the incremental run(s) that published the changes
    incremental: list[dict[str, Any]]
    timings: dict[str, float] = field(default_factory=dict)
    #: URLs POSTed to the (local) IndexNow endpoint, and the number of POSTs
    indexnow_sent: list[str] = field(default_factory=list)
    indexnow_requests: int = 0
    #: news file name -> the articles it lists
    news_files: dict[str, int] = field(default_factory=dict)
    #: ``<video:video>`` elements in the regular files
    videos: int = 0
    #: what ``sitemap-updater coverage --json`` shows of a small site observed on the
    #: loopback stand-ins of the site, Search Console and Bing
    coverage: dict[str, Any] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return all(f.ok for f in self.files) and self.urls_published == (
            self.urls_sent - self.urls_deleted
        )


class _Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = time.perf_counter() - started


def _bar(total: int, desc: str) -> Any:
    return tqdm(
        total=total, desc=desc, unit="msg", file=sys.stderr, disable=not sys.stderr.isatty()
    )


def _send_and_drain(dep: LocalDeployment, bodies: list[str], label: str) -> None:
    with _bar(len(bodies), label) as bar:
        dep.send(bodies)
        progress: Callable[[int], None] = bar.update
        dep.drain(progress)


def _clear_previous(out: Path) -> None:
    """Remove the files an earlier demo run left, so only this run's files are validated."""
    for directory in (out, *(out / host_folder(site) for site in SITES[1:])):
        if not directory.is_dir():
            continue
        for path in directory.iterdir():
            if path.is_file() and (
                path.name in {"sitemap.xml", "robots.txt"} or path.name.startswith("sitemap")
            ):
                path.unlink()


def host_folder(site: str) -> str:
    """Where a second host's files are, under the download directory (its key prefix)."""
    return site.split("://", 1)[1]


def run_demo(
    urls: int, out: Path, template: Path = DEFAULT_TEMPLATE, log: TextIO | None = None
) -> DemoResult:
    """The demo's flow; the functions' log lines are copied to ``log`` when one is given."""
    if urls < 1:
        raise ValueError(f"--urls {urls}: must be at least 1")
    timer = _Timer()
    pages = demo_changes.make_pages(urls, SITE)
    twins = demo_changes.twins(pages, SITE, TWIN_SITE)
    deletes = min(DEMO_DELETES, urls // 2)
    changes = min(DEMO_CHANGES, urls - deletes)
    sites = ",".join(SITES)
    params = {
        "PublicBaseUrl": sites,
        "SectionRules": SECTION_RULES,
        "MaxUrlsPerSitemap": str(DEMO_MAX_URLS_PER_SITEMAP),
    }
    # the articles are dated from the demo's own clock, so some are inside the news window
    extra = demo_changes.news_events(SITE, datetime.now(UTC))
    extra.append(demo_changes.video_event(SITE, datetime.now(UTC)))
    with (
        RecordingEndpoint() as indexnow,
        LocalDeployment(
            template,
            sites,
            parameters={**params, **_indexnow_params(indexnow)},
            output=FunctionOutput(sink=log),
        ) as dep,
    ):
        with timer.step("send + ingest"):
            events = demo_changes.initial_events(pages, SITE, TWIN_SITE)
            events += demo_changes.initial_events(twins, SITE, TWIN_SITE)
            _send_and_drain(dep, events + extra, "pages")
        with timer.step("rebuild"):
            first = dep.rebuild_until_clean()
        follow, _, deleted = demo_changes.follow_up(
            pages, SITE, changes, deletes, twin_site=TWIN_SITE
        )
        poison = demo_changes.poison_messages(SITE)
        with timer.step("changes + ingest"):
            _send_and_drain(dep, follow + [body for body, _ in poison], "changes")
        with timer.step("rebuild again"):
            second = dep.rebuild_until_clean()
        with timer.step("download"):
            _clear_previous(out)
            out.mkdir(parents=True, exist_ok=True)
            dep.download(out)
        rejected = [(d.body, d.reason or "") for d in dep.dead_letters() if d.reason]
    with timer.step("validate"):
        # the twin site's folder too, its own host the base of its location rule
        reports = validate_path(out, base_url=SITE)
    news_files = {
        Path(r.source).name: r.url_count for r in reports if Path(r.source).name in _news(reports)
    }
    published = sum(
        r.url_count for r in reports if r.kind == "urlset" and Path(r.source).name not in news_files
    )
    videos = sum(
        gzip.decompress(path.read_bytes()).count(b"<video:video>")
        for path in out.glob("sitemap-*.xml.gz")
        if path.name not in news_files
    )
    del first
    with timer.step("search engines (stand-ins)"):
        coverage = demo_coverage(output=FunctionOutput(sink=log))
    return DemoResult(
        coverage=coverage,
        files=reports,
        news_files=news_files,
        videos=videos,
        urls_sent=urls + len(twins) + len(extra),
        urls_deleted=len(deleted),
        urls_published=published,
        rejected=rejected,
        incremental=second,
        timings=timer.timings,
        indexnow_sent=indexnow.urls,
        indexnow_requests=len(indexnow.requests),
    )


def _indexnow_params(endpoint: RecordingEndpoint) -> dict[str, str]:
    return {"IndexNowKey": DEMO_INDEXNOW_KEY, "IndexNowEndpoint": endpoint.url}


def _news(reports: list[FileReport]) -> set[str]:
    return {
        Path(r.source).name
        for r in reports
        if Path(r.source).name.startswith("sitemap-news-") and r.kind == "urlset"
    }


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary(result: DemoResult, out: Path) -> str:
    lines = [f"Published files in {out}/ ({SITE}; {TWIN_SITE} under {host_folder(TWIN_SITE)}/):"]
    for report in result.files:
        status = "valid" if report.ok else "INVALID"
        name = str(Path(report.source).relative_to(out))
        lines.append(f"  {name:<44} {report.kind or '?':<13} {report.url_count:>6} URLs  {status}")
        lines += [f"      {printable(str(p))}" for p in report.problems]
    lines.append(
        f"URLs: {result.urls_sent} sent, {result.urls_deleted} deleted, "
        f"{result.urls_published} published"
    )
    news = ", ".join(f"{name} ({count} articles)" for name, count in result.news_files.items())
    lines.append(
        f"News sitemap files (articles of the last 48 hours): {news or 'none'}; "
        f"videos in the regular files: {result.videos}"
    )
    lines.append(f"Rejected messages ({len(result.rejected)}), in the dead-letter queue:")
    lines += [
        f"  {_short(body)!r}\n      -> {printable(reason)}" for body, reason in result.rejected
    ]
    for run_report in result.incremental:
        written = run_report["objects_written"]
        shown = ", ".join(written[:6]) + (f", ... ({len(written)})" if len(written) > 6 else "")
        lines.append(
            f"Incremental run after the changes: {run_report['feed_records']} stream records, "
            f"{run_report['dynamodb_items_read']} DynamoDB items read in all, "
            f"{len(run_report['s3_objects_read'])} published files read back and patched, "
            f"{run_report['urls_changed']} URLs changed"
        )
        lines.append(f"  wrote: {shown}")
    sent = result.indexnow_sent
    lines.append(
        f"IndexNow: {len(sent)} URLs in {result.indexnow_requests} POSTs would have been sent to "
        f"{DEFAULT_ENDPOINT} (recorded locally; the first publish sends none): "
        + (_short(", ".join(sorted(sent)), 200) if sent else "none")
    )
    lines.append(
        "Search engines, from LOCAL STAND-INS on 127.0.0.1 (not Google or Bing): a small site "
        "on a local web server, observed as `sitemap-updater coverage` prints it:"
    )
    lines += [f"  {line}" for line in render_coverage(result.coverage)]
    lines.append(
        "Timings: " + ", ".join(f"{name} {sec:.2f} s" for name, sec in result.timings.items())
    )
    lines.append("All files valid." if result.valid else "VALIDATION FAILED.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.urls < 1:
        raise CommandError(f"--urls {args.urls}: must be at least 1")
    try:
        log = args.log_file.open("w", encoding="utf-8")
    except OSError as exc:
        raise CommandError(
            f"--log-file {printable(str(args.log_file))}: cannot be written ({exc.strerror})"
        ) from exc
    with log:
        result = run_demo(args.urls, args.out, args.template, log=log)
    print(summary(result, args.out))
    print(f"The functions' log lines: {printable(str(args.log_file))}")
    print(f"Browse it: {serve_command(args.out)}")
    return 0 if result.valid else 1


def serve_command(out: Path) -> str:
    """The command that serves ``out``, as it runs from the current directory: the program as
    it was started (``.venv/bin/sitemap-updater`` from a project's ``make demo``), or its bare
    name when it was found on the PATH."""
    program = Path(sys.argv[0])
    if program.name != "sitemap-updater" or shutil.which("sitemap-updater") == str(program):
        shown = "sitemap-updater"
    elif program.is_absolute() and program.is_relative_to(Path.cwd()):
        shown = str(program.relative_to(Path.cwd()))
    else:
        shown = str(program)
    return shlex.join([shown, "serve", str(out)])
