"""The hook manifest and this repository's own pre-commit config are valid and agree with the
check registry."""

from __future__ import annotations

import yaml

from goldcase import checks
from kit import PRE_COMMIT, REPO_ROOT, run

MANIFEST = REPO_ROOT / ".pre-commit-hooks.yaml"


def hooks() -> dict[str, dict[str, object]]:
    return {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))}


def test_manifest_validates() -> None:
    result = run([PRE_COMMIT, "validate-manifest", MANIFEST], REPO_ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_own_config_validates() -> None:
    result = run([PRE_COMMIT, "validate-config", ".pre-commit-config.yaml"], REPO_ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_commit_time_hooks() -> None:
    found = hooks()
    entries = {
        name: (found[name]["entry"], found[name]["pass_filenames"])
        for name in (
            "goldcase-check",
            "goldcase-schema",
            "goldcase-quotes",
            "goldcase-leakage",
            "goldcase-version",
        )
    }
    assert entries == {
        "goldcase-check": ("goldcase check --staged", True),
        "goldcase-schema": ("goldcase check --select schema", True),
        "goldcase-quotes": ("goldcase check --staged --select support", True),
        "goldcase-leakage": ("goldcase check --staged --select leakage", True),
        "goldcase-version": ("goldcase lock --stage", False),
    }
    assert found["goldcase-version"]["always_run"] is True
    assert all(h.get("language") == "python" and h.get("description") for h in found.values())


def test_every_selected_family_is_registered() -> None:
    for hook in hooks().values():
        words = str(hook["entry"]).split()
        if "--select" in words:
            assert words[words.index("--select") + 1] in checks.FAMILIES, hook["id"]
