# Two commands on a fresh machine with Python 3.11: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench coverage fuzz-long clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m compileall -q src  # as a wheel install would; PYTHONDONTWRITEBYTECODE may be set
	touch $(STAMP)

# The main job on the sample set in this repository: check it, confirm its version, show what
# it is made of and how far a second labeller agrees, score two runs of the baseline, gate one
# against the other, render the report, then the split, calibration, leakage and interchange
# tools on the same set.
run: $(STAMP)
	@echo "== goldcase check: schema, verbatim quotes, leakage, version, composition, personal data"
	$(BIN)/goldcase check
	@echo "== goldcase fmt --check: every case file in the canonical form (key order, quoting, comments kept)"
	$(BIN)/goldcase fmt --check
	@echo "== goldcase schema --check: the case schema the case files' first line names is current"
	$(BIN)/goldcase schema --check
	@echo "== goldcase lock --check: golden.version and golden.lock match the golden set and corpus"
	$(BIN)/goldcase lock --check
	@echo "== goldcase stats: slices against their floors, shares of set and traffic, what 20 items can detect"
	$(BIN)/goldcase stats
	@echo "== goldcase agreement: a second labeller's seeded sample of 30 cases against the set's labels (the ceiling for any score)"
	$(BIN)/goldcase agreement
	@echo "== goldcase score: the top-3 baseline run, every rate with its denominator and interval"
	@mkdir -p reports
	$(BIN)/goldcase score runs/baseline-k3.jsonl --out reports/baseline-k3.json
	@echo "== goldcase compare: the top-1 baseline run (base) against the top-3 one (head)"
	$(BIN)/goldcase score runs/baseline-k1.jsonl --format json --out reports/baseline-k1.json >/dev/null
	$(BIN)/goldcase compare reports/baseline-k1.json reports/baseline-k3.json || \
	  echo "(compare exits 1 when the gate fails; the reasons are listed above)"
	@echo "== goldcase report: the comparison as a self-contained HTML page"
	$(BIN)/goldcase report reports/baseline-k3.json --compare reports/baseline-k1.json --stats \
	  --html reports/report.html
	@echo "== goldcase split: the calibration and eval halves of the golden set (seeded, stratified)"
	$(BIN)/goldcase split
	@echo "== goldcase calibrate: fit an abstention threshold on the calibration half of a sample run"
	$(BIN)/goldcase calibrate runs/baseline-k3.jsonl --target-risk 0.8 || \
	  echo "(calibrate exits 1 when the target cannot be certified on this split)"
	@echo "== goldcase hashes / leakage --against / contamination: the set's salted hashes, the prompts checked against them, the corpus scanned for golden questions"
	$(BIN)/goldcase hashes --out reports/golden.hashes
	$(BIN)/goldcase leakage --against reports/golden.hashes prompts/system.md prompts/fewshot.yaml
	$(BIN)/goldcase contamination corpus/*.md prompts/system.md
	@echo "== goldcase contamination --engine dask: the same scan on a local Dask cluster of 2 worker processes, 10 kB partitions"
	$(BIN)/goldcase contamination --engine dask --workers 2 --partition-size 0.01 corpus/*.md prompts/system.md
	@echo "== goldcase export: the golden set as promptfoo tests, in a temporary file"
	$(BIN)/goldcase export --format promptfoo --out "$${TMPDIR:-/tmp}/goldcase-sample-promptfoo.yaml"
	@echo "== goldcase review: the cases the last commit added, changed, moved or removed"
	$(BIN)/goldcase review --base HEAD~1 --head HEAD --format text || \
	  echo "(review needs the previous commit; a shallow clone of depth 1 has none)"

# Lint, types, then the whole test suite. pytest's exit 5 (no tests collected) is a failure.
test: $(STAMP) lint
	@$(BIN)/python -m pytest -q -p no:cacheprovider --durations=10; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# Branch coverage of src/ over the whole suite (slower than make test).
coverage: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider --cov=goldcase --cov-branch \
		--cov-report=term:skip-covered

clean:
	rm -rf $(VENV) .goldcase-cache .pytest_cache .mypy_cache .ruff_cache

# The fuzz suite with 40 times the inputs and random seeds, and 10 times the kills (about 20
# minutes on 2 cores); docs/robustness.md has the figures.
fuzz-long: $(STAMP)
	HYPOTHESIS_PROFILE=long GOLDCASE_KILLS=60 $(BIN)/python -m pytest -q -p no:cacheprovider \
		tests/fuzz tests/robustness/test_kill.py

# Coverage-guided fuzzing with atheris (libFuzzer), 120 s a target; installs the fuzz extra.
.PHONY: fuzz-atheris
fuzz-atheris: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[fuzz]'
	for target in case results lock hashes report; do \
		$(BIN)/python scripts/fuzz_atheris.py $$target -max_total_time=120 -rss_limit_mb=2048 \
			|| exit 1; \
	done
