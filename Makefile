# Two commands on a fresh machine with Python 3.11: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench fuzz-long clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The main job on the sample set in this repository.
run: $(STAMP)
	@echo "== goldcase check: schema, verbatim quotes (and every other check that has landed)"
	$(BIN)/goldcase check

# Lint, types, then the whole test suite. pytest's exit 5 (no tests collected) is a failure.
test: $(STAMP) lint
	@$(BIN)/python -m pytest -q -p no:cacheprovider; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

clean:
	rm -rf $(VENV) .goldcase-cache .pytest_cache .mypy_cache .ruff_cache
