"""``backfill`` of a sitemap index on worker processes writes what one process writes.

The children after the one that told the site are read on workers; their events, problems
and counts must come out in the order a single process gives them, with the index's own
problems (a ``<sitemap>`` without ``<loc>``) in their place between the children's.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitemap_updater_local import backfill
from sitemap_updater_local.cli import main
from tests.integration.cli.support import SITE, index_xml, page_urls, urlset_xml, write_gz


def _site_with_troubles(root: Path) -> Path:
    urls = list(page_urls(120))
    children = []
    for n in range(8):
        name = f"part-{n}.xml.gz"
        chunk = urls[n * 15 : (n + 1) * 15]
        text = urlset_xml(chunk, start=n * 15)
        if n == 2:  # bad entries among good ones
            text = text.replace(chunk[3], "https://elsewhere.example.org/x").replace(
                "<lastmod>2024-0", "<lastmod>2024-1", 1
            )
        if n == 5:  # truncated: the entries before the cut, then the problem
            (root / name).write_bytes(gzip.compress(text.encode())[:-40])
        else:
            write_gz(root / name, text)
        children.append(f"{SITE}/{name}")
    children.insert(4, f"{SITE}/missing.xml.gz")
    index = index_xml(children).replace("</sitemapindex>", "<sitemap></sitemap></sitemapindex>")
    index = index.replace("<sitemap>", "<sitemap></sitemap><sitemap>", 1).replace(
        f"<sitemap><loc>{SITE}/part-6", f"<sitemap/><sitemap><loc>{SITE}/part-6"
    )
    (root / "sitemap_index.xml").write_text(index, encoding="utf-8")
    return root / "sitemap_index.xml"


def _run(
    index: Path, out: Path, capsys: pytest.CaptureFixture[str], site: list[str]
) -> tuple[int, str, str, bytes]:
    code = main(["backfill", "--from", str(index), "--out", str(out), "--no-progress", *site])
    captured = capsys.readouterr()
    return code, captured.out.replace(str(out), "OUT"), captured.err, out.read_bytes()


@pytest.mark.parametrize("site", [[], ["--site", SITE]])
def test_workers_write_what_one_process_writes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    site: list[str],
) -> None:
    index = _site_with_troubles(tmp_path)

    monkeypatch.setattr(backfill, "usable_cores", lambda: 2)
    parallel = _run(index, tmp_path / "parallel.jsonl", capsys, site)
    monkeypatch.setattr(backfill, "usable_cores", lambda: 1)
    single = _run(index, tmp_path / "single.jsonl", capsys, site)

    assert parallel == single
    code, out, err, events = single
    assert "read 110 record(s); 103 upsert event(s) written to OUT; 7 skipped" in out
    assert code == 1
    assert "missing.xml.gz: child sitemap skipped" in err
    assert "part-5.xml.gz: child sitemap skipped" in err
    assert "elsewhere.example.org" in err and "lastmod: '2024-1" in err
    assert err.count("loc: missing: every <sitemap> needs a <loc>") == 3
    assert events.count(b"\n") > 100
