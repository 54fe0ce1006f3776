"""Every hostile body of the corpus through the real ingest handler, then one real rebuild.

Each SQS batch carries up to nine corpus cases and one valid companion record. No batch may
fail (a permanent error is dead-lettered, never retried), every companion must be applied, every
rejection must name its field (and value), every partial rejection its bad indexes, and the
published files must validate and hold exactly the URLs the corpus predicts, escaped: no element
the sitemap formats do not define, and every ``loc`` text equal to the expected URL.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

import boto3
import pytest
from lxml import etree
from moto import mock_aws

from tests.helpers.xsd import assert_valid_index
from tests.integration.ingest.harness import (
    BASE_ENV,
    IngestStack,
    LambdaContext,
    make_stack,
    sqs_event,
    sqs_record,
)
from tests.integration.ingest.harness import load_handler as load_ingest_handler
from tests.integration.rebuild.conftest import FakeContext, load_handler
from tests.reliability.crash_support import BucketReader
from tests.reliability.hostile_corpus import (
    CASES,
    IDN_SITE,
    IDN_SITE_ASCII,
    IDN_SITE_CASES,
    SITE,
    Case,
)

TABLE = "sitemap-hostile"
BUCKET = "sitemap-test-bucket"  # the bucket the shared readers use
CASES_PER_BATCH = 9  # + one valid companion = 10, the SQS batch maximum
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"
#: Every element a published urlset may contain (sitemaps.org, Google image and hreflang).
ALLOWED = {
    f"{{{SM}}}urlset",
    f"{{{SM}}}url",
    f"{{{SM}}}loc",
    f"{{{SM}}}lastmod",
    f"{{{SM}}}changefreq",
    f"{{{SM}}}priority",
    f"{{{XHTML}}}link",
    f"{{{IMAGE}}}image",
    f"{{{IMAGE}}}loc",
    *(
        f"{{http://www.google.com/schemas/sitemap-video/1.1}}{name}"
        for name in (
            "video",
            "thumbnail_loc",
            "title",
            "description",
            "content_loc",
            "tag",
            "uploader",
        )
    ),
}

# -- the expected form of a URL, derived from RFC 3986 independently of the code -------------

#: RFC 3986 section 2.2/2.3: unreserved and reserved characters, which stay as they are.
_KEEP = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?")
_PCT = re.compile(r"%[0-9A-Fa-f]{2}")


def expected_url(raw: str) -> str:
    """``raw`` (on the test site, no port) with its fragment dropped and every character RFC 3986
    does not allow percent-encoded as UTF-8; valid ``%XX`` sequences are kept."""
    scheme, rest = raw.split("://", 1)
    host, slash, tail = rest.partition("/")
    tail = (slash + tail).split("#", 1)[0]
    out = []
    i = 0
    while i < len(tail):
        if _PCT.match(tail, i):
            out.append(tail[i : i + 3])
            i += 3
            continue
        ch = tail[i]
        out.append(ch if ch in _KEEP else "".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        i += 1
    return f"{scheme.lower()}://{host.lower()}{''.join(out) or '/'}"


def entries_of(case: Case) -> list[Any]:
    obj = json.loads(case.body)
    return obj if isinstance(obj, list) else [obj]


def predicted(case: Case) -> set[str]:
    """The URLs the case must publish."""
    if case.published:
        return set(case.published)
    if case.expect == "rejected":
        return set()
    return {
        expected_url(entry["url"])
        for index, entry in enumerate(entries_of(case))
        if index not in case.bad_indexes
    }


def predicted_links(case: Case) -> set[tuple[str, str]]:
    """(kind, expected text) of every alternate href and image loc an accepted case publishes."""
    if case.expect != "accepted":
        return set()
    links: set[tuple[str, str]] = set()
    for entry in entries_of(case):
        for alt in entry.get("alternates", []):
            links.add(("href", expected_url(alt["href"])))
        for image in entry.get("images", []):
            links.add(("image", expected_url(image["loc"])))
    return links


# -- one batch at a time -------------------------------------------------------------------------


@dataclass
class Sent:
    case: Case
    message_id: str


def batches() -> Iterator[tuple[int, list[Case]]]:
    for start in range(0, len(CASES), CASES_PER_BATCH):
        yield start // CASES_PER_BATCH, CASES[start : start + CASES_PER_BATCH]


def companion(batch: int) -> str:
    return f"{SITE}/companion/{batch}"


def rebuild_env(bucket: str) -> dict[str, str]:
    """The rebuild's environment for the table ``make_stack`` made (inside its ``mock_aws``)."""
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    stream = dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    return {
        **BASE_ENV,
        "TABLE_NAME": TABLE,
        "TABLE_STREAM_ARN": stream,
        "BUCKET_NAME": bucket,
        "DISTRIBUTION_ID": "",
        "POWERTOOLS_SERVICE_NAME": "sitemap-rebuild",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[IngestStack]:
    for name, value in BASE_ENV.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield make_stack(table_name=TABLE, queue_name="sitemap-hostile-dlq")


def _reasons_by_source(stack: IngestStack) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for message in stack.dlq_messages():
        attrs = message["MessageAttributes"]
        source = attrs["source_message_id"]["StringValue"]
        found.setdefault(source, []).append(
            {"body": message["Body"], "reason": attrs["reason"]["StringValue"]}
        )
    return found


def _printable_prefix(value: str, length: int = 24) -> str:
    match = re.match(r"[\x21-\x7e]*", value)
    return (match.group() if match else "")[:length]


#: Characters SQS accepts in a message body (SendMessage API reference, "MessageBody").
_SQS_OK = re.compile("[\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")


#: One bad change of an array message in a reason: where, field, value, rule.
CHANGE_REASON = re.compile(r"change (\d+): field \S+ value .+? rejected: \S")


def assert_dead_letter_body(case: Case, body: str) -> None:
    """The original body, where SQS can carry it; else a non-empty stand-in."""
    if case.body and _SQS_OK.fullmatch(case.body):
        assert body == case.body, case.name
    else:
        assert body, case.name


def assert_names_field_and_value(case: Case, reason: str) -> None:
    words = case.field.split("|")
    assert any(word in reason for word in words), f"{case.name}: {reason!r} names no {words}"
    assert "\n" not in reason, case.name
    assert re.search(r" rejected: \S", reason), f"{case.name}: no rule in {reason!r}"
    try:
        obj = json.loads(case.body)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python parses
        return
    if not isinstance(obj, dict) or case.field not in obj:
        return
    value = obj[case.field]
    if isinstance(value, str):
        shown = _printable_prefix(value)
        assert shown in reason, f"{case.name}: value {shown!r} not in {reason!r}"
    elif isinstance(value, bool | int | float):
        assert json.dumps(value) in reason, f"{case.name}: value {value!r} not in {reason!r}"


def test_every_hostile_case_gets_its_outcome_and_costs_no_valid_record(
    stack: IngestStack,
) -> None:
    assert len(CASES) >= 60
    sent: list[Sent] = []
    for batch, cases in batches():
        records = [sqs_record(c.body, message_id=f"case-{c.name}") for c in cases]
        records.insert(
            len(records) // 2,
            sqs_record(
                json.dumps(
                    {
                        "action": "upsert",
                        "url": companion(batch),
                        "occurred_at": "2026-11-20T10:00:00Z",
                    }
                ),
                message_id=f"companion-{batch}",
            ),
        )
        response = stack.invoke(*records)
        assert response == {"batchItemFailures": []}, f"batch {batch}: {response}"
        sent += [Sent(c, f"case-{c.name}") for c in cases]

    items = stack.url_items()
    dead = _reasons_by_source(stack)
    for batch, _ in batches():
        assert companion(batch) in items, f"companion of batch {batch} lost"
        assert f"companion-{batch}" not in dead
    for s in sent:
        case, letters = s.case, dead.get(s.message_id, [])
        if case.expect == "accepted":
            assert letters == [], f"{case.name} was rejected: {letters}"
            continue
        assert len(letters) == 1, f"{case.name}: {len(letters)} dead letters"
        reason = letters[0]["reason"]
        if case.expect == "rejected":
            assert_dead_letter_body(case, letters[0]["body"])
            assert_names_field_and_value(case, reason)
        else:
            bad = json.loads(letters[0]["body"])
            assert [b["index"] for b in bad] == list(case.bad_indexes), case.name
            named = [
                int(n)
                for n in re.findall(r"change (\d+): field \S+ value .+? rejected: \S", reason)
            ]
            assert named == list(case.bad_indexes), f"{case.name}: {reason!r}"

    # -- one rebuild, then what a crawler gets -----------------------------------------------
    with mock.patch.dict(os.environ, rebuild_env(BUCKET)):
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        report = load_handler().lambda_handler({"detail-type": "Scheduled Event"}, FakeContext())
    assert report["complete"] is True
    assert report["urls_skipped"] == []

    files = BucketReader(s3).published()  # validates the index and every file
    assert files
    want = {companion(batch) for batch, _ in batches()}
    links: set[tuple[str, str]] = set()
    for case in CASES:
        want |= predicted(case)
        links |= predicted_links(case)
    got: list[str] = []
    got_links: set[tuple[str, str]] = set()
    for xml in files.values():
        root = etree.fromstring(xml)
        for element in root.iter():
            assert element.tag in ALLOWED, f"unexpected element {element.tag!r}"
        got += [e.text or "" for e in root.iter(f"{{{SM}}}loc")]
        got_links |= {("href", e.get("href") or "") for e in root.iter(f"{{{XHTML}}}link")}
        got_links |= {("image", e.text or "") for e in root.iter(f"{{{IMAGE}}}loc")}
    assert len(got) == len(set(got)), "a URL is published twice"
    assert set(got) == want
    assert got_links == links


def test_a_site_whose_host_is_an_idn_accepts_every_spelling_of_it(stack: IngestStack) -> None:
    """SITE_URL in Unicode: the Unicode, upper-case, full-width and punycode spellings of the host
    are the site (published in punycode); look-alikes and invalid labels are foreign."""
    env = {**stack.env, "SITE_URL": IDN_SITE}
    records = [sqs_record(c.body, message_id=f"case-{c.name}") for c in IDN_SITE_CASES]
    for start in range(0, len(records), 10):
        with mock.patch.dict(os.environ, env):
            response = load_ingest_handler().lambda_handler(
                sqs_event(*records[start : start + 10]), LambdaContext()
            )
        assert response == {"batchItemFailures": []}
    dead = _reasons_by_source(stack)
    for case in IDN_SITE_CASES:
        letters = dead.get(f"case-{case.name}", [])
        if case.expect == "accepted":
            assert letters == [], f"{case.name} was rejected: {letters}"
        else:
            assert len(letters) == 1, case.name
            assert_names_field_and_value(case, letters[0]["reason"])
            assert "rejected: " in letters[0]["reason"]

    with mock.patch.dict(os.environ, {**rebuild_env(BUCKET), "SITE_URL": IDN_SITE}):
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        report = load_handler().lambda_handler({"detail-type": "Scheduled Event"}, FakeContext())
    assert report["complete"] is True
    objects = BucketReader(s3).objects()  # every object validated against the XSDs
    files: dict[str, bytes] = {}
    for loc in assert_valid_index(objects["sitemap.xml"]):
        assert loc.startswith(IDN_SITE_ASCII + "/sitemap-"), f"index names {loc!r}"
        files[loc.rsplit("/", 1)[-1]] = gzip.decompress(objects[loc.rsplit("/", 1)[-1]])
    locs = [
        e.text or "" for xml in files.values() for e in etree.fromstring(xml).iter(f"{{{SM}}}loc")
    ]
    hrefs = {
        e.get("href")
        for xml in files.values()
        for e in etree.fromstring(xml).iter(f"{{{XHTML}}}link")
    }
    want = {url for case in IDN_SITE_CASES for url in case.published}
    assert sorted(locs) == sorted(want)
    assert hrefs == {IDN_SITE_ASCII + "/en/katalog/6"}
