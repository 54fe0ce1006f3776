"""``sitemap-updater serve DIR``: a build's output on 127.0.0.1 with the headers the distribution
sends (the bucket's Content-Type and Cache-Control, the response headers policy's security
headers), only the objects the rebuild publishes, loopback unless told, and Ctrl-C a clean stop.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitemap_updater.rebuild.outputs.bucket import kind_of
from sitemap_updater.sites import Sites
from sitemap_updater.view import SECURITY_HEADERS, VIEW_NAMES, view_files
from sitemap_updater_local.cli import main
from sitemap_updater_local.commands.build import build_static
from tests.helpers.interrupt import default_interrupt

COM, DE = "https://www.example.com", "https://www.example.de"
COMMAND = [sys.executable, "-m", "sitemap_updater_local.cli", "serve"]


@dataclass
class Running:
    process: subprocess.Popen[str]
    lines: list[str]
    base: str


def _start(directory: Path) -> Running:
    process = subprocess.Popen(
        [*COMMAND, str(directory), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_interrupt,  # stopped with Ctrl-C
    )
    assert process.stdout is not None
    lines = [process.stdout.readline()]
    lines += [process.stdout.readline() for _ in _hosts(directory)]
    base = lines[0].split(" on ", 1)[1].split("/ ", 1)[0]
    return Running(process, lines, base)


def _hosts(directory: Path) -> list[Path]:
    """The folders with an index: one line each follows the address."""
    return [p for p in (directory, *directory.iterdir()) if (p / "sitemap.xml").is_file()]


@pytest.fixture
def output(tmp_path: Path) -> Path:
    source = tmp_path / "pages.csv"
    source.write_text(
        "url,lastmod\n"
        + "".join(f"{origin}/p/{i},2026-11-01\n" for origin in (COM, DE) for i in range(5))
    )
    out = tmp_path / "out"
    build_static([str(source)], Sites.parse(f"{COM},{DE}"), str(out))
    (out / "pages.csv").write_text("not published")
    return out


@pytest.fixture
def served(output: Path) -> Iterator[Running]:
    running = _start(output)
    try:
        yield running
    finally:
        running.process.terminate()
        # what it still writes is read, so that a full pipe can never hold up its exit
        running.process.communicate(timeout=30)


def _get(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method)) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), b""


def test_it_prints_each_hosts_view_and_serves_every_published_object_as_the_bucket_does(
    served: Running, output: Path
) -> None:
    assert served.base.startswith("http://127.0.0.1:")
    assert served.lines[1:] == [
        f"  the view of the first host: {served.base}/sitemap.html\n",
        f"  the view of www.example.de: {served.base}/www.example.de/sitemap.html\n",
    ]
    published = [p for p in output.rglob("*") if p.is_file() and p.name != "pages.csv"]
    published = [p for p in published if not p.name.startswith(".")]
    assert {p.name for p in published} >= {"sitemap.xml", "sitemap.xsl", *VIEW_NAMES}
    for path in published:
        key = path.relative_to(output).as_posix()
        status, headers, body = _get(f"{served.base}/{key}")
        assert status == 200, key
        assert body == path.read_bytes()
        kind = kind_of(key)
        assert headers["Content-Type"] == kind.content_type
        assert headers["Cache-Control"] == kind.cache_control
        assert "Content-Encoding" not in headers  # a .xml.gz is a gzip file, as in the bucket
        for name, value in SECURITY_HEADERS:
            assert headers[name] == value
    assert _get(f"{served.base}/")[2] == (output / "sitemap.xml").read_bytes()
    status, headers, body = _get(f"{served.base}/sitemap.html", method="HEAD")
    assert (status, body, headers["Content-Type"]) == (200, b"", "text/html; charset=utf-8")


@pytest.mark.parametrize(
    "path",
    ["pages.csv", "www.example.de/../pages.csv", "%2e%2e/etc/passwd", "a/b/sitemap.xml", "nope/"],
)
def test_what_the_rebuild_does_not_publish_is_not_found(served: Running, path: str) -> None:
    assert _get(f"{served.base}/{path}")[0] == 404


def test_an_output_from_before_the_view_is_shown_with_this_versions_view(tmp_path: Path) -> None:
    source = tmp_path / "pages.csv"
    source.write_text(f"url,lastmod\n{COM}/a,2026-11-01\n")
    out = tmp_path / "out"
    build_static([str(source)], Sites.parse(COM), str(out))
    for name in VIEW_NAMES:
        (out / name).unlink()
    running = _start(out)
    try:
        for name, body in view_files():
            assert _get(f"{running.base}/{name}")[2] == body
    finally:
        running.process.terminate()
        # what it still writes is read, so that a full pipe can never hold up its exit
        running.process.communicate(timeout=30)


def test_ctrl_c_stops_it_with_one_line_and_status_0(output: Path) -> None:
    running = _start(output)
    assert _get(f"{running.base}/sitemap.html")[0] == 200
    running.process.send_signal(signal.SIGINT)
    _, err = running.process.communicate(timeout=30)
    assert running.process.returncode == 0
    assert err == "sitemap-updater serve: stopped\n"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--bind", "0.0.0.0"], "--bind 0.0.0.0: not a loopback address"),
        (["--bind", "192.0.2.7"], "add --allow-remote to mean it"),
        (["--bind", "example.com"], "--bind 'example.com': not an IP address (or localhost)"),
        (["--port", "70000"], "--port 70000: must be 0 to 65535"),
    ],
)
def test_it_refuses_to_listen_beyond_loopback_unless_told(
    output: Path, arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(output), *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sitemap-updater serve: ") and message in err
    assert err.count("\n") == 1


def test_a_directory_without_an_index_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(tmp_path)]) == 2
    assert "no sitemap.xml (not an output of build, demo or simulate)" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err
