"""The view for people (``sitemap.html``, ``sitemap.js``, ``sitemap.css``): put beside each host's
index with the first publish, with the bucket's headers for each, and never again by a run while
its bytes are the ones put last, whatever the stylesheet setting."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.outputs.bucket import kind_of
from sitemap_updater.view import VIEW_NAMES, view_files
from tests.integration.rebuild.conftest import STATE_TABLE, Aws, page
from tests.integration.rebuild.test_news_files import T0
from tests.integration.rebuild.test_publish_economy import service


@pytest.mark.parametrize("stylesheet", ["true", "false"])
def test_the_view_is_published_once_beside_the_index(aws: Aws, stylesheet: str) -> None:
    clock = [T0]
    aws.upsert(*(page(i) for i in range(5)))

    first = service(clock, STYLESHEET=stylesheet).run()

    assert set(VIEW_NAMES) <= set(first.objects_written)
    for name, body in view_files():
        stored = aws.object(name)
        assert stored["Body"].read() == body
        assert stored["ContentType"] == kind_of(name).content_type
        assert stored["CacheControl"] == kind_of(name).cache_control

    for minute in (1, 2):
        clock[0] += 60 * minute
        aws.upsert(page(minute, "2026-11-20"))
        later = service(clock, STYLESHEET=stylesheet).run()
        assert later.objects_written and not set(VIEW_NAMES) & set(later.objects_written)

    clock[0] += 600
    full = service(clock, STYLESHEET=stylesheet).run(full=True)
    assert not set(VIEW_NAMES) & set(full.objects_written)


def test_a_view_not_the_one_last_put_is_put_again(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(page(1))
    service(clock).run()
    aws.dynamodb.update_item(  # as if an older release had put another version of the script
        TableName=STATE_TABLE,
        Key=aws.host_record_key(),
        UpdateExpression="SET beside.#js = :old",
        ExpressionAttributeNames={"#js": "sitemap.js"},
        ExpressionAttributeValues={":old": {"S": "0" * 64}},
    )

    clock[0] += 60
    aws.upsert(page(2))
    again = service(clock).run()

    assert "sitemap.js" in again.objects_written
    assert "sitemap.html" not in again.objects_written
    assert aws.object("sitemap.js")["Body"].read() == dict(view_files())["sitemap.js"]
