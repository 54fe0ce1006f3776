"""The layer's imports run one way: from the protocol up to the functions, never back.

Each part of ``sitemap_updater`` has a rank; a module imports only parts of a lower rank, or of
its own group (the rebuild and the IndexNow modules it runs are one group), and the modules
import no cycle. Nothing in the layer imports the local tooling.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "shared"

#: The parts of the layer, by rank: a part may import the parts of a lower rank.
RANKS = {
    "protocol": 0,
    "indexnow": 0,  # the package: its docstring only
    "printable": 0,
    "observability": 0,
    "view": 0,
    "bounded_http": 0,
    "indexnow.protocol": 1,  # the key rule config checks, and one bounded POST
    "sections": 1,
    "sites": 1,
    "engines": 1,  # the search engines' clients and the URL health check
    "page": 2,  # the page declared once, its rules, ordering and element
    "config": 2,
    "store": 3,
    "ingest": 4,
    "rebuild": 4,
    "indexnow.pending": 4,
    "indexnow.step": 4,
    "producer": 5,
    "observe": 5,
}
#: Parts of one rank that may import each other.
GROUPS = {"rebuild": "rebuild", "indexnow.pending": "rebuild", "indexnow.step": "rebuild"}


def _part(module: str) -> str | None:
    """The part of the layer a module belongs to (None: not the layer's, or the package)."""
    names = module.split(".")
    if names[0] != "sitemap_updater" or len(names) < 2:
        return None
    if names[1] == "indexnow" and len(names) > 2:
        return f"indexnow.{names[2]}"
    return names[1]


def _modules() -> dict[str, Path]:
    found = {}
    for path in LAYER.rglob("*.py"):
        names = path.relative_to(LAYER).with_suffix("").parts
        found[".".join(names[:-1] if names[-1] == "__init__" else names)] = path
    return found


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_every_import_runs_down_the_ranks() -> None:
    wrong = []
    for module, path in _modules().items():
        part = _part(module)
        if part is None:
            continue
        assert part in RANKS, f"{module}: a part without a rank"
        for imported in _imports(path):
            other = _part(imported)
            if other is None or other == part:
                continue
            same_group = GROUPS.get(part) is not None and GROUPS.get(part) == GROUPS.get(other)
            if not same_group and RANKS[other] >= RANKS[part]:
                wrong.append(f"{module} imports {imported}")
    assert wrong == []


def test_the_layer_never_imports_the_tooling() -> None:
    wrong = [
        f"{module} imports {imported}"
        for module, path in _modules().items()
        for imported in _imports(path)
        if imported.split(".")[0] == "sitemap_updater_local"
    ]
    assert wrong == []


def test_the_modules_import_no_cycle() -> None:
    modules = _modules()
    edges = {
        module: {name for name in _imports(path) if name in modules and name != module}
        for module, path in modules.items()
    }
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    cycles: list[str] = []

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                walk(target, [*path, target])
        state[module] = 2

    for module in sorted(modules):
        if module not in state:
            walk(module, [module])
    assert cycles == []
