"""The split and index path at a small shard cap: a full rebuild of 2,800 generated URLs with at
most 3 per file publishes more than 1,000 files, all listed in one valid index.

The rebuild is the real ``RebuildService`` (full mode: spool per shard, split on disk, render,
put to moto S3); only the DynamoDB Scan is replaced by ``SyntheticSource``. The checks read the
bucket back independently: every listed file exists, a sample of files is valid against the
XSDs, every URL is published exactly once, and each file holds only URLs whose hash starts with
its shard's bits (sha256 of the URL, as docs/architecture.md defines the hash).
"""

from __future__ import annotations

import gzip
import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from lxml import etree
from moto import mock_aws

from sitemap_updater.config import RebuildConfig
from sitemap_updater.rebuild.runner import RebuildService
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE
from sitemap_updater_local.deployment.stack.tables import create_template_table
from tests.conftest import FAKE_AWS_ENVIRONMENT
from tests.helpers.synthetic import SyntheticSource
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

SITE = "https://www.example.com"
TABLE = "scale-split"
BUCKET = "scale-split-bucket"
URLS = 2_800
CAP = 3
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@pytest.fixture
def scale_aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_template_table(dynamodb, DEFAULT_TEMPLATE, "Table", TABLE)
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        yield dynamodb, s3


def _bits(url: str, n: int) -> str:
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]
    return bin(int(digest, 16))[2:].zfill(128)[:n]


def test_a_small_cap_splits_into_more_than_1000_files_under_one_valid_index(
    scale_aws: tuple[Any, Any], tmp_path: Path
) -> None:
    dynamodb, s3 = scale_aws
    config = RebuildConfig.from_env(
        {
            "TABLE_NAME": TABLE,
            "SITE_URL": SITE,
            "BUCKET_NAME": BUCKET,
            "MAX_URLS_PER_SITEMAP": str(CAP),
            "TABLE_STREAM_ARN": dynamodb.describe_table(TableName=TABLE)["Table"][
                "LatestStreamArn"
            ],
        }
    )
    source = SyntheticSource(URLS, SITE)
    service = RebuildService(
        config,
        dynamodb=dynamodb,
        streams=boto3.client("dynamodbstreams", region_name="us-east-1"),
        s3=s3,
        cloudfront=None,
        owner="scale-split",
        remaining_seconds=lambda: 900.0,
        source=source,
        spool_root=str(tmp_path),
    )
    report = service.run(full=True)
    assert report.complete
    assert report.urls_published == URLS

    def get(key: str) -> bytes:
        body: bytes = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        return body

    listed = assert_valid_index(get("sitemap.xml"))
    assert len(listed) == report.files > 1_000
    keys = [loc.removeprefix(f"{SITE}/") for loc in listed]
    assert all(key.startswith("sitemap-pages-r") and key.endswith(".xml.gz") for key in keys)
    sample = set(random.Random(5).sample(keys, 40)) | {keys[0], keys[-1]}

    seen: list[str] = []
    for key in keys:
        body = get(key)
        if key in sample:
            locs = assert_valid_urlset(body)
        else:
            root = etree.fromstring(gzip.decompress(body))
            locs = [str(loc.text) for loc in root.iterfind("s:url/s:loc", NS)]
        assert 1 <= len(locs) <= CAP, key
        shard_bits = key.removeprefix("sitemap-pages-r").removesuffix(".xml.gz")
        assert all(_bits(url, len(shard_bits)) == shard_bits for url in locs), key
        seen += locs
    assert len(seen) == len(set(seen)) == URLS
    assert set(seen) == {source.page(i).url for i in range(URLS)}
    # a second run with nothing changed writes nothing
    again = service.run()
    assert again.objects_written == []
