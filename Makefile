# Two commands on a fresh machine with Python 3.11: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run runs clients test lint bench coverage fuzz-long clean screenshots

# promptfoo for the tests that run the promptfoo export through it: installed with npm into
# .clients/ (git-ignored). 0.121.20 is the last release that runs on Node 20. Without npm,
# or offline, the note says so and those tests skip with the reason.
CLIENTS := .clients
PROMPTFOO_VERSION := 0.121.20
PROMPTFOO := $(CLIENTS)/node_modules/.bin/promptfoo
# The sample runs' system: scripts/baseline.py as goldcase run workers (see runs/README.md).
BASELINE_K1 := $(BIN)/python scripts/baseline.py --top-k 1 --threshold 0.35
BASELINE_K3 := $(BIN)/python scripts/baseline.py --top-k 3 --threshold 0.2

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m compileall -q src  # as a wheel install would; PYTHONDONTWRITEBYTECODE may be set
	touch $(STAMP)

# The main job on the sample set in this repository: run the baseline over it (the committed
# runs are complete, so nothing is asked), check it, confirm its version, show what it is made
# of and how far a second labeller agrees, score two runs of the baseline, gate one against the
# other, render the report, then the split, calibration, leakage and interchange tools on the
# same set, a fresh two-trial run, the Inspect and promptfoo loops, a triage of a week of
# sample traces, the labelling page's self-check, and a new set started from nothing.
run: $(STAMP) clients
	@echo "== goldcase run: the baseline as worker processes over the golden set; the sample runs are complete, so nothing is asked (make runs makes them afresh)"
	$(BIN)/goldcase run --cmd "$(BASELINE_K1)" --system baseline-k1 --jobs 2 --out runs/baseline-k1.jsonl
	$(BIN)/goldcase run --cmd "$(BASELINE_K3)" --system baseline-k3 --jobs 2 --out runs/baseline-k3.jsonl
	@echo "== goldcase check: schema, verbatim quotes, leakage of questions and facts, version, composition, personal data, probes (each case's checks tried on right and wrong answers)"
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
	@echo "== goldcase run --trials 2 --jobs 4: the top-3 baseline asked afresh, twice a case, then scored (a deterministic system: no flaky case)"
	rm -f reports/baseline-k3-trials.jsonl reports/baseline-k3-trials.jsonl.run.json
	$(BIN)/goldcase run --cmd "$(BASELINE_K3)" --system baseline-k3 --trials 2 --jobs 4 \
	  --out reports/baseline-k3-trials.jsonl
	$(BIN)/goldcase score reports/baseline-k3-trials.jsonl | sed -n '1,3p;/^repeated trials/,$$p'
	@echo "== goldcase export --format inspect, run by Inspect (a replay solver, no model), read back: the same task success as goldcase score"
	rm -rf reports/inspect && mkdir -p reports/inspect
	$(BIN)/goldcase export --format inspect --out reports/inspect/golden.jsonl
	cd reports/inspect && INSPECT_DISPLAY=none $(CURDIR)/$(BIN)/inspect eval golden_task.py --model none \
	  --solver $(CURDIR)/scripts/inspect_replay.py@replay -S results=$(CURDIR)/runs/baseline-k3.jsonl \
	  --log-dir logs --log-format eval >/dev/null
	$(BIN)/goldcase score --from inspect reports/inspect/logs/*.eval | sed -n 1,3p
	@if [ -x $(PROMPTFOO) ]; then \
	  echo "== goldcase export --format promptfoo, run by promptfoo (a replay provider, no model), read back with score --from promptfoo: promptfoo's own verdicts and goldcase's agree"; \
	  $(BIN)/goldcase export --format promptfoo --out reports/promptfoo.yaml && \
	  PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CONFIG_DIR=reports/.promptfoo \
	    $(PROMPTFOO) eval -c reports/promptfoo.yaml -o reports/promptfoo-replay.json \
	    --providers "exec: $(CURDIR)/$(BIN)/python $(CURDIR)/scripts/promptfoo_replay.py $(CURDIR)/runs/baseline-k3.jsonl json" \
	    --no-cache --no-write --no-progress-bar >/dev/null 2>&1; \
	  $(BIN)/python -c 'import json, sys; print("promptfoo: {successes} passed, {failures} failed, {errors} errors".format(**json.load(open(sys.argv[1]))["results"]["stats"]))' reports/promptfoo-replay.json; \
	  $(BIN)/goldcase score --from promptfoo reports/promptfoo-replay.json | sed -n 1,3p; \
	else echo "(promptfoo is not installed: make clients installs it)"; fi
	@echo "== goldcase triage: a week of sample traces drawn as drafts (mostly failures, personal data replaced, the set's questions passed over), into a temporary folder"
	@inbox=$$(mktemp -d "$${TMPDIR:-/tmp}/goldcase-inbox.XXXXXX") && \
	  $(BIN)/goldcase triage traces/sample.jsonl --seed 2026-w10 --n 20 --inbox "$$inbox"; \
	  status=$$?; rm -rf "$$inbox"; exit $$status
	@echo "== goldcase label serve --check: the labelling page served once on 127.0.0.1 for the second labeller's sample, asked as a browser and an intruder would, then stopped (without --check it stays up for a labeller)"
	$(BIN)/goldcase label serve --check --labeller second
	@echo "== goldcase init, new, check --staged --lock, git-hooks: your own set on day one (docs/start.md), the hook init wrote, the new case staged and checked as that hook checks a commit (golden.version and golden.lock written and staged with it), then committed through the plain git hooks goldcase installs in the clone's git directory, in a temporary folder"
	@own=$$(mktemp -d "$${TMPDIR:-/tmp}/goldcase-own.XXXXXX") && \
	  $(BIN)/goldcase init "$$own/my-set" --hooks local | tail -n 1 && \
	  grep -m 1 'entry:' "$$own/my-set/.pre-commit-config.yaml" && \
	  printf '%s\n' '# Returns' '' 'You can return most items within 30 days of delivery.' \
	    > "$$own/my-set/corpus/returns-policy.md" && \
	  $(BIN)/goldcase new --repo "$$own/my-set" --no-prompt --slice returns \
	    --question "How long do I have to return an item?" --expected-answer "30 days" \
	    --doc returns-policy.md --quote "You can return most items within 30 days of delivery" \
	    --pass-probe "You have 30 days from delivery." --fail-probe "You have 14 days." && \
	  git -C "$$own/my-set" add -A && \
	  $(BIN)/goldcase check --repo "$$own/my-set" --staged --lock "$$own"/my-set/cases/golden/*.yaml && \
	  git -C "$$own/my-set" diff --cached --name-only -- golden.version golden.lock && \
	  $(BIN)/goldcase git-hooks --install --repo "$$own/my-set" && \
	  git -C "$$own/my-set" -c user.name=goldcase -c user.email=run@goldcase.invalid \
	    commit -q --no-gpg-sign -m "Day one: one golden case" && \
	  git -C "$$own/my-set" log --oneline --stat -1 | cat; \
	  status=$$?; rm -rf "$$own"; exit $$status
	@echo "== goldcase gc: the user cache swept now, as goldcase does by itself once a day: the folder of the day-one set deleted above goes, with those of repositories gone or unused for 30 days, then the least recently used past 2 GiB"
	$(BIN)/goldcase gc
	@echo "== goldcase review: the cases the last commit added, changed, moved or removed"
	$(BIN)/goldcase review --base HEAD~1 --head HEAD --format text || \
	  echo "(review needs the previous commit; a shallow clone of depth 1 has none)"

# The sample runs under runs/, made afresh: after cases/ or corpus/ change (goldcase run
# refuses to continue a run made on another set).
runs: $(STAMP)
	rm -f runs/baseline-k1.jsonl runs/baseline-k1.jsonl.run.json
	rm -f runs/baseline-k3.jsonl runs/baseline-k3.jsonl.run.json
	$(BIN)/goldcase run --cmd "$(BASELINE_K1)" --system baseline-k1 --jobs 2 --out runs/baseline-k1.jsonl
	$(BIN)/goldcase run --cmd "$(BASELINE_K3)" --system baseline-k3 --jobs 2 --out runs/baseline-k3.jsonl

# The pictures in the docs, taken again (headless Chromium from the system's package) after the
# sample set or a page changes: the report from what `make run` wrote, the labelling page from a
# copy of the sample set (scripts/label_screenshot.py).
screenshots: run
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	  --user-data-dir="$$(mktemp -d)" --window-size=900,1750 \
	  --screenshot=$(CURDIR)/docs/report.png file://$(CURDIR)/reports/report.html
	$(BIN)/python scripts/label_screenshot.py docs/

clients: $(PROMPTFOO)

$(PROMPTFOO):
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p $(CLIENTS) && PROMPTFOO_DISABLE_TELEMETRY=1 npm install --prefix $(CLIENTS) \
	    --no-audit --no-fund --ignore-scripts --loglevel=error promptfoo@$(PROMPTFOO_VERSION) \
	  || echo "note: promptfoo could not be installed; the tests that run it will be skipped"; \
	else echo "note: npm not found: promptfoo is not installed and the tests that run it will be skipped"; fi

# Lint, types, then the whole test suite. pytest's exit 5 (no tests collected) is a failure.
test: $(STAMP) lint clients
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
	rm -rf $(VENV) $(CLIENTS) .goldcase-cache .pytest_cache .mypy_cache .ruff_cache

# The fuzz suite with 40 times the inputs and random seeds, and 10 times the kills (about 20
# minutes on 2 cores); docs/robustness.md has the figures.
fuzz-long: $(STAMP)
	HYPOTHESIS_PROFILE=long GOLDCASE_KILLS=60 $(BIN)/python -m pytest -q -p no:cacheprovider \
		tests/fuzz tests/robustness/test_kill.py tests/robustness/test_run_kill.py

# Coverage-guided fuzzing with atheris (libFuzzer), 120 s a target; installs the fuzz extra.
.PHONY: fuzz-atheris
fuzz-atheris: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[fuzz]'
	for target in case results lock hashes report; do \
		$(BIN)/python scripts/fuzz_atheris.py $$target -max_total_time=120 -rss_limit_mb=2048 \
			|| exit 1; \
	done
