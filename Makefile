# Every target creates .venv itself, exactly as uv.lock pins it (see docs/development.md).
# Python 3.12, the functions' Lambda runtime (python3.12): `sam build` refuses any other version.
PYTHON ?= python3.12
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
UV     := $(BIN)/uv
ARGS   ?=
# extra options of `make lock`, e.g. LOCK_ARGS="--upgrade-package moto"
LOCK_ARGS ?=
# uv works on $(VENV) with the Python it was made with, and never fetches one of its own.
UV_ENV := UV_PROJECT_ENVIRONMENT="$(abspath $(VENV))" UV_PYTHON="$(abspath $(BIN))/python" \
          UV_PYTHON_DOWNLOADS=never
# The suite runs on every core (pytest-xdist); a test file stays on one worker, so its
# module-scoped fixtures (the fault replays, the moto server) are built once. Files are handed
# out in collection order, the longest first (tests/conftest.py), not by their number of tests.
XDIST  ?= -n auto --dist loadfile --no-loadscope-reorder

.PHONY: venv python-check lock-check lock test lint format typecheck unit demo local bench sam-build clean

venv: $(STAMP)

# Stops with how to get Python 3.12 when $(PYTHON) is missing or another version.
python-check:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null || { \
	  echo "Python 3.12 is needed (the Lambda runtime python3.12; sam build checks it)," >&2; \
	  echo "but '$(PYTHON)' is missing or another version. Install Python 3.12, for example" >&2; \
	  echo "  uv python install 3.12, pyenv install 3.12, brew install python@3.12," >&2; \
	  echo "  or apt-get install python3.12 python3.12-venv where your release has it," >&2; \
	  echo "then run make again, or name it: make venv PYTHON=/path/to/python3.12" >&2; \
	  exit 1; }

# uv itself, installed by pip with the hashes of requirements-uv.txt (written from uv.lock).
$(UV): requirements-uv.txt
	@$(MAKE) --no-print-directory python-check PYTHON="$(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements-uv.txt
	touch $(UV)

# The project, every extra and exactly the versions of uv.lock; nothing else stays in $(VENV).
# Compiled to bytecode once here: every process the suite starts (the commands the docs show, the
# benchmarks, the SAM CLI, checkov, the replays' workers) then loads moto, botocore and the rest
# from it, also where PYTHONDONTWRITEBYTECODE is set and Python would compile them afresh each time.
$(STAMP): pyproject.toml uv.lock $(UV)
	$(UV_ENV) $(UV) sync --locked --quiet --compile-bytecode --extra dev --extra iac --group bootstrap
	touch $(STAMP)

# Stops at once, offline, when pyproject.toml asks for what uv.lock does not pin.
lock-check: $(UV)
	@$(UV_ENV) $(UV) lock --check --offline --quiet 2>/dev/null || { \
	  echo "uv.lock is out of date with pyproject.toml: run 'make lock' and commit uv.lock," \
	    "requirements-uv.txt and layers/shared/requirements.txt" >&2; exit 1; }

# What the AWS-managed Powertools layer ships (layers/shared/powertools-layer.txt): the shared
# layer's requirement file leaves it out, whatever the layer group's packages require.
POWERTOOLS_LAYER = $(shell grep -v '^\#' layers/shared/powertools-layer.txt)

# Re-resolves uv.lock (LOCK_ARGS="--upgrade-package X" to move X on), then writes the two
# requirement files that pip reads from it: uv's own, and the shared layer's for `sam build`.
lock: $(UV)
	$(UV_ENV) $(UV) lock $(LOCK_ARGS)
	{ echo "# uv for make venv, as uv.lock pins it. Written by make lock: do not edit."; \
	  $(UV_ENV) $(UV) export --frozen --only-group bootstrap --no-emit-project --no-annotate \
	    --no-header; } > requirements-uv.txt
	{ echo "# Installed into the shared layer by sam build (layers/shared/Makefile, arm64)."; \
	  echo "# The layer group of pyproject.toml as uv.lock pins it. Written by make lock: do not edit."; \
	  echo "# boto3 comes with the Lambda runtime, and what powertools-layer.txt lists with the"; \
	  echo "# AWS-managed Powertools layer (see template.yaml). Only what neither provides is listed here."; \
	  $(UV_ENV) $(UV) export --frozen --only-group layer --no-emit-project --no-annotate \
	    --no-header $(foreach name,$(POWERTOOLS_LAYER),--no-emit-package $(name)); \
	} > layers/shared/requirements.txt

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# ruff's fixer, then its formatter, over the whole tree (the pre-commit hooks do it per file).
format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(STAMP)
	$(BIN)/mypy

# Coverage of both packages is reported at the end (pyproject.toml, [tool.coverage]).
# Our own packages are compiled to bytecode first, as the installed ones are: every command the
# suite starts in a process of its own would otherwise compile them afresh where
# PYTHONDONTWRITEBYTECODE is set (about 0.06 s each).
test: lock-check lint typecheck
	$(BIN)/python -m compileall -q -j 0 layers/shared/sitemap_updater tooling functions
	$(BIN)/pytest $(XDIST) --cov $(PYTEST_ARGS)

unit: $(STAMP)
	$(BIN)/pytest tests/unit tests/property -q

demo: $(STAMP)
	$(BIN)/sitemap-updater demo $(ARGS)

# The stack on 127.0.0.1 until Ctrl-C, for status, redrive and the rest (docs/operations.md).
local: $(STAMP)
	$(BIN)/sitemap-updater local $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_render.py
	$(BIN)/python benchmarks/bench_judge.py
	$(BIN)/python benchmarks/bench_build.py  # bench_backfill.py too, on build's own gzipped index
	$(BIN)/python benchmarks/bench_build_parts.py
	MALLOC_ARENA_MAX=2 $(BIN)/python benchmarks/bench_rebuild.py  # as template.yaml sets it for the rebuild function
	$(BIN)/python benchmarks/bench_scale.py --with-10m
	$(BIN)/python benchmarks/bench_hostile_xml.py
	$(BIN)/python benchmarks/bench_view.py
	$(BIN)/python benchmarks/cost_model.py
	$(BIN)/python benchmarks/observer_cost.py
	$(BIN)/python benchmarks/capacity.py
	$(BIN)/python benchmarks/bench_hostile_lines.py
	$(BIN)/python benchmarks/bench_bad_elements.py
	$(BIN)/python benchmarks/bench_hostile_rebuild.py
	$(BIN)/python benchmarks/bench_local.py
	$(BIN)/python benchmarks/bench_cold_start.py
	$(BIN)/python benchmarks/bench_layer_bytecode.py

sam-build: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/sam build --template-file template.yaml --build-dir .aws-sam/build

clean:
	rm -rf $(VENV) .aws-sam sitemap-out .pytest_cache .mypy_cache .ruff_cache .coverage
