"""``sitemap-updater build``: static builds from JSONL changes and from CSV, no AWS."""

from __future__ import annotations

import gzip
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION, stylesheet_body
from sitemap_updater_local.cli import main
from tests.integration.cli.support import (
    SITE,
    hash_bits_of,
    page_urls,
    published,
    read_xml,
    write_gz,
)

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _at(seconds: int) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _build(
    capsys: pytest.CaptureFixture[str], source: Path, out: Path, *extra: str
) -> tuple[int, str, str]:
    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_jsonl_events_resolve_last_writer_wins_and_bad_lines_are_reported(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rng = random.Random(11)
    urls = list(page_urls(120))
    events: list[dict[str, object]] = []
    expected: dict[str, str | None] = {}  # url -> lastmod of the final upsert, or None if deleted
    for i, url in enumerate(urls):
        # three changes per URL at distinct times; the latest decides
        history: list[dict[str, object]] = [
            {"action": "upsert", "url": url, "lastmod": "2024-01-01", "occurred_at": _at(i)},
            {"action": "upsert", "url": url, "lastmod": "2024-02-02", "occurred_at": _at(i + 500)},
        ]
        if i % 4 == 0:
            history.append({"action": "delete", "url": url, "occurred_at": _at(i + 1000)})
            expected[url] = None
        else:
            expected[url] = "2024-02-02"
        events.extend(history)
    # same instant: the delete wins whatever the order (the ingest tie-break)
    tie = f"{SITE}/tie"
    events.append({"action": "delete", "url": tie, "occurred_at": _at(5)})
    events.append({"action": "upsert", "url": tie, "occurred_at": _at(5)})
    rng.shuffle(events)
    lines = [json.dumps(e) for e in events]
    lines.insert(10, "{not json")
    lines.insert(20, json.dumps({"action": "upsert", "url": "https://elsewhere.org/x"}))
    lines.insert(30, "")
    source = tmp_path / "events.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")

    code, out, err = _build(capsys, source, tmp_path / "out")

    assert code == 1
    problems = [line for line in err.splitlines() if line.startswith(str(source))]
    assert [p.split(":")[1] for p in problems] == ["11", "21"]
    assert "message" in problems[0] and "must be JSON" in problems[0]
    assert "url" in problems[1] and "https://elsewhere.org/x" in problems[1]
    files = published(tmp_path / "out")
    got = [url for urls_in in files.values() for url in urls_in]
    assert sorted(got) == sorted(u for u, lastmod in expected.items() if lastmod)
    assert tie not in got
    root = read_xml(tmp_path / "out" / next(iter(files)))
    lastmods = root.xpath("//sm:lastmod/text()", namespaces={"sm": root.nsmap[None]})
    assert isinstance(lastmods, list)
    assert {str(x) for x in lastmods} == {"2024-02-02"}
    assert f"{len(got)} URLs" in out


def test_csv_export_with_header_duplicates_and_gzip(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    urls = list(page_urls(300, "csv"))
    rows = ["lastmod,url"]  # columns named by the header, in any order
    rows += [f"2024-03-{1 + i % 28:02d},{url}" for i, url in enumerate(urls)]
    rows += [f"2024-04-01,{urls[0]}"]  # a later row for the same URL wins
    rows += [",https://www.example.com/no-date", "2024-13-45,https://www.example.com/bad-date"]
    source = write_gz(tmp_path / "export.csv.gz", "\n".join(rows) + "\n")

    code, _, err = _build(capsys, source, tmp_path / "out")

    assert code == 0  # the bad date is left out with a warning, its page kept
    assert f"{source}:304: warning: lastmod: '2024-13-45' is invalid" in err
    files = published(tmp_path / "out")
    assert list(files) == ["sitemap-pages-r.xml.gz"]
    got = files["sitemap-pages-r.xml.gz"]
    assert sorted(got) == sorted([*urls, f"{SITE}/no-date", f"{SITE}/bad-date"])
    root = read_xml(tmp_path / "out" / "sitemap-pages-r.xml.gz")
    ns = {"sm": root.nsmap[None]}
    first = root.xpath("//sm:url[sm:loc/text()=$u]/sm:lastmod/text()", namespaces=ns, u=urls[0])
    assert first == ["2024-04-01"]
    # entries are in identity-hash order, as the rebuild's Query returns them
    assert got == sorted(got, key=lambda u: hash_bits_of(u, 128))


def test_small_cap_splits_into_hash_prefix_shards_listed_by_the_index(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    urls = list(page_urls(500, "split"))
    source = tmp_path / "urls.csv"
    source.write_text("\n".join(urls) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert _build(capsys, source, out)[0] == 0  # an earlier build: one file, sitemap-pages-r.xml.gz
    assert (out / "sitemap-pages-r.xml.gz").exists()
    (out / "notes.txt").write_text("not ours")

    code, stdout, _ = _build(capsys, source, out, "--max-urls-per-sitemap", "60")

    assert code == 0
    assert not (out / "sitemap-pages-r.xml.gz").exists()
    assert (out / "notes.txt").exists()
    (out / "notes.txt").unlink()
    files = published(out)
    assert len(files) >= 500 // 60
    for name, urls_in in files.items():
        bits = name.removeprefix("sitemap-pages-r").removesuffix(".xml.gz")
        assert 0 < len(urls_in) <= 60
        assert all(hash_bits_of(u, len(bits)) == bits for u in urls_in)
        # split only as far as needed: the parent prefix holds more than the cap
        assert sum(hash_bits_of(u, len(bits) - 1) == bits[:-1] for u in urls) > 60
    assert sorted(u for urls_in in files.values() for u in urls_in) == sorted(urls)
    assert "removed 1 file(s)" in stdout


def test_everything_deleted_publishes_the_home_file_when_asked(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "events.jsonl"
    source.write_text(
        json.dumps({"action": "upsert", "url": f"{SITE}/gone", "occurred_at": _at(1)})
        + "\n"
        + json.dumps({"action": "delete", "url": f"{SITE}/gone", "occurred_at": _at(2)})
        + "\n"
    )

    code, _, err = _build(capsys, source, tmp_path / "out")
    assert code == 3
    assert "nothing to publish" in err and "--allow-empty" in err
    assert not list((tmp_path / "out").glob("sitemap*"))

    code, _, _ = _build(capsys, source, tmp_path / "out", "--allow-empty")

    assert code == 0
    files = published(tmp_path / "out")
    assert files == {"sitemap-home.xml.gz": [f"{SITE}/"]}


def test_unreadable_source_and_bad_options_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _build(capsys, tmp_path / "missing.jsonl", tmp_path / "out")
    assert code == 2
    assert "missing.jsonl" in err and "cannot open" in err
    assert main(["build", "--from", "x", "--site", "ftp://nope", "--out", str(tmp_path)]) == 2
    assert "--site" in capsys.readouterr().err


def test_more_processes_give_the_same_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = list(page_urls(4500, "jobs"))
    rows = [f"{u},2024-01-{1 + i % 28:02d}" for i, u in enumerate(urls)]
    rows[100] = f"{urls[7]},2024-02-02"  # a later duplicate: the order of records matters
    rows[2500] = "not a url,2024-01-01"  # a problem in the second chunk
    source = tmp_path / "export.csv"
    source.write_text("\n".join(rows) + "\n")
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}"
        code, _, err = _build(capsys, source, out, "--jobs", jobs, "--max-urls-per-sitemap", "1000")
        assert code == 1
        assert err.startswith(f"{source}:2501: ")
        outputs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 2


def _names_stylesheet(path: Path) -> bool:
    data = path.read_bytes()
    text = gzip.decompress(data) if path.suffix == ".gz" else data
    return text.split(b"\n")[1] + b"\n" == STYLESHEET_INSTRUCTION.encode()


def test_the_files_name_the_stylesheet_written_beside_them_unless_turned_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "pages.csv"
    source.write_text("url,lastmod\n" + "".join(f"{u},2024-05-01\n" for u in page_urls(30)))
    out = tmp_path / "out"

    code, line, _ = _build(capsys, source, out, "--max-urls-per-sitemap", "8")

    assert code == 0
    files = published(out)
    assert len(files) > 1
    assert (out / "sitemap.xsl").read_bytes() == stylesheet_body()
    assert all(_names_stylesheet(out / name) for name in [*files, "sitemap.xml"])
    assert f"in {len(files)} sitemap file(s) + sitemap.xsl + sitemap.xml in {out}" in line

    code, line, _ = _build(capsys, source, out, "--max-urls-per-sitemap", "8", "--no-stylesheet")

    assert code == 0
    assert published(out) == files
    assert not (out / "sitemap.xsl").exists()  # the previous build's, no longer written
    assert not any(_names_stylesheet(out / name) for name in [*files, "sitemap.xml"])
    assert f"in {len(files)} sitemap file(s) + sitemap.xml in {out}" in line
    assert "removed 1 file(s) no longer listed: sitemap.xsl" in line
