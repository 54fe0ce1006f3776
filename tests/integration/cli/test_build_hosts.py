"""``sitemap-updater build`` with several ``--site``s and ``--section-rules``: the layout the
rebuild publishes (docs/architecture.md), each host's files and index apart, one section a file.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sitemap_updater.view import VIEW_NAMES
from sitemap_updater_local.cli import main
from sitemap_updater_local.outputs.staged_directory import MANIFEST, StagedDirectory
from sitemap_updater_local.validation.document import validate_path
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

COM = "https://www.example.com"
DE = "https://www.example.de"
RULES = "/p/=products,/blog/=articles"


def _build(
    capsys: pytest.CaptureFixture[str], source: Path, out: Path, *extra: str
) -> tuple[int, str, str]:
    code = main(["build", "--from", str(source), "--out", str(out), "--jobs", "1", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _events(path: Path, events: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): b"<dir>" if p.is_dir() else p.read_bytes()
        for p in sorted(directory.rglob("*"))
    }


def _index(directory: Path) -> list[str]:
    """The locs of a directory's ``sitemap.xml`` (XSD-checked)."""
    return assert_valid_index((directory / "sitemap.xml").read_bytes())


def _urls(path: Path) -> list[str]:
    return assert_valid_urlset(path.read_bytes())


def _mixed(tmp_path: Path) -> Path:
    """Pages on both hosts: by rule in products and articles, by name in a section of their
    own, the rest in pages."""
    events: list[dict[str, object]] = []
    for host in (COM, DE):
        events += [{"action": "upsert", "url": f"{host}/p/{i}"} for i in range(30)]
        events += [{"action": "upsert", "url": f"{host}/blog/{i}"} for i in range(5)]
        events += [{"action": "upsert", "url": f"{host}/about/{i}"} for i in range(3)]
    # a named section wins over the path rule
    events.append({"action": "upsert", "url": f"{DE}/p/special", "section": "offers"})
    return _events(tmp_path / "events.jsonl", events)


def test_two_sites_and_section_rules_give_files_per_host_and_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, stdout, err = _build(
        capsys,
        _mixed(tmp_path),
        out,
        "--site",
        COM,
        "--site",
        DE,
        "--section-rules",
        RULES,
        "--max-urls-per-sitemap",
        "20",
    )

    assert (code, err) == (0, "")
    assert "2 indexes" in stdout
    com = sorted(p.name for p in out.glob("sitemap*"))
    de = sorted(p.name for p in (out / "www.example.de").glob("sitemap*"))
    for directory, names, origin in ((out, com, COM), (out / "www.example.de", de, DE)):
        # 30 products under a cap of 20: split by hash, as the rebuild splits them
        products = [n for n in names if n.startswith("sitemap-products-r")]
        assert len(products) >= 2
        held = [url for name in products for url in _urls(directory / name)]
        assert sorted(held) == sorted(f"{origin}/p/{i}" for i in range(30))
        assert all(len(_urls(directory / name)) <= 20 for name in products)
        assert sorted(_urls(directory / "sitemap-articles-r.xml.gz")) == sorted(
            f"{origin}/blog/{i}" for i in range(5)
        )
        assert sorted(_urls(directory / "sitemap-pages-r.xml.gz")) == sorted(
            f"{origin}/about/{i}" for i in range(3)
        )
    assert "sitemap-offers-r.xml.gz" in de and "sitemap-offers-r.xml.gz" not in com
    for directory, origin in ((out, COM), (out / "www.example.de", DE)):
        reports = validate_path(directory, base_url=origin)
        assert [r.problems for r in reports if r.problems] == []
        listed = _index(directory)
        assert all(loc.startswith(f"{origin}/sitemap-") for loc in listed)
        on_disk = sorted(p.name for p in directory.glob("sitemap-*.xml.gz"))
        assert sorted(loc.rsplit("/", 1)[1] for loc in listed) == on_disk
    assert _urls(out / "www.example.de" / "sitemap-offers-r.xml.gz") == [f"{DE}/p/special"]
    manifest = json.loads((out / MANIFEST).read_bytes())["files"]
    assert manifest[-1] == "www.example.de/sitemap.xml"
    assert manifest.index("sitemap.xml") < manifest.index("www.example.de/sitemap.xml")


def test_processes_change_nothing_with_two_hosts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _mixed(tmp_path)
    args = ("--site", COM, "--site", DE, "--section-rules", RULES, "--max-urls-per-sitemap", "7")
    assert _build(capsys, source, tmp_path / "one", *args)[0] == 0
    assert _build(capsys, source, tmp_path / "two", *args, "--jobs", "2")[0] == 0
    assert _snapshot(tmp_path / "one") == _snapshot(tmp_path / "two")


def test_a_record_on_an_unlisted_host_is_rejected_and_the_rest_published(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _events(
        tmp_path / "events.jsonl",
        [
            {"action": "upsert", "url": f"{COM}/a"},
            {"action": "upsert", "url": "https://shop.example.org/b"},
            {"action": "upsert", "url": f"{DE}/c"},
        ],
    )
    out = tmp_path / "out"

    code, _, err = _build(capsys, source, out, "--site", COM, "--site", DE)

    assert code == 1
    line = f"{source}:2: url: 'https://shop.example.org/b' is invalid: must be on one of the sites"
    assert line in err and COM in err and DE in err
    assert _urls(out / "sitemap-pages-r.xml.gz") == [f"{COM}/a"]
    assert _urls(out / "www.example.de" / "sitemap-pages-r.xml.gz") == [f"{DE}/c"]


def test_a_host_without_urls_gets_its_home_file_so_its_index_is_never_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _events(tmp_path / "events.jsonl", [{"action": "upsert", "url": f"{COM}/only"}])
    out = tmp_path / "out"

    assert _build(capsys, source, out, "--site", COM, "--site", DE)[0] == 0

    assert _index(out / "www.example.de") == [f"{DE}/sitemap-home.xml.gz"]
    assert _urls(out / "www.example.de" / "sitemap-home.xml.gz") == [f"{DE}/"]
    assert _index(out) == [f"{COM}/sitemap-pages-r.xml.gz"]
    assert not (out / "sitemap-home.xml.gz").exists()


def test_a_public_base_url_lists_each_host_under_its_key_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    base = "https://d111.cloudfront.net"
    args = ("--site", COM, "--site", DE, "--section-rules", RULES, "--public-base-url", base)

    assert _build(capsys, _mixed(tmp_path), out, *args)[0] == 0

    assert all(loc.startswith(f"{base}/sitemap-") for loc in _index(out))
    assert all(
        loc.startswith(f"{base}/www.example.de/sitemap-") for loc in _index(out / "www.example.de")
    )


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--section-rules", "/p/=Products", "--section-rules[0]: 'Products' is invalid: must be"),
        ("--section-rules", "p/=products", "--section-rules[0]: 'p/=products' is invalid"),
        ("--section-rules", "/p/=a,,/b/=c", "--section-rules[1]: '' is invalid: must not be"),
        ("--site", "www.example.de", "--site: site: 'www.example.de' is invalid"),
        ("--site", COM, "host www.example.com is listed twice"),
    ],
)
def test_a_bad_section_rule_or_site_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, words: str
) -> None:
    source = _events(tmp_path / "events.jsonl", [{"action": "upsert", "url": f"{COM}/a"}])
    out = tmp_path / "out"

    code, stdout, err = _build(capsys, source, out, "--site", COM, option, value)

    assert code == 2
    assert stdout == ""
    assert len(err.splitlines()) == 1 and words in err
    assert err.startswith("sitemap-updater build: ")
    assert not out.exists()


def _old_build(out: Path) -> dict[str, bytes]:
    """An output directory as a build before sections left it: its files and manifest."""
    out.mkdir()
    old = {
        "sitemap-r0.xml.gz": gzip.compress(b"old 0"),
        "sitemap-r1.xml.gz": gzip.compress(b"old 1"),
        "sitemap.xml": b"old index",
    }
    for name, body in old.items():
        (out / name).write_bytes(body)
    (out / MANIFEST).write_text(json.dumps({"files": list(old)}))
    return old


def test_an_output_of_the_old_naming_is_replaced_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _old_build(out)
    (out / "sitemap-r01.xml.gz").write_bytes(b"not listed by the old manifest: not ours")
    (out / "notes.txt").write_text("not ours")

    code, stdout, _ = _build(capsys, _mixed(tmp_path), out, "--site", COM, "--site", DE)

    assert code == 0
    assert "removed 2 file(s) no longer listed: sitemap-r0.xml.gz, sitemap-r1.xml.gz" in stdout
    assert not (out / "sitemap-r0.xml.gz").exists() and not (out / "sitemap-r1.xml.gz").exists()
    assert (out / "sitemap-r01.xml.gz").read_bytes() == b"not listed by the old manifest: not ours"
    assert (out / "notes.txt").read_text() == "not ours"
    assert _index(out) == [f"{COM}/sitemap-pages-r.xml.gz"]
    assert _index(out / "www.example.de") == [
        f"{DE}/sitemap-offers-r.xml.gz",
        f"{DE}/sitemap-pages-r.xml.gz",
    ]


def test_a_host_dropped_from_the_list_leaves_no_file_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    source = _mixed(tmp_path)
    assert (
        _build(capsys, source, out, "--site", COM, "--site", DE, "--section-rules", RULES)[0] == 0
    )
    assert (out / "www.example.de" / "sitemap.xml").exists()

    code, stdout, _ = _build(capsys, source, out, "--site", COM, "--section-rules", RULES)

    assert code == 1  # the other host's records are rejected now
    assert "www.example.de/sitemap.xml" in stdout
    assert not (out / "www.example.de").exists()  # emptied, so removed
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [
            MANIFEST,
            "sitemap.xml",
            "sitemap.xsl",
            *VIEW_NAMES,
            *(p.name for p in out.glob("sitemap-*.xml.gz")),
        ]
    )


def test_a_symlink_at_a_host_directory_is_never_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "sitemap.xml").write_text("keep me")
    (out / "www.example.de").symlink_to(elsewhere)
    # a planted manifest naming a file behind the link
    (out / MANIFEST).write_text(json.dumps({"files": ["www.example.de/sitemap.xml"]}))
    before = _snapshot(elsewhere)

    code, _, err = _build(capsys, _mixed(tmp_path), out, "--site", COM, "--site", DE)

    assert code == 2
    assert len(err.splitlines()) == 1 and "www.example.de is not a directory" in err
    assert _snapshot(elsewhere) == before
    assert not (out / "sitemap.xml").exists()

    # with one site the link is not the build's to use; the manifest still names a file
    # behind it, which is left alone
    code, _, _ = _build(capsys, _mixed(tmp_path), out, "--site", COM)
    assert code == 1
    assert _snapshot(elsewhere) == before
    assert (out / "www.example.de").is_symlink()


def test_a_commit_cut_short_in_a_host_directory_is_finished_by_the_next_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _mixed(tmp_path)
    args = ("--site", COM, "--site", DE, "--section-rules", RULES, "--max-urls-per-sitemap", "20")
    complete, cut = tmp_path / "complete", tmp_path / "cut"
    assert _build(capsys, source, complete, *args)[0] == 0
    _old_build(cut)
    replace = os.replace
    moved: list[str] = []

    def dying_in_the_second_host(src: str, dst: str, **kwargs: Any) -> None:
        if "dst_dir_fd" in kwargs and len(moved) == 1:
            raise SystemExit("the process dies here")  # as a crash would: no cleanup of ours runs
        if "dst_dir_fd" in kwargs:
            moved.append(dst)
        replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", dying_in_the_second_host)
    with pytest.raises(SystemExit):
        _build(capsys, source, cut, *args)
    monkeypatch.setattr(os, "replace", replace)
    assert moved and (cut / "sitemap-r0.xml.gz").exists()  # cut short: the old files are there

    with StagedDirectory(str(cut)):  # what the next build does first
        pass

    assert _snapshot(cut) == _snapshot(complete)


def test_a_source_in_a_host_directory_of_the_output_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ("--site", COM, "--site", DE)
    assert _build(capsys, _mixed(tmp_path), out, *args)[0] == 0
    before = _snapshot(out)
    own = out / "www.example.de" / "sitemap-pages-r.xml.gz"

    code, _, err = _build(capsys, own, out, *args)

    assert code == 2
    assert len(err.splitlines()) == 1 and "a file this build replaces" in err
    assert _snapshot(out) == before


def test_a_csv_export_over_two_hosts_is_placed_by_host_and_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "export.csv"
    rows = ["url,lastmod", f"{COM}/p/1,2024-01-02", f"{DE}/blog/2,2024-01-03"]
    rows += ["HTTPS://WWW.EXAMPLE.DE:443/p/3,2024-01-04", "https://shop.example.org/x,2024-01-05"]
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"

    code, _, err = _build(
        capsys, source, out, "--site", COM, "--site", DE, "--section-rules", RULES
    )

    assert code == 1
    assert f"{source}:5: url: 'https://shop.example.org/x' is invalid: must be on one of" in err
    assert _urls(out / "sitemap-products-r.xml.gz") == [f"{COM}/p/1"]
    assert _urls(out / "www.example.de" / "sitemap-articles-r.xml.gz") == [f"{DE}/blog/2"]
    assert _urls(out / "www.example.de" / "sitemap-products-r.xml.gz") == [f"{DE}/p/3"]


def test_a_planted_manifest_cannot_reach_out_of_the_directory_through_a_host_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "sitemap.xml").write_text("keep me")
    (victim / "sitemap-pages-r.xml.gz").write_text("keep me")
    names = ["../victim/sitemap.xml", "./../victim/sitemap-pages-r.xml.gz", "a/b/sitemap.xml"]
    (out / MANIFEST).write_text(json.dumps({"files": names}))

    assert _build(capsys, _mixed(tmp_path), out, "--site", COM, "--site", DE)[0] == 0

    assert (victim / "sitemap.xml").read_text() == "keep me"
    assert (victim / "sitemap-pages-r.xml.gz").read_text() == "keep me"
