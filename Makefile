# Every target creates .venv itself from pyproject.toml (see README, "Quick start").
PYTHON ?= $(shell command -v python3.12 2>/dev/null || command -v python3.13 2>/dev/null || echo python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=
# The suite runs on every core (pytest-xdist); a test file stays on one worker, so its
# module-scoped fixtures (the fault replays, the moto server) are built once.
XDIST  ?= -n auto --dist loadfile

.PHONY: venv test lint typecheck unit demo bench sam-build clean

venv: $(STAMP)

$(STAMP): pyproject.toml
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
