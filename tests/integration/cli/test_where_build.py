"""``sitemap-updater where URL --out DIR`` on what ``build`` wrote: two hosts, section rules, a
section a change named, shards split small. The file it names is the one file of the output
that lists the URL, read here with lxml; only that file is read (every other one is broken
first, and the command still answers)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from sitemap_updater_local.cli import main

COM, DE = "https://www.example.com", "https://www.example.de"
RULES = "/p/=products,/blog/=articles"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def _changes() -> Iterator[dict[str, object]]:
    for host in (COM, DE):
        for i in range(40):
            yield {"action": "upsert", "url": f"{host}/p/{i}", "lastmod": "2026-10-01"}
            yield {"action": "upsert", "url": f"{host}/blog/{i}"}
    yield {"action": "upsert", "url": f"{COM}/p/named", "section": "promo"}
    yield {"action": "upsert", "url": f"{COM}/p/gone"}
    yield {"action": "delete", "url": f"{COM}/p/gone"}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("where-build")
    source = work / "changes.jsonl"
    source.write_text("".join(json.dumps(c) + "\n" for c in _changes()), encoding="utf-8")
    target = work / "out"
    sites = ["--site", COM, "--site", DE]
    args = ["build", "--from", str(source), *sites, "--section-rules", RULES, "--out", str(target)]
    assert main([*args, "--max-urls-per-sitemap", "10", "--jobs", "1"]) == 0
    return target


def _where(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["where", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _found(
    capsys: pytest.CaptureFixture[str], out: Path, url: str, *extra: str
) -> dict[str, object]:
    code, text, err = _where(capsys, url, "--out", str(out), "--site", f"{COM},{DE}", *extra)
    assert code in (0, 1), err
    found: dict[str, object] = json.loads(text) if "--json" in extra else {"text": text}
    found["code"] = code
    return found


def _holding(out: Path, url: str) -> list[str]:
    """Every file of the output that lists ``url``."""
    found = []
    for path in sorted(out.rglob("sitemap-*.xml.gz")):
        locs = etree.fromstring(gzip.decompress(path.read_bytes())).findall("sm:url/sm:loc", NS)
        if url in {loc.text for loc in locs}:
            found.append(str(path.relative_to(out)))
    return found


def test_a_listed_url_is_in_the_file_it_names(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for url in (f"{COM}/p/3", f"{DE}/p/17", f"{COM}/blog/5", f"{DE}/blog/39"):
        found = _found(capsys, out, url, "--section-rules", RULES, "--json")
        assert found["code"] == 0 and found["listed"], url
        assert [found["file"]] == [found["listed_in"]] == _holding(out, url)
        assert found["reasons"] == [] and found["notes"] == []
    assert len(list(out.glob("sitemap-products-r*.xml.gz"))) > 2  # the shards were split
    code, text, _ = _where(capsys, f"{DE}/p/17", "--out", str(out), "--site", COM, "--site", DE,
                           "--section-rules", RULES)  # fmt: skip
    lines = text.splitlines()
    assert code == 0
    assert "section: products (placed by the section rules)" in lines
    (listed,) = _holding(out, f"{DE}/p/17")
    assert listed.startswith("www.example.de/")
    assert lines[-1] == f"sitemap-updater where: listed in {listed}"


def test_only_the_url_s_own_file_is_read(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = out.parent / "broken"
    broken.mkdir()
    for path in out.rglob("*"):
        if path.is_file():
            target = broken / path.relative_to(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (mine,) = _holding(out, f"{COM}/p/3")
    for path in broken.rglob("sitemap-*.xml.gz"):
        if str(path.relative_to(broken)) != mine:
            path.write_bytes(b"not a sitemap")
    assert _found(capsys, broken, f"{COM}/p/3", "--section-rules", RULES)["code"] == 0


def test_a_url_elsewhere_or_not_in_the_build(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the change named its section: found in that section's file, with a note
    named = _found(capsys, out, f"{COM}/p/named", "--section-rules", RULES, "--json")
    assert named["code"] == 0 and [named["listed_in"]] == _holding(out, f"{COM}/p/named")
    assert named["file"] != named["listed_in"] and named["notes"]
    # other --section-rules than the build's: the URL is found where the build put it
    other = _found(capsys, out, f"{COM}/blog/5", "--json")
    assert other["section"] == "pages" and [other["listed_in"]] == _holding(out, f"{COM}/blog/5")
    for url in (f"{COM}/p/gone", f"{COM}/p/never"):
        found = _found(capsys, out, url, "--section-rules", RULES, "--json")
        assert found["code"] == 1 and not found["listed"] and _holding(out, url) == []
        assert [r["code"] for r in found["reasons"]] == ["not-in-build"]
    code, text, _ = _where(capsys, f"{COM}/p/never", "--out", str(out), "--site", COM, "--site", DE)
    assert code == 1
    assert text.splitlines()[-1] == "sitemap-updater where: not listed: not in the build"
    foreign = _found(capsys, out, "https://shop.example.org/p/1", "--json")
    assert foreign["code"] == 1 and foreign["site"] is None


def test_what_stops_where_on_a_build_output(
    out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text, err = _where(capsys, "https://www.example.com:99999/", "--out", str(out))
    assert (code, text) == (2, "")
    assert err.startswith("sitemap-updater where: cannot be normalized: URL: ")
    code, _, err = _where(capsys, f"{COM}/p/1", "--out", str(tmp_path))
    assert code == 2 and "no sitemap.xml: not what sitemap-updater build writes" in err
    code, _, err = _where(capsys, f"{DE}/p/1", "--out", str(out))  # no --site: DE taken as primary
    assert code == 2 and "give --site as the build was given it" in err
    code, _, err = _where(capsys, f"{COM}/p/1", "--out", str(out), "--section-rules", "p=x")
    assert code == 2 and err.startswith("sitemap-updater where: --section-rules[0]: ")
    assert len(err.splitlines()) == 1
