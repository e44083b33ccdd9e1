"""The registry, the hook manifest, the README and the docs must agree: adding a check family or
a command without its hook, its README line or its doc fails here."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from goldcase import checks
from goldcase.cli import COMMANDS
from kit import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
MANIFEST = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
# The hook that runs one family; families with a hook of their own name need no entry here.
FAMILY_HOOKS = {"support": "goldcase-quotes"}


FIRST_CONTRACT = "DESIGN" + ".md"  # spelled apart so that this file does not match itself
SHARED = "../" + "shared"


def readme_hook_ids() -> set[str]:
    section = README.split("## Hooks", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(goldcase(?:-[a-z-]+)?)` \|", section, re.MULTILINE))


def test_every_manifest_hook_is_in_the_readme_and_back() -> None:
    assert {hook["id"] for hook in MANIFEST} == readme_hook_ids()


def test_every_family_has_its_hook() -> None:
    entries = {hook["id"]: hook["entry"] for hook in MANIFEST}
    for family in checks.FAMILIES:
        hook = FAMILY_HOOKS.get(family, f"goldcase-{family}")
        assert hook in entries, f"family {family} has no hook {hook}"
        if family != "version":  # the version hook runs goldcase lock, which bumps too
            words = entries[hook].split()
            assert words[:2] == ["goldcase", "check"] and words[-2:] == ["--select", family]
            assert set(words[2:-2]) <= {"--staged"}, entries[hook]


def test_every_family_documents_its_codes() -> None:
    codes = checks.all_codes()
    assert codes, "no check family registered"
    for code, (family, severity, summary) in codes.items():
        assert re.fullmatch(r"GC[1-6]\d\d", code)
        assert severity in ("error", "warning") and summary
        assert code in (checks.family(family).__doc__ or ""), f"{code} not in {family}'s docstring"


def test_every_command_is_in_the_readme_with_a_doc() -> None:
    for name in COMMANDS:
        row = re.search(
            rf"^\| `goldcase {re.escape(name)}` \|.*\]\((docs/[a-z-]+\.md)\) \|$",
            README,
            re.MULTILINE,
        )
        assert row, f"goldcase {name} has no line in the README's command table"
        assert (REPO_ROOT / row.group(1)).is_file(), row.group(1)


def test_the_readme_gives_the_two_commands() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^(make \w+)", quick, re.MULTILINE)
    assert commands == ["make run", "make test"]


def cited_places() -> list[Path]:
    """Every file that may name a document: the docs, the README and CHANGELOG, the scripts,
    the source and the build files."""
    return sorted(
        [
            REPO_ROOT / "README.md",
            REPO_ROOT / "CHANGELOG.md",
            REPO_ROOT / "Makefile",
            REPO_ROOT / "pyproject.toml",
            *(REPO_ROOT / "docs").glob("*.md"),
            *(REPO_ROOT / "scripts").glob("*.py"),
            *(REPO_ROOT / "src").rglob("*.py"),
        ]
    )


def test_no_test_cites_the_first_contract_and_only_tests_read_the_shared_folder() -> None:
    """The repository stands alone: no file, tests included, cites the design document it grew
    from, and only the tests that read the public data sets (and skip when they are absent) may
    name the folder beside the repository that holds them."""
    for path in sorted((REPO_ROOT / "tests").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(REPO_ROOT)
        assert FIRST_CONTRACT not in text, f"{where} cites {FIRST_CONTRACT}"
    for path in cited_places():
        text = path.read_text(encoding="utf-8")
        assert SHARED not in text, f"{path.relative_to(REPO_ROOT)} names {SHARED}"


def test_nothing_cites_a_document_the_repository_lacks() -> None:
    for path in cited_places():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(REPO_ROOT)
        assert FIRST_CONTRACT not in text, f"{where} cites {FIRST_CONTRACT}, which is not here"
        for doc in re.findall(r"\bdocs/[\w-]+\.md\b", text):
            assert (REPO_ROOT / doc).is_file(), f"{where} names {doc}, which does not exist"
        if path.suffix == ".md":
            for target in re.findall(r"\]\(([\w./-]+)(?:#[^)\s]*)?\)", text):
                if not re.match(r"[a-z]+:", target):
                    assert (path.parent / target).exists(), f"{where} links to {target}"
