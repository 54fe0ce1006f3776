"""The stylesheet (``STYLESHEET``, on by default): every file the rebuild publishes names
``sitemap.xsl``, which is put beside the index only when its bytes are not the ones put last; a
site that turns it off or on gets files that follow the setting as they are written."""

from __future__ import annotations

import gzip

from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION, stylesheet_body
from tests.integration.rebuild.conftest import SITE, STATE_TABLE, Aws, page
from tests.integration.rebuild.test_news_files import HOUR, T0, article
from tests.integration.rebuild.test_publish_economy import service

INSTRUCTION = STYLESHEET_INSTRUCTION.encode()


def names_stylesheet(aws: Aws, key: str) -> bool:
    body = aws.object(key)["Body"].read()
    text = body if key == "sitemap.xml" else gzip.decompress(body)
    return text.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n' + INSTRUCTION)


def test_every_file_names_the_stylesheet_which_is_published_once(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(*(page(i) for i in range(12)), article("a", T0 - HOUR))

    first = service(clock).run()

    files = aws.crawl()  # every file still passes the validator and the XSDs
    assert "sitemap-news-1.xml.gz" in files and len(files) > 2
    assert all(names_stylesheet(aws, key) for key in [*files, "sitemap.xml"])
    assert "sitemap.xsl" in first.objects_written
    stylesheet = aws.object("sitemap.xsl")
    assert stylesheet["Body"].read() == stylesheet_body()
    assert stylesheet["ContentType"] == "application/xslt+xml; charset=utf-8"

    clock[0] += 60
    aws.upsert(page(1, "2026-11-20"), article("b", T0))
    second = service(clock).run()

    assert second.objects_written and "sitemap.xsl" not in second.objects_written
    assert all(names_stylesheet(aws, key) for key in [*aws.crawl(), "sitemap.xml"])


def test_stylesheet_off_publishes_plain_files_and_turning_it_on_adds_it(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(*(page(i) for i in range(3)))

    off = service(clock, STYLESHEET="false").run()

    assert "sitemap.xsl" not in aws.object_keys()
    assert "sitemap.xsl" not in off.objects_written
    [key] = aws.crawl()
    assert not names_stylesheet(aws, key) and not names_stylesheet(aws, "sitemap.xml")

    clock[0] += 60
    aws.upsert(page(1, "2026-11-20"))  # the published file is patched
    on = service(clock).run()

    assert on.mode == "incremental"
    assert {key, "sitemap.xml", "sitemap.xsl"} <= set(on.objects_written)
    assert names_stylesheet(aws, key) and names_stylesheet(aws, "sitemap.xml")
    assert sorted(aws.crawl()[key]) == sorted(f"{SITE}/page/{i}" for i in range(3))


def test_a_stylesheet_not_the_one_last_put_is_put_again(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(page(1))
    service(clock).run()
    aws.dynamodb.update_item(  # as if an older release had put other bytes
        TableName=STATE_TABLE,
        Key=aws.host_record_key(),
        UpdateExpression="SET beside.#xsl = :old",
        ExpressionAttributeNames={"#xsl": "sitemap.xsl"},
        ExpressionAttributeValues={":old": {"S": "0" * 64}},
    )

    clock[0] += 60
    aws.upsert(page(2))
    again = service(clock).run()

    assert "sitemap.xsl" in again.objects_written
    assert aws.object("sitemap.xsl")["Body"].read() == stylesheet_body()
