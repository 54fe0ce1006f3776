"""Cold import of the handlers' layer modules, with and without the package's bytecode.

Lambda's /opt is read-only: a layer shipped without ``.pyc`` files is compiled again on every
cold start. This copies ``layers/shared/sitemap_updater`` into two trees, compiles one as
``layers/shared/Makefile`` does (unchecked hashes), and imports the modules the two handlers
import from each tree in fresh interpreters that write no bytecode, alternating, ``--runs`` times
each. It prints both medians and their ratio (above 1: the bytecode shortens the import).

Usage: .venv/bin/python benchmarks/bench_layer_bytecode.py [--runs N]
"""

from __future__ import annotations

import argparse
import compileall
import os
import py_compile
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "layers" / "shared" / "sitemap_updater"
#: what functions/ingest/app.py and functions/rebuild/app.py import from the layer
MODULES = (
    "sitemap_updater.config",
    "sitemap_updater.observability",
    "sitemap_updater.ingest.intake",
    "sitemap_updater.rebuild.runner",
)
PROBE = (
    "import importlib, time\n"
    "start = time.perf_counter()\n"
    f"for name in {MODULES!r}:\n"
    "    importlib.import_module(name)\n"
    "print(time.perf_counter() - start)\n"
)


def tree(base: Path, name: str, *, compiled: bool) -> Path:
    root = base / name
    shutil.copytree(PACKAGE, root / "sitemap_updater", ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
        compileall.compile_dir(root / "sitemap_updater", quiet=1, invalidation_mode=mode)
    return root


def import_seconds(root: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="imports per tree (default 15)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as scratch:
        trees = {
            "source only": tree(Path(scratch), "source", compiled=False),
            "with bytecode": tree(Path(scratch), "bytecode", compiled=True),
        }
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(runs):
            for name, root in trees.items():
                times[name].append(import_seconds(root))
    medians = {name: statistics.median(t) for name, t in times.items()}
    for name, median in medians.items():
        print(f"{name:>14}: median {median * 1000:7.1f} ms over {runs} imports")
    ratio = medians["source only"] / medians["with bytecode"]
    print(f"source only / with bytecode: {ratio:.2f}x (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
