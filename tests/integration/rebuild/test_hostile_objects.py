"""Objects planted in the bucket by anyone who can write to it, through the real rebuild handler
on moto: whatever their bytes, the run succeeds, the file is rebuilt from the table and valid,
the repair is counted (``ObjectsRepaired``) and logged as a warning, and the next run is clean.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable

import pytest

from sitemap_updater.protocol.limits import MAX_READ_BACK_BYTES
from sitemap_updater.protocol.stylesheet import XML_DECLARATION
from sitemap_updater.protocol.urlset import URLSET_CLOSE, URLSET_ROOT, urlset_opening
from sitemap_updater.rebuild.outputs.indexnow import PENDING_KEY
from tests.integration.rebuild.conftest import BUCKET, SITE, Aws, page
from tests.integration.rebuild.test_metrics import emf_documents, metric_values
from tests.integration.rebuild.test_news_files import HOUR, T0, article
from tests.integration.rebuild.test_publish_economy import service


def urlset(*inner: bytes) -> bytes:
    """A gzipped urlset in the writer's frame around the given ``<url>`` lines."""
    return gzip.compress(urlset_opening(True) + b"".join(inner) + URLSET_CLOSE.encode())


def zeros_bomb() -> bytes:
    """A gzip member of well under a megabyte that inflates past the read-back bound."""
    return gzip.compress(b"\0" * (MAX_READ_BACK_BYTES + (1 << 20)), compresslevel=9)


HOSTILE: dict[str, Callable[[str], bytes]] = {
    "invalid UTF-8 in a loc": lambda loc: urlset(b"<url><loc>" + b"\xff\xfe" + b"</loc></url>\n"),
    "a non-ASCII lastmod": lambda loc: urlset(
        f"<url><loc>{loc}</loc><lastmod>２０２４-05-01</lastmod></url>\n".encode()
    ),
    "a planted url on another host": lambda loc: urlset(
        f"<url><loc>{loc}</loc></url>\n".encode(),
        b"<url><loc>https://evil.example.net/phish</loc></url>\n",
    ),
    "an entity and a DTD": lambda loc: gzip.compress(
        b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x "y">]>'
        + URLSET_ROOT.encode()
        + f"<url><loc>{loc}&x;</loc></url>\n".encode()
        + URLSET_CLOSE.encode()
    ),
    "a stylesheet of someone else's": lambda loc: gzip.compress(
        (
            XML_DECLARATION
            + '<?xml-stylesheet type="text/xsl" href="https://evil.example.net/x.xsl"?>\n'
        ).encode()
        + URLSET_ROOT.encode()
        + f"<url><loc>{loc}</loc></url>\n".encode()
        + URLSET_CLOSE.encode()
    ),
    "a gzip bomb": lambda loc: zeros_bomb(),
    "garbage": lambda loc: b"\x00not a sitemap\xff" * 100,
}


def warned_about(caplog: pytest.LogCaptureFixture, key: str) -> bool:
    return any(r.levelname == "WARNING" and r.__dict__.get("key") == key for r in caplog.records)


def repaired_metric(stdout: str) -> float:
    (document,) = emf_documents(stdout)
    return metric_values(document)["ObjectsRepaired"][1]


def plant(aws: Aws, make: Callable[[str], bytes]) -> tuple[str, list[str]]:
    """Publish 20 pages, then replace the largest file with hostile bytes; returns its key and
    the locs it held."""
    aws.upsert(*(page(i) for i in range(20)))
    aws.invoke()
    files = aws.crawl()
    key = max(files, key=lambda k: len(files[k]))
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=make(files[key][0]))
    return key, files[key]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_an_incremental_run_rebuilds_a_hostile_file_from_the_table(
    aws: Aws, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    key, locs = plant(aws, HOSTILE[kind])
    changed = int(locs[0].rsplit("/", 1)[1])
    aws.upsert(page(changed, "2024-06-01"))  # a change in the planted file's leaf
    capsys.readouterr()

    report = aws.invoke()

    out = capsys.readouterr().out
    assert report["status"] == "published"
    assert report["objects_repaired"] == [key]
    assert repaired_metric(out) == 1
    assert warned_about(caplog, key)
    assert sorted(aws.crawl()[key]) == sorted(locs)  # from the table, and valid
    assert report["drift_repaired"] >= 1  # a file that cannot be taken apart counts them all
    again = aws.invoke()
    assert again["objects_repaired"] == [] and again["objects_written"] == []
    assert aws.invoke({"full_rebuild": True})["drift_repaired"] == 0


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_full_rebuild_replaces_a_hostile_file(
    aws: Aws, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    key, locs = plant(aws, HOSTILE[kind])
    capsys.readouterr()

    report = aws.invoke({"full_rebuild": True})

    out = capsys.readouterr().out
    assert report["status"] == "published"
    assert report["drift_repaired"] >= 1
    assert sorted(aws.crawl()[key]) == sorted(locs)
    if kind in ("invalid UTF-8 in a loc", "a gzip bomb", "garbage"):  # not taken apart at all
        assert report["objects_repaired"] == [key]
        assert repaired_metric(out) == 1
    again = aws.invoke({"full_rebuild": True})
    assert again["objects_repaired"] == [] and again["drift_repaired"] == 0


def test_a_file_rewritten_in_the_writers_format_is_rebuilt_not_rebaselined(aws: Aws) -> None:
    # the planted file is valid, on the site, and in the writer's exact form: only its bytes
    # differ from what the state records, and the page it adds is not in the table
    key, locs = plant(aws, lambda loc: b"")
    extra = f"{SITE}/planted"
    body = urlset(*(f"<url><loc>{loc}</loc></url>\n".encode() for loc in [*locs, extra]))
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    aws.upsert(page(int(locs[0].rsplit("/", 1)[1]), "2024-06-01"))

    report = aws.invoke()

    assert report["objects_repaired"] == [key]
    assert extra not in aws.crawl()[key]
    assert report["drift_repaired"] >= 1


def test_an_object_over_the_read_bound_is_not_read(
    aws: Aws, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sitemap_updater.rebuild.outputs.bucket.MAX_READ_BACK_BYTES", 1000)
    key, locs = plant(aws, lambda loc: b"x" * 1001)
    aws.upsert(page(int(locs[0].rsplit("/", 1)[1]), "2024-06-01"))

    report = aws.invoke()

    assert report["objects_repaired"] == [key]
    assert sorted(aws.crawl()[key]) == sorted(locs)


def test_garbage_at_the_indexnow_state_starts_a_new_set(
    aws: Aws,
    env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    env.setenv("INDEXNOW_KEY", "5b2d0c6e-indexnow-test")
    env.setenv("INDEXNOW_ENDPOINT", "https://127.0.0.1:9/indexnow")  # never reached: backoff
    aws.upsert(*(page(i) for i in range(5)))
    aws.invoke()
    bodies = (b"\xff garbage", zeros_bomb(), gzip.compress(b'{"urls": [1, 2]}'))
    for day, body in enumerate(bodies, 1):
        aws.s3.put_object(Bucket=BUCKET, Key=PENDING_KEY, Body=body)
        aws.upsert(page(1, f"2024-06-0{day}"))
        capsys.readouterr()

        report = aws.invoke()

        out = capsys.readouterr().out
        assert report["status"] == "published"
        assert report["objects_repaired"] == [PENDING_KEY]
        assert repaired_metric(out) == 1
        assert warned_about(caplog, PENDING_KEY)
        stored = json.loads(gzip.decompress(aws.object(PENDING_KEY)["Body"].read()))
        assert stored["urls"] == [f"{SITE}/page/1"]
        assert aws.invoke()["objects_repaired"] == []


NEWS_KEY = "sitemap-news-1.xml.gz"


def _news_site(aws: Aws) -> tuple[list[float], bytes]:
    """Three recent articles published by a run at T0; returns the clock and the news file."""
    clock = [T0]
    aws.upsert(*(article(slug, T0 - HOUR) for slug in "abc"))
    service(clock).run()
    return clock, gzip.decompress(aws.object(NEWS_KEY)["Body"].read())


@pytest.mark.parametrize("stranger", [b"https://evil.example.net/phish", b"\xff\xfe"])
def test_a_planted_article_leaves_the_news_file_and_the_others_stay(
    aws: Aws, caplog: pytest.LogCaptureFixture, stranger: bytes
) -> None:
    clock, text = _news_site(aws)
    own = f"{SITE}/news/a".encode()
    first = text[text.index(b"<url>") : text.index(b"</url>\n") + 7]
    planted = text.replace(first, first + first.replace(own, stranger))
    aws.s3.put_object(Bucket=BUCKET, Key=NEWS_KEY, Body=gzip.compress(planted))

    report = service(clock).run()  # no change at all: the file is read back, as every run does

    assert report.objects_repaired == [NEWS_KEY]
    assert warned_about(caplog, NEWS_KEY)
    assert sorted(aws.crawl()[NEWS_KEY]) == [f"{SITE}/news/{slug}" for slug in "abc"]
    assert service(clock).run().objects_repaired == []


def test_a_news_file_that_is_garbage_costs_no_run(aws: Aws) -> None:
    clock, _ = _news_site(aws)
    aws.s3.put_object(Bucket=BUCKET, Key=NEWS_KEY, Body=zeros_bomb())

    report = service(clock).run()

    assert report.objects_repaired == [NEWS_KEY]
    aws.crawl()  # the index and every file it lists are valid
    aws.upsert(article("a", T0 - HOUR, title="Back"))  # an article returns with its next change
    assert service(clock).run().objects_repaired == []
    assert aws.crawl()[NEWS_KEY] == [f"{SITE}/news/a"]
