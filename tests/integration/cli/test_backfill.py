"""``sitemap-updater backfill``: existing sitemaps, CSV and JSONL turned into upserts."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
import pytest
from moto import mock_aws

from sitemap_updater_local.cli import main
from tests.integration.cli.support import (
    SITE,
    URLSET_OPEN,
    index_xml,
    make_site_with_index,
    page_urls,
    urlset_xml,
    write_gz,
)

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


def _events(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_index_with_two_gz_children_becomes_one_upsert_per_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, urls = make_site_with_index(tmp_path)
    out = tmp_path / "events.jsonl"

    code = main(["backfill", "--from", str(index), "--out", str(out), "--no-progress"])

    assert code == 0, capsys.readouterr().err
    events = _events(out)
    assert len(events) == len(urls)
    assert {e["url"] for e in events} == set(urls)
    assert {e["action"] for e in events} == {"upsert"}
    by_url = {e["url"]: e for e in events}
    assert by_url[urls[0]] == {
        "action": "upsert",
        "url": urls[0],
        "changefreq": "weekly",
        "priority": 0.7,
        "images": [{"loc": "https://cdn.example.net/0.jpg"}],
        "occurred_at": "1970-01-01T00:00:00.000000Z",  # no lastmod: any later change wins
    }
    assert by_url[urls[4]] == {
        "action": "upsert",
        "url": urls[4],
        "lastmod": "2024-05-14",
        "occurred_at": "2024-05-14T00:00:00.000000Z",  # a listing's time is its lastmod
    }
    assert "read 250 record(s); 250 upsert(s)" in capsys.readouterr().out


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_index_url_follows_its_children_relative_to_the_url(
    tmp_path: Path, served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    maps = tmp_path / "maps"
    maps.mkdir()
    urls = list(page_urls(40))
    write_gz(maps / "one.xml.gz", urlset_xml(urls[:25]))
    (maps / "two.xml").write_text(urlset_xml(urls[25:]), encoding="utf-8")
    # one child absolute, one relative; a third child that does not exist
    (maps / "index.xml").write_text(
        index_xml([f"{served}/maps/one.xml.gz", "two.xml", f"{served}/maps/missing.xml"])
    )
    out = tmp_path / "events.jsonl"

    code = main(
        ["backfill", "--from", f"{served}/maps/index.xml", "--out", str(out), "--no-progress"]
    )

    err = capsys.readouterr().err
    assert code == 1
    assert f"{served}/maps/missing.xml: child sitemap skipped" in err and "404" in err
    assert sorted(str(e["url"]) for e in _events(out)) == sorted(urls)


def test_bad_entries_are_reported_with_their_line_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(
        URLSET_OPEN
        + f"<url><loc>{SITE}/ok</loc></url>\n"
        + f"<url><loc>{SITE}/p</loc><priority>high</priority></url>\n"
        + "<url><loc>https://another.example.org/x</loc></url>\n"
        + "<url><lastmod>2024-01-01</lastmod></url>\n"
        + f"<url><loc>{SITE}/ok2</loc></url>\n"
        + "</urlset>\n"
    )
    out = tmp_path / "events.jsonl"

    code = main(["backfill", "--from", str(sitemap), "--out", str(out), "--no-progress"])

    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert [line.split(": ")[0] for line in err[:3]] == [
        f"{sitemap}:5",
        f"{sitemap}:6",
        f"{sitemap}:7",
    ]
    assert "warning: priority: 'high' is invalid" in err[0]  # left out, the page kept
    assert "https://another.example.org/x" in err[1]
    assert "loc: missing" in err[2]
    assert {e["url"] for e in _events(out)} == {f"{SITE}/ok", f"{SITE}/p", f"{SITE}/ok2"}


def test_jsonl_source_is_reduced_to_its_final_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        {"action": "upsert", "url": f"{SITE}/a", "lastmod": "2024-01-01"},
        {"action": "upsert", "url": f"{SITE}/b"},
        {"action": "delete", "url": f"{SITE}/a"},
        [{"action": "upsert", "url": f"{SITE}/c", "priority": 0.25}],
        {"action": "upsert", "url": f"{SITE}/b", "lastmod": "2024-02-02"},
    ]
    source = tmp_path / "history.jsonl"
    source.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "events.jsonl"

    code = main(
        ["backfill", "--from", str(source), "--out", str(out), "--site", SITE, "--no-progress"]
    )

    assert code == 0
    events = sorted(_events(out), key=lambda e: str(e["url"]))
    # each carries the time its line was stamped with: the run's start, a microsecond a line
    stamps = [datetime.fromisoformat(str(e.pop("occurred_at"))) for e in events]
    assert stamps[0] > stamps[1]  # b's last line comes after c's
    assert events == [
        {"action": "upsert", "url": f"{SITE}/b", "lastmod": "2024-02-02"},
        {"action": "upsert", "url": f"{SITE}/c", "priority": 0.3},
    ]


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQSClient]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield boto3.client("sqs", region_name="us-east-1")


def test_csv_source_sent_to_a_queue(
    tmp_path: Path, sqs: SQSClient, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqs.create_queue(QueueName="ingest")["QueueUrl"]
    urls = list(page_urls(33))
    source = tmp_path / "export.csv"
    source.write_text("".join(f"{u},2024-06-0{1 + i % 9}\n" for i, u in enumerate(urls)))

    code = main(["backfill", "--from", str(source), "--queue-url", url, "--no-progress"])

    assert code == 0
    received: list[dict[str, object]] = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        for m in messages:
            received.append(json.loads(m["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert sorted(str(e["url"]) for e in received) == sorted(urls)
    assert all(e["action"] == "upsert" and "lastmod" in e for e in received)
    assert "33 upsert(s) sent" in capsys.readouterr().out
