"""Each host's index and what it lists last: the empty-site file when none of the host's leaves
holds a URL, the host's news files after the regular ones, the stylesheet the files name
(``sitemap.xsl``, beside each index), the human view (``sitemap.html`` and its script and style,
beside each index) and robots.txt. Every file is put before the index that names it.

A host's index lists only the files under its own key prefix, grouped by section (the shard ids,
and so the keys, sort by space). While a layout change is under way (leaves of the new layout
still pending), the files of the old layout stay listed, so no URL leaves the index before its
new file is published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.rebuild.outputs.bucket import robots_txt
from sitemap_updater.rebuild.render import render_home
from sitemap_updater.rebuild.state.published import PublishedRecord
from sitemap_updater.rebuild.steps.news import NewsListing
from sitemap_updater.rebuild.steps.objects import sha256_hex
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY, ROBOTS_KEY
from sitemap_updater.store.spaces import key_prefix_of, section_of_file, shard_file_key
from sitemap_updater.view import view_files

#: (file key, index lastmod, URL count)
IndexedFile = tuple[str, str | None, int]


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """What the indexes will list: file keys with their lastmod and URL count."""

    files: tuple[IndexedFile, ...]

    @property
    def urls(self) -> int:
        return sum(count for _, _, count in self.files)

    def of(self, prefix: str) -> list[IndexedFile]:
        return [entry for entry in self.files if key_prefix_of(entry[0]) == prefix]


def index_plan(run: Run) -> IndexPlan:
    """The leaf files with a URL, from the run's states or, for a leaf it did not read, from the
    listing of the last publish; and the old layout's files while a layout change is pending."""
    files: list[IndexedFile] = []
    listing = run.listing or {}
    for leaf in sorted(run.shard_map.leaves):
        key = shard_file_key(leaf)
        state = run.state_of(leaf)
        if state is not None:
            if state.url_count >= 1 and state.file_sha256 is not None:
                files.append((key, state.file_lastmod or state.file_changed_at, state.url_count))
        elif key in listing:
            files.append((key, *listing[key]))
    if run.remaining and run.migrating:  # the old layout's files, until the move is done
        keys = {shard_file_key(leaf) for leaf in run.shard_map.leaves}
        files += [(k, *v) for k, v in listing.items() if k not in keys and section_of_file(k)]
    return IndexPlan(tuple(files))


def publish_index(
    tools: Tools, run: Run, *, force: bool, news: Sequence[NewsListing] = ()
) -> PublishedRecord:
    """Write each host's empty-site file where needed, its stylesheet, its index (which lists
    its ``news`` files after the regular ones) and robots.txt; returns the new record."""
    plan = index_plan(run)
    listed: list[IndexedFile] = []
    singles: list[tuple[str, str]] = []
    for prefix in tools.layout.prefixes():
        entries = plan.of(prefix)
        if not entries:
            entries = [_publish_home(tools, run, prefix, singles, force=force)]
        entries += [entry for entry in news if key_prefix_of(entry[0]) == prefix]
        listed += entries
        if tools.config.stylesheet:
            _publish_fixed(run, prefix + STYLESHEET_NAME, stylesheet_body(), singles)
        for name, body in view_files():
            _publish_fixed(run, prefix + name, body, singles)
        urls = [(tools.layout.url_of(key), lastmod) for key, lastmod, _ in entries]
        index, _ = render_index(urls, stylesheet=tools.config.stylesheet)
        key = prefix + INDEX_KEY
        sha = sha256_hex(index)
        singles.append((key, sha))
        if sha != run.published.sha256_of(key) or force:
            run.objects.write(key, index)
    files = tuple(key for key, _, _ in listed)
    run.objects.retire_dropped(files)
    kept = {key for key, _ in singles}
    for key, _ in run.published.singles:
        if key not in kept:  # a host no longer listed, or the stylesheet turned off
            run.objects.retire(key)
    robots_sha = _publish_robots(tools, run, force=force)
    run.note_index(files=len(files), urls=plan.urls)
    return PublishedRecord(
        files=files,
        robots_sha256=robots_sha,
        singles=tuple(sorted(singles)),
        lastmods=tuple(lastmod for _, lastmod, _ in listed),
        counts=tuple(count for _, _, count in listed),
    )


def _publish_home(
    tools: Tools, run: Run, prefix: str, singles: list[tuple[str, str]], *, force: bool
) -> IndexedFile:
    """Put a host's empty-site file where it changed; returns its listing."""
    key = prefix + EMPTY_SITE_KEY
    home = render_home(
        tools.layout.site_of_prefix(prefix),
        stylesheet=tools.config.stylesheet,
    )
    sha = sha256_hex(home)
    singles.append((key, sha))
    lastmod = (run.listing or {}).get(key, (None, 0))[0]
    changed = sha != run.published.sha256_of(key)
    if changed or key not in run.published.files or force:
        run.objects.put(key, home)
        if changed or lastmod is None:
            lastmod = run.now_w3c
    return key, lastmod, 0


def _publish_fixed(run: Run, key: str, body: bytes, singles: list[tuple[str, str]]) -> None:
    """Put a file whose bytes come with the package (the stylesheet, the view) when they are not
    the ones the record says were put: once per version of the package, not once per run. A run
    that died after putting it left the record of the bytes before, so the next run puts it
    again: a rewrite after a crash has nothing to add."""
    sha = sha256_hex(body)
    singles.append((key, sha))
    if sha != run.published.sha256_of(key):
        run.objects.write(key, body)


def _publish_robots(tools: Tools, run: Run, *, force: bool) -> str | None:
    """Put robots.txt where it changed (when the site publishes one); returns its hash. It
    names every host's index."""
    if not tools.config.publish_robots_txt:
        return None
    urls = [tools.layout.url_of(prefix + INDEX_KEY) for prefix in tools.layout.prefixes()]
    robots = robots_txt(urls)
    robots_sha = sha256_hex(robots)
    if robots_sha != run.published.robots_sha256 or force:
        run.objects.write(ROBOTS_KEY, robots)
    return robots_sha
