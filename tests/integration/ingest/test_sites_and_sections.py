"""Several sites and the section field, end to end through the real handler: a loc on any listed
site is applied and one elsewhere goes to the DLQ naming the sites; alternates may point to the
other listed sites (to any host with ALTERNATES_ANY_HOST); a change's section is stored as the
item's ``sec``, and a later upsert without one removes it."""

from __future__ import annotations

import json

from sitemap_updater.store.items import section_of_item
from tests.integration.ingest.harness import SITE, IngestStack, body, sqs_record, upsert

OTHER = "https://www.example.de"
SITES = f"{SITE}, {OTHER}"


def _reason(message: dict[str, object]) -> str:
    attributes = message["MessageAttributes"]
    assert isinstance(attributes, dict)
    return str(attributes["reason"]["StringValue"])


def test_a_loc_on_any_listed_site_is_applied_and_one_elsewhere_is_rejected(
    stack: IngestStack,
) -> None:
    stack.env_overrides["SITE_URL"] = SITES
    german = {
        "action": "upsert",
        "url": OTHER + "/schuhe/42",
        "occurred_at": "2026-11-20T10:00:00Z",
    }
    french = {**german, "url": "https://www.example.fr/chaussures/42"}

    response = stack.invoke(
        sqs_record(body(upsert("/shoes/42"))),
        sqs_record(body(german)),
        sqs_record(body(french), message_id="m-fr"),
    )

    assert response == {"batchItemFailures": []}
    assert set(stack.url_items()) == {SITE + "/shoes/42", OTHER + "/schuhe/42"}
    (message,) = stack.dlq_messages()
    reason = _reason(message)
    assert 'field url value "https://www.example.fr/chaussures/42" rejected: ' in reason
    assert f"must be on one of the sites (SITE_URL): {SITE}, {OTHER}" in reason


def test_alternates_may_point_to_the_other_listed_sites(stack: IngestStack) -> None:
    stack.env_overrides["SITE_URL"] = SITES
    alternates = [
        {"hreflang": "en", "href": SITE + "/shoes/42"},
        {"hreflang": "de", "href": OTHER + "/schuhe/42"},
    ]
    change = upsert("/shoes/42", alternates=alternates)
    foreign = upsert(
        "/shoes/43", alternates=[{"hreflang": "fr", "href": "https://www.example.fr/43"}]
    )

    stack.invoke(sqs_record(body(change)), sqs_record(body(foreign), message_id="m-fr"))

    item = stack.url_items()[SITE + "/shoes/42"]
    assert [a["M"]["href"]["S"] for a in item["alternates"]["L"]] == [
        SITE + "/shoes/42",
        OTHER + "/schuhe/42",
    ]
    (message,) = stack.dlq_messages()
    assert "field alternates[0].href" in _reason(message)

    stack.env_overrides["ALTERNATES_ANY_HOST"] = "true"
    stack.invoke(sqs_record(body(foreign)))
    assert SITE + "/shoes/43" in stack.url_items()
    assert stack.dlq_messages() == []


def test_an_alternate_on_another_host_is_refused_where_the_site_stands_alone(
    stack: IngestStack,
) -> None:
    change = upsert("/shoes/42", alternates=[{"hreflang": "de", "href": OTHER + "/schuhe/42"}])

    stack.invoke(sqs_record(body(change)))

    assert stack.url_items() == {}
    (message,) = stack.dlq_messages()
    assert f"must be on {SITE} (same scheme, host and port as the site)" in _reason(message)


def test_the_section_is_stored_and_a_later_upsert_without_one_removes_it(
    stack: IngestStack,
) -> None:
    stack.invoke(sqs_record(body(upsert("/shoes/42", section="products"))))
    item = stack.url_items()[SITE + "/shoes/42"]
    assert item["sec"] == {"S": "products"}
    assert section_of_item(item) == "products"

    stack.invoke(sqs_record(body(upsert("/shoes/42", "2026-11-20T10:00:01Z"))))
    item = stack.url_items()[SITE + "/shoes/42"]
    assert "sec" not in item
    assert section_of_item(item) is None


def test_a_bad_section_is_rejected_with_its_rule_and_the_rest_of_the_array_is_applied(
    stack: IngestStack,
) -> None:
    changes = [upsert("/a", section="blog-2026"), upsert("/b", section="Blog Posts")]

    response = stack.invoke(sqs_record(json.dumps(changes), message_id="m-array"))

    assert response == {"batchItemFailures": []}
    assert {loc: section_of_item(i) for loc, i in stack.url_items().items()} == {
        SITE + "/a": "blog-2026"
    }
    (message,) = stack.dlq_messages()
    reason = _reason(message)
    assert 'field section value "Blog Posts" rejected: must be a slug of 1 to 32 characters' in (
        reason
    )
