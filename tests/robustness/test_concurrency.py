"""Two (or four) ``goldcase lock`` runs at once on a changed set: they are serialised, the
version is bumped once, golden.version and golden.lock agree, and ``lock --check`` passes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from robustness.kit import GOLDCASE, canonical, commit, env, git, make_set, run

ROUNDS = 3


def changed_set(root: Path) -> Path:
    make_set(root, 30, canonical)
    git(root, "init", "-q", "-b", "main")
    assert run(["lock"], root).returncode in (0, 1)
    commit(root, "golden set, version 1")
    (root / "cases/golden/ret-007.yaml").write_text(canonical("ret-007") + "tags: [numeric]\n")
    return root


@pytest.mark.slow
@pytest.mark.parametrize("runs", [2, 4])
def test_concurrent_lock_runs_leave_one_consistent_version(tmp_path: Path, runs: int) -> None:
    for number in range(ROUNDS):
        root = changed_set(tmp_path / f"round-{number}")
        procs = [
            subprocess.Popen(
                [GOLDCASE, "lock"],
                cwd=root,
                env=env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for _ in range(runs)
        ]
        outcomes = [(p.wait(timeout=120), p.stderr.read().decode()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        assert all("Traceback" not in err for _, err in outcomes)
        # one run bumped the version and wrote both files (exit 1); the others found the
        # lock up to date once they held it (exit 0)
        assert sorted(code for code, _ in outcomes) == [0] * (runs - 1) + [1]
        assert (root / "golden.version").read_text() == "2\n"
        assert json.loads((root / "golden.lock").read_text())["version"] == "2"
        assert run(["lock", "--check"], root).returncode == 0
        leftovers = [p.name for p in root.iterdir() if p.name.endswith(".tmp")]
        assert leftovers == []
