#!/usr/bin/env python3
"""The daily loop against check-jsonschema, in one run: a commit of one changed case through
the hooks, and ``check FILE`` (budgets in docs/benchmarks.md).

    python scripts/bench_hooks.py               # 10,000 cases, 5 rounds
    python scripts/bench_hooks.py --cases 2000 --rounds 3

On a generated set (``bench.generate``, locked, committed), four clones each install one
hook configuration with the real ``pre-commit`` (PRE_COMMIT_HOME in a temporary folder):

- ``check-jsonschema``: check-jsonschema's own hook as a ``repo: local`` hook (the case schema,
  the staged case files passed), the anchor;
- ``goldcase-check``: the hook as ``.pre-commit-hooks.yaml`` defines it;
- ``goldcase-version`` + ``goldcase-check``: both, in the order docs/hooks.md gives;
- ``goldcase``: the two in one process (``check --staged --lock``).

Every hook runs from this environment (``language: system``, this environment's bin folder
first on PATH), so the four differ only in what the hook runs. Each round edits and commits
one case for each row (a dev case or a golden case, in the clone of the hooks the row names)
and times the whole ``git commit`` (wall clock), one after the other, so every row is
measured in the same minutes; a commit that is refused is added and tried
again, and the time counts both attempts. Then ``goldcase check FILE`` and
``check-jsonschema --schemafile case.schema.json FILE`` on the same edited file, alternating,
in a fifth clone: the edit stays unstaged, and in a clone whose commits are timed pre-commit
would stash it around every hook (until 2026-12-04 it was the ``goldcase-check`` clone's).
Medians over the rounds; the ratios are goldcase over check-jsonschema.

The budget (1.2 times check-jsonschema's hook) is for a commit through ``goldcase``, the hook
``goldcase init`` writes, and through ``goldcase-check`` alone, on a dev case and on a golden
case. The pair ``goldcase-version`` + ``goldcase-check`` is timed for reference: it starts a
second interpreter, loads the set a second time and lets pre-commit diff the work tree once
more, about 0.2 s that no work inside either process can take back (docs/hooks.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCHEMA = ROOT / "schema" / "case.schema.json"
Budget = tuple[str, float, str]


def _manifest_hook(hook_id: str) -> dict[str, object]:
    """A hook as goldcase's manifest defines it, run from this environment."""
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = dict(next(h for h in hooks if h["id"] == hook_id))
    hook["language"] = "system"
    hook.pop("description", None)
    return hook


def _anchor_hook() -> dict[str, object]:
    return {
        "id": "check-jsonschema",
        "name": "check-jsonschema",
        "entry": f"check-jsonschema --schemafile {SCHEMA}",
        "language": "system",
        "files": r"^cases/.*\.ya?ml$",
        "pass_filenames": True,
        "require_serial": True,
    }


CONFIGS = {
    "check-jsonschema": lambda: [_anchor_hook()],
    "goldcase-check": lambda: [_manifest_hook("goldcase-check")],
    "goldcase-version + goldcase-check": lambda: [
        _manifest_hook("goldcase-version"),
        _manifest_hook("goldcase-check"),
    ],
    "goldcase": lambda: [_manifest_hook("goldcase")],  # the two above in one process
}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        PRE_COMMIT_HOME=str(home / "pre-commit"),
        XDG_CACHE_HOME=str(home / "cache"),  # goldcase's cache, gone with the folder
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.com",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.com",
    )
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> int:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in ok:
        raise SystemExit(
            f"{' '.join(cmd[:4])} exited {done.returncode} in {cwd}:\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return done.returncode


def _setup(base: Path, cases: int, env: dict[str, str]) -> dict[str, Path]:
    """One committed, locked set, cloned once per hook configuration, hooks installed."""
    from bench import generate

    started = time.perf_counter()
    origin = generate(base / "origin", cases)
    _run(["git", "init", "-q", "-b", "main"], origin, env)
    _run([str(BIN / "goldcase"), "lock"], origin, env, ok=(0, 1))
    _run(["git", "add", "-A"], origin, env)
    _run(["git", "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "the set"], origin, env)
    print(f"set generated, locked and committed: {time.perf_counter() - started:.0f} s", flush=True)
    clones: dict[str, Path] = {}
    for number, (name, hooks) in enumerate(CONFIGS.items()):
        clone = base / f"clone-{number}"
        _run(["git", "clone", "-q", str(origin), str(clone)], base, env)
        config = {
            "default_install_hook_types": ["pre-commit"],
            "repos": [{"repo": "local", "hooks": hooks()}],
        }
        (clone / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        _run(["git", "add", ".pre-commit-config.yaml"], clone, env)
        _run(["git", "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "hooks"], clone, env)
        _run([str(BIN / "pre-commit"), "install"], clone, env)
        _run([str(BIN / "goldcase"), "check"], clone, env, ok=(0, 1))  # the cache, warm
        clones[name] = clone
    # ``check FILE`` edits a case it never commits: in a clone of its own, so that no clone
    # whose commits are timed carries an unstaged change (pre-commit stashes one around
    # every hook, 15-25 ms that the anchor's clone would not pay).
    files = base / "clone-files"
    _run(["git", "clone", "-q", str(origin), str(files)], base, env)
    _run([str(BIN / "goldcase"), "check"], files, env, ok=(0, 1))
    clones[FILES] = files
    print(f"clones ready: {time.perf_counter() - started:.0f} s", flush=True)
    return clones


FILES = "check FILE"  # the clone ``check FILE`` and ``check-jsonschema FILE`` run in


def _edit(clone: Path, target: str, round_: int) -> None:
    path = clone / target
    text = path.read_text()
    head, _, _ = text.partition("notes: ")
    path.write_text(f"{head.rstrip()}\nnotes: edited in round {round_}\n")


def _commit(clone: Path, target: str, env: dict[str, str]) -> tuple[float, int]:
    """Seconds for the commit, and the attempts it took (a refused one is added and retried)."""
    _run(["git", "add", target], clone, env)
    started = time.perf_counter()
    attempts = 0
    while True:
        attempts += 1
        code = _run(["git", "commit", "-q", "--no-gpg-sign", "-m", "edit"], clone, env, (0, 1))
        if code == 0:
            return time.perf_counter() - started, attempts
        if attempts == 2:
            raise SystemExit(f"the commit in {clone} was refused twice")
        _run(["git", "add", "-A"], clone, env)


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    _run(cmd, cwd, env, ok=(0, 1))
    return time.perf_counter() - started


def bench(cases: int = 10_000, rounds: int = 5) -> list[Budget]:
    with tempfile.TemporaryDirectory(prefix="goldcase-hooks-") as tmp:
        base = Path(tmp)
        env = _env(base / "home")
        clones = _setup(base, cases, env)
        # A dev case changes nothing the version pins; a golden case needs the bump.
        targets = {
            "dev": "cases/dev/d-000000.yaml",
            "golden": f"cases/golden/c-{cases // 10:06d}.yaml",
        }
        plan = [
            ("check-jsonschema, dev case", "check-jsonschema", "dev"),
            ("goldcase-check, dev case", "goldcase-check", "dev"),
            ("goldcase, dev case", "goldcase", "dev"),
            ("check-jsonschema, golden case", "check-jsonschema", "golden"),
            (
                "goldcase-version + goldcase-check, golden case",
                "goldcase-version + goldcase-check",
                "golden",
            ),
            ("goldcase, golden case", "goldcase", "golden"),
        ]
        commits: dict[str, list[float]] = {label: [] for label, _, _ in plan}
        attempts: dict[str, int] = {label: 0 for label, _, _ in plan}
        files: dict[str, list[float]] = {"goldcase": [], "check-jsonschema": []}
        for round_ in range(rounds):
            for label, config, kind in plan:
                clone = clones[config]
                _edit(clone, targets[kind], round_)
                seconds, tries = _commit(clone, targets[kind], env)
                commits[label].append(seconds)
                attempts[label] = max(attempts[label], tries)
            clone = clones[FILES]
            target = targets["golden"]
            _edit(clone, target, rounds + round_)
            files["goldcase"].append(_timed([str(BIN / "goldcase"), "check", target], clone, env))
            files["check-jsonschema"].append(
                _timed(
                    [str(BIN / "check-jsonschema"), "--schemafile", str(SCHEMA), target], clone, env
                )
            )
    return _report(cases, commits, attempts, files)


def _report(
    cases: int,
    commits: dict[str, list[float]],
    attempts: dict[str, int],
    files: dict[str, list[float]],
) -> list[Budget]:
    median = {label: statistics.median(v) for label, v in commits.items()}
    rows: list[Budget] = []
    runs = len(next(iter(commits.values())))
    print(f"git commit of one changed case, {cases:,} cases, median of {runs}:")
    for label, seconds in median.items():
        print(f"  {label}: {seconds:.3f} s, {attempts[label]} attempt(s)")
    for kind, mine, budget in (
        ("dev", "goldcase-check", "<= 1.2"),
        ("dev", "goldcase", "<= 1.2"),
        ("golden", "goldcase", "<= 1.2"),
        ("golden", "goldcase-version + goldcase-check", "(reference: two processes)"),
    ):
        ratio = median[f"{mine}, {kind} case"] / median[f"check-jsonschema, {kind} case"]
        print(f"  {mine} / check-jsonschema ({kind} case): {ratio:.2f} (budget {budget})")
        rows.append(
            (f"commit of a {kind} case through {mine} / check-jsonschema hook", ratio, budget)
        )
        tries = attempts[f"{mine}, {kind} case"]
        rows.append((f"commit attempts, {kind} case, through {mine}", tries, "1"))
    ours, anchor = (statistics.median(files[k]) for k in ("goldcase", "check-jsonschema"))
    print(
        f"goldcase check FILE: {ours:.3f} s; check-jsonschema FILE: {anchor:.3f} s; "
        f"ratio {ours / anchor:.2f} (budget 1.2)"
    )
    rows.append(("check FILE / check-jsonschema FILE", ours / anchor, "<= 1.2"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from bench import print_table  # the verdicts, as scripts/bench.py prints them

    return print_table(bench(args.cases, args.rounds))


if __name__ == "__main__":
    raise SystemExit(main())
