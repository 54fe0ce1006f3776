"""`sam build` packages the layer and both functions without Docker, and ships no dev tooling."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from tests.template.cfn import ROOT, TEMPLATE
from tests.template.layer import LAYER_FILE, parse_requirements, powertools_layer
from tests.template.tools import run_tool

# Packages that exist only for tests, local tooling or type checking; none may reach Lambda.
# boto3/botocore come with the runtime and Powertools with the AWS-managed layer.
NEVER_SHIPPED = {
    "moto",
    "pytest",
    "_pytest",
    "hypothesis",
    "lxml",
    "mypy",
    "sitemap_updater_local",
    "tests",
    "usp",
    "boto3",
    "botocore",
    "aws_lambda_powertools",
    "pydantic",
}


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sam") / "build"
    result = run_tool(
        ["sam", "build", "--template-file", str(TEMPLATE), "--build-dir", str(out)],
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def top_level_names(root: Path) -> set[str]:
    """Importable names and directories directly under `root` (packages, modules, dist-info)."""
    return {p.name.removesuffix(".py").split("-")[0] for p in root.iterdir()}


def distributions(root: Path) -> set[str]:
    """The distributions installed under ``root``, by their normalized names."""
    return {
        canonicalize_name(p.name.removesuffix(".dist-info").rsplit("-", 1)[0])
        for p in root.glob("*.dist-info")
    }


@pytest.mark.slow
def test_layer_holds_the_shared_package_and_what_lambda_lacks_only(build_dir: Path) -> None:
    python = build_dir / "SharedLayer" / "python"
    built = {p.relative_to(python).as_posix() for p in (python / "sitemap_updater").rglob("*.py")}
    source_root = ROOT / "layers" / "shared"
    source = {
        p.relative_to(source_root).as_posix()
        for p in (source_root / "sitemap_updater").rglob("*.py")
    }
    assert built == source
    # the package's data files too: the stylesheet and the view the rebuild publishes
    package = python / "sitemap_updater"
    data = [package / "protocol" / "stylesheet" / "sitemap.xsl"]
    data += [package / "view" / name for name in ("sitemap.html", "sitemap.js", "sitemap.css")]
    for shipped in data:
        assert shipped.read_bytes() == (source_root / shipped.relative_to(python)).read_bytes()
    assert (python / "idna" / "__init__.py").is_file()
    # the compiled deflate the writer uses, built for Lambda's arm64 whatever machine builds it
    assert list((python / "zlib_ng").glob("zlib_ng.cpython-312-aarch64-linux-gnu.so"))
    # the page model's decoder of messages into typed structs, arm64 too
    assert list((python / "msgspec").glob("_core.cpython-312-aarch64-linux-gnu.so"))
    assert not top_level_names(python) & NEVER_SHIPPED
    # exactly the requirement file's distributions: none the Powertools layer ships, whose copy
    # Lambda would load instead (cryptography, cffi, pycparser, pydantic ...)
    required = {pin.name for pin in parse_requirements(LAYER_FILE)}
    assert distributions(python) == required
    assert not distributions(python) & powertools_layer()[1]
    assert not {"cryptography", "cffi", "_cffi_backend", "pycparser"} & top_level_names(python)


@pytest.mark.slow
def test_layer_ships_every_module_compiled_for_a_read_only_opt(build_dir: Path) -> None:
    """Every module of the layer, the wheels' as well as the package's: `sam` zips the files
    with a 1980 timestamp, so a timestamp-checked .pyc would be stale at every cold start."""
    python = build_dir / "SharedLayer" / "python"
    modules = list(python.rglob("*.py"))
    assert len(modules) > len(list((python / "sitemap_updater").rglob("*.py")))
    for module in modules:
        cached = module.parent / "__pycache__" / f"{module.stem}.cpython-312.pyc"
        header = cached.read_bytes()[:16]
        assert header[:4] == importlib.util.MAGIC_NUMBER, module  # Python 3.12's bytecode
        # PEP 552: hash-based and not checked against the source, which Lambda extracts with
        # other timestamps and cannot recompile into its read-only /opt
        assert int.from_bytes(header[4:8], "little") == 0b01, module


@pytest.mark.slow
@pytest.mark.parametrize("function", ["IngestFunction", "RebuildFunction"])
def test_functions_hold_their_handler_and_no_dev_dependency(build_dir: Path, function: str) -> None:
    root = build_dir / function
    assert (root / "app.py").is_file()
    assert not top_level_names(root) & NEVER_SHIPPED


@pytest.mark.slow
def test_no_dev_package_anywhere_in_the_artifacts(build_dir: Path) -> None:
    shipped = [p for p in build_dir.rglob("*") if p.is_dir() and p.name in NEVER_SHIPPED]
    assert shipped == []
    assert not list(build_dir.rglob("test_*.py"))
    assert not list(build_dir.rglob("conftest.py"))
