"""``sitemap-updater where`` against the local deployment of template.yaml, served by moto's
server on 127.0.0.1: found by its stack name, as ``status`` finds it, on a two-host stack with
section rules, after changes of every kind: listed, deleted, excluded as unhealthy, rejected
(a change, a change of an array, an EventBridge event), never received, not yet rebuilt.

What the command says is checked against the bucket and the table as this test reads them:
the file it names is the one published file that lists the URL (every published file read
here with lxml), and its AWS calls are counted: one item, one file, no scan.
"""

from __future__ import annotations

import gzip
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from lxml import etree
from moto.server import ThreadedMotoServer

from sitemap_updater.observe.exclusion import Exclusions
from sitemap_updater.observe.records import Observation
from sitemap_updater_local import cli
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment, SimulatedClock

SITE, OTHER = "https://www.example.com", "https://www.example.de"
RULES = "/p/=products"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
#: A rejected value made to look like a verdict, with an escape sequence and a line break.
FORGED = "soon\x1b[2J\nsitemap-updater where: listed in sitemap-pages-r.xml.gz"


@dataclass
class Stack:
    dep: LocalDeployment
    clock: SimulatedClock
    endpoint: str
    name: str

    def where(self, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli.main(
            ["where", *args, "--stack-name", self.name, "--endpoint-url", self.endpoint]
        )
        out, err = capsys.readouterr()
        return code, out, err

    def found(self, capsys: pytest.CaptureFixture[str], url: str) -> dict[str, Any]:
        code, out, err = self.where(capsys, url, "--json")
        assert code in (0, 1), err
        document: dict[str, Any] = json.loads(out)
        assert (code == 0) == document["listed"]
        return document

    def published(self) -> dict[str, set[str]]:
        """Every file the published indexes list, with its URLs, read here."""
        s3, bucket = self.dep.s3, self.dep.bucket_name
        files: dict[str, set[str]] = {}
        for prefix in ("", "www.example.de/"):
            index = s3.get_object(Bucket=bucket, Key=prefix + "sitemap.xml")["Body"].read()
            for loc in etree.fromstring(index).findall("sm:sitemap/sm:loc", NS):
                key = prefix + str(loc.text).rsplit("/", 1)[1]
                body = gzip.decompress(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
                urls = etree.fromstring(body).findall("sm:url/sm:loc", NS)
                files[key] = {str(u.text) for u in urls}
        return files


def _upsert(url: str, at: str, **extra: object) -> dict[str, object]:
    return {"action": "upsert", "url": url, "occurred_at": at, **extra}


def _event(detail: dict[str, object], at: str) -> dict[str, object]:
    """An EventBridge event whose detail is ``detail``, as a rule delivers it."""
    return {
        "version": "0", "id": "e1", "detail-type": "page", "source": "cms", "account": "1",
        "time": at, "region": "us-east-1", "resources": [], "detail": detail,
    }  # fmt: skip


def _now(clock: SimulatedClock) -> str:
    return datetime.fromtimestamp(clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    clock = SimulatedClock(datetime.fromtimestamp(time.time() - 3600, UTC))
    sites = f"{SITE},{OTHER}"
    parameters = {"PublicBaseUrl": sites, "SectionRules": RULES}
    with LocalDeployment(DEFAULT_TEMPLATE, sites, parameters=parameters, clock=clock) as dep:
        at = _now(clock)
        first = [_upsert(f"{SITE}/page/{i}", at) for i in range(5)]
        first += [_upsert(f"{SITE}/p/{i}", at) for i in range(3)]
        first += [_upsert(f"{OTHER}/p/1", at), _upsert(f"{SITE}/page/named", at, section="promo")]
        bad = [
            _upsert(f"{SITE}/bad-date", at, lastmod="yesterday"),
            [_upsert(f"{SITE}/page/7", at), _upsert(f"{SITE}/array-bad", at, priority=7)],
            _event(_upsert(f"{SITE}/eb-bad", at, lastmod=1), at),
            _upsert(f"{SITE}/forged", at, lastmod=FORGED),
        ]
        dep.send([json.dumps(c) for c in first + bad])
        dep.drain()
        dep.rebuild_until_clean()
        clock.advance(60)
        dep.send([json.dumps({"action": "delete", "url": f"{SITE}/page/1"})])
        dep.drain()
        state = dep.rebuild_function.environment["STATE_TABLE_NAME"]
        unhealthy = Observation(f"{SITE}/page/2", "random", problem="not-found", failures=3)
        assert Exclusions(dep.dynamodb, dep.table_name, state).exclude(
            SITE, "pages", unhealthy, clock()
        )
        dep.rebuild_until_clean()
        clock.advance(60)
        later = [_upsert(f"{SITE}/page/new", _now(clock)), _upsert(f"{SITE}/page/3", _now(clock))]
        dep.send([json.dumps(c) for c in later])
        dep.drain()  # and no rebuild: both wait for the next one
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            yield Stack(dep, clock, f"http://{host}:{port}", dep.register_stack())
        finally:
            server.stop()


def test_a_listed_url_is_in_the_one_published_file_the_command_names(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    published = stack.published()

    def holding(url: str) -> str:
        (key,) = [key for key, urls in published.items() if url in urls]
        return key

    for url in (f"{SITE}/page/0", f"{SITE}/p/2", f"{OTHER}/p/1", f"{SITE}/page/named"):
        found = stack.found(capsys, url)
        assert found["listed"] and found["file"] == found["listed_in"] == holding(url), url
        assert found["file_published"] and found["reasons"] == []
    assert stack.found(capsys, f"{OTHER}/p/1")["file"].startswith("www.example.de/")
    named = stack.found(capsys, f"{SITE}/page/named")
    assert (named["section"], named["section_named"]) == ("promo", True)
    rules = stack.found(capsys, f"{SITE}/p/2")
    assert (rules["section"], rules["section_named"]) == ("products", False)

    code, out, err = stack.where(capsys, "HTTPS://WWW.Example.com/page/0")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"url: {SITE}/page/0 (normalized from HTTPS://WWW.Example.com/page/0)"
    assert "section: pages (placed by the section rules)" in lines
    assert lines[-1] == f"sitemap-updater where: listed in {holding(SITE + '/page/0')}"


def test_a_url_not_listed_says_why(stack: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    published = set().union(*stack.published().values())
    why = {
        "/page/1": "deleted",
        "/page/2": "excluded",
        "/page/new": "not-yet-rebuilt",
        "/bad-date": "rejected",
        "/array-bad": "rejected",
        "/eb-bad": "rejected",
        "/never-sent": "never-received",
    }
    for path, code in why.items():
        found = stack.found(capsys, SITE + path)
        assert SITE + path not in published
        assert not found["listed"] and found["reasons"][0]["code"] == code, path
    deleted = stack.found(capsys, f"{SITE}/page/1")
    assert deleted["item"]["state"] == "deleted" and deleted["item"]["tombstone_until"]
    excluded = stack.found(capsys, f"{SITE}/page/2")
    assert excluded["item"]["excluded_since"] is not None
    waiting = stack.found(capsys, f"{SITE}/page/new")
    assert waiting["rebuild"]["written_after_checkpoint"] is True
    assert waiting["file"] == stack.found(capsys, f"{SITE}/page/0")["file"]  # one file so far

    code, out, _ = stack.where(capsys, f"{SITE}/bad-date")
    assert code == 1
    lines = out.splitlines()
    (rejected,) = [line for line in lines if line.startswith("rejected: ")]
    assert 'field lastmod value "yesterday" rejected: ' in rejected
    assert lines[-1] == "sitemap-updater where: not listed: rejected"
    array = stack.found(capsys, f"{SITE}/array-bad")["dead_letters"]["newest"]
    assert [d["reason"].split(" value ")[0] for d in array] == ["change 1: field priority"]
    assert stack.found(capsys, f"{SITE}/page/7")["listed"]  # the good entry of that array


def test_a_listed_url_with_a_newer_change_says_it_waits(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = stack.where(capsys, f"{SITE}/page/3")
    assert code == 0
    assert any(line.startswith("note: a change written ") for line in out.splitlines())


def test_a_url_of_no_site_and_one_that_cannot_be_normalized(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = stack.where(capsys, "https://shop.example.org/p/1")
    assert code == 1
    assert out.splitlines()[-1] == "sitemap-updater where: not listed: on none of the sites"
    assert f"site: none of {SITE}, {OTHER}" in out.splitlines()
    code, out, err = stack.where(capsys, "ftp://www.example.com/x")
    assert (code, out) == (2, "")
    assert err.startswith("sitemap-updater where: cannot be normalized: URL: 'ftp://")
    assert "must be http or https" in err
    capsys.readouterr()
    code = cli.main(["where", f"{SITE}/", "--stack-name", "nope", "--endpoint-url", stack.endpoint])
    assert code == 2
    assert capsys.readouterr().err == "sitemap-updater where: stack 'nope' does not exist\n"
    code, out, err = stack.where(capsys, f"{SITE}/p/1", "--section-rules", "/p/=other")
    assert (code, out) == (2, "")
    assert err.startswith("sitemap-updater where: --site and --section-rules are a build output's")


def test_the_dead_letters_are_peeked_and_what_they_hold_is_escaped(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {d.message_id for d in stack.dep.dead_letters()}
    code, out, _ = stack.where(capsys, f"{SITE}/forged")
    assert code == 1
    assert "\x1b" not in out
    assert out.splitlines()[-1] == "sitemap-updater where: not listed: rejected"
    assert sum(line.startswith("sitemap-updater where:") for line in out.splitlines()) == 1
    assert {d.message_id for d in stack.dep.dead_letters()} == before  # none consumed


def test_where_reads_one_item_and_one_file(
    stack: Stack, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: Counter[str] = Counter()
    real = boto3.Session

    def recorded(*args: Any, **kwargs: Any) -> boto3.Session:
        session = real(*args, **kwargs)
        session.events.register("before-call", lambda model, **_: calls.update([model.name]))
        return session

    monkeypatch.setattr(boto3, "Session", recorded)
    assert stack.where(capsys, f"{SITE}/page/0")[0] == 0
    assert calls["GetObject"] == 1
    assert calls["GetItem"] == 3  # the URL's item; the publication, the checkpoint
    assert calls["BatchGetItem"] == 1  # its host's record
    assert calls["Query"] == 1  # the branch of its space's tree that covers it
    assert set(calls) <= {
        "DescribeStacks", "GetItem", "BatchGetItem", "Query", "GetObject", "ReceiveMessage",
        "GetQueueAttributes",
    }  # fmt: skip
