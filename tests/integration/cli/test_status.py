"""``sitemap-updater status`` against the local deployment of template.yaml, served by moto's
server on 127.0.0.1: the command finds the stack by name and reads what its outputs name, as it
does in an account (the endpoint URL is the only difference).

The functions run on a clock an hour behind the system's, so the ages the command computes from
the system clock are about an hour: large enough to tell a right age from a wrong one.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from moto.server import ThreadedMotoServer

from sitemap_updater_local import cli
from sitemap_updater_local.deployment import DEFAULT_TEMPLATE, LocalDeployment, SimulatedClock

SITE = "https://www.example.com"
BEHIND = 3600.0
SLACK = 120.0  # the seconds this test itself may take between a run and a status


def _event(path: str, at: str, **extra: object) -> str:
    return json.dumps({"action": "upsert", "url": SITE + path, "occurred_at": at, **extra})


class Served:
    def __init__(self, dep: LocalDeployment, clock: SimulatedClock, endpoint: str) -> None:
        self.dep, self.clock, self.endpoint = dep, clock, endpoint
        self.stack = dep.register_stack()

    def status(self, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli.main(
            ["status", "--stack-name", self.stack, "--endpoint-url", self.endpoint, *extra]
        )
        out, err = capsys.readouterr()
        return code, out, err

    def status_json(self, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
        code, out, err = self.status(capsys, "--json")
        assert code == 0, err
        document: dict[str, Any] = json.loads(out)
        return document


@pytest.fixture
def served() -> Iterator[Served]:
    clock = SimulatedClock(datetime.fromtimestamp(time.time() - BEHIND, UTC))
    with LocalDeployment(
        DEFAULT_TEMPLATE, SITE, parameters={"PublicBaseUrl": SITE}, clock=clock
    ) as dep:
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            yield Served(dep, clock, f"http://{host}:{port}")
        finally:
            server.stop()


def _publish_a_site_with_rejections(served: Served) -> None:
    at = datetime.fromtimestamp(served.clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    served.dep.send(
        [_event(f"/page/{i}", at) for i in range(5)]
        + [
            json.dumps({"action": "upsert", "url": "ftp://one.example/x", "occurred_at": at}),
            json.dumps({"action": "upsert", "url": "ftp://two.example/y", "occurred_at": at}),
            _event("/bad-date", at, lastmod="yesterday"),
        ]
    )
    served.dep.drain()
    served.dep.rebuild_until_clean()


def test_status_reports_the_site_the_publish_the_lag_and_the_dead_letters(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    _publish_a_site_with_rejections(served)
    dead_before = {d.message_id for d in served.dep.dead_letters()}
    assert len(dead_before) == 3

    status = served.status_json(capsys)

    (site,) = status["sites"]
    (section,) = site.pop("sections")
    assert site == {
        "url": SITE,
        "urls": 5,
        "files": 1,
        "news_articles": 0,
        "news_files": 0,
        "indexnow_waiting_urls": None,
    }
    assert section["name"] == "pages" and (section["files"], section["urls"]) == (1, 5)
    assert section["oldest_lastmod"] == section["newest_lastmod"] is not None
    publish = status["last_publish"]
    assert BEHIND <= publish["age_seconds"] <= BEHIND + SLACK
    assert publish["changes"] == 5
    assert 0 <= publish["lag_median_seconds"] <= publish["lag_max_seconds"] <= SLACK
    assert BEHIND <= status["checkpoint_age_seconds"] <= BEHIND + SLACK
    assert status["current_lag_seconds"] == status["checkpoint_age_seconds"]  # nothing pending
    assert status["pending_leaves"] == []
    assert status["queue_messages"] == 0
    dlq = status["dead_letter_queue"]
    assert dlq["messages"] == 3
    counts = [reason["count"] for reason in dlq["top_reasons"]]
    assert counts == [2, 1]  # the two ftp URLs are one kind of rejection, whatever the value
    assert dlq["top_reasons"][0]["reason"].startswith("field url: ")
    assert "ftp" in dlq["top_reasons"][0]["reason"]
    assert dlq["top_reasons"][1]["reason"].startswith("field lastmod: ")
    assert status["indexnow_waiting_urls"] is None  # IndexNow is off
    assert status["indexnow_problem"] is None
    # peeked, not consumed: every message is still there, and visible
    assert {d.message_id for d in served.dep.dead_letters()} == dead_before
    assert served.status_json(capsys)["dead_letter_queue"] == dlq


def test_status_shows_pending_leaves_and_the_lag_of_what_they_hold_back(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    # the functions' clock runs at the system's pace: the real time this test takes between the
    # first publish and the second run adds to the 600 s it advances
    started = time.monotonic()
    _publish_a_site_with_rejections(served)
    first = served.status_json(capsys)
    served.clock.advance(600)
    # a full rebuild that runs out of time at once leaves every leaf pending
    report = served.dep.rebuild(full=True, remaining_ms=30_000)
    took = time.monotonic() - started
    assert report["complete"] is False

    status = served.status_json(capsys)

    assert status["pending_leaves"] == ["pages/r"]
    # the checkpoint moved on; what the pending leaf holds back is as old as the one before
    assert status["checkpoint_age_seconds"] <= first["checkpoint_age_seconds"] - 600 + SLACK
    held = status["current_lag_seconds"] - status["checkpoint_age_seconds"]
    assert 600 - 1 <= held <= 600 + took + 1

    code, out, _ = served.status(capsys)
    assert code == 0
    lines = out.splitlines()
    assert f"site {SITE}: 5 URLs in 1 files, 0 news articles in 0 files" in lines
    assert "pending leaves: pages/r" in lines
    assert "dead-letter queue: 3 messages" in lines
    assert lines[-1] == "IndexNow: no pending set"


def test_status_of_a_stack_that_does_not_exist_says_so_in_one_line(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = cli.main(["status", "--stack-name", "no-such-stack", "--endpoint-url", served.endpoint])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err == "sitemap-updater status: stack 'no-such-stack' does not exist\n"


def test_an_unreadable_indexnow_pending_set_is_named_not_a_traceback(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    served.dep.s3.put_object(
        Bucket=served.dep.bucket_name, Key="state/indexnow-pending.json.gz", Body=b"{}"
    )
    code, out, err = served.status(capsys)
    assert code == 0, err
    last = out.splitlines()[-1]
    assert last.startswith("IndexNow: state/indexnow-pending.json.gz cannot be read: ")


def test_status_waits_on_the_pending_set_of_a_site_with_indexnow(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = [f"{SITE}/page/{i}" for i in range(4)]
    body = gzip.compress(json.dumps({"urls": urls, "attempts": 1}).encode())
    served.dep.s3.put_object(
        Bucket=served.dep.bucket_name, Key="state/indexnow-pending.json.gz", Body=body
    )
    assert served.status_json(capsys)["indexnow_waiting_urls"] == 4


def test_status_lists_each_host_with_its_sections(capsys: pytest.CaptureFixture[str]) -> None:
    other = "https://www.example.de"
    sites = f"{SITE},{other}"
    clock = SimulatedClock(datetime.fromtimestamp(time.time() - BEHIND, UTC))
    parameters = {"PublicBaseUrl": sites, "SectionRules": "/p/=products"}
    with LocalDeployment(DEFAULT_TEMPLATE, sites, parameters=parameters, clock=clock) as dep:
        at = datetime.fromtimestamp(clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        bodies = [_event(f"/p/{i}", at) for i in range(3)] + [_event("/about", at)]
        bodies.append(json.dumps({"action": "upsert", "url": f"{other}/p/1", "occurred_at": at}))
        dep.send(bodies)
        dep.drain()
        dep.rebuild_until_clean()
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            served = Served(dep, clock, f"http://{host}:{port}")
            status = served.status_json(capsys)
            code, out, _ = served.status(capsys)
        finally:
            server.stop()

    by_url = {site["url"]: site for site in status["sites"]}
    assert list(by_url) == [SITE, other]
    shape = {
        url: {s["name"]: (s["files"], s["urls"]) for s in site["sections"]}
        for url, site in by_url.items()
    }
    assert shape == {SITE: {"pages": (1, 1), "products": (1, 3)}, other: {"products": (1, 1)}}
    assert code == 0
    assert f"site {other}: 1 URLs in 1 files" in out
    assert "  section products: 3 URLs in 1 files" in out


#: A rejected value a producer chose to look like a rule, with an escape sequence and a line
#: break, long enough that the reason shortens it (so it is no longer JSON there).
FORGED = 'yesterday rejected: forged rule\x1b[2J\nsitemap-updater status: all "fine"' + "!" * 200


def test_status_groups_by_the_rule_the_code_wrote_and_prints_no_escape(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    at = datetime.fromtimestamp(served.clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    served.dep.send([_event("/forged", at, lastmod=FORGED), _event("/plain", at, lastmod="soon")])
    served.dep.drain()
    (forged, _) = sorted(served.dep.dead_letters(), key=lambda d: "forged" not in d.body)
    assert " rejected: forged rule" in (forged.reason or "")

    reasons = served.status_json(capsys)["dead_letter_queue"]["top_reasons"]
    code, out, _ = served.status(capsys)

    assert code == 0
    (lastmod,) = reasons  # two messages, one rule: the value does not split them
    assert lastmod["count"] == 2
    assert lastmod["reason"].startswith("field lastmod: ") and "forged" not in lastmod["reason"]
    assert "\x1b" not in out
    assert not any(line.startswith("sitemap-updater status: all") for line in out.splitlines())
