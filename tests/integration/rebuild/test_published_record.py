"""The meta/published item against moto: the in-flight mark, the generation and the noted
invalidation across begin, note and save; a save over another run's is refused."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.state.publication import (
    Publication,
    PublicationConflictError,
    PublicationStore,
    SentBatch,
)
from tests.integration.rebuild.conftest import TABLE, Aws


def test_each_begin_takes_the_next_generation_and_drops_a_noted_invalidation(aws: Aws) -> None:
    store = PublicationStore(aws.dynamodb, TABLE)
    assert store.load().publication is None

    assert store.begin("run-1") == 1
    store.note_sent(SentBatch("ref-1", "digest-1"))
    crashed = store.load().publication
    assert crashed is not None
    assert (crashed.in_flight, crashed.generation) == ("run-1", 1)
    assert crashed.sent == SentBatch("ref-1", "digest-1")

    assert store.begin("run-2") == 2  # the retry writes: what was noted no longer describes it
    retry = store.load().publication
    assert retry is not None
    assert (retry.in_flight, retry.generation, retry.sent) == ("run-2", 2, None)


def test_save_keeps_the_generation_and_removes_the_mark(aws: Aws) -> None:
    store = PublicationStore(aws.dynamodb, TABLE)
    generation = store.begin("run-1")
    store.note_sent(SentBatch("ref-1", "digest-1"))
    publication = Publication(layout="sites=x", files=3, urls=20, generation=generation)

    store.save(publication, held=generation)

    assert store.load().publication == publication
    assert store.begin("run-2") == generation + 1


def test_a_run_whose_lease_expired_cannot_save_over_the_run_that_took_over(aws: Aws) -> None:
    store = PublicationStore(aws.dynamodb, TABLE)
    mine = store.begin("run-1")
    store.begin("run-2")  # the other run started writing meanwhile

    with pytest.raises(PublicationConflictError):
        store.save(Publication(layout="sites=x", generation=mine), held=mine)
    assert store.load().publication == Publication(in_flight="run-2", generation=mine + 1)
