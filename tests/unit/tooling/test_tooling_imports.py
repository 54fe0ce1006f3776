"""The local tooling's imports run one way too: the commands use the deployment and the
stand-ins, never the reverse, so the two packages import no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

TOOLING = Path(__file__).resolve().parents[3] / "tooling" / "sitemap_updater_local"
#: the packages below the commands
LOWER = ("deployment", "standins")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_deployment_and_the_stand_ins_never_import_a_command() -> None:
    wrong = [
        f"{path.relative_to(TOOLING)} imports {name}"
        for package in LOWER
        for path in (TOOLING / package).rglob("*.py")
        for name in _imports(path)
        if name.startswith("sitemap_updater_local.commands")
    ]
    assert wrong == []
