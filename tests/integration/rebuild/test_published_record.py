"""The meta/published item against moto: the in-flight mark, the generation and the noted
invalidation across begin, note and save."""

from __future__ import annotations

from sitemap_updater.rebuild.state.published import PublishedRecord, PublishedStore, SentBatch
from tests.integration.rebuild.conftest import TABLE, Aws


def test_each_begin_takes_the_next_generation_and_drops_a_noted_invalidation(aws: Aws) -> None:
    store = PublishedStore(aws.dynamodb, TABLE)
    assert store.load() is None

    assert store.begin("run-1") == 1
    store.note_sent(SentBatch("ref-1", "digest-1"))
    crashed = store.load()
    assert crashed is not None
    assert (crashed.in_flight, crashed.generation) == ("run-1", 1)
    assert crashed.sent == SentBatch("ref-1", "digest-1")

    assert store.begin("run-2") == 2  # the retry writes: what was noted no longer describes it
    retry = store.load()
    assert retry is not None
    assert (retry.in_flight, retry.generation, retry.sent) == ("run-2", 2, None)


def test_save_keeps_the_generation_and_removes_the_mark(aws: Aws) -> None:
    store = PublishedStore(aws.dynamodb, TABLE)
    generation = store.begin("run-1")
    store.note_sent(SentBatch("ref-1", "digest-1"))
    record = PublishedRecord(
        files=("sitemap-pages-r.xml.gz",),
        singles=(("sitemap.xml", "i" * 64),),
        generation=generation,
    )

    store.save(record)

    assert store.load() == record
    assert store.begin("run-2") == generation + 1
