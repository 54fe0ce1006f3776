"""The layer's imports run one way: from the protocol up to the functions, never back.

Each part of ``sitemap_updater`` has a rank; a module imports only parts of a lower rank, the
modules import no cycle, and no import sits inside a function but where a comment beside it says
it waits for a cold start's sake. Nothing in the layer imports the local tooling.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "shared"

#: The parts of the layer, by rank: a part may import the parts of a lower rank.
RANKS = {
    "protocol": 0,
    "printable": 0,
    "observability": 0,
    "view": 0,
    "bounded_http": 0,
    "indexnow": 1,  # the protocol: the key rule, the request, one bounded POST
    "sections": 1,
    "sites": 1,
    "engines": 1,  # the search engines' clients and the URL health check
    "page": 2,  # the page declared once, its rules, ordering and element
    "config": 2,
    "store": 3,
    "ingest": 4,
    "rebuild": 4,
    "producer": 5,
    "observe": 5,
}


def _part(module: str) -> str | None:
    """The part of the layer a module belongs to (None: not the layer's, or the package)."""
    names = module.split(".")
    if names[0] != "sitemap_updater" or len(names) < 2:
        return None
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
            if RANKS[other] >= RANKS[part]:
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


def _package(module: str, modules: dict[str, Path]) -> str:
    """The package a module is in (a package is its own)."""
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def test_the_packages_import_no_cycle() -> None:
    """Between packages too: ``rebuild.steps`` may import ``rebuild.state``, never the other way
    as well, whatever modules of theirs the imports name."""
    modules = _modules()
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        mine = _package(module, modules)
        for name in _imports(path):
            if name in modules and _package(name, modules) != mine:
                theirs = _package(name, modules)
                if not theirs.startswith(mine + ".") and not mine.startswith(theirs + "."):
                    edges.setdefault(mine, set()).add(theirs)
    cycles = []
    for package, targets in edges.items():
        for target in targets:
            seen, todo = set(), [target]
            while todo:
                current = todo.pop()
                if current == package:
                    cycles.append(f"{package} -> {target} -> ... -> {package}")
                    break
                if current not in seen:
                    seen.add(current)
                    todo.extend(edges.get(current, ()))
    assert cycles == []


def test_an_import_inside_a_function_says_it_waits_for_a_cold_start() -> None:
    """An import of the layer placed inside a function is a lazy import for the functions' cold
    start, and a comment in the three lines above it (or the function's docstring) says so; no
    import is put there to dodge a cycle."""
    wrong = []
    for module, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            docstring = ast.get_docstring(node) or ""
            for inner in ast.walk(node):
                if not isinstance(inner, ast.Import | ast.ImportFrom):
                    continue
                names = [inner.module] if isinstance(inner, ast.ImportFrom) else []
                names += [alias.name for alias in getattr(inner, "names", [])]
                if not any(name and name.startswith("sitemap_updater") for name in names):
                    continue
                above = "\n".join(lines[max(0, inner.lineno - 4) : inner.lineno])
                if "cold start" not in above and "cold start" not in docstring:
                    wrong.append(f"{module}:{inner.lineno}")
    assert wrong == []
