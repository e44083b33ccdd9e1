"""goldcase init: a new golden-set repository that passes its own checks."""

from __future__ import annotations

import stat
from pathlib import Path

from kit import (
    PRE_COMMIT,
    REPO_HOOKS,
    REPO_ROOT,
    commit,
    git,
    goldcase,
    read_lock,
    run,
    run_cli,
    write,
)

SCAFFOLD = [
    ".gitattributes",
    ".gitignore",
    ".pre-commit-config.yaml",
    "README.md",
    "cases/dev/.gitkeep",
    "cases/golden/ret-001.yaml",
    "corpus/returns-policy.md",
    "goldcase.toml",
    "golden.lock",
    "golden.version",
    "prompts/.gitkeep",
]


def files_under(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file()
        and ".git" not in p.relative_to(root).parts[:1]
        and ".goldcase-cache" not in p.parts
    )


def test_init_scaffolds_a_repository_that_passes(tmp_path: Path) -> None:
    root = tmp_path / "new set"
    result = run_cli("init", root)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"initialised a git repository in {root}"
    assert files_under(root) == SCAFFOLD
    assert (root / ".git").is_dir()
    assert (root / "golden.version").read_text() == "1\n"
    assert read_lock(root)["version"] == "1"
    assert list(read_lock(root)["cases"]) == ["ret-001"]
    assert (root / ".gitattributes").read_text().splitlines()[-2:] == [
        "golden.version merge=goldcase",
        "golden.lock merge=goldcase",
    ]
    assert git(root, "config", "merge.goldcase.driver").stdout == (
        "goldcase merge-driver %O %A %B %P\n"
    )
    assert ".goldcase-cache/" in (root / ".gitignore").read_text().splitlines()
    checked = run_cli(
        "check", "--repo", root, "--select", "schema", "--select", "support", "--select", "version"
    )
    assert (checked.exit_code, checked.stdout) == (0, "all checks passed: 1 case file\n")
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0
    config = run([PRE_COMMIT, "validate-config", ".pre-commit-config.yaml"], root, check=False)
    assert config.returncode == 0, config.stdout + config.stderr


def test_init_never_overwrites(tmp_path: Path) -> None:
    root = tmp_path / "set"
    write(root, "README.md", "mine\n")
    write(root, "golden.lock", "{}\n")
    result = run_cli("init", root)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {root} already holds README.md, golden.lock; goldcase init never overwrites "
        "a file: move them away or pick another folder\n"
    )
    assert files_under(root) == ["README.md", "golden.lock"]
    assert (root / "README.md").read_text() == "mine\n"
    assert not (root / ".git").exists()


def test_init_in_an_existing_repository_keeps_its_history(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "code.py", "print(1)\n")
    commit(root, "code")
    result = goldcase(root, "init")
    assert result.returncode == 0, result.stderr
    assert "initialised a git repository" not in result.stdout
    assert git(root, "log", "--oneline").stdout.count("\n") == 1
    assert git(root, "config", "merge.goldcase.driver").returncode == 0


def test_init_git_hooks(tmp_path: Path) -> None:
    root = tmp_path / "set"
    result = run_cli("init", root, "--git-hooks")
    assert result.exit_code == 0, result.stderr
    assert git(root, "config", "core.hooksPath").stdout == "hooks\n"
    for name in ("pre-commit", "pre-merge-commit", "pre-push"):
        hook = root / "hooks" / name
        assert hook.read_bytes() == (REPO_HOOKS / name).read_bytes()
        assert hook.stat().st_mode & stat.S_IXUSR


def test_init_in_a_sub_folder_points_core_hooks_path_there(tmp_path: Path) -> None:
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q")
    result = goldcase(top, "init", "eval set", "--git-hooks")
    assert result.returncode == 0, result.stderr
    assert git(top, "config", "core.hooksPath").stdout == "eval set/hooks\n"
    assert not (top / "eval set" / ".git").exists()


def test_the_lock_shown_in_docs_is_the_one_init_writes(tmp_path: Path) -> None:
    doc = (REPO_ROOT / "docs" / "version.md").read_text(encoding="utf-8")
    shown = doc.split("```json\n", 1)[1].split("```", 1)[0]
    root = tmp_path / "set"
    assert goldcase(tmp_path, "init", root).returncode == 0
    assert (root / "golden.lock").read_text() == shown


def test_init_on_a_file_is_refused(tmp_path: Path) -> None:
    target = write(tmp_path, "notes.txt", "x\n")
    result = run_cli("init", target)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {target} exists and is not a folder\n",
    )
