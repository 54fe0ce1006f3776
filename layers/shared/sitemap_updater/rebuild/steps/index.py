"""Each host's indexes and what they list: the files of the leaves with a URL, the empty-site file
in an index that would list none, the host's news files in its first index after the regular
ones, the stylesheet the files name (``sitemap.xsl``, beside each index), the human view
(``sitemap.html`` and its script and style) and robots.txt. Every file is put before the index
that names it.

A host's files are listed by its first index, ``sitemap.xml``, until it would list more files
than ``MAX_FILES_PER_INDEX`` (the protocol's 50,000) or more bytes than the protocol's
``MAX_BYTES``: then the index is cut in two at a branch, and the second part is listed by the
host's next index (``state.hosts``). A run renders
the indexes whose branches it read (the ones its changes fall in), the first one where the
host's news files changed, and every index when it rewrites everything. Files are listed grouped
by section (the shard ids, and so the keys, sort by space). While a move to another layout is
under way, the files of the layout it leaves stay listed (in the index their place falls in) until
a file of the new layout takes over their key, so no URL leaves the indexes before its new file
is published.

Whether an index lists a key after the run (``is_listed``) is asked of the keys whose grace
period in the retire ledger has passed, before their objects are deleted. What the run has not
read it reads then (the host's record, the branches of the index the key's file falls in), so
no listed file is ever deleted, whatever the run read before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from sitemap_updater.protocol.index import index_child, render_index
from sitemap_updater.protocol.limits import MAX_BYTES
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, prologue, stylesheet_body
from sitemap_updater.rebuild.outputs.bucket import robots_txt
from sitemap_updater.rebuild.render import render_home
from sitemap_updater.rebuild.state.branches import listed_file, regroup, sort_key_of
from sitemap_updater.rebuild.state.hosts import HostRecord, IndexPart, NewsFiles
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.rebuild.steps.news import NewsListing
from sitemap_updater.rebuild.steps.objects import sha256_hex
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.keys import EMPTY_SITE_KEY, ROBOTS_KEY
from sitemap_updater.store.spaces import (
    index_file_key,
    key_prefix_of,
    prefix_of_shard,
    shard_of_file,
)
from sitemap_updater.view import view_files

#: (file key, index lastmod, URL count)
IndexedFile = tuple[str, str | None, int]


@dataclass(slots=True)
class Indexes:
    """What the indexes list after the run: the record and news files of each host the run
    read, the totals of every index, the hash of robots.txt, and every key the run knows to be
    listed (``after``)."""

    records: dict[str, HostRecord] = field(default_factory=dict)
    news: dict[str, NewsFiles] = field(default_factory=dict)
    files: int = 0
    urls: int = 0
    robots_sha256: str | None = None
    after: set[str] = field(default_factory=set)


def publish_index(
    tools: Tools,
    run: Run,
    *,
    force: bool,
    every: bool = False,
    news: Sequence[NewsListing] = (),
) -> Indexes:
    """Write the indexes the run renders (with ``every`` or ``force``: every index of every
    host; ``force`` puts them even where the recorded hashes say nothing changed), each host's
    empty-site file, stylesheet and view where needed, and robots.txt; returns what they
    list."""
    trees = run.trees
    if every or force:
        run.add_read(trees.read_all())
    out = Indexes()
    news_of: dict[str, list[NewsListing]] = {}
    for entry in news:
        news_of.setdefault(key_prefix_of(entry[0]), []).append(entry)
    shas = dict(run.news.rendered)
    added_index = False
    for prefix in tools.layout.prefixes():
        files = NewsFiles(
            prefix,
            tuple((key, shas[key], lastmod, n) for key, lastmod, n in news_of.get(prefix, [])),
        )
        out.news[prefix] = files
        out.after |= {key for key, _, _, _ in files.files}
        numbers = set(trees.loaded_parts(prefix))
        if files != trees.news.get(prefix, NewsFiles(prefix)):
            numbers.add(1)
        if not numbers:
            continue
        run.add_read(trees.read_parts((prefix, number) for number in numbers))
        before = trees.records[prefix]
        record = _publish_host(tools, run, before, sorted(numbers), files, out, force=force)
        added_index |= len(record.indexes) != len(before.indexes)
        out.records[prefix] = record
        for part in record.indexes:
            old = next((p for p in before.indexes if p.number == part.number), IndexPart(0))
            out.files += part.files - old.files
            out.urls += part.urls - old.urls
    for prefix, record in trees.records.items():
        out.after |= out.records.get(prefix, record).listed_keys()
    if trees.everything:
        out.files = sum(p.files for r in out.records.values() for p in r.indexes)
        out.urls = sum(p.urls for r in out.records.values() for p in r.indexes)
    else:
        out.files += run.publication.files
        out.urls += run.publication.urls
    out.robots_sha256 = _publish_robots(tools, run, out, force=force, again=every or added_index)
    run.note_index(files=out.files, urls=out.urls)
    before_keys = set(trees.listed) | (run.leaving.listed if run.leaving is not None else set())
    run.objects.retire_dropped(before_keys, out.after)
    return out


def _publish_host(
    tools: Tools,
    run: Run,
    record: HostRecord,
    numbers: list[int],
    news: NewsFiles,
    out: Indexes,
    *,
    force: bool,
) -> HostRecord:
    """Render the host's indexes ``numbers``, cutting one that would pass the protocol's limits,
    and put each whose bytes changed (and the files beside them); returns the new record."""
    prefix = record.prefix
    stylesheet = tools.config.stylesheet
    beside: list[tuple[str, str]] = []
    if stylesheet:
        _publish_beside(run, record, prefix + STYLESHEET_NAME, stylesheet_body(), beside)
    for name, body in view_files():
        _publish_beside(run, record, prefix + name, body, beside)
    record = replace(record, beside=tuple(sorted(beside)))
    todo = list(numbers)
    while todo:
        number = todo.pop(0)
        regular = _entries(run, record, number)
        entries = regular + ([(k, m, n) for k, _, m, n in news.files] if number == 1 else [])
        urls = [tools.layout.url_of(key) for key, _, _ in entries]
        if over_limits(
            entries, urls, stylesheet=stylesheet, max_files=tools.config.max_files_per_index
        ):
            cut = _cut(run, record, number)
            if cut is not None:
                todo[:0] = [number, max(part.number for part in cut.indexes)]
                record = cut
                continue
        home = not entries
        if home:
            record = replace(record, home=_publish_home(tools, run, record, force=force))
            entries = [(prefix + EMPTY_SITE_KEY, record.home[1] if record.home else None, 0)]
            urls = [tools.layout.url_of(entries[0][0])]
        out.after |= {key for key, _, _ in entries}
        index, _ = render_index(
            [(url, lastmod) for url, (_, lastmod, _) in zip(urls, entries, strict=True)],
            stylesheet=stylesheet,
        )
        sha = sha256_hex(index)
        part = next(p for p in record.indexes if p.number == number)
        if sha != part.sha256 or force:
            run.objects.put(index_file_key(prefix, number), index)
        part = replace(
            part,
            sha256=sha,
            files=len(entries),
            urls=sum(count for _, _, count in regular),
            home=home,
        )
        record = replace(
            record, indexes=tuple(part if p.number == number else p for p in record.indexes)
        )
    if not any(part.home for part in record.indexes):
        record = replace(record, home=None)
    return record


def _entries(run: Run, record: HostRecord, number: int) -> list[IndexedFile]:
    """The files the host's index ``number`` lists before its news files: its leaves', in shard
    id order, then those of a layout a move leaves that no file of the new layout replaces."""
    states = run.final_states()
    entries = _in_part(states, record, number)
    if run.leaving is not None and run.remaining:  # the move goes on: the old files stay
        taken = {entry[0] for state in states.values() if (entry := listed_file(state))}
        leftovers = _in_part(run.leaving.states_read(), record, number)
        entries += [entry for entry in leftovers if entry[0] not in taken]
    return entries


def _in_part(states: dict[str, NodeState], record: HostRecord, number: int) -> list[IndexedFile]:
    """The listed files of the leaves in ``states`` that the host's index ``number`` lists."""
    out: list[IndexedFile] = []
    for leaf in sorted(states):
        if prefix_of_shard(leaf) != record.prefix:
            continue
        entry = listed_file(states[leaf])
        if entry is not None and record.part_of(sort_key_of(leaf)).number == number:
            out.append(entry)
    return out


def over_limits(
    entries: Sequence[IndexedFile], urls: Iterable[str], *, stylesheet: bool, max_files: int
) -> bool:
    """Whether an index listing ``entries`` (at ``urls``) would list more than ``max_files``
    or pass the protocol's byte limit."""
    if len(entries) > max_files:
        return True
    size = len(prologue(stylesheet)) + 128  # the root element's two tags, with room to spare
    for url, (_, lastmod, _) in zip(urls, entries, strict=True):
        size += len(index_child(url, lastmod).encode("utf-8"))
    return size > MAX_BYTES


def _cut(run: Run, record: HostRecord, number: int) -> HostRecord | None:
    """The record with its index ``number`` cut in two at the branch from which on it lists
    the second half of its files (None: the index lists one branch, which cannot be cut)."""
    low, high = record.bounds(number)
    states = {
        leaf: state
        for leaf, state in run.final_states().items()
        if prefix_of_shard(leaf) == record.prefix
        and low <= sort_key_of(leaf)
        and (high is None or sort_key_of(leaf) < high)
    }
    tops = [top for top in run.trees.branches if prefix_of_shard(top) == record.prefix]
    branches = regroup(tops, states, {})
    start = cut_start([(b.sort_key, sum(1 for s in b.states if listed_file(s))) for b in branches])
    if start is None:
        return None
    part = IndexPart(max(p.number for p in record.indexes) + 1, start)
    return replace(record, indexes=tuple(sorted((*record.indexes, part), key=lambda p: p.start)))


def cut_start(counts: Sequence[tuple[str, int]]) -> str | None:
    """Where an index listing the branches ``counts`` (sort key, files listed), in order, is cut
    in two: the first branch from which on it lists the second half of its files (None: one
    branch, which cannot be cut)."""
    total = sum(count for _, count in counts)
    seen = 0
    for position, (start, count) in enumerate(counts):
        if position and 2 * seen >= total:
            return start
        seen += count
    return None


def _publish_home(
    tools: Tools, run: Run, record: HostRecord, *, force: bool
) -> tuple[str, str | None]:
    """Put a host's empty-site file where it changed (or was not listed); returns its hash and
    index lastmod."""
    key = record.prefix + EMPTY_SITE_KEY
    home = render_home(
        tools.layout.site_of_prefix(record.prefix), stylesheet=tools.config.stylesheet
    )
    sha = sha256_hex(home)
    recorded, lastmod = record.home or (None, None)
    changed = sha != recorded
    if changed or record.home is None or force:
        run.objects.put(key, home)
        if changed or lastmod is None:
            lastmod = run.now_w3c
    return sha, lastmod


def _publish_beside(
    run: Run, record: HostRecord, key: str, body: bytes, beside: list[tuple[str, str]]
) -> None:
    """Put a file whose bytes come with the package (the stylesheet, the view) when they are not
    the ones the record says were put: once per version of the package, not once per run. A run
    that died after putting it left the record of the bytes before, so the next run puts it
    again: a rewrite after a crash has nothing to add."""
    sha = sha256_hex(body)
    beside.append((key, sha))
    if sha != record.beside_sha256(key):
        run.objects.write(key, body)


def _publish_robots(
    tools: Tools, run: Run, out: Indexes, *, force: bool, again: bool
) -> str | None:
    """Put robots.txt where it changed (when the site publishes one); returns its hash. It
    names every index of every host: it is rendered only when it was never put, when a host
    gains an index or its URLs may have changed (``again``), and put when the run rewrites
    everything (``force``)."""
    if not tools.config.publish_robots_txt:
        return None
    if not (force or again) and run.publication.robots_sha256 is not None:
        return run.publication.robots_sha256
    run.trees.read_hosts(tools.layout.prefixes())
    urls = []
    for prefix in tools.layout.prefixes():
        record = out.records.get(prefix) or run.trees.records[prefix]
        urls += [tools.layout.url_of(key) for key in record.index_keys()]
    robots = robots_txt(urls)
    robots_sha = sha256_hex(robots)
    if robots_sha != run.publication.robots_sha256 or force:
        run.objects.write(ROBOTS_KEY, robots)
    return robots_sha


def is_listed(run: Run, indexes: Indexes, key: str) -> bool:
    """Whether an index of a listed host lists ``key`` once the run is done."""
    if key in indexes.after:
        return True
    prefix = key_prefix_of(key)
    if prefix not in run.placement.layout.prefixes():
        return False  # a host no longer listed has no index
    trees = run.trees
    trees.read_hosts([prefix])
    record = indexes.records.get(prefix, trees.records[prefix])
    news = indexes.news.get(prefix)
    if key in record.listed_keys() or (news is not None and key in {k for k, *_ in news.files}):
        return True
    shard = shard_of_file(key)
    if shard is None:
        return False
    run.read_points([(prefix, sort_key_of(shard))])
    state = run.state_of(shard) if shard in run.leaves else None
    if state is not None and listed_file(state) is not None:
        return True
    if run.leaving is not None and run.remaining:  # a move's old files stay listed
        old = run.leaving.states_read().get(shard)
        return old is not None and listed_file(old) is not None
    return False
