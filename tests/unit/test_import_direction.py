"""Imports run one way: from the handlers and the tooling down to the protocol core, never back
up (docs/architecture.md, "Packages").

Each part of the shared package has a rank; a module may import its own part and any part of a
lower rank, nothing else (imports under ``TYPE_CHECKING`` and inside functions count too). The
shared package never imports the local tooling.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "layers" / "shared" / "sitemap_updater"
TOOLING = "sitemap_updater_local"

#: The parts of the shared package, lowest first: the pure protocol core, the site and section
#: rules on it, the table's codec, the settings, then the two services and the producer client.
RANKS = {
    "protocol": 0,
    "observability": 0,
    "indexnow": 0,
    "view": 0,
    "sites": 1,
    "sections": 1,
    "store": 2,
    "config": 3,
    "ingest": 4,
    "rebuild": 4,
    "producer": 5,
}


def _part(path: Path) -> str:
    return path.relative_to(SHARED).parts[0].removesuffix(".py")


def _imported(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _modules() -> list[Path]:
    return sorted(p for p in SHARED.rglob("*.py") if p.name != "__init__.py" or p.parent != SHARED)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SHARED)))
def test_a_module_imports_only_its_own_part_and_lower_ones(path: Path) -> None:
    own = _part(path)
    upward = []
    for name in _imported(ast.parse(path.read_text(encoding="utf-8"))):
        top, _, rest = name.partition(".")
        if top == TOOLING:
            upward.append(name)
        elif top == "sitemap_updater" and rest:
            part = rest.split(".")[0]
            if part != own and RANKS[part] >= RANKS[own]:
                upward.append(name)
    assert upward == []


def test_every_part_has_a_rank() -> None:
    assert {_part(path) for path in _modules()} == set(RANKS)
