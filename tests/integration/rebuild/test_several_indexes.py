"""A host whose files pass what one index may list gets several indexes: ``sitemap.xml``,
``sitemap-2.xml``, ... Together they list every file once, each within the cap, robots.txt
names every one, and the runs that add and delete pages keep them so; an incremental run leaves
the indexes a full rebuild writes.

The caps are lowered so that a few hundred URLs take several indexes: ``MAX_FILES_PER_INDEX``
(the protocol's 50,000 in a deployment) and the most leaves a branch holds (512), the unit an
index is cut at."""

from __future__ import annotations

import gzip
import re

import pytest
from lxml import etree

from sitemap_updater.rebuild.state import branches
from sitemap_updater.store.spaces import index_number_of
from tests.integration.rebuild.conftest import (
    NS,
    SITE,
    Aws,
    assert_published_file_valid,
    page,
)

FILES_PER_INDEX = 5


@pytest.fixture(autouse=True)
def _small_caps(env: pytest.MonkeyPatch) -> None:
    env.setenv("MAX_FILES_PER_INDEX", str(FILES_PER_INDEX))
    env.setenv("PUBLISH_ROBOTS_TXT", "true")
    env.setattr(branches, "MAX_BRANCH_LEAVES", 3)


def _indexes(aws: Aws) -> dict[int, list[str]]:
    """Each index's number -> the file keys it lists (each index and file checked valid)."""
    found: dict[int, list[str]] = {}
    for key in sorted(aws.object_keys()):
        number = index_number_of(key)
        if number is None:
            continue
        body = aws.object(key)["Body"].read()
        assert_published_file_valid(key, body, SITE)
        locs = [loc.text or "" for loc in etree.fromstring(body).iterfind("sm:sitemap/sm:loc", NS)]
        found[number] = [loc[len(SITE) + 1 :] for loc in locs]
    return found


def _check(aws: Aws, expected: set[str]) -> dict[int, list[str]]:
    indexes = _indexes(aws)
    assert sorted(indexes) == list(range(1, len(indexes) + 1))  # sitemap.xml, sitemap-2.xml...
    assert len(indexes) >= 2
    assert all(1 <= len(keys) <= FILES_PER_INDEX for keys in indexes.values())
    listed = [key for keys in indexes.values() for key in keys]
    assert len(listed) == len(set(listed))  # each file in one index
    files = {k for k in aws.object_keys() if k.endswith(".xml.gz")}
    assert set(listed) == files  # every file published is listed, and only those
    urls: list[str] = []
    for key in listed:
        body = aws.object(key)["Body"].read()
        assert_published_file_valid(key, body, SITE)
        root = etree.fromstring(gzip.decompress(body))
        urls += [loc.text or "" for loc in root.iterfind("sm:url/sm:loc", NS)]
    assert sorted(urls) == sorted(expected)
    robots = aws.object("robots.txt")["Body"].read().decode()
    named = re.findall(r"^Sitemap: (.+)$", robots, flags=re.M)
    assert named == [
        f"{SITE}/sitemap.xml" if n == 1 else f"{SITE}/sitemap-{n}.xml" for n in sorted(indexes)
    ]
    return indexes


def test_a_host_past_one_index_is_listed_by_several(aws: Aws) -> None:
    aws.upsert(*(page(n, "2024-05-01") for n in range(150)))
    assert aws.invoke({"full_rebuild": True})["complete"] is True
    first = _check(aws, {f"{SITE}/page/{n}" for n in range(150)})

    aws.upsert(*(page(n, "2024-05-02") for n in range(150, 260)))
    aws.delete(*(f"{SITE}/page/{n}" for n in range(0, 150, 6)))
    report = aws.invoke()
    assert report["mode"] == "incremental" and report["complete"] is True
    expected = {f"{SITE}/page/{n}" for n in range(260) if n >= 150 or n % 6}
    later = _check(aws, expected)
    assert len(later) > len(first)  # the new files took another index

    before = {key: aws.object(key)["Body"].read() for key in aws.object_keys()}
    full = aws.invoke({"full_rebuild": True})
    assert full["complete"] is True and full["drift_repaired"] == 0
    # the same indexes and files, byte for byte, as the incremental runs left
    assert {key: aws.object(key)["Body"].read() for key in aws.object_keys()} == before
