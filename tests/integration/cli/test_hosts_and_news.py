"""Several hosts and News on every command: each command that takes a site takes several the
same way; a two-host site with hreflang and News, backfilled and built again, gives the same
files; ``build`` writes the News files the deployed rebuild publishes for the same changes."""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from sitemap_updater_local.cli import main
from sitemap_updater_local.commands import backfill
from sitemap_updater_local.options import SITES_HELP, sites_of
from tests.helpers.xsd import assert_valid_index

COM = "https://www.example.com"
DE = "https://www.example.de"
NEWS_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
#: every command that takes a site
SITE_COMMANDS = ("send", "backfill", "build", "simulate")


def _parser(command: str) -> argparse.ArgumentParser:
    module = importlib.import_module(f"sitemap_updater_local.commands.{command}")
    parser = argparse.ArgumentParser(prog=command)
    module.add_arguments(parser)
    return parser


def _required(command: str) -> list[str]:
    """The other arguments a command cannot be parsed without."""
    return {
        "send": ["--queue-url", "https://sqs.eu-west-1.amazonaws.com/1/q", "f.jsonl"],
        "backfill": ["--from", "s.xml", "--out", "o.jsonl"],
        "build": ["--from", "e.jsonl", "--out", "out"],
        "simulate": ["wave.jsonl", "--out", "out"],
    }[command]


@pytest.mark.parametrize("command", SITE_COMMANDS)
def test_every_command_takes_several_sites_the_same_way(command: str) -> None:
    parser = _parser(command)
    (site,) = [a for a in parser._actions if "--site" in a.option_strings]
    assert isinstance(site, argparse._AppendAction)
    assert site.help is not None and site.help.endswith(SITES_HELP)
    args = parser.parse_args(
        [*_required(command), "--site", f"{COM},https://shop.example.co.uk", "--site", DE]
    )
    sites = sites_of(args)
    assert sites is not None
    assert [s.origin for s in sites] == [COM, "https://shop.example.co.uk", DE]
    # the alternates rule is the layer's: any listed host, not another
    assert sites.primary.alternate_origins == frozenset({"https://shop.example.co.uk", DE})
    anywhere = sites_of(
        parser.parse_args([*_required(command), "--site", COM, "--alternates-any-host"])
    )
    assert anywhere is not None and anywhere.primary.alternate_origins is None


@pytest.mark.parametrize("command", ["send", "backfill", "build"])
def test_a_bad_site_in_a_list_is_refused_in_one_line_naming_it(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "events.jsonl"
    source.write_text(json.dumps({"action": "upsert", "url": f"{COM}/a"}) + "\n")
    args = {
        "send": ["send", "--queue-url", "https://sqs.eu-west-1.amazonaws.com/1/q", str(source)],
        "backfill": ["backfill", "--from", str(source), "--out", str(tmp_path / "o.jsonl")],
        "build": ["build", "--from", str(source), "--out", str(tmp_path / "out")],
    }[command]
    code = main([*args, "--site", f"{COM},www.example.de"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "--site: site: 'www.example.de' is invalid: entry 2 of 2" in err


def _article(title: str, published: datetime) -> dict[str, Any]:
    return {
        "publication": {"name": "Example Journal", "language": "en"},
        "publication_date": published.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "title": title,
    }


def _two_host_site(now: datetime) -> list[dict[str, Any]]:
    """Pages on both hosts, each English page's German twin naming it back, some with an
    article of the last hours or one published before the window."""
    events: list[dict[str, Any]] = []
    for i in range(60):
        links = [
            {"hreflang": "en", "href": f"{COM}/p/{i}"},
            {"hreflang": "de", "href": f"{DE}/p/{i}"},
        ]
        page: dict[str, Any] = {
            "action": "upsert",
            "url": f"{COM}/p/{i}",
            "lastmod": "2026-01-02",
            "alternates": links,
        }
        if i % 7 == 0:
            page["news"] = _article(f"Story {i}", now - timedelta(hours=i % 30 + 1))
        if i % 13 == 0:
            page["news"] = _article(f"Old story {i}", now - timedelta(hours=60))
        events += [page, {"action": "upsert", "url": f"{DE}/p/{i}", "alternates": links}]
    return events


def _write(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def _files(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("sitemap*"))
    }


def _build(source: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "build",
            "--from",
            str(source),
            "--site",
            COM,
            "--site",
            DE,
            "--out",
            str(out),
            "--max-urls-per-sitemap",
            "20",
            "--jobs",
            "1",
            *extra,
        ]
    )


def test_a_two_host_site_with_hreflang_and_news_backfilled_then_built_gives_the_same_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    published = tmp_path / "published"
    assert _build(_write(tmp_path / "events.jsonl", _two_host_site(now)), published) == 0
    assert (published / "sitemap-news-1.xml.gz").exists()
    capsys.readouterr()

    # children read on worker processes, the news file first
    monkeypatch.setattr(backfill, "default_jobs", lambda: 2)
    lines: list[str] = []
    for index in (published / "sitemap.xml", published / "www.example.de" / "sitemap.xml"):
        out = tmp_path / f"{len(lines)}.jsonl"
        code = main(
            [
                "backfill",
                "--from",
                str(index),
                "--out",
                str(out),
                "--no-progress",
                "--site",
                f"{COM},{DE}",
            ]
        )
        assert code == 0, capsys.readouterr().err
        assert "warning" not in capsys.readouterr().err
        lines += out.read_text().splitlines()

    events = [json.loads(line) for line in lines]
    urls = [e["url"] for e in events]
    assert len(urls) == len(set(urls)) == 120  # one upsert per page
    articles = {e["url"]: e for e in events if "news" in e}
    assert sorted(articles) == sorted(f"{COM}/p/{i}" for i in range(60) if i % 7 == 0 and i % 13)
    assert all(e["lastmod"] == "2026-01-02" for e in articles.values())
    assert all(len(e["alternates"]) == 2 for e in events)

    rebuilt = tmp_path / "rebuilt"
    assert _build(_write(tmp_path / "again.jsonl", events), rebuilt) == 0
    assert _files(rebuilt) == _files(published)


def _news_locs(path: Path) -> list[str]:
    root = etree.fromstring(gzip.decompress(path.read_bytes()))
    return [str(loc.text) for loc in root.iterfind("sm:url/sm:loc", NEWS_NS)]


def test_build_writes_the_news_files_the_deployed_rebuild_publishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    events: list[dict[str, Any]] = [
        {
            "action": "upsert",
            "url": f"{COM}/n/{i}",
            "news": _article(f"N{i}", now - timedelta(hours=2)),
        }
        for i in range(1003)
    ]
    events += [
        {
            "action": "upsert",
            "url": f"{DE}/n/{i}",
            "news": _article(f"D{i}", now - timedelta(hours=40)),
        }
        for i in range(2)
    ]
    # published before the window: in the regular files only
    events += [
        {
            "action": "upsert",
            "url": f"{COM}/old/{i}",
            "news": _article("Old", now - timedelta(hours=50)),
        }
        for i in range(3)
    ]
    # an article that lost its news object, and one deleted, later than every change above: those
    # take the time they are sent, which a queue gives in milliseconds, so two messages sent in the
    # same one would leave the later change of a page to the digest's tie-break
    later = (now + timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    events += [
        {"action": "upsert", "url": f"{COM}/n/0", "lastmod": "2026-01-02", "occurred_at": later},
        {"action": "delete", "url": f"{COM}/n/1", "occurred_at": later},
    ]
    wave = tmp_path / "wave.jsonl"
    wave.write_text(
        "".join(json.dumps(events[i : i + 500]) + "\n" for i in range(0, len(events), 500))
    )
    sim = tmp_path / "sim"
    code = main(["simulate", str(wave), "--out", str(sim), "--site", f"{COM},{DE}"])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()

    static = tmp_path / "static"
    code = main(
        [
            "build",
            "--from",
            str(wave),
            "--site",
            COM,
            "--site",
            DE,
            "--out",
            str(static),
            "--jobs",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    news_files = sorted(str(p.relative_to(sim)) for p in sim.rglob("sitemap-news-*.xml.gz"))
    assert news_files == [
        "sitemap-news-1.xml.gz",
        "sitemap-news-2.xml.gz",
        "www.example.de/sitemap-news-1.xml.gz",
    ]
    for name in news_files:
        assert (static / name).read_bytes() == (sim / name).read_bytes(), name
    counts = [len(_news_locs(static / name)) for name in news_files]
    assert counts[0] == 1000 and sum(counts) == 1001 + 2
    assert f"{COM}/n/0" not in _news_locs(static / news_files[0]) + _news_locs(
        static / news_files[1]
    )
    # each index lists the same files as the deployed one, the News files last
    for prefix in ("", "www.example.de/"):
        built = assert_valid_index((static / prefix / "sitemap.xml").read_bytes())
        deployed = assert_valid_index((sim / prefix / "sitemap.xml").read_bytes())
        assert built == deployed
        assert "sitemap-news-" in built[-1]
    assert (
        "News: 1003 article(s) of the last 48 hours in 3 file(s) (sitemap-news-1.xml.gz, "
        "sitemap-news-2.xml.gz, www.example.de/sitemap-news-1.xml.gz); 3 article(s) published "
        "before that are in the regular files only"
    ) in out


def test_a_shorter_news_window_leaves_the_older_articles_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    events = [
        {"action": "upsert", "url": f"{COM}/n/{h}", "news": _article("N", now - timedelta(hours=h))}
        for h in (1, 5, 30)
    ]
    source = _write(tmp_path / "events.jsonl", events)
    code = main(
        [
            "build",
            "--from",
            str(source),
            "--site",
            COM,
            "--out",
            str(tmp_path / "out"),
            "--news-window-hours",
            "6",
        ]
    )
    assert code == 0
    assert set(_news_locs(tmp_path / "out" / "sitemap-news-1.xml.gz")) == {
        f"{COM}/n/1",
        f"{COM}/n/5",
    }
    assert "News: 2 article(s) of the last 6 hours in 1 file(s)" in capsys.readouterr().out

    code = main(
        [
            "build",
            "--from",
            str(source),
            "--site",
            COM,
            "--out",
            str(tmp_path / "out"),
            "--news-window-hours",
            "49",
        ]
    )
    assert code == 2
    assert "--news-window-hours: 49 must be 1..48" in capsys.readouterr().err


def test_backfill_of_events_keeps_each_page_with_its_article(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    article = _article("Story", datetime.now(UTC) - timedelta(hours=3))
    source = _write(
        tmp_path / "events.jsonl",
        [
            {"action": "upsert", "url": f"{COM}/n/1", "lastmod": "2026-01-02", "news": article},
            {"action": "upsert", "url": f"{DE}/n/1", "news": article},
        ],
    )
    out = tmp_path / "out.jsonl"
    code = main(["backfill", "--from", str(source), "--out", str(out), "--site", f"{COM},{DE}"])
    assert code == 0, capsys.readouterr().err
    events = {e["url"]: e for e in map(json.loads, out.read_text().splitlines())}
    assert events[f"{COM}/n/1"]["lastmod"] == "2026-01-02"
    assert events[f"{COM}/n/1"]["news"]["title"] == "Story"
    assert events[f"{DE}/n/1"]["news"]["title"] == "Story"
