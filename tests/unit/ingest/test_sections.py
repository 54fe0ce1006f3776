"""The section field of a change: the slug rule, its judgement, its digest."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sitemap_updater.ingest.judge import Change, Judged, judge_message
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.protocol.errors import InvalidSectionError
from sitemap_updater.sections import (
    DEFAULT_SECTION,
    MAX_SECTION_LEN,
    SECTION_PATTERN,
    check_section,
    is_section,
)
from sitemap_updater.sites import Sites

SITE = Sites.parse("https://www.example.com")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
URL = "https://www.example.com/shoes/42"
RULE = "must be a slug of 1 to 32 characters, each a lowercase letter a-z, a digit 0-9 or '-'"

GOOD = ["products", "a", "0", "-", "blog-2026", "x" * MAX_SECTION_LEN, DEFAULT_SECTION]
BAD: list[object] = ["", "x" * (MAX_SECTION_LEN + 1), "Products", "blog posts", "blog_posts",
                     "é", "a\n", "news/", 5, None, ["a"]]  # fmt: skip


@pytest.mark.parametrize("value", GOOD)
def test_a_slug_is_a_section(value: str) -> None:
    assert is_section(value)
    assert check_section(value) == value
    assert SECTION_PATTERN.fullmatch(value)


@pytest.mark.parametrize("value", BAD)
def test_anything_else_is_refused_naming_the_field_the_value_and_the_rule(value: object) -> None:
    assert not is_section(value)
    with pytest.raises(InvalidSectionError) as error:
        check_section(value, "detail.section")
    assert (error.value.field, error.value.value, error.value.rule) == (
        "detail.section",
        value,
        RULE,
    )


def _judged(body: object, sites: Sites = SITE) -> list[Judged]:
    return list(judge_message(json.dumps(body), sent_at=NOW, sites=sites, now=NOW).items)


def test_an_upsert_carries_its_section_and_its_digest_depends_on_it() -> None:
    (named,) = _judged({"action": "upsert", "url": URL, "section": "products"})
    (unnamed,) = _judged({"action": "upsert", "url": URL})
    (other,) = _judged({"action": "upsert", "url": URL, "section": "shoes"})
    assert isinstance(named, Change) and isinstance(unnamed, Change)
    assert isinstance(other, Change)
    assert (named.section, unnamed.section, other.section) == ("products", None, "shoes")
    assert named.page == unnamed.page
    # moving a page to another section is a change of what is published
    assert len({named.digest, unnamed.digest, other.digest}) == 3
    (explicit_null,) = _judged({"action": "upsert", "url": URL, "section": None})
    assert explicit_null == unnamed


@pytest.mark.parametrize("value", [v for v in BAD if v is not None])
def test_a_bad_section_is_rejected_and_the_rest_of_the_array_kept(value: object) -> None:
    bad = {"action": "upsert", "url": URL, "section": value}
    good = {"action": "upsert", "url": URL + "/b", "section": "products"}
    rejection, event = _judged([bad, good])
    assert isinstance(rejection, Rejection)
    assert (rejection.index, rejection.field, rejection.value) == (0, "section", value)
    if isinstance(value, str):
        assert rejection.rule == RULE
    assert isinstance(event, Change)
    assert event.section == "products"


def test_a_delete_checks_its_section_and_ignores_it() -> None:
    (plain,) = _judged({"action": "delete", "url": URL})
    (named,) = _judged({"action": "delete", "url": URL, "section": "products"})
    assert isinstance(plain, Change) and isinstance(named, Change)
    assert named == plain
    assert named.section is None
    (rejection,) = _judged({"action": "delete", "url": URL, "section": "Products"})
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value, rejection.rule) == ("section", "Products", RULE)


def test_the_section_of_an_eventbridge_detail_is_named_with_its_prefix() -> None:
    event = {
        "version": "0",
        "id": "1",
        "source": "cms",
        "detail-type": "PageChanged",
        "account": "123456789012",
        "time": "2026-11-21T11:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {"action": "upsert", "url": URL, "section": "-" * 33},
    }
    (rejection,) = _judged(event)
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.rule) == ("detail.section", RULE)


def test_a_change_is_judged_against_the_listed_site_that_owns_its_url() -> None:
    sites = Sites.parse("https://www.example.com,https://www.example.de")
    german = {
        "action": "upsert",
        "url": "https://www.example.de/schuhe/42",
        "alternates": [{"hreflang": "en", "href": URL}],
        "section": "products",
    }
    (event,) = _judged(german, sites)
    assert isinstance(event, Change)
    assert event.url == german["url"]
    assert event.section == "products"
    (rejection,) = _judged(german)  # the site alone: the German page is on no site of its
    assert isinstance(rejection, Rejection)
    assert rejection.field == "url"
