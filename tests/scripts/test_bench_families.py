"""scripts/bench_families.py: one cold round reports the CPU of the load, the parse workers and
every check family, and the round starts cold (the repository's cache folder is gone when it
begins)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from goldcase import checks
from kit import REPO_ROOT, cache_folder, golden_set

SCRIPT = REPO_ROOT / "scripts" / "bench_families.py"


def test_a_round_reports_every_family_from_a_cold_start(tmp_path: Path) -> None:
    golden_set(tmp_path)
    subprocess.run([sys.executable, "-m", "goldcase", "check"], cwd=tmp_path, check=True)
    folder = cache_folder(tmp_path)
    assert folder.exists()  # filled by the check above: the round must delete it
    marker = folder / "left-over"
    marker.write_text("")
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "--rounds", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert not marker.exists()
    reported = [line.split()[0] for line in out.stdout.splitlines() if "cold runs" in line]
    assert reported == ["load", "parse", *checks.FAMILIES]  # "parse workers (all)"
