"""The hooks end to end: real git commits through the real ``pre-commit`` and the plain hooks.

The pre-commit environment is built once per session: this repository is cloned at its HEAD
commit and used as ``repo:`` with ``rev:`` = that sha, with PRE_COMMIT_HOME under the session's
temporary folder, so pre-commit's pip install happens once. Every repository lives under a path
with spaces.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from kit import GOLDCASE, PRE_COMMIT, REPO_ROOT, case_text, commit, git, run, write

pytestmark = pytest.mark.slow

BAD_QUOTE = case_text("ret-002", quote="Credits are refunded to the card within a week")


@dataclass(frozen=True)
class HookSource:
    path: Path
    sha: str
    home: Path  # PRE_COMMIT_HOME


def config_text(source: HookSource) -> str:
    return (
        "default_install_hook_types: [pre-commit, pre-merge-commit]\n"
        "repos:\n"
        f"  - repo: {source.path}\n"
        f"    rev: {source.sha}\n"
        "    hooks:\n"
        "      - id: goldcase-version\n"
        "      - id: goldcase-schema\n"
        "      - id: goldcase-quotes\n"
    )


@pytest.fixture(scope="session")
def hook_source(tmp_path_factory: pytest.TempPathFactory) -> HookSource:
    base = tmp_path_factory.mktemp("hook source")
    clone = base / "goldcase src"
    head = git(REPO_ROOT, "rev-parse", "HEAD").stdout.strip()
    git(base, "clone", "-q", "--no-checkout", str(REPO_ROOT), str(clone))
    git(clone, "checkout", "-q", head)
    source = HookSource(clone, head, base / "pre-commit home")
    warm = new_repo(base / "warm up", source)
    installed = pre_commit(warm, source, "install-hooks")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return source


def pre_commit(root: Path, source: HookSource, *args: str) -> subprocess.CompletedProcess[str]:
    return run([PRE_COMMIT, *args], root, check=False, PRE_COMMIT_HOME=str(source.home))


def new_repo(root: Path, source: HookSource) -> Path:
    """``goldcase init --example`` with the hooks taken from the test run's clone."""
    where = root.parent if root.parent.exists() else Path("/")
    made = run([GOLDCASE, "init", root, "--example"], where)
    assert made.returncode == 0
    write(root, ".pre-commit-config.yaml", config_text(source))
    return root


def committed(root: Path, source: HookSource, message: str) -> subprocess.CompletedProcess[str]:
    git(root, "add", "-A")
    return run(
        ["git", "commit", "--no-gpg-sign", "-m", message],
        root,
        check=False,
        PRE_COMMIT_HOME=str(source.home),
    )


@pytest.fixture
def repo(tmp_path: Path, hook_source: HookSource) -> Path:
    root = new_repo(tmp_path / "golden set", hook_source)
    assert pre_commit(root, hook_source, "install").returncode == 0
    first_commit(root, lambda: committed(root, hook_source, "first commit"))
    return root


def first_commit(root: Path, attempt: Callable[[], subprocess.CompletedProcess[str]]) -> None:
    """In a repository with no commits yet, the version hook writes golden.version 1 and
    golden.lock and adds them to the first commit: one attempt makes version 1."""
    accepted = attempt()
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(root, "show", "HEAD:golden.version").stdout == "1\n"
    assert git(root, "show", "HEAD:golden.lock").returncode == 0


BUMP = "golden.version: 1 -> 2 (set or corpus changed since HEAD, version 1)"


def bump_flow(root: Path, source: HookSource) -> None:
    """One commit attempt: the version hook stages the two files it rewrote."""
    write(root, "cases/golden/ret-002.yaml", case_text("ret-002"))
    accepted = committed(root, source, "add ret-002")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(root, "show", "HEAD:golden.version").stdout == "2\n"
    assert "ret-002" in json.loads(git(root, "show", "HEAD:golden.lock").stdout)["cases"]
    assert git(root, "status", "--porcelain").stdout == ""
    assert run([GOLDCASE, "lock", "--check"], root, check=False).returncode == 0


def test_a_bad_case_is_refused_with_the_finding_line(repo: Path, hook_source: HookSource) -> None:
    write(repo, "cases/golden/ret-002.yaml", BAD_QUOTE)
    refused = committed(repo, hook_source, "bad quote")
    assert refused.returncode == 1
    assert (
        "cases/golden/ret-002.yaml:6:12: GC202 quote not found verbatim in returns-policy.md"
        in refused.stdout + refused.stderr
    )
    assert git(repo, "rev-list", "--count", "HEAD").stdout == "1\n"


def test_a_good_case_is_committed_with_its_bump_in_one_attempt(
    repo: Path, hook_source: HookSource
) -> None:
    bump_flow(repo, hook_source)


def test_the_one_process_hook_bumps_in_one_attempt_and_refuses_a_finding(
    tmp_path: Path, hook_source: HookSource
) -> None:
    """``goldcase`` does what goldcase-version and goldcase-check do, in one process."""
    root = new_repo(tmp_path / "one hook", hook_source)
    head = config_text(hook_source).split("    hooks:\n")[0]
    config = head + "    hooks:\n      - id: goldcase\n"
    write(root, ".pre-commit-config.yaml", config)
    assert pre_commit(root, hook_source, "install").returncode == 0
    first_commit(root, lambda: committed(root, hook_source, "first commit"))
    bump_flow(root, hook_source)
    bad = case_text("ret-003", quote="Credits are refunded to the card within a week")
    write(root, "cases/golden/ret-003.yaml", bad)
    refused = committed(root, hook_source, "bad quote")
    assert refused.returncode == 1
    assert "cases/golden/ret-003.yaml:6:12: GC202" in refused.stdout + refused.stderr
    assert git(root, "show", "HEAD:golden.version").stdout == "2\n"  # nothing committed


def test_unstaged_changes_stay_unstaged_and_out_of_the_lock(
    repo: Path, hook_source: HookSource
) -> None:
    """pre-commit puts unstaged changes aside while its hooks run: the lock is made for the
    staged set, the hook stages only the two files it wrote, and the user's unstaged edit is
    back in the work tree afterwards, still unstaged."""
    write(repo, "cases/golden/ret-002.yaml", case_text("ret-002"))
    git(repo, "add", "cases/golden/ret-002.yaml")
    edited = case_text("ret-001", answer="two weeks, not staged")
    write(repo, "cases/golden/ret-001.yaml", edited)
    committed_ret001 = git(repo, "show", "HEAD:cases/golden/ret-001.yaml").stdout
    done = run(
        ["git", "commit", "--no-gpg-sign", "-m", "ret-002 only"],
        repo,
        check=False,
        PRE_COMMIT_HOME=str(hook_source.home),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "show", "--name-only", "--format=", "HEAD").stdout.split() == [
        "cases/golden/ret-002.yaml",
        "golden.lock",
        "golden.version",
    ]
    assert git(repo, "show", "HEAD:cases/golden/ret-001.yaml").stdout == committed_ret001
    assert (repo / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == edited
    assert git(repo, "status", "--porcelain").stdout == " M cases/golden/ret-001.yaml\n"
    # the committed lock pins the committed ret-001, so the unstaged edit is a change to come
    check = run([GOLDCASE, "lock", "--check"], repo, check=False)
    assert "GC401 golden case ret-001 changed" in check.stdout


def test_commit_all_stages_the_bump_in_the_index_it_commits(
    repo: Path, hook_source: HookSource
) -> None:
    """``git commit -a`` commits a temporary index: the bump is staged there."""
    write(repo, "cases/golden/ret-001.yaml", case_text("ret-001", answer="two weeks"))
    done = run(
        ["git", "commit", "-a", "--no-gpg-sign", "-m", "edit ret-001"],
        repo,
        check=False,
        PRE_COMMIT_HOME=str(hook_source.home),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "show", "HEAD:golden.version").stdout == "2\n"
    assert git(repo, "status", "--porcelain").stdout == ""


def test_an_untracked_golden_case_is_not_locked_into_a_commit_without_it(
    repo: Path, hook_source: HookSource
) -> None:
    write(repo, "cases/golden/ret-002.yaml", case_text("ret-002"))
    git(repo, "add", "cases/golden/ret-002.yaml")
    write(repo, "cases/golden/ret-003.yaml", case_text("ret-003"))  # never added
    refused = run(
        ["git", "commit", "--no-gpg-sign", "-m", "ret-002"],
        repo,
        check=False,
        PRE_COMMIT_HOME=str(hook_source.home),
    )
    assert refused.returncode == 1
    assert (
        "not staged: cases/golden/ret-003.yaml is on disk but not in this commit"
        in refused.stdout + refused.stderr
    )
    assert git(repo, "rev-list", "--count", "HEAD").stdout == "1\n"
    assert git(repo, "diff", "--cached", "--name-only").stdout == "cases/golden/ret-002.yaml\n"


def test_detached_head(repo: Path, hook_source: HookSource) -> None:
    git(repo, "checkout", "-q", "--detach")
    bump_flow(repo, hook_source)


def test_shallow_clone(repo: Path, hook_source: HookSource, tmp_path: Path) -> None:
    write(repo, "notes.txt", "second commit\n")
    assert committed(repo, hook_source, "notes").returncode == 0
    clone = tmp_path / "shallow clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert (clone / ".git" / "shallow").exists()
    assert pre_commit(clone, hook_source, "install").returncode == 0
    bump_flow(clone, hook_source)


def test_merge_of_two_bumping_branches_settles_before_the_merge_commit(
    repo: Path, hook_source: HookSource
) -> None:
    trunk = git(repo, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip()
    quote = "paid back to the original payment method within five working days"
    for branch, case_id in (("one", "ret-002"), ("two", "ret-003")):
        git(repo, "checkout", "-q", "-b", branch, trunk)
        write(repo, f"cases/golden/{case_id}.yaml", case_text(case_id, quote=quote))
        done = committed(repo, hook_source, f"add {case_id}")
        assert done.returncode == 0, done.stdout + done.stderr
    merged = run(
        ["git", "merge", "--no-edit", "--no-gpg-sign", "one"],
        repo,
        check=False,
        PRE_COMMIT_HOME=str(hook_source.home),
    )
    # both sides went 1 -> 2: the pre-merge-commit stage raised golden.version to the merged
    # lock's 3 and staged it, but git merge does not take what its hook stages: it stops once
    assert merged.returncode == 1
    assert "CONFLICT" not in merged.stdout + merged.stderr
    assert "golden.version: 2 -> 3" in merged.stdout + merged.stderr
    assert "complete it with git commit --no-edit" in merged.stdout + merged.stderr
    done = run(
        ["git", "commit", "--no-edit", "--no-gpg-sign"],
        repo,
        check=False,
        PRE_COMMIT_HOME=str(hook_source.home),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "show", "HEAD:golden.version").stdout == "3\n"
    assert git(repo, "rev-list", "--parents", "-1", "HEAD").stdout.count(" ") == 2  # a merge
    assert git(repo, "status", "--porcelain").stdout == ""
    assert run([GOLDCASE, "lock", "--check"], repo, check=False).returncode == 0


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    root = tmp_path / "plain hooks"
    assert run([GOLDCASE, "init", root, "--git-hooks", "--example"], tmp_path).returncode == 0
    (root / ".pre-commit-config.yaml").unlink()
    first_commit(root, lambda: plain_commit(root, "first"))
    return root


def plain_commit(root: Path, message: str) -> subprocess.CompletedProcess[str]:
    git(root, "add", "-A")
    return run(["git", "commit", "--no-gpg-sign", "-m", message], root, check=False)


def test_plain_hooks_refuse_a_bad_commit(plain: Path) -> None:
    write(plain, "cases/golden/ret-002.yaml", BAD_QUOTE)
    refused = plain_commit(plain, "bad")
    assert refused.returncode == 1
    assert (
        "cases/golden/ret-002.yaml:6:12: GC202 quote not found verbatim in returns-policy.md"
        in refused.stdout + refused.stderr
    )
    assert git(plain, "rev-list", "--count", "HEAD").stdout == "1\n"


@pytest.mark.parametrize("name", ["--help", "--select=privacy"])
def test_plain_hooks_read_a_staged_file_name_as_a_name(plain: Path, name: str) -> None:
    """The hook passed the staged names to goldcase check as they are: a file named --help
    (or --select=privacy) in the commit was read as that option, the check printed its help
    (or ran one family) and passed, and the bad case beside it was committed."""
    write(plain, "cases/golden/ret-002.yaml", BAD_QUOTE)
    write(plain, name, "a file whose name looks like an option\n")
    refused = plain_commit(plain, "bad")
    assert refused.returncode == 1
    assert "GC202 quote not found verbatim" in refused.stdout + refused.stderr
    assert git(plain, "rev-list", "--count", "HEAD").stdout == "1\n"


def test_plain_hooks_commit_a_bump_in_one_attempt(plain: Path) -> None:
    write(plain, "cases/golden/ret-002.yaml", case_text("ret-002"))
    accepted = plain_commit(plain, "add")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(plain, "show", "HEAD:golden.version").stdout == "2\n"
    assert git(plain, "status", "--porcelain").stdout == ""


def test_plain_hooks_do_not_lock_a_set_the_commit_does_not_hold(plain: Path) -> None:
    """The plain hooks see the work tree as it is: an unstaged edit of a golden case would
    be locked into a commit without it, so the bump is not staged and the commit refused."""
    write(plain, "cases/golden/ret-002.yaml", case_text("ret-002"))
    git(plain, "add", "cases/golden/ret-002.yaml")
    write(plain, "cases/golden/ret-001.yaml", case_text("ret-001", answer="not staged"))
    refused = run(["git", "commit", "--no-gpg-sign", "-m", "add"], plain, check=False)
    assert refused.returncode == 1
    assert (
        "not staged: cases/golden/ret-001.yaml is on disk but not in this commit"
        in refused.stdout + refused.stderr
    )
    assert git(plain, "rev-list", "--count", "HEAD").stdout == "1\n"


def test_plain_pre_push_refuses_a_stale_lock(plain: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(plain, "remote", "add", "origin", str(remote))
    write(plain, "cases/golden/ret-001.yaml", case_text("ret-001", answer="two weeks"))
    git(plain, "add", "-A")
    git(plain, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "edit without a bump")
    pushed = run(["git", "push", "-q", "origin", "HEAD:main"], plain, check=False)
    assert pushed.returncode != 0
    assert (
        "cases/golden/ret-001.yaml:1:1: GC401 golden case ret-001 changed"
        in pushed.stdout + pushed.stderr
    )
    run([GOLDCASE, "lock"], plain, check=False)
    commit(plain, "bump")
    assert run(["git", "push", "-q", "origin", "HEAD:main"], plain, check=False).returncode == 0


def test_the_installed_package_carries_the_plain_hooks(
    hook_source: HookSource, tmp_path: Path
) -> None:
    """pre-commit installed goldcase from a wheel: init --git-hooks installs the plain hooks
    from it, recording that environment's Python for when goldcase is not on PATH."""
    installed = sorted(hook_source.home.glob("repo*/py_env-*/bin/goldcase"))
    assert installed, "pre-commit's environment has no goldcase"
    root = tmp_path / "from the wheel"
    made = run([installed[0], "init", root, "--git-hooks"], tmp_path, check=False)
    assert made.returncode == 0, made.stdout + made.stderr
    for name in ("pre-commit", "pre-merge-commit", "pre-push"):
        hook = (root / ".git" / "hooks" / name).read_text()
        line = next(line for line in hook.splitlines() if line.startswith("python="))
        recorded = Path(shlex.split(line.removeprefix("python="))[0])
        assert recorded.parent == installed[0].parent  # its python, python3 or python3.11
    local = tmp_path / "local hooks from the wheel"
    made = run([installed[0], "init", local, "--hooks", "local"], tmp_path, check=False)
    assert made.returncode == 0, made.stdout + made.stderr  # the wheel carries the manifest
    written = (local / ".pre-commit-config.yaml").read_text()
    assert "entry: goldcase check --staged --lock" in written
    schema = (local / "schema" / "case.schema.json").read_bytes()
    assert schema == (REPO_ROOT / "schema" / "case.schema.json").read_bytes()


def _local_hooks(
    tmp_path: Path,
) -> tuple[Path, str, Callable[[str], subprocess.CompletedProcess[str]]]:
    """A set made by ``init --hooks local`` with the real pre-commit installed: its root, the
    PRE_COMMIT_HOME used, and ``attempt(message)``, which stages everything and commits."""
    root = tmp_path / "local hooks"
    made = run([GOLDCASE, "init", root, "--hooks", "local", "--example"], tmp_path)
    assert made.returncode == 0
    home = str(tmp_path / "pre-commit home")
    assert run([PRE_COMMIT, "install"], root, PRE_COMMIT_HOME=home).returncode == 0

    def attempt(message: str) -> subprocess.CompletedProcess[str]:
        git(root, "add", "-A")
        return run(
            ["git", "commit", "--no-gpg-sign", "-m", message],
            root,
            check=False,
            PRE_COMMIT_HOME=home,
        )

    return root, home, attempt


def test_local_hooks_call_the_installed_goldcase_and_fetch_nothing(tmp_path: Path) -> None:
    """``init --hooks local``: the real pre-commit runs this environment's goldcase (on PATH)
    through ``repo: local`` hooks, with nothing cloned or installed in PRE_COMMIT_HOME."""
    root, home, attempt = _local_hooks(tmp_path)
    first_commit(root, lambda: attempt("first"))
    write(root, "cases/golden/ret-002.yaml", case_text("ret-002"))
    accepted = attempt("add ret-002")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(root, "show", "HEAD:golden.version").stdout == "2\n"
    assert not list(Path(home).glob("repo*")), "pre-commit fetched a hook repository"


@pytest.mark.parametrize("name", ["--help", "--select=privacy"])
def test_pre_commit_hooks_read_a_staged_file_name_as_a_name(tmp_path: Path, name: str) -> None:
    """pre-commit puts the staged names after the hook's entry and args as they are: a file
    named --help in the commit made goldcase check print its help and pass, and the bad case
    beside it was committed (a merge of a stranger's branch holding both, likewise). The
    manifest's args end the options (``--``)."""
    root, _, attempt = _local_hooks(tmp_path)
    first_commit(root, lambda: attempt("first"))
    write(root, "cases/golden/ret-002.yaml", BAD_QUOTE)
    write(root, name, "a file whose name looks like an option\n")
    refused = attempt("bad")
    assert refused.returncode == 1
    assert "GC202 quote not found verbatim" in refused.stdout + refused.stderr
    assert git(root, "rev-list", "--count", "HEAD").stdout == "1\n"


def test_plain_hook_checks_every_case_when_the_corpus_changes(plain: Path) -> None:
    doc = plain / "corpus" / "returns-policy.md"
    doc.write_text(doc.read_text().replace("14 days", "fourteen days"), encoding="utf-8")
    refused = plain_commit(plain, "reword the policy")
    assert refused.returncode == 1
    assert (
        "cases/golden/ret-001.yaml:8:12: GC202 quote not found verbatim in returns-policy.md"
        in refused.stdout + refused.stderr
    )


# -- a week of triage: traces to drafts to cases, and one bump --------------------------------

SET_QUESTION = "How many days does a customer have to request a credit for a damaged delivery?"
WEEK_PRODUCTS = ["kettle", "toaster", "mixer", "blender", "fryer", "lamp", "drill", "bench"]
WEEK_ASKS = [
    "my {p} arrived with a dent what can i do",
    "is the {p} covered if it stops working after {n} months",
    "can i pay for the {p} in {n} instalments",
    "how long does delivery of a {p} take to postcode area {n}",
    "i returned the {p} {n} days ago where is my money",
]


def week_of_traces(path: Path) -> Path:
    """Three hundred lines: failures and plain traffic, questions repeated through the week,
    copies and near-copies of the set's own question, personal data, and two bad lines."""
    rows: list[str] = []
    for i in range(280):
        template = WEEK_ASKS[i % len(WEEK_ASKS)]
        question = template.format(p=WEEK_PRODUCTS[(i // 5) % 8], n=i // 40 + 2)
        if i % 23 == 0:
            question += ", write to me at sam.taylor@example.co.uk or call 020 7946 0958"
        rows.append(week_row(i, question, failed=i % 3 == 0, thumbs=i % 7 == 0))
    for i in range(280, 290):  # the set's question, as customers type it again
        rows.append(week_row(i, SET_QUESTION.lower().rstrip("?"), failed=True))
    for i in range(290, 298):  # ... and with a word changed
        rows.append(week_row(i, SET_QUESTION.replace("damaged", "broken"), failed=True))
    rows += ['{"id": "t-0298", "question": "is the kettle in sto', '{"id": "t-0299"}']
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def week_row(i: int, question: str, *, failed: bool, thumbs: bool = False) -> str:
    return json.dumps(
        {
            "id": f"t-{i:04d}",
            "time": f"2026-03-0{2 + i % 7}T{i % 24:02d}:{i % 60:02d}:00Z",
            "question": question,
            "answer": "You have 30 days.",
            "failed_check": failed,
            "cap_hit": False,
            "thumbs_down": thumbs,
        }
    )


def label_draft(path: Path, answerable: bool) -> None:
    """What a labeller does in an editor: fill in the blank fields."""
    text = path.read_text(encoding="utf-8")
    if answerable:
        text = text.replace("answerable:\n", "answerable: true\n")
        text = text.replace("expected_answer:\n", "expected_answer: 14 days\n")
        text = text.replace(
            "support:\n",
            "support:\n  - doc: returns-policy.md\n"
            "    quote: A customer has 14 days from delivery to request a credit\n",
        )
    else:
        text = text.replace("answerable:\n", "answerable: false\n")
    text = text.replace("slice:\n", "slice: returns\n")
    text = text.replace("labelled_by:\n", "labelled_by: support-lead\n")
    path.write_text(text, encoding="utf-8")


def test_a_week_of_triage_labelled_promoted_and_committed_bumps_once(
    repo: Path, hook_source: HookSource, tmp_path: Path
) -> None:
    log = week_of_traces(tmp_path / "week-10.jsonl")
    clone = tmp_path / "a clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    drawn = []
    for root in (repo, clone):  # the same seed twice: the same drafts, byte for byte
        made = run([GOLDCASE, "triage", log, "--seed", "week-10", "--n", "12"], root, check=False)
        assert made.returncode == 0, made.stdout + made.stderr
        drawn.append({p.name: p.read_bytes() for p in (root / "cases" / "inbox").iterdir()})
    assert len(drawn[0]) == 12 and drawn[0] == drawn[1]
    report = made.stdout + made.stderr
    assert "week-10.jsonl:299: not JSON" in report and "week-10.jsonl:300: no question" in report
    texts = b"".join(drawn[0].values()).decode()
    assert "@example.co.uk" not in texts and "7946" not in texts
    assert SET_QUESTION.lower().rstrip("?") not in texts.lower()  # duplicates of the set
    assert "broken delivery" not in texts  # near-duplicates of the set

    answered, unanswerable = sorted((repo / "cases" / "inbox").iterdir())[:2]
    label_draft(answered, answerable=True)
    label_draft(unanswerable, answerable=False)
    moved = run(
        [GOLDCASE, "promote", answered.stem, unanswerable.stem, "--to", "golden"],
        repo,
        check=False,
    )
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "the goldcase-version hook bumps golden.version" in moved.stdout

    accepted = committed(repo, hook_source, "week 10: two cases from the traffic, ten drafts")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(repo, "show", "HEAD:golden.version").stdout == "2\n"  # one bump for the two
    assert git(repo, "status", "--porcelain").stdout == ""
    committed_drafts = git(repo, "ls-files", "cases/inbox").stdout.split()
    assert len(committed_drafts) == 10
    assert run([GOLDCASE, "lock", "--check"], repo, check=False).returncode == 0
