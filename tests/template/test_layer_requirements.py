"""The pip requirement files are uv.lock's pins and hashes, and the layer holds what its code needs.

`make lock` writes layers/shared/requirements.txt (what `sam build` installs into the shared layer)
and requirements-uv.txt (how `make venv` installs uv) from uv.lock; these tests read the files
themselves, offline, so a hand edit or a lock moved on without `make lock` fails here.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

from tests.template.cfn import load_template
from tests.template.layer import (
    LAYER_FILE,
    RUNTIME,
    Pin,
    parse_requirements,
    powertools_layer,
)

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))

# Each requirement file and the dependency group of pyproject.toml it is written from.
FILES = {"layer": LAYER_FILE, "bootstrap": ROOT / "requirements-uv.txt"}

#: Distributions the layer's code may import without installing them: the Lambda runtime's and
#: the AWS-managed Powertools layer's (template.yaml).
PROVIDED_ON_LAMBDA = RUNTIME | powertools_layer()[1]


def locked(name: str) -> list[dict[str, Any]]:
    """Every entry uv.lock holds for `name` (more than one where Python versions fork)."""
    found = [p for p in LOCK["package"] if canonicalize_name(p["name"]) == name]
    assert found, f"uv.lock has no package {name}"
    return found


def project_entry() -> dict[str, Any]:
    (project,) = (p for p in LOCK["package"] if p["name"] == PYPROJECT["project"]["name"])
    return project


def group_closure(group: str) -> list[dict[str, Any]]:
    """The locked packages a dependency group needs, transitively, whatever the platform."""
    roots = project_entry()["dev-dependencies"][group]
    todo = [(canonicalize_name(d["name"]), d.get("extra", [])) for d in roots]
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    while todo:
        name, extras = todo.pop()
        for package in locked(name):
            deps = list(package.get("dependencies", []))
            for extra in extras:
                deps += package.get("optional-dependencies", {}).get(extra, [])
            if (name, package["version"]) not in seen:
                seen[(name, package["version"])] = package
            todo += [(canonicalize_name(d["name"]), d.get("extra", [])) for d in deps]
    return list(seen.values())


def artifact_hashes(package: dict[str, Any]) -> frozenset[str]:
    artifacts = [package["sdist"]] if "sdist" in package else []
    return frozenset(a["hash"] for a in artifacts + package.get("wheels", []))


@pytest.mark.parametrize("group", sorted(FILES))
def test_requirement_file_is_its_group_as_uv_lock_pins_it(group: str) -> None:
    # the layer's leaves out what the Powertools layer ships (make lock, --no-emit-package)
    left_out = powertools_layer()[1] if group == "layer" else set()
    expected = {
        Pin(canonicalize_name(p["name"]), p["version"], artifact_hashes(p))
        for p in group_closure(group)
        if canonicalize_name(p["name"]) not in left_out
    }
    assert parse_requirements(FILES[group]) == expected, "run make lock, then commit its files"


def test_the_layer_ships_nothing_the_powertools_layer_ships() -> None:
    """Lambda merges the Powertools layer after the shared one, so a package both shipped would
    run in the Powertools layer's version, not in the one uv.lock pins and the tests ran."""
    version, powertools = powertools_layer()
    # the list describes the layer version the template deploys
    assert load_template()["Parameters"]["PowertoolsLayerVersion"]["Default"] == version
    shipped = {pin.name for pin in parse_requirements(LAYER_FILE)}
    assert shipped, "the layer installs nothing: the comparison would be vacuous"
    assert shipped & powertools == set()
    assert shipped & RUNTIME == set()
    # what the shipped packages require is shipped too, or comes with Lambda or Powertools
    needed = {canonicalize_name(p["name"]) for p in group_closure("layer")}
    assert needed - shipped - powertools - RUNTIME == set()
    # and some of it does come from Powertools (google-auth's cryptography): the list matters
    assert needed & powertools


def test_layer_packages_are_runtime_dependencies_of_the_project() -> None:
    """What the layer group names is a runtime dependency, pinned within its range; what those
    need in turn (google-auth's cryptography, ...) comes with them, as the lock resolves it."""
    runtime = {
        canonicalize_name(r.name): r for r in map(Requirement, PYPROJECT["project"]["dependencies"])
    }
    pins = {pin.name: pin for pin in parse_requirements(LAYER_FILE)}
    for name in map(canonicalize_name, PYPROJECT["dependency-groups"]["layer"]):
        assert name in runtime, f"{name} is in the layer but not a project dependency"
        assert pins[name].version in runtime[name].specifier, (pins[name], runtime[name])


def wheel_tags(glibc_minor: int, machine: str) -> set[Tag]:
    """What pip accepts for CPython 3.12 on a manylinux machine with glibc 2.`glibc_minor`."""
    platforms = [f"manylinux_2_{m}_{machine}" for m in range(glibc_minor, 16, -1)]
    platforms.append(f"manylinux2014_{machine}")
    return set(cpython_tags((3, 12), platforms=platforms)) | set(
        compatible_tags((3, 12), platforms=platforms)
    )


# Lambda's python3.12 runtime runs on Amazon Linux 2023 (glibc 2.34) and, here, on arm64.
@pytest.mark.parametrize(
    ("group", "machine"),
    [("layer", "aarch64"), ("layer", "x86_64"), ("bootstrap", "aarch64"), ("bootstrap", "x86_64")],
)
def test_every_pinned_package_has_a_wheel_for_linux(group: str, machine: str) -> None:
    accepted = wheel_tags(34, machine)
    for package in group_closure(group):
        tags: set[Tag] = set()
        for wheel in package.get("wheels", []):
            tags |= parse_wheel_filename(wheel["url"].rsplit("/", 1)[1])[3]
        assert tags & accepted, f"{package['name']} {package['version']} has no {machine} wheel"


def runtime_imports(tree: ast.AST) -> set[str]:
    """Top-level names of the absolute imports run at import time (not under TYPE_CHECKING)."""
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_layer_installs_every_package_its_code_imports_that_lambda_lacks() -> None:
    source = ROOT / "layers" / "shared" / "sitemap_updater"
    imported = set().union(
        *(runtime_imports(ast.parse(p.read_text(encoding="utf-8"))) for p in source.rglob("*.py"))
    )
    third_party = imported - set(sys.stdlib_module_names) - {"sitemap_updater"}
    distributions = packages_distributions()
    needed = {canonicalize_name(d) for name in third_party for d in distributions[name]}
    installed = {pin.name for pin in parse_requirements(LAYER_FILE)}
    assert needed - PROVIDED_ON_LAMBDA - installed == set()
