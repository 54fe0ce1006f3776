"""What counts as a visible change, what an event writes, which errors are transient."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError

from sitemap_updater.ingest.apply import item_for, visible_change
from sitemap_updater.ingest.intake import is_transient
from sitemap_updater.ingest.judge import Change
from sitemap_updater.page.model import Page
from sitemap_updater.page.order import delete_digest, event_key, page_digest
from sitemap_updater.store.items import Item, page_of_item, section_of_item

LOC = "https://www.example.com/a"
T = datetime(2026, 11, 20, tzinfo=UTC)


def upsert(page: Page, section: str | None = None) -> Change:
    d = page_digest(page, section)
    return Change(None, "upsert", page.url, page, T, d, event_key(T, "upsert", d), section)


def delete() -> Change:
    d = delete_digest(LOC)
    return Change(None, "delete", LOC, None, T, d, event_key(T, "delete", d))


def stored(state: str, digest: str) -> Item:
    return {"st": {"S": state}, "digest": {"S": digest}}


def test_item_for_upsert_and_delete() -> None:
    page = Page(url=LOC, changefreq="daily")
    change = upsert(page, "products")
    live = item_for(change, now_ms=5_000, tombstone_ttl_days=7)
    assert (live["st"]["S"], live["wt"]["N"]) == ("live", "5000")
    assert (live["ev"]["S"], live["digest"]["S"]) == (change.key, change.digest)
    assert page_of_item(live) == page and section_of_item(live) == "products"
    assert "ttl" not in live
    gone = item_for(delete(), now_ms=5_000, tombstone_ttl_days=2)
    assert (gone["st"]["S"], gone["ttl"]["N"]) == ("gone", str(5 + 2 * 86_400))
    assert "changefreq" not in gone


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        (None, stored("live", "d1"), True),
        (None, stored("gone", "x"), False),
        (stored("live", "d1"), stored("live", "d1"), False),
        (stored("live", "d1"), stored("live", "d2"), True),
        (stored("live", "d1"), stored("gone", "x"), True),
        (stored("gone", "x"), stored("live", "d1"), True),
        (stored("gone", "x"), stored("gone", "y"), False),
    ],
)
def test_visible_change(old: Item | None, new: Item, changed: bool) -> None:
    assert visible_change(old, new) is changed


def client_error(code: str, status: int) -> ClientError:
    response: Any = {
        "Error": {"Code": code, "Message": "m"},
        "ResponseMetadata": {"HTTPStatusCode": status},
    }
    return ClientError(response, "PutItem")


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (client_error("ProvisionedThroughputExceededException", 400), True),
        (client_error("ThrottlingException", 400), True),
        (client_error("RequestLimitExceeded", 400), True),
        (client_error("InternalServerError", 500), True),
        (client_error("Whatever", 503), True),
        (client_error("ValidationException", 400), False),
        (client_error("ResourceNotFoundException", 400), False),
        (EndpointConnectionError(endpoint_url="https://dynamodb"), True),
        (ReadTimeoutError(endpoint_url="https://dynamodb"), True),
        (RuntimeError("bug"), False),
    ],
)
def test_is_transient(exc: Exception, transient: bool) -> None:
    assert is_transient(exc) is transient
