"""Hostile files, one test each, with the outcome docs/robustness.md promises. Files that
tests/test_check.py and tests/data/invalid/ already cover (YAML bomb, 50 MB and binary case
files, deep nesting and long lines in a case, NUL bytes, Latin-1, UTF-8 BOM, FIFO and
unreadable case files, symlinked and binary corpus documents, NFD and zero-width quotes,
merge-conflict markers in a case) are referenced there, not repeated here."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase import jsonmemory
from kit import Result, run_cli

Maker = Callable[..., Path]
HUNDRED_MB = 100 * 1024 * 1024
CASE = (
    "id: {id}\nquestion: how long do i have to ask for a credit on a damaged parcel\n"
    "expected_answer: {answer}\nsupport:\n  - doc: {doc}\n    quote: {quote}\n"
)
QUOTE = "A customer has 14 days from delivery to request a credit"


def check(root: Path, *extra: str) -> Result:
    return run_cli(
        "check", "--repo", root, "--select", "schema", "--select", "support", "--no-cache", *extra
    )


def case(
    case_id: str, doc: str = "returns-policy.md", quote: str = QUOTE, answer: str = "14 days"
) -> str:
    """A case whose answer's figures its quote holds (GC208), unless told otherwise."""
    return CASE.format(id=case_id, doc=doc, quote=quote, answer=answer)


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


# ---- case files -------------------------------------------------------------------------


def test_utf16_with_bom_is_refused(make_repo: Maker) -> None:
    raw = case("u16").encode("utf-16")  # starts with FF FE
    root = make_repo({"cases/golden/u16.yaml": raw})
    result = check(root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "cases/golden/u16.yaml:1:1: GC106 file starts with a UTF-16 byte-order mark; "
        "save it as UTF-8 without a BOM"
    )


def test_crlf_case_file_checks_clean(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/crlf.yaml": case("crlf").replace("\n", "\r\n").encode()})
    result = check(root)
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        0,
        "all checks passed: 1 case file",
    )


def test_quote_across_a_crlf_line_break_matches(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/wrap.yaml": case(
                "wrap",
                doc="crlf.md",
                quote="Refunds for a cracked screen are paid",
                answer="they are paid",
            )
        }
    )
    (root / "corpus/crlf.md").write_bytes(
        b"# Screens\r\n\r\nRefunds for a cracked\r\nscreen are paid in ten working days.\r\n"
    )
    result = check(root)
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        0,
        "all checks passed: 1 case file",
    )


def test_hundred_mb_case_file(make_repo: Maker) -> None:
    root = make_repo()
    path = root / "cases/golden/huge.yaml"
    with path.open("wb") as fh:  # sparse: no disk is used for the NUL bytes
        fh.write(b"id: huge\nquestion: ")
        fh.truncate(HUNDRED_MB)
    result = check(root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "cases/golden/huge.yaml:1:1: GC112 file is 104,857,600 bytes; "
        "a case file may be at most 1,048,576"
    )


def test_symlink_loop_in_cases(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ok.yaml": case("ok")})
    (root / "cases/golden/loop.yaml").symlink_to("loop.yaml")
    result = check(root)
    no_traceback(result)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("cases/golden/loop.yaml:1:1: GC113 ")


def test_case_symlink_out_of_the_repository_is_refused(make_repo: Maker, tmp_path: Path) -> None:
    """A case file that is a link leading outside the repository is not read (issue 16: no
    reads outside the repository); a link inside it is read like any case."""
    outside = tmp_path / "outside.yaml"
    outside.write_text(case("elsewhere"), encoding="utf-8")
    root = make_repo()
    (root / "cases/golden/elsewhere.yaml").symlink_to(outside)
    result = check(root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "cases/golden/elsewhere.yaml:1:1: GC113 a link that leads outside the repository; "
        "case files live inside it"
    )
    outside.unlink()
    (root / "elsewhere.yaml").write_text(case("elsewhere"), encoding="utf-8")
    (root / "cases/golden/elsewhere.yaml").unlink()
    (root / "cases/golden/elsewhere.yaml").symlink_to("../../elsewhere.yaml")
    result = check(root)
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        0,
        "all checks passed: 1 case file",
    )


# ---- corpus documents -------------------------------------------------------------------


def test_hundred_mb_corpus_document(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/big.yaml": case("big", doc="big.md")})
    with (root / "corpus/big.md").open("wb") as fh:  # streamed text, 100 MB
        line = b"Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n" * 1024
        while fh.tell() < HUNDRED_MB:
            fh.write(line)
    result = check(root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(
        "cases/golden/big.yaml:5:10: GC206 document 'big.md' cannot be searched: 104,"
    )
    assert "over the 67,108,864 limit" in result.stdout


def test_corpus_document_with_a_ten_mb_line(make_repo: Maker) -> None:
    unique = "The warehouse on the long line opens at nine"
    one = case("one", doc="one-line.md", quote=unique, answer="at nine")
    root = make_repo({"cases/golden/one.yaml": one})
    (root / "corpus/one-line.md").write_text("word " * 2_000_000 + unique + ".\n", encoding="utf-8")
    result = check(root)
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        0,
        "all checks passed: 1 case file",
    )


def test_corpus_document_not_utf8(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/lat.yaml": case("lat", doc="latin1.md")})
    (root / "corpus/latin1.md").write_bytes("Caf\u00e9: ".encode("latin-1") + QUOTE.encode())
    result = check(root)
    no_traceback(result)
    assert result.exit_code == 1
    assert " GC206 document 'latin1.md' cannot be searched" in result.stdout.splitlines()[0]


def test_corpus_document_that_is_a_fifo(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/pipe.yaml": case("pipe", doc="pipe.md")})
    os.mkfifo(root / "corpus/pipe.md")
    result = check(root)
    assert result.stdout.splitlines()[0] == (
        "cases/golden/pipe.yaml:5:10: GC206 document 'pipe.md' cannot be searched: "
        "not a regular file"
    )


# ---- results, reports, hashes, lock, labels ---------------------------------------------


@pytest.fixture
def scored_repo(make_repo: Maker) -> Path:
    return make_repo({"cases/golden/ret-001.yaml": case("ret-001")})


def test_hundred_mb_results_file(scored_repo: Path) -> None:
    results = scored_repo / "big.jsonl"
    line = json.dumps({"id": "ret-001", "outcome": "answer", "answer": "14 days"}) + "\n"
    with results.open("w", encoding="utf-8") as fh:
        block = line * 10_000
        while fh.tell() < HUNDRED_MB:
            fh.write(block)
    result = run_cli("score", results, "--repo", scored_repo)
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        f"error: {results}:2: second result for case 'ret-001' (first on line 1); keep one "
        "line per case, or number repeated runs with trial"
    )
    assert len(result.stderr.splitlines()) < 100  # the first problems, not 1.7 million lines


def test_sparse_hundred_mb_results_file(scored_repo: Path) -> None:
    results = scored_repo / "sparse.jsonl"
    with results.open("wb") as fh:
        fh.truncate(HUNDRED_MB)
    result = run_cli("score", results, "--repo", scored_repo)
    no_traceback(result)
    assert result.exit_code == 2 and result.stderr.startswith("error: ")


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("raw-nul", b'{"id": "ret-001", "outcome": "answer", "answer": "14\x00 days"}\n'),
        ("escaped-nul", b'{"id": "ret-001", "outcome": "answer", "answer": "14\\u0000 days"}\n'),
        (
            "latin1",
            '{"id": "ret-001", "outcome": "answer", "answer": "caf\u00e9"}\n'.encode("latin-1"),
        ),
        ("utf16", '{"id": "ret-001", "outcome": "abstain"}\n'.encode("utf-16")),
        (
            "long-line",
            json.dumps({"id": "ret-001", "outcome": "answer", "answer": "x" * 20_000_000}).encode(),
        ),
        ("deep", b"[" * 200_000 + b"\n"),
        (
            "conflict",
            b'<<<<<<< HEAD\n{"id": "ret-001", "outcome": "abstain"}\n=======\n'
            b'{"id": "ret-001", "outcome": "answer", "answer": "x"}\n>>>>>>> b\n',
        ),
    ],
)
def test_hostile_results_files(scored_repo: Path, name: str, raw: bytes) -> None:
    results = scored_repo / f"{name}.jsonl"
    results.write_bytes(raw)
    result = run_cli("score", results, "--repo", scored_repo)
    no_traceback(result)
    if name in ("escaped-nul", "long-line"):  # legal JSON: scored
        assert result.exit_code == 0, result.stderr
    else:
        assert result.exit_code == 2 and result.stderr.startswith("error: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "{fifo}"], "error: {fifo}: cannot read it: not a regular file"),
        (["compare", "{fifo}", "{fifo}"], "error: {fifo}: cannot read it: not a regular file"),
        (
            ["report", "--html", "page.html", "{fifo}"],
            "error: {fifo}: cannot read it: not a regular file",
        ),
        (
            ["leakage", "--against", "{fifo}", "cases/golden/ret-001.yaml"],
            "error: {fifo}: cannot read the hashes file: not a regular file",
        ),
        (["score", "/dev/zero"], "error: /dev/zero: cannot read it: not a regular file"),
    ],
)
def test_fifo_or_device_named_on_the_command_line(
    scored_repo: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    fifo = scored_repo / "pipe.json"
    os.mkfifo(fifo)
    monkeypatch.chdir(scored_repo)
    argv = [a.format(fifo="pipe.json") for a in args]
    if argv[0] in ("score", "report"):
        argv += ["--repo", str(scored_repo)]
    result = run_cli(*argv)
    assert result.exit_code == 2
    assert result.stderr.startswith(message.format(fifo="pipe.json"))


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"[" * 200_000, "GC404 golden.lock is not JSON: nested too deeply"),
        (b'<<<<<<< HEAD\n{"format": 1}\n=======\n{}\n>>>>>>> b\n', "GC404 golden.lock is not JSON"),
        (None, "GC404 golden.lock cannot be read: "),
    ],
)
def test_hostile_golden_lock(scored_repo: Path, content: bytes | None, code: str) -> None:
    """Each is GC404, and `goldcase lock` writes the lock again (a FIFO replaced by a file)."""
    lock = scored_repo / "golden.lock"
    if content is None:
        os.mkfifo(lock)
    else:
        lock.write_bytes(content)
    result = run_cli("lock", "--check", "--repo", scored_repo)
    assert result.exit_code == 1
    assert f"golden.lock:1:1: {code}" in result.stdout
    relocked = run_cli("lock", "--repo", scored_repo)
    assert relocked.exit_code == 1 and "wrote golden.version and golden.lock" in relocked.stdout
    assert run_cli("lock", "--check", "--repo", scored_repo).exit_code == 0


def test_conflicted_golden_version(scored_repo: Path) -> None:
    (scored_repo / "golden.version").write_text("<<<<<<< HEAD\n2\n=======\n3\n>>>>>>> b\n")
    result = run_cli("lock", "--check", "--repo", scored_repo)
    no_traceback(result)
    assert result.exit_code in (1, 2)
    assert "golden.version" in result.stdout + result.stderr


def test_label_file_yaml_bomb_and_fifo(scored_repo: Path) -> None:
    folder = scored_repo / "labels/second"
    folder.mkdir(parents=True)
    bomb = ["id: ret-001", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    bomb += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    (folder / "ret-001.yaml").write_text("\n".join(bomb) + "\n", encoding="utf-8")
    os.mkfifo(folder / "ret-002.yaml")
    result = run_cli("agreement", "--repo", scored_repo)
    assert result.exit_code == 1
    assert "labels/second/ret-001.yaml:2:" in result.stdout and " GC509 " in result.stdout
    assert "labels/second/ret-002.yaml:1:1: GC509 cannot read the label file" in result.stdout


# ---- unreadable files, as a user who cannot read them -----------------------------------


CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, PR_CAPBSET_DROP = 1, 2, 24


def _without_dac_override() -> None:
    """In the child, before exec: drop the two capabilities that let root read any file, so
    that mode 0 means unreadable to this process too."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def _unprivileged(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    goldcase = str(Path(sys.executable).parent / "goldcase")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    preexec = _without_dac_override if os.geteuid() == 0 else None
    return subprocess.run(
        [goldcase, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec,
        env=env,
    )


def test_unreadable_files_without_the_power_to_read_them(make_repo: Maker) -> None:
    """Root reads any file whatever its mode; as root the command runs with CAP_DAC_OVERRIDE
    and CAP_DAC_READ_SEARCH dropped from its bounding set, as another user it runs as is."""
    root = make_repo(
        {
            "cases/golden/ok.yaml": case("ok"),
            "cases/golden/locked.yaml": case("locked"),
            "cases/golden/secret.yaml": case("secret", doc="secret.md", quote="A secret passage"),
            "corpus/secret.md": "A secret passage.\n",
            "results.jsonl": '{"id": "ok", "outcome": "abstain"}\n',
        }
    )
    for rel in ("cases/golden/locked.yaml", "corpus/secret.md", "results.jsonl"):
        (root / rel).chmod(0)
    try:
        result = _unprivileged(
            ["check", "--no-cache", "--select", "schema", "--select", "support"], root
        )
        scored = _unprivileged(["score", "results.jsonl"], root)
    except subprocess.SubprocessError as exc:  # prctl refused: no way to be unprivileged here
        pytest.skip(f"cannot drop the capability to read any file: {exc}")
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert "cases/golden/locked.yaml:1:1: GC113 cannot read the file: Permission denied" in lines
    assert any(
        line.startswith(
            "cases/golden/secret.yaml:5:10: GC206 document 'secret.md' "
            "cannot be searched: cannot be read (Permission denied)"
        )
        for line in lines
    ), lines
    assert scored.returncode == 2  # refused by the option parser, before goldcase reads it
    assert scored.stderr.splitlines()[-1] == (
        "Error: Invalid value for 'RESULTS': Path 'results.jsonl' is not readable."
    )


def test_review_out_that_is_a_fifo(tmp_path: Path) -> None:
    """``review --out`` appends (a step summary may hold earlier output): it read the file
    first, and a FIFO there blocked for ever."""
    from robustness.kit import canonical, commit, git, make_set

    make_set(tmp_path, 1, canonical)
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "set")
    os.mkfifo(tmp_path / "summary")
    result = run_cli("review", "--repo", tmp_path, "--base", "HEAD", "--out", tmp_path / "summary")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {tmp_path / 'summary'}: cannot read it: not a regular file "
        "(a FIFO, socket or device)\n"
    )


def test_fmt_skips_a_fifo_among_the_case_files(make_repo: Maker) -> None:
    """It read every file under cases/ with a blocking read: a FIFO there hung fmt."""
    root = make_repo({"cases/golden/ok.yaml": case("ok")})
    os.mkfifo(root / "cases/golden/pipe.yaml")
    result = run_cli("fmt", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "cases/golden/pipe.yaml:1:1: GC113 cannot read the file: not a regular file "
        "(a FIFO, socket or device) (file left as it is)"
    )


def test_fifo_and_device_among_the_prompt_files(make_repo: Maker) -> None:
    """The leakage check read every prompt file with a blocking read: a FIFO in prompts/, or
    a link to /dev/zero, hung goldcase check (and so the pre-commit hook)."""
    root = make_repo({"cases/golden/ok.yaml": case("ok")})
    (root / "prompts").mkdir()
    os.mkfifo(root / "prompts/pipe.md")
    (root / "prompts/zero.md").symlink_to("/dev/zero")
    result = run_cli("check", "--repo", root, "--select", "leakage", "--no-cache")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "prompts/pipe.md:1:1: GC306 cannot read the prompt file: not a regular file "
        "(a FIFO, socket or device)",
        "prompts/zero.md:1:1: GC306 cannot read the prompt file: a link that leads outside "
        "the repository",
    ]


# ---- a JSON integer longer than Python converts ------------------------------------------

# Python refuses to convert an integer of more than 4,300 digits (a guard against quadratic
# time) with a plain ValueError, not the JSONDecodeError a reader expects: a file holding one
# stopped the command with an internal error instead of naming the file.
HUGE = "1" * 5000


def test_a_huge_integer_in_golden_lock_is_a_finding(scored_repo: Path) -> None:
    (scored_repo / "golden.lock").write_text(f'{{"format": {HUGE}}}', encoding="utf-8")
    result = run_cli("lock", "--check", "--repo", scored_repo)
    no_traceback(result)
    assert result.exit_code == 1
    assert "golden.lock:1:1: GC404 golden.lock is not JSON" in result.stdout


@pytest.mark.parametrize("name", ["few.jsonl", "few.json"])
def test_a_huge_integer_in_a_prompt_file_is_a_finding(scored_repo: Path, name: str) -> None:
    (scored_repo / "prompts").mkdir()
    (scored_repo / "prompts" / name).write_text(
        f'{{"q": "a question", "n": {HUGE}}}\n', encoding="utf-8"
    )
    result = run_cli("check", "--repo", scored_repo, "--select", "leakage", "--no-cache")
    no_traceback(result)
    assert f"prompts/{name}:1:1: GC306 " in result.stdout
    assert "a number too long to read" in result.stdout


@pytest.mark.parametrize(
    ("args", "content"),
    [
        (("triage", "{file}", "--dry-run"), f'{{"question": "How long?", "id": {HUGE}}}\n'),
        (
            ("import", "--format", "squad", "{file}", "--out", "{out}"),
            f'{{"data": [], "n": {HUGE}}}',
        ),
        (
            ("import", "--format", "jsonl", "{file}", "--out", "{out}"),
            f'{{"id": "a", "n": {HUGE}}}\n',
        ),
        (("report", "{file}", "--html", "{out}.html"), f'{{"n": {HUGE}}}'),
        (("leakage", "--against", "{file}"), f'{{"n": {HUGE}}}'),
    ],
    ids=["trace log", "squad", "jsonl", "report", "hashes"],
)
def test_a_huge_integer_in_a_named_file_is_named(
    scored_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    content: str,
) -> None:
    given = tmp_path / "given.json"
    given.write_text(content, encoding="utf-8")
    out = str(tmp_path / "out")
    monkeypatch.chdir(scored_repo)
    result = run_cli(*(a.format(file=given, out=out) for a in args))
    no_traceback(result)
    assert result.exit_code in (1, 2)
    assert str(given) in result.stderr + result.stdout


def test_a_golden_version_of_300_mb_is_refused_unread(scored_repo: Path) -> None:
    """A version is one short line: a branch's 300 MB of NULs (about 300 KB in git) was read,
    decoded and printed in the report (6.5 GB at the peak, 1.3 GB written)."""
    assert "(first lock)" in run_cli("lock", "--repo", scored_repo).stdout
    with (scored_repo / "golden.version").open("wb") as fh:
        fh.truncate(300 * 1024 * 1024)
    said = (
        "golden.version holds 314,572,800 bytes, more than the 65,536 a version may take; "
        "write the version on a single short line"
    )
    checked = run_cli("lock", "--check", "--repo", scored_repo)
    assert checked.exit_code == 1
    assert f"golden.version:1:1: GC405 {said}" in checked.stdout
    results = scored_repo / "run.jsonl"
    results.write_text('{"id": "ret-001", "outcome": "answer", "answer": "14 days"}\n')
    scored = run_cli("score", results, "--repo", scored_repo)
    assert (scored.exit_code, scored.stdout, scored.stderr) == (2, "", f"error: {said}\n")


def test_a_golden_lock_past_its_size_or_memory_is_a_finding_and_lock_rewrites_it(
    scored_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock larger than any the memory budget lets through is not read (a sparse 600 MB
    file here); one whose decoding could take more than the budget (60 million empty
    objects took 4.5 GB) is refused before it is decoded (the budget lowered to 8 MiB, so
    that a small file shows it). `goldcase lock` writes the lock again from the set."""
    assert "(first lock)" in run_cli("lock", "--repo", scored_repo).stdout
    lock = scored_repo / "golden.lock"
    with lock.open("wb") as fh:
        fh.truncate(600 * 1024 * 1024)
    checked = run_cli("lock", "--check", "--repo", scored_repo)
    assert checked.exit_code == 1
    assert (
        "golden.lock:1:1: GC404 golden.lock holds 629,145,600 bytes, more than the 536,870,912 "
        "a lock may take; run goldcase lock to rewrite it\n"
    ) in checked.stdout
    monkeypatch.setattr(jsonmemory, "BUDGET", 8 * 1024**2)
    lock.write_text("[" + "{}," * 100_000 + "{}]", encoding="utf-8")
    checked = run_cli("lock", "--check", "--repo", scored_repo)
    assert checked.exit_code == 1
    assert (
        "golden.lock:1:1: GC404 golden.lock: decoding its 300,004 bytes of JSON could take "
        "about 28 MiB of memory (its braces, brackets, commas and colons each become an "
        "object), more than the 8 MiB goldcase allows; run goldcase lock to rewrite it\n"
    ) in checked.stdout
    relocked = run_cli("lock", "--repo", scored_repo)
    no_traceback(relocked)
    assert relocked.exit_code == 1 and "golden.lock was unreadable" in relocked.stdout
    assert run_cli("lock", "--check", "--repo", scored_repo).exit_code == 0


def _device(path: Path) -> None:
    """A character device made where a test can put it (/dev/null's numbers), or a skip."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")


@pytest.mark.parametrize(
    ("make", "kind"), [(os.mkfifo, "a FIFO (named pipe)"), (_device, "a character device")]
)
def test_score_out_onto_a_fifo_or_a_device_is_refused_and_left_in_place(
    scored_repo: Path, make: Callable[[Path], None], kind: str
) -> None:
    """The report is written whole by renaming a file over ``--out``: run as root with
    ``--out /dev/full`` (or ``/dev/null``), the device was replaced by a regular file."""
    results = scored_repo / "run.jsonl"
    results.write_text('{"id": "ret-001", "outcome": "answer", "answer": "14 days"}\n')
    out = scored_repo / "report.json"
    make(out)
    before = os.lstat(out)
    result = run_cli("score", results, "--repo", scored_repo, "--out", out)
    assert result.exit_code == 2
    assert result.stderr == (  # refused before the lines are read
        f"error: {out}: is {kind}, where goldcase score writes a file whole (by renaming one "
        "over the name); name a file with --out\n"
    )
    after = os.lstat(out)
    assert (after.st_ino, after.st_mode, after.st_rdev) == (
        before.st_ino,
        before.st_mode,
        before.st_rdev,
    )


def test_an_output_that_is_the_file_read_is_refused_and_the_file_kept(scored_repo: Path) -> None:
    """``score RESULTS --out RESULTS`` replaced the results with the report, exit 0; ``report
    REPORT --html REPORT`` the report with its page."""
    results = scored_repo / "run.jsonl"
    line = '{"id": "ret-001", "outcome": "answer", "answer": "14 days"}\n'
    results.write_text(line)
    result = run_cli("score", results, "--repo", scored_repo, "--out", f"{scored_repo}/./run.jsonl")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {scored_repo}/run.jsonl: is the results file, which goldcase score reads; "
        "writing there would replace it: name another file with --out\n",
    )
    assert results.read_text() == line
    report = scored_repo / "report.json"
    assert run_cli("score", results, "--repo", scored_repo, "--out", report).exit_code == 0
    kept = report.read_bytes()
    result = run_cli("report", report, "--html", report, "--repo", scored_repo)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {report}: is the report, which goldcase report reads; writing there would "
        "replace it: name another file with --html\n",
    )
    assert report.read_bytes() == kept
