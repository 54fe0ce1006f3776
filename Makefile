# Every target creates .venv itself from pyproject.toml (README, "Quick start").
# Python 3.12, the functions' Lambda runtime (python3.12): `sam build` refuses any other version.
PYTHON ?= python3.12
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=
# The suite runs on every core (pytest-xdist); a test file stays on one worker, so its
# module-scoped fixtures (the fault replays, the moto server) are built once.
XDIST  ?= -n auto --dist loadfile

.PHONY: venv python-check test lint typecheck unit demo bench sam-build clean

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

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory python-check PYTHON="$(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,iac]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest $(XDIST) $(PYTEST_ARGS)

unit: $(STAMP)
	$(BIN)/pytest tests/unit tests/property -q

demo: $(STAMP)
	$(BIN)/sitemap-updater demo $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_render.py
	$(BIN)/python benchmarks/bench_judge.py
	$(BIN)/python benchmarks/bench_build.py
	MALLOC_ARENA_MAX=2 $(BIN)/python benchmarks/bench_rebuild.py  # as template.yaml sets it for the rebuild function
	$(BIN)/python benchmarks/bench_scale.py --with-10m
	$(BIN)/python benchmarks/cost_model.py
	$(BIN)/python benchmarks/capacity.py

sam-build: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/sam build --template-file template.yaml --build-dir .aws-sam/build

clean:
	rm -rf $(VENV) .aws-sam sitemap-out .pytest_cache .mypy_cache .ruff_cache
