"""scripts/bench.py's verdicts: every budget it prints is met or over, a row shown for
reference has none, and the script's exit status says whether every budget held."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kit import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from bench import print_table, verdict  # scripts/ is no package: put on the path above


@pytest.mark.parametrize(
    ("value", "budget", "met"),
    [
        (1.19, "<= 1.2", True),
        (1.2, "<= 1.2", True),
        (1.21, "<= 1.2", False),
        (1.99, "< 2.0 s", True),
        (2.0, "< 2.0 s", False),
        (399.0, "< 400", True),
        (2.0, ">= 2", True),
        (1.9, ">= 2", False),
        (1, "1", True),  # one commit attempt
        (2, "1", False),
        (3.0, "(reference)", None),
        (3.0, "(reported)", None),
        (0.8, "(reference: two processes)", None),
        (3.2, "reference: all processes' CPU", None),
    ],
)
def test_each_budget_form_is_judged(value: float, budget: str, met: bool | None) -> None:
    assert verdict(value, budget) is met


@pytest.mark.parametrize("budget", ["≤ 1.2", "-", "", "<= fast"])
def test_a_budget_of_no_known_form_is_an_error_naming_it(budget: str) -> None:
    with pytest.raises(ValueError, match="write it as"):
        verdict(1.0, budget)


def test_the_table_fails_when_one_budget_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [("warm (s)", 0.3, "< 0.5"), ("pair", 1.7, "(reference)"), ("ratio", 1.25, "<= 1.2")]
    assert print_table(rows) == 1
    out = capsys.readouterr().out
    assert "| warm (s) | 0.300 | < 0.5 | met |" in out
    assert "| pair | 1.700 | (reference) |  |" in out
    assert "| ratio | 1.250 | <= 1.2 | OVER |" in out
    assert "1 of 2 budgets OVER: ratio" in out


def test_the_table_passes_when_every_budget_holds(capsys: pytest.CaptureFixture[str]) -> None:
    assert print_table([("warm (s)", 0.3, "< 0.5"), ("pair", 1.7, "(reference)")]) == 0
    assert "all 1 budgets met" in capsys.readouterr().out


def test_the_script_exits_1_when_a_budget_is_over() -> None:
    """The whole script, on its quickest bench, with a budget no run can meet: exit 1."""
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import bench; "
        "bench.compile_package = lambda: None; "  # the source tree left as it is
        "bench.BENCHES['help'] = lambda a: [('--help (s)', 0.04, '< 0.0')]; "
        "sys.argv = ['bench.py', 'help']; raise SystemExit(bench.main())"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(REPO_ROOT / "scripts")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 of 1 budgets OVER: --help (s)" in done.stdout
