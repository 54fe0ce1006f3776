"""moto fixtures for the rebuild: table, bucket, CloudFront distribution, environment, handler.

Tests drive the real handler (loaded by file path, as the local deployment loads it) with a
fake Lambda context whose remaining time a test can script.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import itertools
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from lxml import etree
from moto import mock_aws

from sitemap_updater.page.model import Page
from sitemap_updater.rebuild.state.publication import PublicationStore
from sitemap_updater.store.items import live_item, tombstone_item
from sitemap_updater.store.keys import (
    ATTR_SECTION,
    FEED_SK,
    HOSTS_PK_PREFIX,
    hash_bits,
    host_key,
    layout_key,
    meta_key,
    url_hash,
)
from sitemap_updater.store.shards import bits_of, depth_of
from sitemap_updater.store.spaces import index_number_of
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE
from sitemap_updater_local.deployment.stack.tables import create_template_table
from sitemap_updater_local.validation.document import validate_document
from tests.helpers.state import tree_states
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

ROOT = Path(__file__).resolve().parents[3]
HANDLER_PATH = ROOT / "functions" / "rebuild" / "app.py"
SITE = "https://www.example.com"
TABLE = "sitemap-test"
STATE_TABLE = "sitemap-test-state"
BUCKET = "sitemap-test-bucket"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}

_counter = itertools.count()


def assert_published_file_valid(key: str, data: bytes, site: str | None = SITE) -> list[str]:
    """Check an object the rebuild published at ``key`` of ``site`` (``sitemap.xml`` or a
    ``.xml.gz`` file) with the project's validator (XSDs, protocol limits, single host, location
    rule, lastmod forms) and, independently, with the XSD helper; returns the file's ``loc``
    values. With ``site`` None the location rule is not checked (the validator notes it)."""
    file_url = None if site is None else f"{site}/{key}"
    report = validate_document(data, source=key, file_url=file_url)
    # ok with no warning: the writer never writes an element the validator would take out
    assert report.ok and not report.warnings, "\n".join(report.lines())
    kind = "sitemapindex" if index_number_of(key) is not None else "urlset"
    assert report.kind == kind, f"{key} is a {report.kind}, not a {kind}"
    return assert_valid_index(data) if kind == "sitemapindex" else assert_valid_urlset(data)


class FakeContext:
    """The parts of a Lambda context the handler and Powertools use."""

    function_name = "sitemap-rebuild"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:sitemap-rebuild"
    log_group_name = "/aws/lambda/sitemap-rebuild"
    log_stream_name = "test"

    def __init__(self, remaining_ms: Callable[[], int] | None = None) -> None:
        self.aws_request_id = str(uuid.uuid4())
        self._remaining = remaining_ms or (lambda: 900_000)

    def get_remaining_time_in_millis(self) -> int:
        return self._remaining()


@dataclass
class Aws:
    dynamodb: Any
    s3: Any
    cloudfront: Any
    distribution_id: str
    handler_module: ModuleType
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    # -- driving the handler ---------------------------------------------------------------
    def invoke(
        self, event: dict[str, Any] | None = None, context: FakeContext | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = self.handler_module.lambda_handler(
            event if event is not None else {"detail-type": "Scheduled Event"},
            context or FakeContext(),
        )
        return result

    # -- what ingest would do ----------------------------------------------------------------
    def leaves(self) -> list[str]:
        """Every leaf of the trees, in shard id order."""
        return sorted(tree_states(self.dynamodb, STATE_TABLE))

    def host_record_key(self, prefix: str = "") -> dict[str, Any]:
        """The key of a host's record in the state table (of the published layout)."""
        publication = PublicationStore(self.dynamodb, STATE_TABLE).load().publication
        assert publication is not None
        key = host_key(HOSTS_PK_PREFIX, layout_key(publication.layout), prefix)
        return {name: {"S": value} for name, value in key.items()}

    def leaf_of(self, loc: str, space: str = "pages/") -> str:
        """The leaf of ``loc`` in ``space`` (the default section of the primary host)."""
        uh = url_hash(loc)
        for leaf in self.leaves():
            if leaf.startswith(space) and hash_bits(uh, depth_of(leaf)) == bits_of(leaf):
                return leaf
        raise AssertionError(f"no leaf for {loc}")

    def upsert(self, *entries: Page, section: str | None = None) -> None:
        """Write live URL items as ingest does (the table's stream carries them), each with
        the ``section`` its change named (None: the path rules place it)."""
        for entry in entries:
            digest = hashlib.sha256(f"{entry!r}{section}".encode()).hexdigest()
            ev = f"20240501T120000.{next(_counter):06d}Z#0#{digest}"
            item = live_item(entry, ev, digest)
            if section is not None:
                item[ATTR_SECTION] = {"S": section}
            self.dynamodb.put_item(TableName=TABLE, Item=item)

    def delete(self, *locs: str) -> None:
        """Write tombstones as ingest does."""
        for loc in locs:
            digest = hashlib.sha256(loc.encode()).hexdigest()
            ev = f"20240501T120000.{next(_counter):06d}Z#1#{digest}"
            self.dynamodb.put_item(
                TableName=TABLE, Item=tombstone_item(loc, ev, digest, 2_000_000_000)
            )

    def checkpoint(self) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self.dynamodb.get_item(
            TableName=STATE_TABLE, Key={k: {"S": v} for k, v in meta_key(FEED_SK).items()}
        ).get("Item")
        return item

    # -- what a crawler sees ---------------------------------------------------------------
    def object(self, key: str) -> dict[str, Any]:
        response: dict[str, Any] = self.s3.get_object(Bucket=BUCKET, Key=key)
        return response

    def object_keys(self) -> set[str]:
        listing = self.s3.list_objects_v2(Bucket=BUCKET)
        return {o["Key"] for o in listing.get("Contents", [])}

    def crawl(self, site: str = SITE, prefix: str = "") -> dict[str, list[str]]:
        """Every file the index of ``site`` (under the key ``prefix``) lists -> its locs; checks
        the index and every file it lists with the project's validator and the XSDs
        (``assert_published_file_valid``), against the host they are served from."""
        index = self.object(prefix + "sitemap.xml")["Body"].read()
        assert_published_file_valid("sitemap.xml", index, site)
        files: dict[str, list[str]] = {}
        for loc in etree.fromstring(index).findall("sm:sitemap/sm:loc", NS):
            assert loc.text is not None and loc.text.startswith(site + "/sitemap-")
            name = loc.text[len(site) + 1 :]
            raw = self.object(prefix + name)["Body"].read()
            assert_published_file_valid(name, raw, site)
            xml = gzip.decompress(raw)
            root = etree.fromstring(xml)
            files[prefix + name] = [e.text or "" for e in root.findall("sm:url/sm:loc", NS)]
        return files

    def index_lastmods(self) -> dict[str, str | None]:
        index = etree.fromstring(self.object("sitemap.xml")["Body"].read())
        result = {}
        for node in index.findall("sm:sitemap", NS):
            loc = node.findtext("sm:loc", namespaces=NS) or ""
            result[loc[len(SITE) + 1 :]] = node.findtext("sm:lastmod", namespaces=NS)
        return result

    def record_puts(self) -> list[str]:
        """A list that fills with the key of every PutObject the handler's S3 client sends."""
        keys: list[str] = []

        def before(params: dict[str, Any], **_: Any) -> None:
            keys.append(params["Key"])

        self.handler_module._client("s3").meta.events.register(
            "before-parameter-build.s3.PutObject", before
        )
        return keys

    def invalidations(self) -> list[list[str]]:
        listing = self.cloudfront.list_invalidations(DistributionId=self.distribution_id)
        batches = []
        for summary in listing["InvalidationList"].get("Items", []):
            got = self.cloudfront.get_invalidation(
                DistributionId=self.distribution_id, Id=summary["Id"]
            )
            batches.append(sorted(got["Invalidation"]["InvalidationBatch"]["Paths"]["Items"]))
        return batches


def load_handler() -> ModuleType:
    """A fresh copy of functions/rebuild/app.py (so no client is cached between tests)."""
    name = f"rebuild_app_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, HANDLER_PATH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _distribution(cloudfront: Any) -> str:
    config = {
        "CallerReference": "sitemap-test",
        "Comment": "sitemaps",
        "Enabled": True,
        "Origins": {
            "Quantity": 1,
            "Items": [
                {
                    "Id": "sitemaps",
                    "DomainName": f"{BUCKET}.s3.amazonaws.com",
                    "S3OriginConfig": {"OriginAccessIdentity": ""},
                }
            ],
        },
        "DefaultCacheBehavior": {
            "TargetOriginId": "sitemaps",
            "ViewerProtocolPolicy": "redirect-to-https",
            "MinTTL": 0,
            "ForwardedValues": {"QueryString": False, "Cookies": {"Forward": "none"}},
        },
    }
    response = cloudfront.create_distribution(DistributionConfig=config)
    return str(response["Distribution"]["Id"])


def apply_rebuild_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The rebuild handler's environment for these tests (moto credentials included)."""
    for name, value in {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "TABLE_NAME": TABLE,
        "SITE_URL": SITE,
        "BUCKET_NAME": BUCKET,
        "MAX_URLS_PER_SITEMAP": "8",
        "RETIRE_GRACE_SECONDS": "0",
        "TIME_BUDGET_MARGIN_SECONDS": "60",
        "POWERTOOLS_SERVICE_NAME": "sitemap-rebuild",
        "POWERTOOLS_METRICS_NAMESPACE": "SitemapUpdaterTest",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PUBLIC_BASE_URL", raising=False)
    return monkeypatch


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return apply_rebuild_env(monkeypatch)


@pytest.fixture
def aws(env: pytest.MonkeyPatch) -> Iterator[Aws]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        stream_arn = create_tables(dynamodb, TABLE, STATE_TABLE)
        env.setenv("TABLE_STREAM_ARN", stream_arn)
        env.setenv("STATE_TABLE_NAME", STATE_TABLE)
        dynamodb.update_time_to_live(
            TableName=TABLE,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"},
        )
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        cloudfront = boto3.client("cloudfront", region_name="us-east-1")
        distribution_id = _distribution(cloudfront)
        env.setenv("DISTRIBUTION_ID", distribution_id)
        yield Aws(dynamodb, s3, cloudfront, distribution_id, load_handler())


def create_tables(dynamodb: Any, table: str, state_table: str) -> str:
    """The URL table (with its NEW_IMAGE stream) and the rebuild's state table, as template.yaml
    declares them; returns the stream's ARN."""
    created = create_template_table(dynamodb, DEFAULT_TEMPLATE, "Table", table)
    create_template_table(dynamodb, DEFAULT_TEMPLATE, "StateTable", state_table)
    return str(created["LatestStreamArn"])


def page(n: int, lastmod: str | None = None) -> Page:
    return Page(url=f"{SITE}/page/{n}", lastmod=lastmod)
