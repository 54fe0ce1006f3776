"""Sections and several hosts through the rebuild handler on moto: every file holds one host's
and one section's URLs, each host has its own index, a page that moves leaves its old file in
the run that adds it to the new one, and one change rewrites one file and its host's index."""

from __future__ import annotations

from typing import Any

import pytest
from lxml import etree

from sitemap_updater.page.model import Alternate, Page
from tests.integration.rebuild.conftest import SITE, Aws, FakeContext

OTHER = "https://www.example.de"
RULES = "/p/=products,/blog/=articles"


@pytest.fixture
def sites(env: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    env.setenv("SITE_URL", f"{SITE},{OTHER}")
    env.setenv("SECTION_RULES", RULES)
    return env


def put(aws: Aws, loc: str, *, section: str | None = None, **fields: Any) -> None:
    aws.upsert(Page(url=loc, **fields), section=section)


def both_hosts(aws: Aws) -> dict[str, list[str]]:
    return {**aws.crawl(SITE, ""), **aws.crawl(OTHER, "www.example.de/")}


def section_of_key(key: str) -> str:
    name = key.rsplit("/", 1)[-1]
    return name.removeprefix("sitemap-").rsplit("-r", 1)[0]


def test_every_file_holds_one_host_and_one_section(aws: Aws, sites: pytest.MonkeyPatch) -> None:
    expected = {
        f"{SITE}/p/1": "products",
        f"{SITE}/blog/1": "articles",
        f"{SITE}/about": "pages",
        f"{SITE}/p/2": "sale",  # the change's own section beats the rules
        f"{OTHER}/p/1": "products",
        f"{OTHER}/impressum": "pages",
    }
    for loc, section in expected.items():
        put(aws, loc, section="sale" if section == "sale" else None)

    report = aws.invoke()

    assert report["complete"] is True
    files = both_hosts(aws)
    placed = {loc: section_of_key(key) for key, locs in files.items() for loc in locs}
    assert placed == expected
    for key, locs in files.items():
        origin = OTHER if key.startswith("www.example.de/") else SITE
        assert all(loc.startswith(origin + "/") for loc in locs), key
    index = aws.object("sitemap.xml")["Body"].read().decode()
    names = [n.rsplit("/", 1)[-1] for n in etree.fromstring(index.encode()).itertext()]
    sections = [section_of_key(n) for n in names if n.startswith("sitemap-")]
    assert sections == sorted(sections)  # grouped by section
    # the stylesheet the files name is beside each host's index
    for key in ("sitemap.xsl", "www.example.de/sitemap.xsl"):
        assert aws.object(key)["ContentType"].startswith("application/xslt+xml")


def test_a_page_that_moves_leaves_its_old_file_in_the_same_run(
    aws: Aws, sites: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        put(aws, f"{SITE}/p/{n}")
    put(aws, f"{SITE}/about")
    aws.invoke()
    put(aws, f"{SITE}/p/1", section="sale")
    put(aws, f"{SITE}/about", section="sale")

    report = aws.invoke()

    assert report["mode"] == "incremental"
    files = both_hosts(aws)
    holding = {
        loc: [section_of_key(k) for k, locs in files.items() if loc in locs]
        for loc in (f"{SITE}/p/1", f"{SITE}/about", f"{SITE}/p/0")
    }
    assert holding == {
        f"{SITE}/p/1": ["sale"],
        f"{SITE}/about": ["sale"],
        f"{SITE}/p/0": ["products"],
    }
    assert "sitemap-pages-r.xml.gz" not in {k for k in files}  # emptied: it leaves the index


def test_a_move_cut_short_by_the_time_budget_never_leaves_a_page_in_both_files(
    aws: Aws, sites: pytest.MonkeyPatch
) -> None:
    put(aws, f"{SITE}/about")
    put(aws, f"{SITE}/team")
    aws.invoke()
    put(aws, f"{SITE}/about", section="archive")  # its new file sorts before its old one
    puts = aws.record_puts()

    cut = aws.invoke(context=FakeContext(lambda: 30_000 if puts else 120_000))

    assert cut["complete"] is False
    holding = [key for key, locs in both_hosts(aws).items() if f"{SITE}/about" in locs]
    assert len(holding) <= 1
    aws.invoke()
    holding = [key for key, locs in both_hosts(aws).items() if f"{SITE}/about" in locs]
    assert holding == ["sitemap-archive-r.xml.gz"]


def test_a_deleted_page_with_its_own_section_leaves_that_section(
    aws: Aws, sites: pytest.MonkeyPatch
) -> None:
    put(aws, f"{SITE}/p/1", section="sale")
    put(aws, f"{SITE}/p/2", section="sale")
    aws.invoke()
    aws.delete(f"{SITE}/p/1")  # the tombstone names no section

    aws.invoke()

    assert both_hosts(aws) == {
        "sitemap-sale-r.xml.gz": [f"{SITE}/p/2"],
        "www.example.de/sitemap-home.xml.gz": [f"{OTHER}/"],
    }


def test_one_change_rewrites_one_file_and_its_own_host_index(
    aws: Aws, sites: pytest.MonkeyPatch
) -> None:
    for n in range(4):
        put(aws, f"{SITE}/p/{n}")
        put(aws, f"{OTHER}/blog/{n}")
    aws.invoke()
    put(aws, f"{OTHER}/blog/2", lastmod="2024-06-01")

    report = aws.invoke()

    assert report["objects_written"] == [
        "www.example.de/sitemap-articles-r.xml.gz",
        "www.example.de/sitemap.xml",
    ]
    assert report["s3_objects_read"] == ["www.example.de/sitemap-articles-r.xml.gz"]


def test_alternates_may_point_to_another_listed_host(aws: Aws, sites: pytest.MonkeyPatch) -> None:
    pair = (
        Alternate(hreflang="en", href=f"{SITE}/p/1"),
        Alternate(hreflang="de", href=f"{OTHER}/p/1"),
    )
    put(aws, f"{SITE}/p/1", alternates=pair)
    put(aws, f"{OTHER}/p/1", alternates=pair)

    report = aws.invoke()

    assert report["urls_skipped"] == []
    assert both_hosts(aws)["www.example.de/sitemap-products-r.xml.gz"] == [f"{OTHER}/p/1"]


def test_a_host_taken_off_the_list_leaves_no_index_behind(
    aws: Aws, sites: pytest.MonkeyPatch
) -> None:
    put(aws, f"{SITE}/p/1")
    put(aws, f"{OTHER}/p/1")
    aws.invoke()
    assert "www.example.de/sitemap.xml" in aws.object_keys()
    sites.setenv("SITE_URL", SITE)

    aws.invoke()  # another layout: a full rebuild (the grace period is 0 here)

    assert not {k for k in aws.object_keys() if k.startswith("www.example.de/")}
    sites.setenv("SITE_URL", f"{SITE},{OTHER}")
    aws.invoke()  # listed again: its index comes back and stays
    aws.invoke()
    assert "www.example.de/sitemap.xml" in aws.object_keys()
