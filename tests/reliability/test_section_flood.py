"""No producer can stop publishing: changes naming thousands of sections on a long host.

In 0.1.0 every section a change named became files of its own and a part of two state items;
about 5,500 of them filled those items, and every later run failed. Here a deployment (the
template on moto, its real functions) is sent 3,000 pages on a 184-character host, each naming a
section of its own with a 32-character name, then a second wave that names 1,000 more, changes
some pages and deletes others. Every page ingest accepts is published, in its own section while
the host has room (``MaxSectionsPerHost``) and in the section its path gives after that; every
run completes; the host never has more sections than the cap, so neither do the observer's
section figures; and no state item comes near DynamoDB's 400 KB.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

from lxml import etree

from sitemap_updater.observe.sampling import frames
from sitemap_updater.rebuild.state.published import PublishedStore
from sitemap_updater.sections import SectionRules
from sitemap_updater.store.items import item_size
from sitemap_updater.store.spaces import Layout, index_number_of, section_of_file
from sitemap_updater_local.deployment import LocalDeployment

HOST = ".".join(("s" * 60, "t" * 60, "u" * 50)) + ".example.com"
SITE = f"https://{HOST}"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
ITEM_LIMIT = 400 * 1024


def section(n: int) -> str:
    return f"s{n:05d}-" + "x" * 25  # 32 characters, the longest a section may have


def changes(pages: range, *, lastmod: str) -> list[dict[str, Any]]:
    return [
        {
            "action": "upsert",
            "url": f"{SITE}/p/{n}",
            "lastmod": lastmod,
            "section": section(n),
            "occurred_at": f"2026-05-0{1 if lastmod < '2026-06' else 2}T12:00:00Z",
        }
        for n in pages
    ]


def bodies(batch: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(batch[i : i + 500]) for i in range(0, len(batch), 500)]


def published(dep: LocalDeployment) -> dict[str, set[str]]:
    """Every URL each published section file lists, through every index."""
    objects = dep.objects()
    listed: dict[str, set[str]] = {}
    for key in objects:
        if index_number_of(key) is None:
            continue
        index = dep.s3.get_object(Bucket=dep.bucket_name, Key=key)["Body"].read()
        for loc in etree.fromstring(index).iterfind("sm:sitemap/sm:loc", NS):
            name = (loc.text or "").rsplit("/", 1)[-1]
            body = dep.s3.get_object(Bucket=dep.bucket_name, Key=name)["Body"].read()
            root = etree.fromstring(gzip.decompress(body))
            listed[name] = {u.text or "" for u in root.iterfind("sm:url/sm:loc", NS)}
    return listed


def largest_state_item(dep: LocalDeployment) -> int:
    table = dep.rebuild_function.environment["STATE_TABLE_NAME"]
    pages = dep.dynamodb.get_paginator("scan").paginate(TableName=table)
    return max(item_size(item) for page in pages for item in page["Items"])


#: the template's default cap; a larger one only moves the point where sections are refused
CAP = "100"


def test_thousands_of_sections_on_a_long_host_never_stop_publishing() -> None:
    cap = CAP
    with LocalDeployment(site_url=SITE, parameters={"MaxSectionsPerHost": cap}) as dep:
        assert dep.send(bodies(changes(range(3_000), lastmod="2026-05-01"))) == []
        assert dep.drain().records > 0
        first = dep.rebuild_until_clean()

        files = published(dep)
        urls = {url for locs in files.values() for url in locs}
        assert urls == {f"{SITE}/p/{n}" for n in range(3_000)}  # every page it accepted
        sections = {section_of_file(key) for key in files}
        assert len(sections) == int(cap)  # pages and the first sections named, no more
        assert first[-1]["sections_over_cap"]

        wave = changes(range(3_000, 4_000), lastmod="2026-06-01")
        wave += changes(range(0, 3_000, 7), lastmod="2026-06-02")
        wave += [
            {"action": "delete", "url": f"{SITE}/p/{n}", "occurred_at": "2026-05-03T12:00:00Z"}
            for n in range(1, 3_000, 11)
        ]
        assert dep.send(bodies(wave)) == []
        dep.drain()
        later = dep.rebuild_until_clean()

        assert all(report["complete"] for report in later[-1:])
        files = published(dep)
        deleted = {f"{SITE}/p/{n}" for n in range(1, 3_000, 11)}
        expected = {f"{SITE}/p/{n}" for n in range(4_000)} - deleted
        assert {url for locs in files.values() for url in locs} == expected
        # a section keeps its place once taken; one whose only page was deleted has no file
        kept = sections - {section(n) for n in range(1, 3_000, 11)}
        assert {section_of_file(key) for key in files} == kept
        assert dep.rebuild()["complete"] is True

        state_table = dep.rebuild_function.environment["STATE_TABLE_NAME"]
        record = PublishedStore(dep.dynamodb, state_table).load()
        layout = Layout.of(SITE, SectionRules(), SITE)
        (host,) = frames(record, layout)
        assert len(host.sections) <= int(cap)  # what SectionMetrics sends a metric for
        assert set(host.sections) == kept
        assert largest_state_item(dep) < ITEM_LIMIT // 4
