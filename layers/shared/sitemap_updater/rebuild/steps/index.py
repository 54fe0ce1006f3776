"""The index and what it lists last: the empty-site file when no leaf holds a URL, the news
files after the regular ones, the stylesheet the files name (``sitemap.xsl``) and robots.txt.
Every file is put before the index that names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sitemap_updater.protocol import render_index
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.rebuild.outputs.bucket import robots_txt
from sitemap_updater.rebuild.render import render_home
from sitemap_updater.rebuild.state.published import PublishedRecord
from sitemap_updater.rebuild.steps.news_files import NewsListing
from sitemap_updater.rebuild.steps.objects import sha256_hex
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY, ROBOTS_KEY, shard_file_key


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """What the index will list: file keys with their lastmod, and the live URLs they hold."""

    entries: tuple[tuple[str, str | None], ...]
    urls: int
    empty_site: bool
    #: the URL count of each of ``entries``
    counts: tuple[int, ...] = ()


def index_plan(run: Run) -> IndexPlan:
    """The leaf files with a URL, from the run's states or, for a leaf it did not read, from the
    listing of the last publish."""
    entries: list[tuple[str, str | None]] = []
    counts: list[int] = []
    for leaf in sorted(run.shard_map.leaves):
        key = shard_file_key(leaf)
        state = run.state_of(leaf)
        if state is not None:
            if state.url_count < 1 or state.file_sha256 is None:
                continue
            entries.append((key, state.file_lastmod or state.file_changed_at))
            counts.append(state.url_count)
        elif run.listing is not None and key in run.listing:
            lastmod, count = run.listing[key]
            entries.append((key, lastmod))
            counts.append(count)
    return IndexPlan(
        entries=tuple(entries), urls=sum(counts), empty_site=not entries, counts=tuple(counts)
    )


def publish_index(
    tools: Tools, run: Run, *, force: bool, news: Sequence[NewsListing] = ()
) -> PublishedRecord:
    """Write the empty-site file if needed, the stylesheet, the index (which lists the ``news``
    files after the regular ones) and robots.txt; returns the new record."""
    old = run.published
    plan = index_plan(run)
    home_sha, home_changed_at = old.home_sha256, old.home_changed_at
    entries = list(plan.entries)
    if plan.empty_site:
        home_sha, home_changed_at = _publish_home(tools, run, force=force)
        entries = [(EMPTY_SITE_KEY, home_changed_at)]
    entries += [(key, lastmod) for key, lastmod, _ in news]
    files = tuple(key for key, _ in entries)
    counts = ((0,) if plan.empty_site else plan.counts) + tuple(n for _, _, n in news)
    run.objects.retire_dropped(files)
    base = tools.config.public_base_url.rstrip("/")
    stylesheet_sha = _publish_stylesheet(tools, run)
    listed = [(f"{base}/{key}", lastmod) for key, lastmod in entries]
    index, _ = render_index(listed, stylesheet=tools.config.stylesheet)
    index_sha = sha256_hex(index)
    if index_sha != old.index_sha256 or force:
        run.objects.write(INDEX_KEY, index)
    robots_sha = _publish_robots(tools, run, f"{base}/{INDEX_KEY}", force=force)
    run.note_index(files=len(files), urls=plan.urls)
    return PublishedRecord(
        index_sha256=index_sha,
        files=files,
        robots_sha256=robots_sha,
        stylesheet_sha256=stylesheet_sha,
        home_sha256=home_sha,
        home_changed_at=home_changed_at,
        lastmods=tuple(lastmod for _, lastmod in entries),
        counts=counts,
    )


def _publish_home(tools: Tools, run: Run, *, force: bool) -> tuple[str, str | None]:
    """Put the empty-site file where it changed; returns its hash and when it last changed."""
    old = run.published
    home = render_home(
        tools.site,
        max_urls=tools.config.max_urls_per_sitemap,
        max_bytes=tools.config.max_bytes_per_sitemap,
        stylesheet=tools.config.stylesheet,
    )
    sha = sha256_hex(home)
    changed_at = old.home_changed_at
    if sha != old.home_sha256 or EMPTY_SITE_KEY not in old.files or force:
        run.objects.put(EMPTY_SITE_KEY, home)
        if sha != old.home_sha256 or changed_at is None:
            changed_at = run.now_w3c
    return sha, changed_at  # unwritten, the file is the one the record describes


def _publish_stylesheet(tools: Tools, run: Run) -> str | None:
    """Put ``sitemap.xsl`` when its bytes are not the ones the record says were put (when the
    files name it); returns its hash. A run that died after putting it left the record of the
    bytes before, so the next run puts it again: a rewrite after a crash has nothing to add."""
    if not tools.config.stylesheet:
        return None
    body = stylesheet_body()
    sha = sha256_hex(body)
    if sha != run.published.stylesheet_sha256:
        run.objects.write(STYLESHEET_NAME, body)
    return sha


def _publish_robots(tools: Tools, run: Run, index_url: str, *, force: bool) -> str | None:
    """Put robots.txt where it changed (when the site publishes one); returns its hash."""
    if not tools.config.publish_robots_txt:
        return None
    robots = robots_txt(index_url)
    robots_sha = sha256_hex(robots)
    if robots_sha != run.published.robots_sha256 or force:
        run.objects.write(ROBOTS_KEY, robots)
    return robots_sha
