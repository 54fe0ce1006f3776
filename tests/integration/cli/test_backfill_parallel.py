"""``backfill`` of a sitemap index judged on worker processes writes what one process writes:
the same events, and the same problems and counts in the same order, the index's own problems
(a ``<sitemap>`` without ``<loc>``) among the children's.
"""

from __future__ import annotations

import gzip
import multiprocessing.util
import random
import tempfile
from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from sitemap_updater_local.commands import backfill
from sitemap_updater_local.pipeline import backfill_changes
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
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    # multiprocessing keeps its own folder (its fork server's socket) where the temporary
    # directory was when first asked: made now, it stays out of the scratch folder, which a
    # socket's path would outgrow and which is deleted after the test
    multiprocessing.util.get_temp_dir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    monkeypatch.setattr(backfill, "default_jobs", lambda: 2)
    parallel = _run(index, tmp_path / "parallel.jsonl", capsys, site)
    monkeypatch.setattr(backfill, "default_jobs", lambda: 1)
    single = _run(index, tmp_path / "single.jsonl", capsys, site)

    assert parallel == single
    assert not list(scratch.iterdir())  # the spools are gone, and their directory
    code, out, err, events = single
    # the bad lastmod costs the field, not its page (a warning): 6 records skipped, not 7
    assert "read 110 record(s); 104 upsert(s) written to OUT; 6 skipped" in out
    assert code == 1
    assert "missing.xml.gz: child sitemap skipped" in err
    assert "part-5.xml.gz: child sitemap skipped" in err
    assert "elsewhere.example.org" in err and "lastmod: '2024-1" in err
    assert err.count("loc: missing: every <sitemap> needs a <loc>") == 3
    assert events.count(b"\n") > 100


def test_a_truncated_index_ends_the_run_in_one_line_before_any_page_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = list(page_urls(300))
    children = []
    for n in range(30):
        write_gz(tmp_path / f"part-{n}.xml.gz", urlset_xml(urls[n * 10 : (n + 1) * 10]))
        children.append(f"{SITE}/part-{n}.xml.gz")
    # random text, which does not compress, between the first and the last 15 children: the
    # first ones are read before the stream ends too early
    text = index_xml(children)
    cut = text.index(f"<sitemap><loc>{SITE}/part-15")
    noise = f"<!-- {random.Random(7).randbytes(150_000).hex()} -->\n"
    whole = gzip.compress((text[:cut] + noise + text[cut:]).encode(), mtime=0)
    index = tmp_path / "sitemap_index.xml.gz"
    index.write_bytes(whole[: len(whole) - 30])

    # to stdout: a file is only written by a run that gets to its end
    monkeypatch.setattr(backfill, "default_jobs", lambda: 2)
    parallel = _run_to_stdout(index, capsys)
    monkeypatch.setattr(backfill, "default_jobs", lambda: 1)
    single = _run_to_stdout(index, capsys)

    assert parallel == single
    code, err, events = single
    # the pages are written once every source is read: a source that cannot be read to its
    # end stops the run before any is, and says so in one line
    assert code == 2 and "not a readable gzip file" in err
    assert events == ""


def _run_to_stdout(index: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["backfill", "--from", str(index), "--out", "-", "--no-progress"])
    captured = capsys.readouterr()
    return code, captured.err, captured.out


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_counts_every_record_read(tmp_path: Path, jobs: int) -> None:
    index = _site_with_troubles(tmp_path)
    counts: list[int] = []
    written: list[str] = []
    run = backfill_changes.Backfill(
        lambda url, line: written.append(line), jobs=jobs, progress=counts.append
    )
    stats = run.run([str(index)])
    assert stats.read == 110
    assert sum(counts) == stats.read and all(n >= 0 for n in counts)
    assert len(written) == stats.upserts
