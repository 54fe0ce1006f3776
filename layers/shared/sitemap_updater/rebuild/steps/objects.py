"""The run's reads and writes of published objects, each write preceded by the record that lets
the next run repair a crash.

- The run's first put is preceded by the publish record's ``in_flight`` mark, which also gives
  the run its publish generation: a run that dies with objects written leaves the mark behind.
- A key the published index does not list yet is entered in the retire ledger before it is first
  put, so that a crash before the index names it cannot leave it behind forever. A key that drops
  out of the index is entered too, and a key the saved record lists again is forgotten.
- An object is deleted only after its grace period and only when the published index no longer
  lists it (``state.retire.sweep``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable

from sitemap_updater.rebuild.outputs.bucket import Publisher
from sitemap_updater.rebuild.state.publication import PublicationStore
from sitemap_updater.rebuild.state.retire import RetireLedger, sweep


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


class RunObjects:
    """The objects one run reads and writes, and the retire ledger entries it keeps."""

    def __init__(
        self,
        publisher: Publisher,
        published: PublicationStore,
        ledger: RetireLedger,
        *,
        owner: str,
        listed: Callable[[str], bool],
        entries: dict[str, int],
        generation: int,
        now: float,
    ) -> None:
        self._publisher = publisher
        self._published = published
        self._ledger = ledger
        self._owner = owner
        #: whether an index listed ``key`` when the run read the state that holds it
        self._listed = listed
        self._now = now
        #: the retire ledger: S3 key -> ``retired_at`` (epoch seconds)
        self.entries = entries
        self.entries_read = len(entries)
        #: the publish generation: the record's, or the one the run's first write took
        self.generation = generation
        #: whether the run has marked the record ``in_flight`` (it wrote, or is about to)
        self.writing = False
        #: key -> sha256 of every object the run wrote
        self.written: dict[str, str] = {}

    def get(self, key: str) -> bytes | None:
        return self._publisher.get(key)

    def put(self, key: str, body: bytes) -> None:
        """Put an object; a key the published index does not list yet is entered in the retire
        ledger first."""
        if key not in self.entries and not self._listed(key):
            self._retire(key)
        self.write(key, body)

    def write(self, key: str, body: bytes) -> None:
        """Put an object; the run's first put is preceded by the ``in_flight`` mark."""
        if not self.writing:
            self.generation = self._published.begin(self._owner)
            self.writing = True
        self._publisher.put(key, body)
        self.written[key] = sha256_hex(body)

    def retire(self, key: str) -> None:
        """Enter ``key`` in the ledger (an object no longer needed: deleted after the grace
        period unless the record lists it again)."""
        if key not in self.entries:
            self._retire(key)

    def retire_dropped(self, before: Iterable[str], after: Collection[str]) -> None:
        """Enter in the ledger every key of ``before`` (what the indexes listed) that ``after``
        (what they list now) does not."""
        for key in before:
            if key not in after and key not in self.entries:
                self._retire(key)

    def forget_listed(self, files: Collection[str]) -> None:
        """Drop the ledger entries of the keys the saved record lists."""
        for key in files:
            if key in self.entries:
                self._ledger.forget(key)
                del self.entries[key]

    def sweep(self, listed: Callable[[str], bool], now: int, grace_seconds: int) -> list[str]:
        """Delete the objects whose grace period has passed and that no index lists."""
        return list(
            sweep(self._ledger, self.entries, listed, now, grace_seconds, self._publisher.delete)
        )

    def _retire(self, key: str) -> None:
        stamp = int(self._now)
        self._ledger.retire(key, stamp)
        self.entries[key] = stamp
