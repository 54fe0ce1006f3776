"""The state of a leaf: what the last run published for it (its file's digest, lastmod, URL count
and bytes). Leaves are stored in branches (``branches``), each with the states of its leaves."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NodeState:
    """What the last run published for the leaf ``shard_id``: its file's sha256, the newest
    lastmod of its entries, when its bytes last changed, its URL count and uncompressed bytes
    (no ``file_sha256``: no file yet)."""

    shard_id: str
    file_sha256: str | None = None
    file_lastmod: str | None = None
    file_changed_at: str | None = None
    url_count: int = 0
    file_bytes: int = 0
