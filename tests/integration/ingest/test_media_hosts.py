"""MEDIA_HOSTS, end to end through the real handler: an image on a host it does not list goes to
the DLQ at once with its reason; one on a listed host, or on the site, is applied."""

from __future__ import annotations

from tests.integration.ingest.harness import SITE, IngestStack, body, sqs_record, upsert


def test_media_hosts_bound_the_images_a_producer_can_publish(stack: IngestStack) -> None:
    stack.env_overrides["MEDIA_HOSTS"] = "cdn.example.com"
    good = upsert("/ok", images=[{"loc": "https://cdn.example.com/a.jpg"}, {"loc": SITE + "/b"}])
    bad = upsert("/bad", images=[{"loc": "https://evil.example.org/a.jpg"}])

    response = stack.invoke(sqs_record(body(good)), sqs_record(body(bad), message_id="m-bad"))

    assert response == {"batchItemFailures": []}
    assert set(stack.url_items()) == {SITE + "/ok"}
    (message,) = stack.dlq_messages()
    reason = message["MessageAttributes"]["reason"]["StringValue"]
    assert 'field images[0].loc value "https://evil.example.org/a.jpg" rejected: ' in reason
    assert "media host (MEDIA_HOSTS): cdn.example.com, www.example.com" in reason


def test_without_media_hosts_any_host_is_taken(stack: IngestStack) -> None:
    change = upsert("/any", images=[{"loc": "https://elsewhere.example.org/a.jpg"}])

    response = stack.invoke(sqs_record(body(change)))

    assert response == {"batchItemFailures": []}
    assert set(stack.url_items()) == {SITE + "/any"}
