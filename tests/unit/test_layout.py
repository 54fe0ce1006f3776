"""The tree stays readable: small modules, and rooms of at most a dozen modules each."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "layers" / "shared" / "sitemap_updater"
TOOLING = ROOT / "tooling" / "sitemap_updater_local"
MAX_MODULE_LINES = 400
MAX_MODULES_PER_FOLDER = 12


def _folders(top: Path) -> list[Path]:
    return sorted(p for p in [top, *top.rglob("*")] if p.is_dir() and p.name != "__pycache__")


@pytest.mark.parametrize("top", [SHARED, TOOLING], ids=["layers", "tooling"])
def test_no_module_is_over_400_lines(top: Path) -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in top.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


@pytest.mark.parametrize("top", [SHARED, TOOLING], ids=["layers", "tooling"])
def test_no_folder_holds_more_than_12_modules(top: Path) -> None:
    crowded = {
        str(folder.relative_to(ROOT)): n
        for folder in _folders(top)
        if (n := len(list(folder.glob("*.py")))) > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}
