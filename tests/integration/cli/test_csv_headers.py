"""A CSV source is read by its header: which columns hold the url and the lastmod, in any order
and whatever the delimiter; a header that names no url column is refused with its columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_updater_local.cli import main
from tests.integration.cli.support import SITE, published, read_xml


def _backfill(
    capsys: pytest.CaptureFixture[str], source: Path, *options: str
) -> tuple[int, list[dict[str, object]], str]:
    out = source.with_suffix(".events.jsonl")
    code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress", *options])
    err = capsys.readouterr().err
    events = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return code, events, err


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "export.csv"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "text",
    [
        "loc,modified\n{url},2026-11-01\n",
        "url,updated_at\n{url},2026-11-01\n",
        "id,url,lastmod\n7,{url},2026-11-01\n",
        "lastmod,URL\n2026-11-01,{url}\n",
        "url;lastmod\n{url};2026-11-01\n",
        "url\tlastmod\n{url}\t2026-11-01\n",
        "url|lastmod\n{url}|2026-11-01\n",
        '"url";"lastmod"\n"{url}";"2026-11-01"\n',
        "\ufeffurl,lastmod\r\n{url},2026-11-01\r\n",
    ],
    ids=["loc-modified", "updated_at", "id-first", "any-order", ";", "tab", "|", "quoted", "bom"],
)
def test_the_header_names_the_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    source = _csv(tmp_path, text.format(url=f"{SITE}/a"))

    code, events, err = _backfill(capsys, source)

    assert (code, err) == (0, "")
    assert events == [
        {
            "action": "upsert",
            "url": f"{SITE}/a",
            "lastmod": "2026-11-01",
            "occurred_at": "2026-11-01T00:00:00.000000Z",  # a listing's time is its lastmod
        }
    ]


def test_build_publishes_the_lastmod_of_a_modified_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path, f"id;loc;modified\n1;{SITE}/a;2026-11-01\n2;{SITE}/b;2026-11-02\n")
    out = tmp_path / "out"

    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(out)])

    assert code == 0, capsys.readouterr().err
    (name,) = published(out)
    root = read_xml(out / name)
    ns = {"sm": root.nsmap[None]}
    pairs = [
        (str(url.findtext("sm:loc", namespaces=ns)), url.findtext("sm:lastmod", namespaces=ns))
        for url in root.iterfind("sm:url", ns)
    ]
    assert sorted(pairs) == [(f"{SITE}/a", "2026-11-01"), (f"{SITE}/b", "2026-11-02")]


@pytest.mark.parametrize("command", ["build", "backfill"])
def test_a_header_without_a_url_column_is_refused_with_its_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    source = _csv(tmp_path, f"page,lastmod\n{SITE}/a,2026-11-01\n")
    out = tmp_path / ("out" if command == "build" else "events.jsonl")
    args = ["--site", SITE] if command == "build" else ["--no-progress"]

    code = main([command, "--from", str(source), "--out", str(out), *args])

    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert f"{source}:1: the header names no url column: its columns are 'page', 'lastmod'" in err
    assert not (out / "sitemap-r.xml.gz").exists()


def test_options_name_the_columns_and_the_delimiter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path, f"page^when^url\n{SITE}/a^2026-11-01^{SITE}/other\n")

    code, events, err = _backfill(
        capsys, source, "--url-column", "Page", "--lastmod-column", "when", "--delimiter", "^"
    )

    assert (code, err) == (0, "")
    assert events == [
        {
            "action": "upsert",
            "url": f"{SITE}/a",
            "lastmod": "2026-11-01",
            "occurred_at": "2026-11-01T00:00:00.000000Z",  # a listing's time is its lastmod
        }
    ]


def test_a_lastmod_column_named_but_missing_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path, f"url,changed\n{SITE}/a,2026-11-01\n")

    code, _, err = _backfill(capsys, source, "--lastmod-column", "updated")

    assert code == 2
    assert "the header has no column 'updated' (--lastmod-column)" in err
    assert "'url', 'changed'" in err


def test_row_problems_name_the_columns_as_the_header_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path, f"Address;Modified\n{SITE}/a;2026-13-01\n;2026-11-01\nx\n")

    code, events, err = _backfill(capsys, source, "--url-column", "address", "--strict-fields")

    assert code == 3  # no row kept: nothing written
    assert events == []
    lines = err.splitlines()
    assert lines[0].startswith(f"{source}:2: Modified: '2026-13-01' is invalid: ")
    assert lines[1].startswith(f"{source}:3: Address: '' is invalid: ")
    assert lines[2].startswith(f"{source}:4: Address: 'x' is invalid: ")


def test_a_file_without_a_header_is_url_then_lastmod(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path, f"{SITE}/a,2026-11-01\n{SITE}/b\n")

    code, events, err = _backfill(capsys, source)

    assert (code, err) == (0, "")
    assert events == [
        {
            "action": "upsert",
            "url": f"{SITE}/a",
            "lastmod": "2026-11-01",
            "occurred_at": "2026-11-01T00:00:00.000000Z",  # a listing's time is its lastmod
        },
        # without a lastmod, the earliest time: any change the site sends later wins
        {"action": "upsert", "url": f"{SITE}/b", "occurred_at": "1970-01-01T00:00:00.000000Z"},
    ]


def test_a_bad_delimiter_option_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path, f"url\n{SITE}/a\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["backfill", "--from", str(source), "--out", "-", "--delimiter", ";;"])
    assert exit_info.value.code == 2
    assert "--delimiter" in capsys.readouterr().err
