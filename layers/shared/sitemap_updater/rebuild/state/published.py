"""What the published indexes list, as a whole: for the commands and functions that report on a
deployment (``status``, the search engine observer), never for a run, which reads only what it
needs (``rebuild.steps.trees``).

``PublishedStore.load`` reads the publication, every host record, branch and news item of its
layout, the held marks and, while a move is under way, the branches of the layout it leaves: one
Query a partition, so its cost grows with the site, as what it returns does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sitemap_updater.rebuild.freshness import Freshness
from sitemap_updater.rebuild.state.branches import BranchStore, leaves_of, listed_file
from sitemap_updater.rebuild.state.hosts import HostStore, NewsFiles
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.rebuild.state.publication import PublicationStore
from sitemap_updater.store.keys import EMPTY_SITE_KEY, layout_key
from sitemap_updater.store.spaces import index_file_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


@dataclass(frozen=True, slots=True)
class PublishedRecord:
    """``files`` are the keys the published indexes list (every host's), each with its index
    lastmod and URL count."""

    files: tuple[str, ...] = ()
    lastmods: tuple[str | None, ...] = ()
    counts: tuple[int, ...] = ()
    robots_sha256: str | None = None
    #: (key, sha256) of each host's indexes and the files beside them
    singles: tuple[tuple[str, str], ...] = ()
    #: owner of a run that started writing objects and has not saved its state (it crashed)
    in_flight: str | None = None
    #: number of runs that have started writing objects
    generation: int = 0
    #: leaves held back for a later run, and when the oldest change each holds back was
    #: written (epoch ms; None where unknown)
    pending: tuple[str, ...] = ()
    pending_since: tuple[int | None, ...] = ()
    #: when a run last wrote objects (epoch seconds), and the lag of the changes it published
    published_at: int | None = None
    freshness: Freshness | None = None

    def sha256_of(self, key: str) -> str | None:
        """The recorded hash of an index or a file beside it (None: not written yet)."""
        return dict(self.singles).get(key)

    def listing(self) -> dict[str, tuple[str | None, int]]:
        """File key -> (index lastmod, URL count)."""
        return {
            key: (lastmod, count)
            for key, lastmod, count in zip(self.files, self.lastmods, self.counts, strict=True)
        }


class PublishedStore:
    """Reads what the published indexes of one state table list."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def load(self) -> PublishedRecord | None:
        """What the last publish lists, or None before the first one (or before the first
        run of this version converted 0.1.0's state)."""
        publication = PublicationStore(self._client, self._table).load().publication
        if publication is None:
            return None
        key = layout_key(publication.layout)
        hosts = HostStore(self._client, self._table)
        branches = BranchStore(self._client, self._table)
        records = hosts.load_all(key)
        news = hosts.load_news(key)
        states: dict[str, NodeState] = {}
        held: dict[str, int | None] = {}
        for prefix in records:
            found, marks = leaves_of(branches.load(key, prefix))
            states |= found
            held |= marks
        listed = [entry for _, state in sorted(states.items()) if (entry := listed_file(state))]
        if publication.moving_from is not None:
            taken = {entry[0] for entry in listed}
            for prefix in hosts.load_all(publication.moving_from):
                if prefix not in records:
                    continue
                left, _ = leaves_of(branches.load(publication.moving_from, prefix))
                listed += [
                    entry
                    for _, state in sorted(left.items())
                    if (entry := listed_file(state)) and entry[0] not in taken
                ]
        singles: list[tuple[str, str]] = []
        for prefix, record in sorted(records.items()):
            files = news.get(prefix, NewsFiles(prefix)).files
            listed += [(k, lastmod, n) for k, _, lastmod, n in files]
            if record.home is not None:
                listed.append((prefix + EMPTY_SITE_KEY, record.home[1], 0))
                singles.append((prefix + EMPTY_SITE_KEY, record.home[0]))
            singles += [
                (index_file_key(prefix, part.number), part.sha256)
                for part in record.indexes
                if part.sha256 is not None
            ]
            singles += list(record.beside)
        pending = tuple(sorted(held))
        return PublishedRecord(
            files=tuple(key for key, _, _ in listed),
            lastmods=tuple(lastmod for _, lastmod, _ in listed),
            counts=tuple(count for _, _, count in listed),
            robots_sha256=publication.robots_sha256,
            singles=tuple(sorted(singles)),
            in_flight=publication.in_flight,
            generation=publication.generation,
            pending=pending,
            pending_since=tuple(held[leaf] for leaf in pending),
            published_at=publication.published_at,
            freshness=publication.freshness,
        )
