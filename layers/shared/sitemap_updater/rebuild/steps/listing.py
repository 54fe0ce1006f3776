"""Whether an index lists a key after the run: asked of the keys whose grace period in the
retire ledger has passed, before their objects are deleted. What the run has not read it reads
now (the host's record, the branches of the index the key's file falls in), so no listed file is
ever deleted, whatever the run read before."""

from __future__ import annotations

from sitemap_updater.rebuild.state.branches import listed_file, sort_key_of
from sitemap_updater.rebuild.steps.index import Indexes
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.store.spaces import key_prefix_of, shard_of_file


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
