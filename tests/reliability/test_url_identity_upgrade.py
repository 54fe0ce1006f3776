"""Upgrading a stack whose table holds one page under several spellings of its URL.

The version before the full RFC 3986 normalization kept ``%7e``, lower-case hex, encoded letters
and dot segments as they came, so its table may hold ``/%7euser`` and ``/~user`` as two URL
items, each under the hash of its own spelling. The items below are written with the store
codec and the spellings that version stored (each was its own normalized form then). After the
upgrade, the next full rebuild publishes one entry per page: the newest change of the page wins,
whatever its spelling, and a delete under any spelling newer than every upsert removes it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from lxml import etree

from sitemap_updater.protocol.entry import Entry
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.store.keys import key_attributes, url_hash, url_key
from tests.integration.rebuild.conftest import NS, SITE, TABLE, Aws
from tests.reliability.crash_support import published_urls, world
from tests.reliability.test_crashes import apply_env

#: (the spellings of one page, in the order the old version wrote them), by the page's identity;
#: "-" before a spelling is a delete under it
HISTORIES = {
    "/~user": ["/%7euser", "/%7Euser", "/~user"],
    "/%E2%82%AC-sale": ["/%E2%82%AC-sale", "/%e2%82%ac-sale"],
    "/a/c/d": ["/a/c/d", "/a/b/../c/./d"],
    "/p/ABC": ["/p/%41BC", "-/p/ABC"],
    "/gone/~x": ["/gone/~x", "/gone/%7ex", "-/gone/%7Ex"],
    "/back/~y": ["/back/%7ey", "-/back/%7ey", "/back/~y"],
    "/plain": ["/plain"],
}
PUBLISHED = {"/~user", "/%E2%82%AC-sale", "/a/c/d", "/back/~y", "/plain"}


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Aws]:
    apply_env(monkeypatch)
    with world(monkeypatch) as aws:
        yield aws


def write_as_before_the_upgrade(aws: Aws) -> dict[str, str]:
    """The histories, each change a day after the one before it; the lastmod of the newest
    upsert of each page, by its identity."""
    newest: dict[str, str] = {}
    for identity, spellings in HISTORIES.items():
        for day, spelling in enumerate(spellings, 1):
            lastmod = f"2024-05-{day:02d}"
            if spelling.startswith("-"):
                aws.delete(SITE + spelling[1:])
                newest.pop(identity, None)
            else:
                aws.upsert(Entry(loc=SITE + spelling, lastmod=lastmod))
                newest[identity] = lastmod
    return newest


def lastmods(aws: Aws) -> dict[str, str | None]:
    """Every published loc (each checked to be listed once) -> its lastmod."""
    result = {}
    for loc, element in published_urls(aws.s3).items():
        result[loc] = etree.fromstring(element).findtext("sm:lastmod", namespaces=NS)
    return result


def stored_locs(aws: Aws) -> list[str]:
    items = aws.dynamodb.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return [item["loc"]["S"] for item in items if item["pk"]["S"].startswith("u#")]


def test_the_next_full_rebuild_publishes_each_page_once_with_its_newest_change(
    aws: Aws,
) -> None:
    newest = write_as_before_the_upgrade(aws)
    # the table holds several items for one page, each of a spelling today's rule changes
    spellings = {SITE + s.lstrip("-") for history in HISTORIES.values() for s in history}
    assert sorted(stored_locs(aws)) == sorted(spellings)
    assert {normalize_url(SITE + path) for path in HISTORIES} == {SITE + p for p in HISTORIES}

    report = aws.invoke({"full_rebuild": True})

    assert report["mode"] == "full" and report["complete"] is True
    assert lastmods(aws) == {SITE + identity: newest[identity] for identity in PUBLISHED}
    # the same table gives the same files again, and an incremental run keeps them
    aws.invoke({"full_rebuild": True})
    aws.upsert(Entry(loc=SITE + "/new", lastmod="2024-06-01"))
    assert aws.invoke()["mode"] == "incremental"
    expected = {SITE + identity: newest[identity] for identity in PUBLISHED}
    assert lastmods(aws) == expected | {SITE + "/new": "2024-06-01"}


def test_a_delete_after_the_upgrade_removes_the_page_stored_under_another_spelling(
    aws: Aws,
) -> None:
    aws.upsert(Entry(loc=SITE + "/%7euser", lastmod="2024-05-01"))
    aws.invoke({"full_rebuild": True})
    assert set(lastmods(aws)) == {SITE + "/~user"}

    # today's ingest writes a delete of /%7Euser (or of /~user) under the identity
    aws.delete(normalize_url(SITE + "/%7Euser"))
    aws.invoke()
    assert set(lastmods(aws)) == {SITE + "/"}  # the placeholder of a site with no page
    aws.invoke({"full_rebuild": True})
    assert set(lastmods(aws)) == {SITE + "/"}


def test_the_delete_outlives_its_tombstone(aws: Aws) -> None:
    aws.upsert(Entry(loc=SITE + "/%7euser", lastmod="2024-05-01"))
    aws.delete(SITE + "/~user")
    aws.invoke({"full_rebuild": True})
    assert SITE + "/~user" not in lastmods(aws)

    # TombstoneTtlDays later, DynamoDB's TTL has deleted the tombstone; the older spelling stays
    (tombstone,) = [loc for loc in stored_locs(aws) if loc == SITE + "/~user"]
    aws.dynamodb.delete_item(TableName=TABLE, Key=key_attributes(url_key(url_hash(tombstone))))
    assert stored_locs(aws) == [SITE + "/%7euser"]
    aws.invoke({"full_rebuild": True})
    assert SITE + "/~user" not in lastmods(aws)

    # a later upsert of the page brings it back, under its identity
    aws.upsert(Entry(loc=SITE + "/~user", lastmod="2024-07-01"))
    aws.invoke({"full_rebuild": True})
    assert lastmods(aws)[SITE + "/~user"] == "2024-07-01"
