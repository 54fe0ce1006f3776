"""The rebuild's state as the tests read it: every leaf of the trees of the layout the
publication is for, with its state, read through the layer's own stores."""

from __future__ import annotations

from typing import Any

from sitemap_updater.rebuild.state.branches import BranchStore, leaves_of
from sitemap_updater.rebuild.state.hosts import HostStore
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.rebuild.state.publication import PublicationStore
from sitemap_updater.store.keys import layout_key


def tree_states(dynamodb: Any, table: str) -> dict[str, NodeState]:
    """Every leaf of the published layout's trees -> its state (none before the first run)."""
    publication = PublicationStore(dynamodb, table).load().publication
    if publication is None:
        return {}
    key = layout_key(publication.layout)
    branches = BranchStore(dynamodb, table)
    states: dict[str, NodeState] = {}
    for prefix in HostStore(dynamodb, table).load_all(key):
        states |= leaves_of(branches.load(key, prefix))[0]
    return states
