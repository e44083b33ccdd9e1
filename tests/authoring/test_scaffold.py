"""goldcase init: a new golden-set repository that passes its own checks."""

from __future__ import annotations

import stat
from pathlib import Path

import yaml

from goldcase import __version__
from kit import (
    BIN,
    DOCUMENT,
    PRE_COMMIT,
    REPO_ROOT,
    case_text,
    commit,
    git,
    goldcase,
    read_lock,
    read_version,
    run,
    run_cli,
    write,
)

CHECK_JSONSCHEMA = BIN / "check-jsonschema"

SCAFFOLD = [
    ".gitattributes",
    ".gitignore",
    ".pre-commit-config.yaml",
    "README.md",
    "cases/dev/.gitkeep",
    "cases/golden/.gitkeep",
    "corpus/.gitkeep",
    "goldcase.toml",
    "prompts/.gitkeep",
    "schema/case.schema.json",
    "schema/draft.schema.json",
]
EXAMPLE = ["cases/golden/ret-001.yaml", "corpus/returns-policy.md"]


def files_under(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file()
        and ".git" not in p.relative_to(root).parts[:1]
        and ".goldcase-cache" not in p.parts
    )


def test_init_scaffolds_an_empty_repository_with_no_version_yet(tmp_path: Path) -> None:
    root = tmp_path / "new set"
    result = run_cli("init", root)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"initialised a git repository in {root}"
    assert files_under(root) == SCAFFOLD  # no example to delete, no version before a commit
    assert (root / ".git").is_dir()
    assert (root / ".gitattributes").read_text().splitlines()[-2:] == [
        "golden.version merge=goldcase",
        "golden.lock merge=goldcase",
    ]
    assert git(root, "config", "merge.goldcase.driver").stdout == (
        "goldcase merge-driver -- %O %A %B %P\n"
    )
    assert ".goldcase-cache/" in (root / ".gitignore").read_text().splitlines()
    checked = run_cli("check", "--repo", root)
    assert (checked.exit_code, checked.stdout) == (0, "all checks passed: 0 case files\n")
    config = run([PRE_COMMIT, "validate-config", ".pre-commit-config.yaml"], root, check=False)
    assert config.returncode == 0, config.stdout + config.stderr


def test_the_hook_config_names_the_one_repository_at_this_release(tmp_path: Path) -> None:
    root = tmp_path / "set"
    assert run_cli("init", root).exit_code == 0
    config = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    assert config["default_install_hook_types"] == ["pre-commit", "pre-merge-commit"]
    assert config["repos"] == [
        {
            "repo": "https://github.com/goldcase-dev/goldcase",
            "rev": f"v{__version__}",
            "hooks": [{"id": "goldcase"}],
        }
    ]


def test_init_hooks_local_copies_the_manifest_entries_as_system_hooks(tmp_path: Path) -> None:
    root = tmp_path / "set"
    assert run_cli("init", root, "--hooks", "local").exit_code == 0
    config = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    shipped_hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    manifest = {h["id"]: h for h in shipped_hooks}
    (repo,) = config["repos"]
    assert repo["repo"] == "local" and "rev" not in repo
    assert [hook["id"] for hook in repo["hooks"]] == ["goldcase"]
    for hook in repo["hooks"]:
        shipped = {k: v for k, v in manifest[hook["id"]].items() if k != "description"}
        assert hook == {**shipped, "language": "system"}
    checked = run([PRE_COMMIT, "validate-config", ".pre-commit-config.yaml"], root, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_init_example_adds_one_case_that_passes(tmp_path: Path) -> None:
    root = tmp_path / "set"
    assert run_cli("init", root, "--example").exit_code == 0
    assert files_under(root) == sorted([*SCAFFOLD, *EXAMPLE])
    case = (root / "cases/golden/ret-001.yaml").read_text()
    assert case.splitlines()[0] == "# yaml-language-server: $schema=../../schema/case.schema.json"
    checked = run_cli(
        "check", "--repo", root, "--select", "schema", "--select", "support", "--select", "version"
    )
    assert (checked.exit_code, checked.stdout) == (0, "all checks passed: 1 case file\n")
    assert run_cli("fmt", "--check", "--repo", root).exit_code == 0


def test_the_modeline_resolves_to_the_schema_init_wrote(tmp_path: Path) -> None:
    root = tmp_path / "set"
    assert run_cli("init", root, "--example").exit_code == 0
    case = root / "cases/golden/ret-001.yaml"
    target = case.read_text().splitlines()[0].split("$schema=", 1)[1]
    schema = (case.parent / target).resolve()
    assert schema == (root / "schema/case.schema.json").resolve()
    assert schema.read_bytes() == (REPO_ROOT / "schema/case.schema.json").read_bytes()
    validated = run([CHECK_JSONSCHEMA, "--schemafile", schema, case], root, check=False)
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_the_first_commit_makes_version_1(tmp_path: Path) -> None:
    """Cases added and locked before the first commit do not bump: nobody can have scored
    against a version that was never committed."""
    root = tmp_path / "set"
    assert run_cli("init", root, "--example").exit_code == 0
    assert goldcase(root, "lock").returncode == 1
    assert read_version(root) == "1"
    write(root, "cases/golden/ret-002.yaml", case_text("ret-002"))
    write(root, "corpus/returns-policy.md", DOCUMENT)
    relocked = goldcase(root, "lock")
    assert relocked.returncode == 1
    assert relocked.stdout.splitlines()[0] == (
        "golden.version: 1 (not committed yet: the first commit makes this version)"
    )
    assert read_version(root) == "1" and sorted(read_lock(root)["cases"]) == ["ret-001", "ret-002"]
    commit(root, "first cases")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    bumped = goldcase(root, "lock")
    assert bumped.stdout.splitlines()[0] == (
        "golden.version: 1 -> 2 (set or corpus changed since HEAD, version 1)"
    )


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


def test_init_git_hooks_installs_them_in_the_git_directory(tmp_path: Path) -> None:
    """Docs (init.md): --git-hooks installs pre-commit, pre-merge-commit and pre-push into the
    repository's git directory, never into the work tree, and sets no core.hooksPath."""
    root = tmp_path / "set"
    result = run_cli("init", root, "--git-hooks")
    assert result.exit_code == 0, result.stderr
    assert git(root, "config", "core.hooksPath", check=False).returncode == 1  # not set
    assert not (root / "hooks").exists()
    for name in ("pre-commit", "pre-merge-commit", "pre-push"):
        hook = root / ".git" / "hooks" / name
        assert "# goldcase-git-hook: installed by goldcase git-hooks --install" in hook.read_text()
        assert hook.stat().st_mode & stat.S_IXUSR
        assert f"installed {hook}" in result.stdout
    assert git(root, "ls-files", "--others", "--", ".git").stdout == ""


def test_init_in_a_sub_folder_installs_hooks_that_run_there(tmp_path: Path) -> None:
    """Docs (init.md): in a sub-folder of a larger repository the hooks go into the top
    repository's .git/hooks and record the sub-folder, which they run in: the first commit
    writes golden.version 1 beside the set's cases."""
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q")
    result = goldcase(top, "init", "eval set", "--git-hooks", "--example")
    assert result.returncode == 0, result.stderr
    assert git(top, "config", "core.hooksPath", check=False).returncode == 1
    assert not (top / "eval set" / ".git").exists()
    assert (top / ".git" / "hooks" / "pre-commit").is_file()
    (top / "eval set" / ".pre-commit-config.yaml").unlink()
    git(top, "add", "-A")
    done = run(["git", "commit", "-q", "--no-gpg-sign", "-m", "the set"], top, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(top, "show", "HEAD:eval set/golden.version").stdout == "1\n"


def test_the_lock_shown_in_docs_is_the_one_the_example_gets(tmp_path: Path) -> None:
    doc = (REPO_ROOT / "docs" / "version.md").read_text(encoding="utf-8")
    shown = doc.split("```json\n", 1)[1].split("```", 1)[0]
    root = tmp_path / "set"
    assert goldcase(tmp_path, "init", root, "--example").returncode == 0
    assert goldcase(root, "lock").returncode == 1
    assert (root / "golden.lock").read_text() == shown


def test_init_on_a_file_is_refused(tmp_path: Path) -> None:
    target = write(tmp_path, "notes.txt", "x\n")
    result = run_cli("init", target)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {target} exists and is not a folder\n",
    )


def test_docs_show_the_hook_configs_init_writes(tmp_path: Path) -> None:
    doc = (REPO_ROOT / "docs" / "init.md").read_text(encoding="utf-8")
    shown = [yaml.safe_load(block.split("```", 1)[0]) for block in doc.split("```yaml\n")[1:3]]
    for form, block in zip(("url", "local"), shown, strict=True):
        root = tmp_path / form
        assert run_cli("init", root, "--hooks", form).exit_code == 0
        assert yaml.safe_load((root / ".pre-commit-config.yaml").read_text()) == block
