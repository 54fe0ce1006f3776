"""Crash injection and the published-state invariant for the rebuild crash tests.

``CrashPoint`` raises ``InjectedCrashError`` from a botocore event hook on one of the rebuild
handler's clients, at the n-th call that matches it. ``Watch`` checks, after every S3 write and
delete the handler makes (crashed or not), that what crawlers can fetch is consistent: the index
validates, every file it names exists and validates. It reads the bucket through its own client,
which no crash hook is registered on.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.exceptions import ClientError
from lxml import etree
from moto import mock_aws

from sitemap_updater.rebuild.inputs.feed import StreamFeed
from sitemap_updater.rebuild.state.checkpoint import CheckpointStore
from sitemap_updater.store.spaces import index_number_of, key_prefix_of
from tests.helpers.xsd import assert_valid_index
from tests.integration.rebuild.conftest import (
    BUCKET,
    SITE,
    STATE_TABLE,
    TABLE,
    Aws,
    _distribution,
    assert_published_file_valid,
    create_tables,
    load_handler,
)

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}

Params = dict[str, Any]


class InjectedCrashError(RuntimeError):
    """Raised from inside the rebuild to stand for the process dying at that point."""


@contextmanager
def world(env: Any) -> Iterator[Aws]:
    """A fresh moto table, bucket and distribution, and a freshly loaded rebuild handler.

    ``env`` is the rebuild tests' ``env`` monkeypatch (environment already set).
    """
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        env.setenv("TABLE_STREAM_ARN", create_tables(dynamodb, TABLE, STATE_TABLE))
        env.setenv("STATE_TABLE_NAME", STATE_TABLE)
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        cloudfront = boto3.client("cloudfront", region_name="us-east-1")
        distribution_id = _distribution(cloudfront)
        env.setenv("DISTRIBUTION_ID", distribution_id)
        yield Aws(dynamodb, s3, cloudfront, distribution_id, load_handler())


def handler_client(aws: Aws, service: str) -> Any:
    """The client the rebuild handler itself uses for ``service`` (created on first use)."""
    return aws.handler_module._client(service)


# -- crash points ------------------------------------------------------------------------------


@dataclass
class CrashPoint:
    """Crash at the ``nth`` (0-based) call of ``operation`` that ``matches``, before or after it.

    ``before`` crashes in ``before-parameter-build`` (the request is never sent); otherwise in
    ``after-call`` (the side effect happened, the process dies before using the answer).
    """

    label: str
    service: str
    operation: str
    before: bool
    nth: int = 0
    matches: Callable[[Params], bool] = lambda _params: True
    seen: int = 0
    fired: bool = False

    def arm(self, aws: Aws) -> Callable[[], None]:
        """Register the hooks on the handler's client; returns a function that removes them."""
        events = handler_client(aws, self.service).meta.events
        name = f"{self.service}.{self.operation}"
        uid = f"crash-{id(self)}"

        def hit() -> None:
            if self.fired:
                return
            if self.seen == self.nth:
                self.fired = True
                raise InjectedCrashError(f"crash {self.label} (call {self.nth})")
            self.seen += 1

        def before(params: Params, **_: Any) -> None:
            if self.matches(params):
                hit()

        def remember(params: Params, context: dict[str, Any], **_: Any) -> None:
            context["crash_match"] = self.matches(params)

        def after(context: dict[str, Any], http_response: Any, **_: Any) -> None:
            if context.get("crash_match") and http_response.status_code < 300:
                hit()

        if self.before:
            events.register(f"before-parameter-build.{name}", before, unique_id=uid)
            return lambda: events.unregister(f"before-parameter-build.{name}", unique_id=uid)
        events.register(f"before-parameter-build.{name}", remember, unique_id=uid + "-b")
        events.register(f"after-call.{name}", after, unique_id=uid + "-a")

        def disarm() -> None:
            events.unregister(f"before-parameter-build.{name}", unique_id=uid + "-b")
            events.unregister(f"after-call.{name}", unique_id=uid + "-a")

        return disarm


def is_shard_query(params: Params) -> bool:
    """A Query on the URL partitions (a shard read), not on the retire ledger."""
    values = params.get("ExpressionAttributeValues", {})
    return str(values.get(":pk", {}).get("S", "")).startswith("u#")


def is_checkpoint_save(params: Params) -> bool:
    """The PutItem of the feed checkpoint (``meta``/``feed`` in the state table)."""
    item = params.get("Item", {})
    return params.get("TableName") == STATE_TABLE and item.get("sk", {}).get("S") == "feed"


def is_published_file_read(params: Params) -> bool:
    """A GetObject of a published shard file (the state an incremental run patches)."""
    return str(params.get("Key", "")).startswith("sitemap-")


def is_index(params: Params) -> bool:
    return params.get("Key") == "sitemap.xml"


# -- what happened, in order -------------------------------------------------------------------


@dataclass
class Journal:
    """The handler's S3 writes/deletes and invalidations, in call order (successful calls)."""

    events: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def puts(self) -> list[str]:
        return [keys[0] for kind, keys in self.events if kind == "put"]


class Watch:
    """Checks the crawler-visible invariant after every S3 write and delete of the handler."""

    def __init__(self, aws: Aws, hosts: tuple[tuple[str, str], ...] = ()) -> None:
        self.aws = aws
        self.reader = BucketReader(boto3.client("s3", region_name="us-east-1"), SITE, hosts)
        self.journal = Journal()
        self.checks = 0
        self.violations: list[str] = []
        self._pending: dict[int, tuple[str, tuple[str, ...]]] = {}

    def install(self) -> None:
        s3 = handler_client(self.aws, "s3").meta.events
        cloudfront = handler_client(self.aws, "cloudfront").meta.events
        for op in ("PutObject", "DeleteObject", "DeleteObjects"):
            s3.register(f"before-parameter-build.s3.{op}", self._note, unique_id=f"watch-b-{op}")
            s3.register(f"after-call.s3.{op}", self._after_s3, unique_id=f"watch-a-{op}")
        cloudfront.register(
            "before-parameter-build.cloudfront.CreateInvalidation",
            self._note,
            unique_id="watch-b-cf",
        )
        cloudfront.register(
            "after-call.cloudfront.CreateInvalidation", self._after_cf, unique_id="watch-a-cf"
        )

    def _note(self, params: Params, model: Any, context: dict[str, Any], **_: Any) -> None:
        entry: tuple[str, tuple[str, ...]]
        if model.name == "PutObject":
            entry = ("put", (str(params["Key"]),))
        elif model.name == "DeleteObject":
            entry = ("delete", (str(params["Key"]),))
        elif model.name == "DeleteObjects":
            entry = ("delete", tuple(str(o["Key"]) for o in params["Delete"]["Objects"]))
        else:
            paths = params["InvalidationBatch"]["Paths"].get("Items", [])
            entry = ("invalidate", tuple(str(p) for p in paths))
        context["watch_entry"] = entry

    def _after_s3(self, context: dict[str, Any], http_response: Any, **_: Any) -> None:
        entry = context.get("watch_entry")
        if entry is not None and http_response.status_code < 300:
            self.journal.events.append(entry)
        problem = self.problem()
        self.checks += 1
        if problem is not None:
            self.violations.append(f"after {entry}: {problem}")

    def _after_cf(self, context: dict[str, Any], http_response: Any, **_: Any) -> None:
        entry = context.get("watch_entry")
        if entry is not None and http_response.status_code < 300:
            self.journal.events.append(entry)

    def problem(self) -> str | None:
        """What is wrong with the bucket as crawlers see it now, or None."""
        try:
            self.reader.published()
        except AssertionError as error:
            return str(error)
        return None


# -- reading what is published -----------------------------------------------------------------


class BucketReader:
    """Reads the bucket; an object is fetched and validated again only when its ETag changed.

    ``site`` is the URL the objects are published under (the location rule is checked against
    it); None skips that one rule, for a test whose site is not ``SITE``. ``hosts`` are the
    other hosts: (origin, key prefix) of each, its files under its prefix.
    """

    def __init__(
        self, s3: Any, site: str | None = None, hosts: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.s3 = s3
        self.site = site
        self.hosts = ((site, ""), *hosts)
        self._seen: dict[str, tuple[str, bytes]] = {}

    def _site_of(self, key: str) -> tuple[str | None, str]:
        """The origin a key is published under, and the key on that origin."""
        for origin, prefix in self.hosts[1:]:
            if key.startswith(prefix):
                return origin, key[len(prefix) :]
        return self.site, key

    def objects(self) -> dict[str, bytes]:
        """Every object of the bucket: key -> bytes; the index and every ``.xml.gz`` are checked
        with the project's validator and the XSDs (``assert_published_file_valid``)."""
        listing: dict[str, str] = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
            for obj in page.get("Contents", []):
                listing[obj["Key"]] = obj["ETag"]
        out: dict[str, bytes] = {}
        for key, etag in listing.items():
            cached = self._seen.get(key)
            if cached is None or cached[0] != etag:
                body = _get(self.s3, key)
                if body is None:  # deleted between the listing and the read
                    continue
                if key.endswith(".xml.gz") or index_number_of(key) is not None:
                    site, name = self._site_of(key)
                    assert_published_file_valid(name, body, site)
                cached = (etag, body)
                self._seen[key] = cached
            out[key] = cached[1]
        return out

    def published(self) -> dict[str, bytes]:
        """The files the published indexes name -> their decompressed XML: every index of
        every host (``sitemap.xml``, ``sitemap-2.xml``, ...), and every index robots.txt names.

        Raises AssertionError if an index or any object in the bucket is invalid (no invalid
        file may be fetchable), if an index names a file that does not exist, or robots.txt an
        index that does not. Before the first index is written nothing is published.
        """
        objects = self.objects()
        files: dict[str, bytes] = {}
        for origin, prefix in self.hosts:
            base = origin or SITE
            indexes = [
                key
                for key in objects
                if index_number_of(key) is not None and key_prefix_of(key) == prefix
            ]
            for index in indexes:
                for loc in assert_valid_index(objects[index]):
                    assert loc.startswith(base + "/sitemap-"), f"{index} names {loc!r}"
                    key = prefix + loc[len(base) + 1 :]
                    assert key in objects, f"{index} names {key}, which does not exist"
                    files[key] = gzip.decompress(objects[key])
        robots = objects.get("robots.txt")
        for line in (robots or b"").decode().splitlines():
            url = line.removeprefix("Sitemap: ")
            origin, prefix = next(
                ((o or SITE, p) for o, p in self.hosts[::-1] if url.startswith(f"{o or SITE}/")),
                (SITE, ""),
            )
            key = prefix + url[len(origin) + 1 :]
            assert key in objects, f"robots.txt names {key}, which does not exist"
        return files


def _get(s3: Any, key: str) -> bytes | None:
    try:
        body: bytes = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise
    return body


def bucket(s3: Any) -> dict[str, bytes]:
    """Every object of the bucket: key -> bytes (each sitemap file checked valid)."""
    return BucketReader(s3, SITE).objects()


def published_files(s3: Any) -> dict[str, bytes]:
    """See ``BucketReader.published``."""
    return BucketReader(s3, SITE).published()


def published_urls(s3: Any) -> dict[str, bytes]:
    """Every published URL -> its canonical ``<url>`` element (all fields), across all files."""
    urls: dict[str, bytes] = {}
    for xml in published_files(s3).values():
        for node in etree.fromstring(xml).findall("sm:url", NS):
            loc = node.findtext("sm:loc", namespaces=NS) or ""
            assert loc not in urls, f"{loc} is published twice"
            urls[loc] = etree.tostring(node, method="c14n")
    return urls


def index_entries(s3: Any) -> list[tuple[str, str | None]]:
    """The published index as (loc, lastmod) pairs."""
    index = _get(s3, "sitemap.xml")
    assert index is not None
    root = etree.fromstring(index)
    return [
        (n.findtext("sm:loc", namespaces=NS) or "", n.findtext("sm:lastmod", namespaces=NS))
        for n in root.findall("sm:sitemap", NS)
    ]


# -- copying a state into a fresh world ----------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Every item of both tables and every object (with its headers), to start several worlds
    alike. The feed checkpoint is not copied (it names another world's stream): ``restore``
    takes it at the new stream's end, after the restored URL items."""

    items: tuple[dict[str, Any], ...]
    state_items: tuple[dict[str, Any], ...]
    objects: tuple[tuple[str, bytes, str, str], ...]

    @classmethod
    def take(cls, aws: Aws) -> Snapshot:
        def scan(table: str) -> tuple[dict[str, Any], ...]:
            pages = aws.dynamodb.get_paginator("scan").paginate(
                TableName=table, ConsistentRead=True
            )
            return tuple(item for page in pages for item in page["Items"])

        items = scan(TABLE)
        state_items = tuple(i for i in scan(STATE_TABLE) if i["sk"]["S"] != "feed")
        objects = []
        for key in bucket(aws.s3):
            got = aws.s3.get_object(Bucket=BUCKET, Key=key)
            objects.append((key, got["Body"].read(), got["ContentType"], got["CacheControl"]))
        return cls(items, state_items, tuple(objects))

    def restore(self, aws: Aws) -> None:
        for table, items in ((TABLE, self.items), (STATE_TABLE, self.state_items)):
            for start in range(0, len(items), 25):
                chunk = items[start : start + 25]
                aws.dynamodb.batch_write_item(
                    RequestItems={table: [{"PutRequest": {"Item": item}} for item in chunk]}
                )
        arn = aws.dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
        feed = StreamFeed(boto3.client("dynamodbstreams", region_name="us-east-1"), arn)
        CheckpointStore(aws.dynamodb, STATE_TABLE).save(feed.tip(None))
        for key, body, content_type, cache_control in self.objects:
            aws.s3.put_object(
                Bucket=BUCKET,
                Key=key,
                Body=body,
                ContentType=content_type,
                CacheControl=cache_control,
            )
