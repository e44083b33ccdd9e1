"""goldcase check end to end: set-wide rules, hostile files, output formats, exit status."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from kit import Result, cache_folder, cached_table, commit, git, run_cli, write

GOOD = """\
id: {id}
question: how long do i have to ask for a credit on a damaged parcel
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
"""
SALE = """\
id: {id}
question: sale returns
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: Items bought in a sale can be returned within 14 days.
"""

Maker = Callable[..., Path]


def check_cli(*args: str | Path) -> Result:
    """goldcase check on the file-level families: the set-level ones (composition, version)
    have their own tests and would only add noise to a one-case repository."""
    return run_cli("check", "--select", "schema", "--select", "support", *args)


def test_good_set_passes_with_summary(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-001.yaml": GOOD.format(id="ret-001")})
    result = check_cli("--repo", root)
    assert result.exit_code == 0
    assert result.stdout == "all checks passed: 1 case file\n"


def test_duplicate_id_names_the_other_file_even_when_only_one_path_is_given(
    make_repo: Maker,
) -> None:
    root = make_repo(
        {
            "cases/golden/ret-001.yaml": GOOD.format(id="ret-001"),
            "cases/dev/ret-001.yaml": GOOD.format(id="ret-001"),
        }
    )
    result = check_cli("--repo", root, root / "cases/golden/ret-001.yaml")
    assert result.stdout.splitlines() == [
        "cases/golden/ret-001.yaml:1:1: GC109 id 'ret-001' is also used by "
        "cases/dev/ret-001.yaml; ids are unique across cases/",
        "1 error in 1 case file",
    ]
    assert result.exit_code == 1
    result = check_cli("--repo", root, root / "cases/dev/ret-001.yaml")
    assert result.stdout.splitlines()[0] == (
        "cases/dev/ret-001.yaml:1:1: GC109 id 'ret-001' is also used by "
        "cases/golden/ret-001.yaml; ids are unique across cases/"
    )


def test_a_duplicate_id_names_three_other_files_and_counts_the_rest(make_repo: Maker) -> None:
    """docs/check.md: GC109 is reported on each file of a shared id, naming the first three
    others; files of one id in 40 folders are 40 short lines, not 40 lists of 39 names."""
    files = {f"cases/dev/f{n:02d}/ret-001.yaml": GOOD.format(id="ret-001") for n in range(40)}
    root = make_repo(files)
    lines = check_cli("--repo", root, "--select", "schema").stdout.splitlines()
    gc109 = [line for line in lines if " GC109 " in line]
    assert len(gc109) == 40
    assert gc109[0] == (
        "cases/dev/f00/ret-001.yaml:1:1: GC109 id 'ret-001' is also used by "
        "cases/dev/f01/ret-001.yaml, cases/dev/f02/ret-001.yaml, cases/dev/f03/ret-001.yaml "
        "and 36 more files; ids are unique across cases/"
    )
    assert all(line.endswith("and 36 more files; ids are unique across cases/") for line in gc109)


def test_case_outside_golden_and_dev(make_repo: Maker) -> None:
    root = make_repo({"cases/other/x.yaml": "id: x\nquestion: q\nanswerable: false\n"})
    result = check_cli("--repo", root)
    assert result.stdout.splitlines()[0].startswith("cases/other/x.yaml:1:1: GC114 ")


def test_warning_passes_unless_strict(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/s.yaml": SALE.format(id="s")})
    assert check_cli("--repo", root).exit_code == 0
    strict = check_cli("--repo", root, "--strict")
    assert strict.exit_code == 1
    assert "GC205" in strict.stdout
    assert strict.stdout.splitlines()[-1] == "1 warning in 1 case file"


def test_severity_override_in_config(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/s.yaml": SALE.format(id="s")})
    (root / "goldcase.toml").write_text('[severity]\nGC205 = "error"\n')
    assert check_cli("--repo", root).exit_code == 1
    (root / "goldcase.toml").write_text('[severity]\nGC205 = "off"\n')
    result = check_cli("--repo", root, "--strict")
    assert (result.exit_code, result.stdout) == (0, "all checks passed: 1 case file\n")


def test_json_format(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/s.yaml": SALE.format(id="s")})
    payload = json.loads(check_cli("--repo", root, "--format", "json").stdout)
    assert payload["summary"] == {"errors": 0, "warnings": 1, "files": 1}
    assert payload["findings"] == [
        {
            "path": "cases/golden/s.yaml",
            "line": 6,
            "col": 12,
            "code": "GC205",
            "severity": "warning",
            "message": "quote is also in delivery.md; quote a longer passage that only the "
            "named document holds",
        }
    ]


def test_github_format_escapes(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/a,b.yaml": "id: x\nquestion: q\nanswerable: false\n"})
    lines = check_cli("--repo", root, "--format", "github").stdout.splitlines()
    assert lines[0] == (
        "::error file=cases/golden/a%2Cb.yaml,line=1,col=5,title=GC108::id 'x' differs from "
        "the file name 'a,b'; rename the file to x.yaml (ids hold letters, digits, '.', '_', '-')"
    )


@pytest.mark.parametrize(
    ("stem", "case_id", "fix"),
    [
        ("ret-901", "ret-902", "rename the file to ret-902.yaml or set id: ret-901"),
        (
            "ret 901 é",
            "ret-901",
            "rename the file to ret-901.yaml (ids hold letters, digits, '.', '_', '-')",
        ),
        ("ret-901", "ret 901 é", "set id: ret-901"),
        (
            "ret 901 é",
            "ret 902 é",
            "rename the file to ret-901.yaml and set id: ret-901 (ids "
            "hold letters, digits, '.', '_', '-')",
        ),
        # an id past the schema's 128 characters is no name to give the file (the message
        # quoted all 100 kB of it); a long stem is cut to a short valid id
        ("ret-901", "x" * 100_000, "set id: ret-901"),
        (
            "r " * 100,
            "x" * 100_000,
            f"rename the file to {'r-' * 31}r.yaml and set id: {'r-' * 31}r (ids "
            "hold letters, digits, '.', '_', '-')",
        ),
    ],
)
def test_gc108_suggests_only_valid_ids(make_repo: Maker, stem: str, case_id: str, fix: str) -> None:
    root = make_repo(
        {f"cases/golden/{stem}.yaml": f"id: {case_id}\nquestion: q\nanswerable: false\n"}
    )
    result = check_cli("--repo", root, "--select", "schema")
    gc108 = [line for line in result.stdout.splitlines() if " GC108 " in line]
    assert gc108 == [
        f"cases/golden/{stem}.yaml:1:5: GC108 id {_cut(repr(case_id))} differs from the file "
        f"name {_cut(repr(stem))}; {fix}"
    ]


def _cut(quoted: str) -> str:
    """docs/check.md: a value a message quotes is cut at 80 characters."""
    return quoted if len(quoted) <= 80 else quoted[:79] + "…"


def test_bad_config_exits_2(make_repo: Maker) -> None:
    root = make_repo()
    (root / "goldcase.toml").write_text("casess = 'x'\n")
    result = check_cli("--repo", root)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: goldcase.toml: unknown key 'casess'")


def test_invalid_toml_exits_2(make_repo: Maker) -> None:
    root = make_repo()
    (root / "goldcase.toml").write_text("[split\n")
    result = check_cli("--repo", root)
    assert result.exit_code == 2
    assert "invalid TOML" in result.stderr


def test_unknown_family_and_missing_path_exit_2(make_repo: Maker) -> None:
    root = make_repo()
    assert check_cli("--repo", root, "--select", "nope").exit_code == 2
    missing = check_cli("--repo", root, root / "cases/golden/nope.yaml")
    assert missing.exit_code == 2
    assert "no such file" in missing.stderr


def test_repo_found_from_current_folder(make_repo: Maker, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo({"cases/golden/ret-001.yaml": GOOD.format(id="ret-001")})
    monkeypatch.chdir(root / "cases" / "golden")
    result = check_cli("ret-001.yaml")
    assert result.stdout == "all checks passed: 1 case file\n"


def test_warm_cache_sees_an_edit(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-001.yaml": GOOD.format(id="ret-001")})
    assert check_cli("--repo", root).exit_code == 0
    assert (cache_folder(root) / "files.msgpack").is_file()
    assert not (root / ".goldcase-cache").exists()  # outside the working tree
    path = root / "cases/golden/ret-001.yaml"
    path.write_text(path.read_text().replace("credit", "refund"))
    result = check_cli("--repo", root)
    assert result.exit_code == 1
    assert "GC202" in result.stdout


def test_corrupt_cache_is_ignored(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-001.yaml": GOOD.format(id="ret-001")})
    check_cli("--repo", root)
    files = list(cache_folder(root).glob("*.msgpack"))
    assert files
    for cache_file in files:
        cache_file.write_bytes(cache_file.read_bytes()[:-3] + b"\xc1\xc1\xc1")
    assert check_cli("--repo", root).exit_code == 0


def _bomb(levels: int) -> str:
    lines = ["id: bomb", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        ("bomb.yaml", _bomb(9).encode(), "GC103"),
        ("big.yaml", b"id: big\nquestion: " + b"x" * (50 * 1024 * 1024) + b"\n", "GC112"),
        ("binary.yaml", bytes(range(256)) * 64, "GC106"),
        ("deep.yaml", b"id: deep\nquestion: " + b"[" * 100_000 + b"\n", "GC101"),
        ("long-line.yaml", b"id: long-line\nquestion: " + b"y" * 900_000 + b"\n", "GC107"),
    ],
)
def test_hostile_files_get_a_finding_fast(
    make_repo: Maker, name: str, content: bytes, code: str
) -> None:
    root = make_repo({f"cases/golden/{name}": content})
    result = check_cli("--repo", root, "--select", "schema", "--no-cache")  # a stall: timeout
    assert result.exit_code == 1
    assert f"cases/golden/{name}:" in result.stdout
    assert f" {code} " in result.stdout


def test_fifo_is_not_read(make_repo: Maker) -> None:
    root = make_repo()
    os.mkfifo(root / "cases/golden/pipe.yaml")
    result = check_cli("--repo", root, "--select", "schema")
    assert result.stdout.splitlines()[0] == (
        "cases/golden/pipe.yaml:1:1: GC113 a FIFO (named pipe), not a regular file; case files "
        "are plain files: replace it with one"
    )


def test_a_linked_folder_named_like_a_case_is_called_a_folder(make_repo: Maker) -> None:
    root = make_repo()
    (root / "elsewhere").mkdir()
    (root / "cases/golden/more.yaml").symlink_to(root / "elsewhere")
    result = check_cli("--repo", root, "--select", "schema")
    assert result.stdout.splitlines()[0] == (
        "cases/golden/more.yaml:1:1: GC113 a link to a folder, named like a case file; case "
        "files are plain files: remove the link, or rename it without .yaml if the folder "
        "must stay"
    )


def test_a_linked_folder_of_cases_is_reported_not_skipped(make_repo: Maker) -> None:
    """Its cases are not read (no folder is followed through a link): without a finding they
    would drop out of check, lock and score unseen."""
    root = make_repo({"cases/golden/ret-001.yaml": "id: ret-001\n"})
    (root / "extra").mkdir()
    (root / "extra" / "ret-999.yaml").write_text("id: ret-999\n", encoding="utf-8")
    (root / "cases/golden/linked").symlink_to(root / "extra")
    result = check_cli("--repo", root, "--select", "schema")
    assert result.exit_code == 1
    assert (
        "cases/golden/linked:1:1: GC113 a link to a folder: the cases in it are not read "
        "(goldcase follows no folder link, which could lead out of the repository); move the "
        "folder here instead"
    ) in result.stdout.splitlines()
    assert "ret-999" not in result.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file whatever its mode")
def test_unreadable_file(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/locked.yaml": "id: locked\n"})
    (root / "cases/golden/locked.yaml").chmod(0)
    result = check_cli("--repo", root, "--select", "schema")
    assert "GC113 cannot read the file" in result.stdout


def test_symlink_out_of_corpus(make_repo: Maker, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("A customer has 14 days from delivery to request a credit\n")
    root = make_repo(
        {
            "cases/golden/ret-001.yaml": GOOD.format(id="ret-001").replace(
                "returns-policy.md", "secret.md"
            )
        }
    )
    (root / "corpus" / "secret.md").symlink_to(secret)
    result = check_cli("--repo", root)
    assert result.stdout.splitlines()[0] == (
        "cases/golden/ret-001.yaml:5:10: GC203 doc 'secret.md' is a link that leads outside "
        "corpus/; copy the document in"
    )


def test_binary_corpus_document(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/ret-001.yaml": GOOD.format(id="ret-001").replace(
                "returns-policy.md", "scan.md"
            )
        }
    )
    (root / "corpus" / "scan.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    result = check_cli("--repo", root)
    assert result.stdout.splitlines()[0] == (
        "cases/golden/ret-001.yaml:5:10: GC206 document 'scan.md' cannot be searched: "
        "a binary file, not text"
    )


def test_duplicate_corpus_basenames(make_repo: Maker) -> None:
    root = make_repo()
    (root / "corpus" / "old").mkdir()
    (root / "corpus" / "old" / "delivery.md").write_text("old text\n")
    result = check_cli("--repo", root)
    assert result.stdout.splitlines()[0].startswith(
        "corpus/old/delivery.md:1:1: GC207 basename 'delivery.md' is also corpus/delivery.md"
    )


def test_nfd_quote_matches_nfc_document(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/cafe.yaml": (
                "id: cafe\nquestion: q\nexpected_answer: a\nsupport:\n"
                "  - doc: cafe.md\n    quote: Caf\u0065\u0301 hours\n"
            )
        }
    )
    (root / "corpus" / "cafe.md").write_text("Caf\u00e9 hours are 9 to 5.\n")
    assert check_cli("--repo", root).exit_code == 0


def test_zero_width_space_in_quote_is_not_folded(make_repo: Maker) -> None:
    root = make_repo(
        {"cases/golden/zw.yaml": GOOD.format(id="zw").replace("14 days", "14\u200b days", 2)}
    )
    result = check_cli("--repo", root)
    assert "GC202" in result.stdout


def test_traceback_never_shown_for_expected_errors(make_repo: Maker) -> None:
    result = run_cli("check", "--repo", make_repo() / "nope")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr


# -- check --staged: what a commit's hook reports on ------------------------------------------

BROKEN = GOOD.replace("14 days from delivery", "30 days from delivery")


@pytest.fixture
def committed_set(make_repo: Maker) -> Path:
    """Two cases committed in a git repository; ret-002's quote is wrong (GC202)."""
    root = make_repo(
        {"cases/golden/ret-001.yaml": GOOD.format(id="ret-001"),
         "cases/golden/ret-002.yaml": BROKEN.format(id="ret-002")}
    )  # fmt: skip
    git(root, "init", "-q", "-b", "main")
    commit(root, "the set")
    return root


def staged_check(root: Path, *paths: str) -> Result:
    return check_cli("--repo", root, "--staged", *(str(root / p) for p in paths))


def test_staged_case_files_are_reported_on_alone(committed_set: Path) -> None:
    write(committed_set, "cases/golden/ret-001.yaml", GOOD.format(id="ret-001") + "tags: [a]\n")
    git(committed_set, "add", "-A")
    result = staged_check(committed_set, "cases/golden/ret-001.yaml")
    assert (result.exit_code, result.stdout) == (0, "all checks passed: 1 case file\n")


@pytest.mark.parametrize("staged", ["corpus/returns-policy.md", "goldcase.toml"])
def test_any_other_staged_file_checks_the_whole_set(committed_set: Path, staged: str) -> None:
    path = committed_set / staged
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    write(committed_set, "cases/golden/ret-001.yaml", GOOD.format(id="ret-001") + "tags: [a]\n")
    git(committed_set, "add", "-A")
    result = staged_check(committed_set, "cases/golden/ret-001.yaml", staged)
    assert result.exit_code == 1
    assert "cases/golden/ret-002.yaml:6:12: GC202" in result.stdout


def test_a_commit_that_removes_a_case_checks_the_whole_set(committed_set: Path) -> None:
    write(committed_set, "cases/golden/ret-003.yaml", GOOD.format(id="ret-003"))
    git(committed_set, "rm", "-q", "cases/golden/ret-001.yaml")
    git(committed_set, "add", "-A")
    result = staged_check(committed_set, "cases/golden/ret-003.yaml")
    assert "cases/golden/ret-002.yaml:6:12: GC202" in result.stdout


def test_nothing_staged_checks_the_whole_set(committed_set: Path) -> None:
    result = staged_check(committed_set)
    assert "cases/golden/ret-002.yaml:6:12: GC202" in result.stdout


def test_a_focused_run_keeps_the_cache_of_the_cases_it_did_not_look_at(
    committed_set: Path,
) -> None:
    assert "GC202" in check_cli("--repo", committed_set).stdout  # fills the cache
    before = len(cached_table(committed_set, "support"))
    write(committed_set, "cases/golden/ret-001.yaml", GOOD.format(id="ret-001") + "tags: [b]\n")
    check_cli("--repo", committed_set, committed_set / "cases/golden/ret-001.yaml")
    after = cached_table(committed_set, "support")
    assert len(after) == before + 1  # ret-001's new entry beside the ones not looked at
    assert any(":cases/golden/ret-002.yaml:" in key for key in after)


def test_lock_first_stages_the_bump_and_leaves_stdout_to_the_findings(make_repo: Maker) -> None:
    """``check --lock`` (the one-process hook): the lock's lines on stderr, the findings in
    the asked format on stdout, the rewritten files added to the commit being made."""
    root = make_repo({"cases/golden/ret-001.yaml": GOOD.format(id="ret-001")})
    git(root, "init", "-q")
    assert run_cli("lock", "--repo", root).exit_code == 1  # written: add them
    commit(root, "first")
    added = write(root, "cases/golden/s.yaml", SALE.format(id="s"))
    git(root, "add", str(added))
    result = check_cli("--repo", root, "--lock", "--staged", "--format", "json", added)
    payload = json.loads(result.stdout)
    assert [f["code"] for f in payload["findings"]] == ["GC205"]
    assert "golden.version: 1 -> 2" in result.stderr
    assert "staged golden.version and golden.lock in this commit" in result.stderr
    assert result.exit_code == 0  # a warning, and the bump staged
    staged = git(root, "diff", "--cached", "--name-only").stdout.split()
    assert staged == ["cases/golden/s.yaml", "golden.lock", "golden.version"]
    again = check_cli("--repo", root, "--lock", "--staged", added)
    assert again.exit_code == 0 and "up to date" in again.stderr


def test_lock_first_with_an_unknown_family_stops_before_anything_is_written(
    make_repo: Maker,
) -> None:
    """A family name that is none is an error of the command line (exit 2): it is found
    before the lock is rewritten or anything is staged, not after."""
    root = make_repo({"cases/golden/ret-001.yaml": GOOD.format(id="ret-001")})
    git(root, "init", "-q")
    assert run_cli("lock", "--repo", root).exit_code == 1
    commit(root, "first")
    added = write(root, "cases/golden/s.yaml", SALE.format(id="s"))
    git(root, "add", str(added))
    before = (root / "golden.version").read_text(), (root / "golden.lock").read_text()
    result = check_cli("--repo", root, "--lock", "--staged", "--select", "nosuch", added)
    assert result.exit_code == 2
    assert "unknown check family 'nosuch'" in result.stderr
    assert ((root / "golden.version").read_text(), (root / "golden.lock").read_text()) == before
    assert git(root, "diff", "--cached", "--name-only").stdout.split() == ["cases/golden/s.yaml"]


# A set with a finding of every family that looks at one case at a time or pairs it with
# another: what `check FILE` (the hook) says of a file is what the whole check says of it.
PLANTED = {
    "cases/golden/ret-001.yaml": GOOD.format(id="ret-001"),
    "cases/golden/ret-002.yaml": BROKEN.format(id="ret-002"),  # GC202
    "cases/golden/ret-003.yaml": GOOD.format(id="ret-003").replace("how long", "How long"),  # GC304
    "cases/dev/dev-001.yaml": GOOD.format(id="dev-001").replace("how long", "HOW LONG"),  # GC301
    "cases/golden/ret-004.yaml": SALE.format(id="ret-004")
    + "notes: ask jane.doe@example.com\n",  # GC505, GC202
    "cases/golden/ret-005.yaml": GOOD.format(id="ret-005").replace(
        "expected_answer: 14 days",
        "expected_answer: fourteen days from the day the damaged parcel was delivered to the "
        "customer who ordered it",
    )
    + "resolution: agreed\n",  # GC508, GC512
    "cases/golden/ret-006.yaml": "id: ret-006\nquestion: [not, text]\n",  # GC1xx
}


def _json_findings(root: Path, *paths: str) -> list[dict[str, object]]:
    done = run_cli("check", "--repo", root, "--format", "json", *(root / p for p in paths))
    assert done.exit_code in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)["findings"]
    return found


def test_a_focused_run_reports_on_its_file_what_the_whole_run_does(make_repo: Maker) -> None:
    root = make_repo(PLANTED)
    run_cli("lock", "--repo", root)
    write(root, "cases/golden/ret-001.yaml", GOOD.format(id="ret-001") + "tags: [late]\n")  # GC401
    whole = _json_findings(root)
    codes = {str(f["code"]) for f in whole}
    assert {"GC202", "GC301", "GC304", "GC401", "GC505", "GC508", "GC512"} <= codes
    everywhere = {"goldcase.toml", "cases/golden"}  # findings about the set: always reported
    for rel in sorted(PLANTED):
        mine = [f for f in whole if f["path"] == rel or f["path"] in everywhere]
        for _ in range(2):  # computed, then from the cache
            assert _json_findings(root, rel) == mine, rel
    edited = "cases/golden/ret-003.yaml"  # edited again: its pairs are found anew
    write(root, edited, PLANTED[edited] + "tags: [again]\n")
    whole = _json_findings(root)
    assert _json_findings(root, edited) == [
        f for f in whole if f["path"] == edited or f["path"] in everywhere
    ]
