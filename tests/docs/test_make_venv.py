"""`make venv` builds with Python 3.12, the Lambda runtime, or stops saying how to get it;
`make test` stops at once, in one line, when uv.lock no longer matches pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make")

pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")


def make(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env["PATH"] = path
    return subprocess.run(
        [str(MAKE), "--no-print-directory", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_stops_with_instructions(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode != 0
    assert "Python 3.12 is needed" in result.stderr
    assert "make venv PYTHON=/path/to/python3.12" in result.stderr


def test_python_3_12_passes() -> None:
    assert sys.version_info[:2] == (3, 12)
    result = make("python-check", f"PYTHON={sys.executable}", path=os.environ["PATH"])
    assert result.returncode == 0, result.stderr


def test_without_python3_12_on_path_venv_stops_before_creating_anything(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    venv = tmp_path / "venv"
    result = make("venv", f"VENV={venv}", path=str(empty))
    assert_stops_with_instructions(result)
    assert "python3.12" in result.stderr
    assert not venv.exists()


def real_interpreter(name: str) -> str | None:
    """The interpreter file behind `name` on PATH (not a version manager's shim), if any."""
    found = shutil.which(name)
    if found is None:
        return None
    result = subprocess.run(
        [found, "-c", "import sys; print(sys.executable)"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return result.stdout.strip() or None if result.returncode == 0 else None


def test_another_python_is_refused_not_used(tmp_path: Path) -> None:
    others = [
        found
        for name in ("python3.13", "python3.11", "python3.10", "python3.14", "python3.9")
        if (found := real_interpreter(name)) is not None
    ]
    if not others:
        pytest.skip("no Python other than 3.12 on this machine")
    # Even named python3.12 on PATH, another version is refused.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3.12").symlink_to(others[0])
    venv = tmp_path / "venv"
    result = make("venv", f"VENV={venv}", path=f"{fake}{os.pathsep}{os.environ['PATH']}")
    assert_stops_with_instructions(result)
    assert not venv.exists()


# This test environment's uv, the one `make venv` installed from requirements-uv.txt.
VENV = Path(sys.executable).parent.parent
UV = VENV / "bin" / "uv"


def lock_check(project: Path) -> subprocess.CompletedProcess[str]:
    """`make lock-check` of this Makefile run in `project`, with this environment's uv."""
    return make(
        "-C",
        str(project),
        "-f",
        str(ROOT / "Makefile"),
        "-o",
        str(UV),
        f"VENV={VENV}",
        "lock-check",
        path=os.environ["PATH"],
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("pyproject.toml", "uv.lock", "requirements-uv.txt", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


@pytest.mark.skipif(not UV.is_file(), reason="this environment was not installed by make venv")
def test_lock_matching_pyproject_passes_in_silence(project: Path) -> None:
    result = lock_check(project)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.skipif(not UV.is_file(), reason="this environment was not installed by make venv")
def test_lock_out_of_date_stops_with_one_line_saying_how_to_refresh_it(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace("dependencies = [\n", 'dependencies = [\n    "six",\n', 1))
    result = lock_check(project)
    assert result.returncode != 0
    assert result.stdout == ""
    # the recipe's one line, then make's own report of the failed target
    first, *rest = result.stderr.splitlines()
    assert first.startswith("uv.lock is out of date with pyproject.toml: run 'make lock'")
    assert all(line.startswith("make") for line in rest)
