"""``sitemap-updater build`` never loses a good sitemap: empty or wholly rejected input changes
nothing, a failure or Ctrl-C leaves the previous output byte for byte, only the previous build's
own files are removed, and temporary files never follow a planted symlink."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sitemap_updater.sites import Sites
from sitemap_updater.view import VIEW_NAMES
from sitemap_updater_local.cli import main
from sitemap_updater_local.outputs.staged_directory import MANIFEST, StagedDirectory
from sitemap_updater_local.pipeline import site_files
from sitemap_updater_local.pipeline.static_build import build_static
from tests.helpers.interrupt import default_interrupt
from tests.integration.cli.support import SITE, page_urls, published, write_gz


def _build(
    capsys: pytest.CaptureFixture[str], source: Path, out: Path, *extra: str, site: str = SITE
) -> tuple[int, str, str]:
    code = main(["build", "--from", str(source), "--site", site, "--out", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _snapshot(directory: Path) -> dict[str, bytes]:
    """Every entry under ``directory``, hidden ones included (a directory as b"<dir>")."""
    return {
        str(p.relative_to(directory)): b"<dir>" if p.is_dir() else p.read_bytes()
        for p in sorted(directory.rglob("*"))
    }


def _csv(path: Path, count: int, prefix: str = "page") -> Path:
    path.write_text("\n".join(page_urls(count, prefix)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def four_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """An output directory holding a good build of four sitemap files and the index."""
    out = tmp_path / "out"
    code, _, _ = _build(
        capsys, _csv(tmp_path / "good.csv", 400), out, "--max-urls-per-sitemap", "120"
    )
    assert code == 0
    assert len(published(out)) == 4
    return out


def test_an_empty_export_changes_nothing_and_exits_3(
    tmp_path: Path, four_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(four_files)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")

    code, out, err = _build(capsys, empty, four_files)

    assert code == 3
    assert _snapshot(four_files) == before
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "nothing to publish" in err and "unchanged" in err and "--allow-empty" in err


def test_every_record_rejected_changes_nothing_and_the_problems_are_capped_by_rule(
    tmp_path: Path, four_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(four_files)
    events = tmp_path / "events.jsonl"
    lines = [json.dumps({"action": "upsert", "url": u}) for u in page_urls(5000)]
    lines += ["{broken"] * 30
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # a mistyped --site: every URL is on another host
    code, _, err = _build(capsys, events, four_files, site="https://www.exampel.com")

    assert code == 3
    assert _snapshot(four_files) == before
    problem_lines = [line for line in err.splitlines() if line.startswith(str(events))]
    assert len(problem_lines) == 20
    assert "5030 invalid record(s) skipped, the first 20 shown above" in err
    counts = {rule: int(n) for n, rule in (line.split(None, 1) for line in err.splitlines()[21:-1])}
    assert len(counts) == 2
    assert sorted(counts.values()) == [30, 5000]
    assert all("www.example.com" not in rule for rule in counts)  # rules, not values
    assert err.splitlines()[-1].startswith("sitemap-updater build: nothing to publish")
    assert len(err.splitlines()) == 20 + 1 + 2 + 1


def test_a_failure_while_rendering_leaves_the_previous_output_byte_for_byte(
    tmp_path: Path,
    four_files: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = _snapshot(four_files)
    rendered = site_files.render_shard
    calls = []

    def failing_third(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return rendered(*args, **kwargs)

    monkeypatch.setattr(site_files, "render_shard", failing_third)
    source = _csv(tmp_path / "new.csv", 400, "new")

    code, _, err = _build(
        capsys, source, four_files, "--max-urls-per-sitemap", "120", "--jobs", "1"
    )

    assert code == 2
    assert err.splitlines() == ["sitemap-updater build: No space left on device"]
    assert _snapshot(four_files) == before


def test_only_files_of_the_previous_build_are_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    theirs = {
        "sitemap-r0110.xml.gz": b"someone else's, named like ours",
        "sitemap-x.xml.gz": b"an unrelated sitemap",
        "notes.txt": b"not ours",
    }
    for name, body in theirs.items():
        (out / name).write_bytes(body)
    # the input lies in the output directory too
    source = write_gz(out / "sitemap-input.csv.gz", "\n".join(page_urls(300)) + "\n")
    assert _build(capsys, source, out, "--max-urls-per-sitemap", "100")[0] == 0
    first = json.loads((out / MANIFEST).read_bytes())["files"]
    assert len(first) > 3 and first[-2 - len(VIEW_NAMES) :] == [
        "sitemap.xsl",
        *VIEW_NAMES,
        "sitemap.xml",
    ]

    code, stdout, _ = _build(capsys, source, out)  # one file now: the split ones go

    assert code == 0
    assert f"removed {len(first) - 2 - len(VIEW_NAMES)} file(s)" in stdout
    assert sorted(p.name for p in out.glob("sitemap-*r*.xml.gz")) == [
        "sitemap-pages-r.xml.gz",
        "sitemap-r0110.xml.gz",
    ]
    for name, body in theirs.items():
        assert (out / name).read_bytes() == body
    assert source.exists()
    assert json.loads((out / MANIFEST).read_bytes())["files"] == [
        "sitemap-pages-r.xml.gz",
        "sitemap.xsl",
        *VIEW_NAMES,
        "sitemap.xml",
    ]


def test_a_planted_manifest_cannot_make_it_remove_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "keep.txt").write_text("keep me")
    (out / MANIFEST).write_text(json.dumps({"files": [str(victim), "../victim.txt", "keep.txt"]}))

    assert _build(capsys, _csv(tmp_path / "a.csv", 10), out)[0] == 0

    assert victim.read_text() == "keep me"
    assert (out / "keep.txt").read_text() == "keep me"


def test_symlinks_planted_at_temporary_and_output_names_are_never_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    for name in ("sitemap.xml", "sitemap-pages-r.xml.gz"):
        (out / f".{name}.tmp").symlink_to(victim)
    (out / "sitemap-pages-r.xml.gz").symlink_to(victim)

    code, _, _ = _build(capsys, _csv(tmp_path / "a.csv", 10), out)

    assert code == 0
    assert victim.read_text() == "keep me"
    assert not (out / "sitemap-pages-r.xml.gz").is_symlink()
    assert sorted(published(out)["sitemap-pages-r.xml.gz"]) == sorted(page_urls(10))


def test_a_source_that_is_one_of_its_own_outputs_is_refused(
    four_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(four_files)
    own = next(four_files.glob("sitemap-pages-r*.xml.gz"))
    linked = four_files.parent / "linked.xml.gz"
    linked.hardlink_to(own)

    for source in (own, linked):
        code, _, err = _build(capsys, source, four_files)
        assert code == 2
        assert len(err.splitlines()) == 1
        assert "--from" in err and "a file this build replaces" in err
    assert _snapshot(four_files) == before


def test_an_out_that_is_a_file_or_impossible_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _csv(tmp_path / "a.csv", 5)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for out in (a_file, a_file / "below", Path("/proc/self/no/such/dir")):
        code, _, err = _build(capsys, source, out)
        assert code == 2
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert f"--out {out}: cannot be used as the output directory" in err
    assert a_file.read_text() == "x"


@pytest.mark.parametrize("jobs", ["0", "-3"])
def test_jobs_below_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    code, _, err = _build(capsys, _csv(tmp_path / "a.csv", 5), tmp_path / "out", "--jobs", jobs)
    assert code == 2
    assert err.splitlines() == [f"sitemap-updater build: --jobs: {jobs} must be 1 or more"]
    assert not (tmp_path / "out").exists()


def test_a_commit_cut_short_is_finished_by_the_next_build(
    tmp_path: Path,
    four_files: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = _csv(tmp_path / "new.csv", 300, "new")
    complete = tmp_path / "complete"
    assert _build(capsys, source, complete, "--max-urls-per-sitemap", "120")[0] == 0
    replace = os.replace
    moved: list[str] = []

    def dying_on_the_third_move(src: str, dst: str) -> None:
        if len(moved) == 2:
            raise SystemExit("the process dies here")  # as a crash would: no cleanup of ours runs
        moved.append(dst)
        replace(src, dst)

    monkeypatch.setattr(os, "replace", dying_on_the_third_move)
    with pytest.raises(SystemExit):
        build_static([str(source)], Sites.parse(SITE), str(four_files), max_urls=120)
    monkeypatch.setattr(os, "replace", replace)
    assert [p.name for p in four_files.glob(".sitemap-build-*")] != []  # the commit record

    with StagedDirectory(str(four_files)):  # what the next build does first
        pass

    assert _snapshot(four_files) == _snapshot(complete)


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    """Poll until ``condition`` holds (failing if the process ends first)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert process.poll() is None, "the build ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.005)


def _group_alive(pgid: int) -> list[str]:
    """The live (not zombie) processes of a process group."""
    listing = subprocess.run(
        ["ps", "-o", "stat=,args=", "-g", str(pgid)], capture_output=True, text=True, check=False
    ).stdout
    return [
        line for line in listing.splitlines() if line.strip() and not line.strip().startswith("Z")
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("phase", "stop", "code", "line"),
    [
        # Ctrl-C on a terminal signals the whole foreground group, the workers too
        ("judging", "ctrl-c", 130, "interrupted"),
        ("rendering", "ctrl-c", 130, "interrupted"),
        # kill PID signals the command alone
        ("judging", "kill", 143, "terminated"),
    ],
)
def test_a_stopped_build_stops_its_workers_and_leaves_the_output_as_it_was(
    tmp_path: Path, four_files: Path, phase: str, stop: str, code: int, line: str
) -> None:
    events = tmp_path / "events.jsonl"
    with events.open("w", encoding="utf-8") as fh:
        for i, url in enumerate(page_urls(150_000, "big")):
            fh.write(
                json.dumps({"action": "upsert", "url": url, "lastmod": f"2024-01-{1 + i % 28:02d}"})
                + "\n"
            )
    before = _snapshot(four_files)
    spool_root = tmp_path / "tmp"
    spool_root.mkdir()
    command = [sys.executable, "-m", "sitemap_updater_local.cli", "build", "--from", str(events)]
    command += ["--site", SITE, "--out", str(four_files), "--jobs", "2"]
    command += ["--max-urls-per-sitemap", "2000"]
    # its own session, as a terminal's foreground group, with Ctrl-C's default action even when
    # the tests run in the background of a shell without job control (which ignores SIGINT)
    process = subprocess.Popen(
        command,
        env={**os.environ, "TMPDIR": str(spool_root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=default_interrupt,
    )
    try:
        if phase == "judging":
            _wait_for(lambda: any(spool_root.glob("sitemap-build-*/changes/*.spool")), process)
        else:
            _wait_for(lambda: any(four_files.glob(".sitemap-build-*/sitemap-pages-r*")), process)
        if stop == "ctrl-c":
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.terminate()
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    assert process.returncode == code
    assert err.decode().splitlines() == [f"sitemap-updater build: {line}"]
    assert _group_alive(process.pid) == []
    assert list(spool_root.iterdir()) == []
    assert _snapshot(four_files) == before


def test_what_a_build_killed_before_its_commit_left_is_removed_by_the_next(
    four_files: Path,
) -> None:
    before = _snapshot(four_files)
    # no commit record, one cut short, one that is not a record
    for name, record in (("a", None), ("b", b'{"files": ["sitemap.xml"'), ("c", b"[1]")):
        staging = four_files / f".sitemap-build-{name}.staging"
        staging.mkdir()
        (staging / "sitemap.xml").write_bytes(b"half a build")
        if record is not None:
            (staging / "commit.json").write_bytes(record)

    with StagedDirectory(str(four_files)):
        pass

    assert _snapshot(four_files) == before
