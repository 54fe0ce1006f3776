"""The observer's items: keyed by hashes whatever the URL's or the host's length, every text
capped, every item sized before it is written, and the history bounded per day."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from sitemap_updater.observe.exclusion import EXCLUDED_PK, Exclusions
from sitemap_updater.observe.records import (
    HISTORY_DAY_ENTRIES,
    TEXT_CHARS,
    FiguresStore,
    HistoryStore,
    Observation,
    ObservationStore,
    fitted,
)
from sitemap_updater.observe.sampling import RANDOM
from sitemap_updater.store.items import MAX_ITEM_BYTES, item_size
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE
from sitemap_updater_local.deployment.stack.tables import create_template_table

NOW = 1_800_000_000.0
#: a host as long as a DNS name may be (253 characters)
LONG_HOST = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 57, "com"])


@pytest.fixture
def table() -> Iterator[tuple[Any, str]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_template_table(client, DEFAULT_TEMPLATE, "StateTable", "state")
        yield client, "state"


def _items(client: Any, name: str) -> list[dict[str, Any]]:
    return list(client.scan(TableName=name)["Items"])


def test_a_url_of_2048_bytes_is_kept_under_its_hash(table: tuple[Any, str]) -> None:
    client, name = table
    origin = f"https://{LONG_HOST}"
    url = f"{origin}/" + "p" * (2048 - len(origin) - 1)
    store = ObservationStore(client, name)
    store.save(origin, "section", Observation(url, RANDOM, checked_at=NOW), NOW)
    (item,) = _items(client, name)
    assert len(item["sk"]["S"]) == 32 and item["url"]["S"] == url
    assert len(item["pk"]["S"]) < 100  # the partition names the host and section by a hash
    assert list(store.load(origin, "section", NOW)) == [url]


def test_what_a_site_answers_is_capped_before_it_is_stored(table: tuple[Any, str]) -> None:
    client, name = table
    url = "https://www.example.com/r"
    far = "https://www.example.com/" + "x" * 60_000  # a 60 KB Location
    seen = Observation(url, RANDOM, redirect_to=far, health_reason="y" * 10_000, checked_at=NOW)
    ObservationStore(client, name).save("https://www.example.com", "s", seen, NOW)
    (item,) = _items(client, name)
    data = json.loads(item["data"]["S"])
    assert len(data["redirect_to"]) == TEXT_CHARS and data["redirect_to"].endswith("...")
    assert len(data["health_reason"]) < 400 and item_size(item) < 10_000


def test_a_figures_item_that_would_not_fit_is_cut_to_fit() -> None:
    excluded = [{"url": "https://www.example.com/" + "w" * 2000, "problem": "redirect"}] * 400
    item = fitted("https://www.example.com", "s", {"published": 1, "exclusions": excluded})
    kept = json.loads(item["data"]["S"])
    assert item_size(item) <= MAX_ITEM_BYTES
    assert kept["cut"] is True and 0 < len(kept["exclusions"]) < len(excluded)
    assert kept["published"] == 1


def test_figures_are_keyed_by_a_hash_and_name_their_host_and_section(
    table: tuple[Any, str],
) -> None:
    client, name = table
    store = FiguresStore(client, name)
    store.save(f"https://{LONG_HOST}", "", {"index": None})
    store.save(f"https://{LONG_HOST}", "articles", {"published": 3})
    found = store.load_all()
    assert found == {
        (f"https://{LONG_HOST}", ""): {"index": None},
        (f"https://{LONG_HOST}", "articles"): {"published": 3},
    }
    assert all(len(i["sk"]["S"]) == 32 for i in _items(client, name))


def test_figures_of_an_earlier_version_are_left_out_and_deleted(table: tuple[Any, str]) -> None:
    client, name = table
    old = {"pk": {"S": "observe#figures"}, "sk": {"S": "https://www.example.com#articles"}}
    client.put_item(TableName=name, Item={**old, "data": {"S": "{}"}})
    store = FiguresStore(client, name)
    assert store.load_all() == {} and store.legacy == [old]
    store.delete_legacy()
    assert _items(client, name) == []


def test_the_history_keeps_each_run_and_stops_a_day_at_its_bound(table: tuple[Any, str]) -> None:
    client, name = table
    history = HistoryStore(client, name)
    for run in range(HISTORY_DAY_ENTRIES + 5):
        history.append("https://www.example.com", "s", {"at": NOW + run, "inspected": run}, NOW)
    entries = history.load("https://www.example.com", "s", since=NOW, now=NOW)
    assert len(entries) == HISTORY_DAY_ENTRIES
    assert [e["inspected"] for e in entries[:3]] == [0, 1, 2]
    assert (
        history.load("https://www.example.com", "s", since=NOW + 10, now=NOW)[0]["at"] == NOW + 10
    )


def test_exclusions_of_an_earlier_version_move_to_their_hashed_keys(
    table: tuple[Any, str],
) -> None:
    client, name = table
    origin, url = "https://www.example.com", "https://www.example.com/gone"
    legacy = {"S": f"{EXCLUDED_PK}{origin}#pages"}
    client.put_item(
        TableName=name,
        Item={"pk": legacy, "sk": {"S": url}, "problem": {"S": "not-found"}, "since": {"N": "7"}},
    )
    exclusions = Exclusions(client, "urls", name)
    assert set(exclusions.load(origin, "pages")) == {url}
    (item,) = _items(client, name)
    assert item["pk"] != legacy and item["url"]["S"] == url and item["since"]["N"] == "7"
    assert set(exclusions.load(origin, "pages")) == {url}  # moved once, found again
