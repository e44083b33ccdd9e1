"""Issue 16: nothing in a repository runs code, reads outside it, or slips a golden question
past the leakage check. Each test is one of the issue's numbered failures (and variants of
it), reproduced on a copy of the sample set as an attacker would; each failed before the fix.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldcase.cache import _own_folder, code_salt, encode, location
from goldcase.engine import file_digest
from kit import REPO_ROOT, cache_folder
from robustness.kit import GOLDCASE, commit, env, git

SAMPLE = ("cases", "corpus", "prompts", "labels", "goldcase.toml", "golden.lock", "golden.version")


def sample_copy(root: Path) -> Path:
    """The sample set as a committed git repository of its own."""
    root.mkdir(parents=True, exist_ok=True)
    for name in SAMPLE:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        else:
            shutil.copy2(source, root / name)
    git(root, "init", "-q", "-b", "main")
    commit(root, "sample")
    return root


def goldcase(root: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [GOLDCASE, *args],
        cwd=root,
        env=env() | extra,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return sample_copy(tmp_path / "repo")


# 1. Code runs from the cache -------------------------------------------------------------


class _Payload:
    """A pickle that runs a command when loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, (f"touch {self.marker}",))


NAMESPACES = ("files", "support", "leakage-findings", "prompts", "privacy", "case-hashes")


def test_a_committed_pickle_runs_no_code(sample: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for folder in ("0.1.0", code_salt()):
        for name in NAMESPACES:
            path = sample / ".goldcase-cache" / folder / f"{name}.pickle"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(_Payload(marker)))
    git(sample, "add", "-f", ".goldcase-cache")
    commit(sample, "a cache")
    for args in (["check"], ["lock", "--check"], ["stats"]):
        done = goldcase(sample, *args)
        assert "Traceback" not in done.stderr, done.stderr
    done = goldcase(sample, "check", GOLDCASE_CACHE_DIR=".goldcase-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()


def _forged_cache(root: Path, rel: str) -> bytes:
    """A well-formed cache that says the case file ``rel`` (as it is now) is fine, whatever it
    holds: an entry of the shape goldcase reads, keyed by the file's content digest."""
    data = {"id": "acc-001", "question": "q", "slice": "returns"}
    digest = file_digest((root / rel).read_bytes())
    return encode({rel: [digest, "golden", data, [], "0" * 64, None]}) or b""


def test_a_committed_cache_inside_the_repository_is_not_believed(sample: Path) -> None:
    rel = "cases/golden/acc-001.yaml"
    (sample / rel).write_text("id: acc-001\nquestion: 3\n", encoding="utf-8")
    folder = sample / ".goldcase-cache" / code_salt()
    folder.mkdir(parents=True)
    (folder / "files.msgpack").write_bytes(_forged_cache(sample, rel))
    git(sample, "add", "-f", ".goldcase-cache")
    commit(sample, "a forged cache")
    done = goldcase(sample, "check", "--select", "schema", GOLDCASE_CACHE_DIR=".goldcase-cache")
    assert done.returncode == 1
    assert f"{rel}:2:11: GC" in done.stdout


def test_the_cache_lives_outside_the_working_tree(sample: Path) -> None:
    assert goldcase(sample, "check").returncode == 0
    assert not (sample / ".goldcase-cache").exists()
    assert git(sample, "status", "--porcelain").stdout == b""
    assert (cache_folder(sample) / "files.msgpack").is_file()


# 10. A damaged cache breaks lock; a symlinked cache writes outside --------------------------


def _works(root: Path, **extra: str) -> None:
    """check and lock --check give their usual answer; lock runs."""
    for args in (["check"], ["lock", "--check"], ["lock"]):
        done = goldcase(root, *args, **extra)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("where", ["in-repo", "default"])
def test_a_cache_that_is_a_file_changes_nothing(sample: Path, where: str) -> None:
    extra = {"GOLDCASE_CACHE_DIR": ".goldcase-cache"} if where == "in-repo" else {}
    target = sample / ".goldcase-cache" if where == "in-repo" else location(sample)
    assert target is not None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("not a folder\n", encoding="utf-8")
    (sample / ".gitignore").write_text(".goldcase-cache\n", encoding="utf-8")
    commit(sample, "ignore")
    _works(sample, **extra)
    assert target.read_text(encoding="utf-8") == "not a folder\n"


def test_a_lock_folder_in_the_old_cache_changes_nothing(sample: Path) -> None:
    (sample / ".goldcase-cache" / "lock").mkdir(parents=True)
    (sample / ".goldcase-cache" / "lock" / "x").write_text("x", encoding="utf-8")
    _works(sample)
    _works(sample, GOLDCASE_CACHE_DIR=".goldcase-cache")


def _outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def _untouched(folder: Path) -> None:
    assert sorted(p.name for p in folder.rglob("*")) == []


def test_a_symlinked_cache_folder_is_not_written_through(sample: Path, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    (sample / ".goldcase-cache").symlink_to(outside)
    commit(sample, "a link")
    _works(sample)
    _works(sample, GOLDCASE_CACHE_DIR=".goldcase-cache")
    _untouched(outside)


@pytest.mark.parametrize("depth", [0, 1])
def test_a_symlink_inside_the_user_cache_is_not_written_through(
    sample: Path, tmp_path: Path, depth: int
) -> None:
    outside = _outside(tmp_path)
    base = location(sample)
    assert base is not None
    link = base if depth == 0 else base / code_salt()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    _works(sample)
    _untouched(outside)


def test_a_symlinked_cache_file_is_not_written_through(sample: Path, tmp_path: Path) -> None:
    goldcase(sample, "check")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    cache_file = cache_folder(sample) / "files.msgpack"
    cache_file.unlink()
    cache_file.symlink_to(victim)
    _works(sample)
    assert victim.read_text(encoding="utf-8") == "keep me\n"


def _in_repo_cache(sample: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], Path]:
    """XDG_CACHE_HOME inside the repository (a CI that caches only paths of the project, as
    GitLab's does): the environment to run with, and where the repository's folder would be."""
    extra = {"XDG_CACHE_HOME": str(sample / ".cache")}
    monkeypatch.setenv("XDG_CACHE_HOME", extra["XDG_CACHE_HOME"])
    folder = _own_folder(os.path.realpath(sample))
    assert folder is not None
    return extra, folder


@pytest.mark.parametrize("below", [False, True], ids=["set-at-top", "set-in-a-folder"])
def test_a_user_cache_in_the_repository_leading_out_removes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, below: bool
) -> None:
    """A branch that commits the user cache folder's repos/ as a link elsewhere: goldcase
    neither sweeps nor writes there (the sweep would remove a month-old folder it finds),
    whether the set is at the top of the work tree or in a folder of it."""
    top = tmp_path / "project"
    sample = sample_copy(top / "evals" if below else top)
    if below:
        shutil.rmtree(sample / ".git")
        git(top, "init", "-q", "-b", "main")
    extra, _ = _in_repo_cache(top, monkeypatch)
    outside = _outside(tmp_path)
    kept = outside / "notes-0123456789abcdef"
    kept.mkdir()
    (kept / "todo.txt").write_text("mine\n", encoding="utf-8")
    os.utime(kept, (0, 0))
    (top / ".cache" / "goldcase").mkdir(parents=True)
    (top / ".cache" / "goldcase" / "repos").symlink_to(outside)
    commit(top, "a link")
    _works(sample, **extra)
    assert sorted(p.name for p in outside.iterdir()) == [kept.name]
    assert (kept / "todo.txt").read_text(encoding="utf-8") == "mine\n"


def test_a_user_cache_committed_in_the_repository_is_not_believed(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra, base = _in_repo_cache(sample, monkeypatch)
    rel = "cases/golden/acc-001.yaml"
    (sample / rel).write_text("id: acc-001\nquestion: 3\n", encoding="utf-8")
    folder = base / code_salt()
    folder.mkdir(parents=True)
    (folder / "files.msgpack").write_bytes(_forged_cache(sample, rel))
    git(sample, "add", "-f", ".cache")
    commit(sample, "a forged cache")
    done = goldcase(sample, "check", "--select", "schema", **extra)
    assert done.returncode == 1
    assert f"{rel}:2:11: GC" in done.stdout


def test_a_cache_dir_naming_a_folder_of_the_users_removes_nothing_of_theirs(
    sample: Path, tmp_path: Path
) -> None:
    """GOLDCASE_CACHE_DIR set to a folder that is not goldcase's (a home folder, the folder
    above the repository): goldcase adds its build's folder and removes nothing else there,
    not the older folders it would prune of its own builds, and writes no .gitignore (a home
    folder that is a git repository would then hide every file)."""
    home = tmp_path / "home"
    names = ["Documents", "Music", "Notes", "Photos", "Taxes", "Work"]
    for age, name in enumerate(names):
        (home / name).mkdir(parents=True)
        (home / name / "file.txt").write_text(f"{name}\n", encoding="utf-8")
        os.utime(home / name, (1000 - age, 1000 - age))
    _works(sample, GOLDCASE_CACHE_DIR=str(home))
    for name in names:
        assert (home / name / "file.txt").read_text(encoding="utf-8") == f"{name}\n"
    (build,) = {p.name for p in home.iterdir()} - set(names)  # no .gitignore beside it
    assert re.fullmatch(r"[^/]+-[0-9a-f]{24}", build), build


@pytest.mark.parametrize("place", ["/proc/goldcase-cache", "/dev/null/cache", "file"])
def test_an_unusable_cache_folder_means_no_cache(sample: Path, tmp_path: Path, place: str) -> None:
    if place == "file":
        (tmp_path / "file").write_text("x", encoding="utf-8")
        place = str(tmp_path / "file")
    _works(sample, GOLDCASE_CACHE_DIR=place)
    _works(sample, XDG_CACHE_HOME=place)


@pytest.mark.parametrize(
    "damage",
    ["empty", "truncated", "flipped", "random", "other-shape", "wrong-types", "pickle", "folder"],
)
def test_a_damaged_cache_file_means_no_cache(sample: Path, damage: str) -> None:
    broken = "cases/golden/acc-001.yaml"
    (sample / broken).write_text("id: acc-001\nquestion: 3\n", encoding="utf-8")
    cold = goldcase(sample, "check", "--no-cache")
    assert cold.returncode == 1
    goldcase(sample, "check")
    for path in cache_folder(sample).glob("*.msgpack"):
        raw = path.read_bytes()
        damaged = {
            "empty": b"",
            "truncated": raw[: len(raw) // 2],
            "flipped": raw[:-5] + bytes([raw[-5] ^ 0x40]) + raw[-4:],
            "random": os.urandom(len(raw)),
            "other-shape": encode({"x": 1}) or b"",
            "wrong-types": encode({broken: [1, 2, 3, 4, 5], "cases/golden/acc-002.yaml": 7}),
            "pickle": pickle.dumps({"x": 1}),
        }.get(damage)
        path.unlink()
        if damaged is None:
            path.mkdir()
        else:
            path.write_bytes(damaged or b"")
    warm = goldcase(sample, "check")
    assert (warm.returncode, warm.stdout, warm.stderr) == (1, cold.stdout, cold.stderr)


# 2. import --format promptfoo reads any file -----------------------------------------------

PROMPTFOO = """\
tests:
  - vars:
      question: How long is the password reset link valid?
      context: {reference}
    assert:
      - type: contains
        value: 60 minutes
"""


def _import(config_dir: Path, reference: str, out: Path) -> subprocess.CompletedProcess[str]:
    config = config_dir / "promptfooconfig.yaml"
    config.write_text(PROMPTFOO.format(reference=reference), encoding="utf-8")
    return capped(config_dir, "import", "--format", "promptfoo", str(config), "--out", str(out))


@pytest.mark.parametrize(
    "reference",
    [
        "file:///etc/passwd",
        "file://../../../../../../../../etc/hostname",
        "file:///proc/self/environ",
        "file:///dev/zero",
        "file://pipe.txt",
        "file://link.txt",
        "file://linked-folder/hostname",
        "file://~/.bashrc",
    ],
)
def test_promptfoo_context_documents_stay_in_the_config_folder(
    tmp_path: Path, reference: str
) -> None:
    folder = tmp_path / "eval"
    folder.mkdir()
    os.mkfifo(folder / "pipe.txt")
    (folder / "link.txt").symlink_to("/etc/hostname")
    (folder / "linked-folder").symlink_to("/etc")
    out = tmp_path / "imported"
    done = _import(folder, reference, out)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: file://"), done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_promptfoo_context_documents_inside_the_folder_are_copied(tmp_path: Path) -> None:
    folder = tmp_path / "eval"
    (folder / "docs").mkdir(parents=True)
    text = "A password reset link is valid for 60 minutes.\n"
    (folder / "docs/reset.md").write_text(text, encoding="utf-8")
    (folder / "docs/alias.md").symlink_to("reset.md")  # a link that stays inside: fine
    out = tmp_path / "imported"
    done = _import(folder, "file://docs/alias.md", out)
    assert done.returncode in (0, 1), done.stderr
    assert (out / "corpus/alias.md").read_text(encoding="utf-8") == text


# 3. A YAML alias bomb in prompts/ hangs the leakage check -------------------------------


def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def capped(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """goldcase under a 1.5 GiB address-space cap and a timeout: a bomb fails, not the host."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**29, 3 * 2**29))

    return subprocess.run(
        [GOLDCASE, *args], cwd=root, env=env(), capture_output=True, text=True,
        timeout=120, preexec_fn=limit,
    )  # fmt: skip


@pytest.mark.parametrize("name", ["prompts/bomb.yaml", "prompts/deep/bomb.yml"])
def test_an_alias_bomb_among_the_prompts_is_read_once(sample: Path, name: str) -> None:
    bomb = sample / name
    bomb.parent.mkdir(parents=True, exist_ok=True)
    bomb.write_text(_bomb(), encoding="utf-8")
    done = capped(sample, "check", "--select", "leakage", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert goldcase(sample, "hashes", "--out", "golden.hashes").returncode == 0
    against = capped(sample, "leakage", "--against", "golden.hashes")
    assert against.returncode == 0, against.stdout + against.stderr
    against = capped(sample, "leakage", "--against", "golden.hashes", name)
    assert against.returncode == 0, against.stdout + against.stderr


# 4. Golden questions reach prompts and the dev set unseen ---------------------------------

GOLDEN = "how long does the password reset link last? mine says expired"  # acc-001
ESCAPED_E = "\\x65"  # "e" as a YAML double-quoted escape
CYRILLIC = str.maketrans("aeopcxyABEHKMOPCTX", "аеорсхуАВЕНКМОРСТХ")
GREEK = str.maketrans("oivABEHIKMNOPTXYZ", "οіνΑΒΕΗΙΚΜΝΟΡΤΧΥΖ")


def _leaks(root: Path) -> list[str]:
    done = goldcase(root, "check", "--select", "leakage")
    assert done.returncode == 1, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "acc-001" in line]


ENCODED = {
    "utf-16": ("prompts/notes.md", ("\ufeff" + f"Example: {GOLDEN}\n").encode("utf-16-le")),
    "utf-16-be": ("prompts/notes.txt", f"Example: {GOLDEN}\n".encode("utf-16")),
    "utf-32": ("prompts/notes.md", f"Example: {GOLDEN}\n".encode("utf-32")),
    "utf-8-bom": ("prompts/notes.md", f"\ufeffExample: {GOLDEN}\n".encode()),
    "json-query": ("prompts/shots.json", json.dumps([{"query": GOLDEN, "a": "1h"}]).encode()),
    "json-escaped": (
        "prompts/shots.json",
        json.dumps({"shots": [{"q": GOLDEN}]}, ensure_ascii=True).replace("o", "\\u006f").encode(),
    ),
    "jsonl-any-key": ("prompts/shots.jsonl", (json.dumps({"msg": [GOLDEN]}) + "\n").encode()),
    "jsonl-inside": (
        "prompts/shots.jsonl",
        (
            json.dumps({"text": f"User: {GOLDEN} Bot: 60 minutes"}).replace("a", "\\u0061") + "\n"
        ).encode(),
    ),
    "yaml-escaped": (
        "prompts/shots.yaml",
        ('- x: "' + GOLDEN.replace("e", "\\x65") + '"\n').encode(),
    ),
    "yaml-any-key": ("prompts/shots.yaml", f"examples:\n  - prompt_text: {GOLDEN}\n".encode()),
    "cgj": ("prompts/notes.md", GOLDEN.replace(" ", " \u034f").encode()),
    "hangul-filler": ("prompts/notes.md", GOLDEN.replace(" ", "\u3164").encode()),
    "halfwidth-filler": ("prompts/notes.md", GOLDEN.replace(" ", " \uffa0 ").encode()),
    "word-joiner": ("prompts/notes.md", GOLDEN.replace("a", "a\u2060").encode()),
    "mongolian": ("prompts/notes.md", GOLDEN.replace("o", "o\u180e").encode()),
    "tag-chars": ("prompts/notes.md", GOLDEN.replace(" ", " \U000e0020").encode()),
    "cyrillic": ("prompts/notes.md", GOLDEN.translate(CYRILLIC).encode()),
    "greek": ("prompts/notes.md", GOLDEN.upper().translate(GREEK).encode()),
    "mixed": ("prompts/notes.md", GOLDEN.translate(CYRILLIC).replace(" ", "\u3164").encode()),
}


@pytest.mark.parametrize("variant", sorted(ENCODED))
def test_an_encoded_golden_question_in_a_prompt_is_found(sample: Path, variant: str) -> None:
    name, raw = ENCODED[variant]
    (sample / name).write_bytes(raw)
    leaks = _leaks(sample)
    assert any(line.startswith(f"{name}:") and " GC30" in line for line in leaks), leaks


@pytest.mark.parametrize("variant", ["cyrillic", "greek", "cgj", "hangul-filler"])
def test_an_encoded_golden_question_in_the_dev_set_is_found(sample: Path, variant: str) -> None:
    text = ENCODED[variant][1].decode("utf-8")
    (sample / "cases/dev/dev-999.yaml").write_text(
        f"id: dev-999\nquestion: {json.dumps(text)}\nanswerable: false\nslice: accounts\n"
        "source: hand-written\n",
        encoding="utf-8",
    )
    leaks = _leaks(sample)
    assert any("cases/dev/dev-999.yaml" in line and "GC301" in line for line in leaks), leaks


def test_undecodable_prompt_files_are_refused(sample: Path) -> None:
    (sample / "prompts/notes.md").write_bytes(f"Example: {GOLDEN}\n".encode("utf-16-le"))
    (sample / "prompts/broken.md").write_bytes(b"\xff\xfe" + b"a\x00\x00\xd8")  # lone surrogate
    done = goldcase(sample, "check", "--select", "leakage")
    assert done.returncode == 1
    assert "prompts/notes.md:1:1: GC306 NUL bytes" in done.stdout
    assert "prompts/broken.md:1:1: GC306 byte" in done.stdout


def test_a_symlinked_folder_under_prompts_is_followed_inside_only(
    sample: Path, tmp_path: Path
) -> None:
    shared = sample / "shared-prompts"
    shared.mkdir()
    (shared / "shots.md").write_text(f"Q: {GOLDEN}\n", encoding="utf-8")
    (sample / "prompts/shared").symlink_to("../shared-prompts")
    (sample / "prompts/loop").symlink_to("..")  # a loop ends
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"Q: {GOLDEN}\n", encoding="utf-8")
    (sample / "prompts/elsewhere").symlink_to(outside)
    (sample / "prompts/one.md").symlink_to(outside / "secret.md")
    leaks = _leaks(sample)
    assert any(line.startswith("prompts/shared/shots.md:1:1: GC302") for line in leaks), leaks
    assert not any("elsewhere" in line for line in leaks)
    done = goldcase(sample, "check", "--select", "leakage")
    assert "prompts/one.md:1:1: GC306 cannot read the prompt file: a link that leads outside" in (
        done.stdout
    )


def test_a_fewshot_glob_outside_prompts_is_checked(sample: Path) -> None:
    config = sample / "goldcase.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[leakage]\nfewshot = ["app/templates/**"]\n',
        encoding="utf-8",
    )
    (sample / "app/templates").mkdir(parents=True)
    (sample / "app/templates/answer.jinja").write_text(f"{{# {GOLDEN} #}}\n", encoding="utf-8")
    leaks = _leaks(sample)
    assert any(line.startswith("app/templates/answer.jinja:1:1: GC302") for line in leaks)


# 4. (hooks) The leakage hooks run whenever a file the configured globs name changes ----------


@pytest.fixture(scope="module")
def hook_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """This repository at HEAD as a hook source, and a PRE_COMMIT_HOME for the module."""
    base = tmp_path_factory.mktemp("hooks")
    clone = base / "src"
    head = git(REPO_ROOT, "rev-parse", "HEAD").stdout.decode().strip()
    git(base, "clone", "-q", "--no-checkout", str(REPO_ROOT), str(clone))
    git(clone, "checkout", "-q", head)
    return clone, head, base / "home"


@pytest.mark.slow
@pytest.mark.parametrize("hook", ["goldcase-leakage", "goldcase-check"])
def test_the_hooks_see_a_fewshot_glob_outside_prompts(
    sample: Path, hook_home: tuple[Path, str, Path], hook: str
) -> None:
    source, sha, home = hook_home
    (sample / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {sha}\n    hooks:\n      - id: {hook}\n",
        encoding="utf-8",
    )
    config = sample / "goldcase.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[leakage]\nfewshot = ["app/templates/**"]\n',
        encoding="utf-8",
    )
    commit(sample, "hooks")
    pre_commit = str(Path(GOLDCASE).parent / "pre-commit")
    extra = {"PRE_COMMIT_HOME": str(home)}
    installed = subprocess.run(
        [pre_commit, "install"], cwd=sample, env=env() | extra, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    (sample / "app/templates").mkdir(parents=True)
    (sample / "app/templates/answer.jinja").write_text(
        GOLDEN.translate(CYRILLIC) + "\n", encoding="utf-8"
    )
    git(sample, "add", "-A")
    done = subprocess.run(
        ["git", "commit", "--no-gpg-sign", "-m", "a template"],
        cwd=sample, env=env() | extra, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "app/templates/answer.jinja:1:1: GC302" in done.stdout + done.stderr


# 6. Injection into what CI shows ----------------------------------------------------------

HOSTILE = "how long `` `<img src=http://evil.example/x.png>` [click](http://evil.example) @octocat"


def rendered(markdown: str) -> str:
    """The Markdown as HTML (CommonMark with tables, as GitHub renders a comment), with every
    code span and block taken out: what is left is what renders live."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(markdown)
    return re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL)


def _live(markdown: str) -> list[str]:
    html = rendered(markdown)
    found = [tag for tag in ("<img", "<a ", "<script") if tag in html]
    found += [word for word in ("@octocat", "http://evil") if word in html]
    return found


def test_review_markdown_renders_nothing_a_question_holds(sample: Path) -> None:
    path = sample / "cases/golden/acc-001.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(GOLDEN, json.dumps(HOSTILE)[1:-1]), encoding="utf-8")
    (sample / "cases/golden/acc-001.yaml").write_text(
        text.replace(f"question: {GOLDEN}", f"question: {json.dumps(HOSTILE)}"), encoding="utf-8"
    )
    commit(sample, "a hostile question")
    done = goldcase(sample, "review", "--base", "HEAD~1", "--format", "markdown")
    assert done.returncode in (0, 1), done.stderr
    assert "acc-001" in done.stdout
    assert _live(done.stdout) == [], done.stdout


def test_score_markdown_renders_nothing_a_file_name_holds(sample: Path) -> None:
    runs = sample / "runs"
    runs.mkdir()
    hostile = runs / "x` <img src=x onerror=alert(1)> [a](https:evil.example) @octocat `.jsonl"
    shutil.copy(REPO_ROOT / "runs/baseline-k3.jsonl", hostile)
    done = goldcase(sample, "score", str(hostile.relative_to(sample)), "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert _live(done.stdout) == [], done.stdout


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_a_file_name_with_a_newline_writes_no_workflow_command(sample: Path, fmt: str) -> None:
    name = "acc-x\n::error file=pwned.py,line=1::owned\n::stop-commands::token\n.yaml"
    (sample / "cases/golden" / name).write_text("id: acc-x\nquestion: 3\n", encoding="utf-8")
    done = goldcase(sample, "check", "--format", fmt)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    ours = [line for line in lines if line.startswith("::")]
    if fmt == "text":
        assert ours == []
    else:
        assert ours and all(line.startswith(("::error file=", "::warning file=")) for line in ours)
    assert all("\x1b" not in line for line in lines)


# 7. Data loss: goldcase new at once -----------------------------------------------------


@pytest.mark.parametrize("runs", [4, 8])
def test_new_at_once_each_writes_its_own_file(sample: Path, runs: int) -> None:
    before = set((sample / "cases/golden").iterdir())
    quote = "A password reset link is valid for 60 minutes and works only once"
    args = [
        GOLDCASE, "new", "--slice", "accounts", "--doc", "account-and-privacy-policy.md",
        "--quote", quote, "--expected-answer", "60 minutes",
    ]  # fmt: skip
    procs = [
        subprocess.Popen(
            [*args, "--question", f"how long is reset link number {n} valid?"],
            cwd=sample,
            env=env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(runs)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * runs, outputs
    written = [out.strip().removeprefix("wrote ") for out, _ in outputs]
    assert len(set(written)) == runs, written
    new = set((sample / "cases/golden").iterdir()) - before
    assert len(new) == runs
    questions = {p.read_text(encoding="utf-8").split("question: ")[1].split("\n")[0] for p in new}
    assert questions == {f"how long is reset link number {n} valid?" for n in range(runs)}
    assert not [p for p in (sample / "cases/golden").iterdir() if p.name.startswith(".")]


# 8. Edited reports are believed -----------------------------------------------------------


@pytest.fixture
def scored(sample: Path) -> Path:
    (sample / "reports").mkdir()
    shutil.copy(REPO_ROOT / "runs/baseline-k3.jsonl", sample / "k3.jsonl")
    done = goldcase(sample, "score", "k3.jsonl", "--out", "reports/k3.json")
    assert done.returncode == 0, done.stderr
    return sample / "reports/k3.json"


def _edit(report: Path, change: Callable[[dict[str, Any]], None], digest: bool) -> Path:
    from goldcase.scoring.report import cases_digest

    data = json.loads(report.read_text(encoding="utf-8"))
    change(data)
    if digest:  # anyone can recompute it: it proves nothing about the counts
        data["cases_digest"] = cases_digest(data["cases"])
    edited = report.with_name("edited.json")
    edited.write_text(json.dumps(data), encoding="utf-8")
    return edited


def _raise_success(data: dict[str, Any]) -> None:
    data["success"] = 120


def _answered_unanswerable_passes(data: dict[str, Any]) -> None:
    """An unanswerable case that answered and failed for answering (not a false premise
    that accepts a correction) made to pass."""
    case = next(c for c in data["cases"] if c["failed_checks"] == ["answered"])
    case["passed"], case["failed_checks"] = True, []


def _abstained_answerable_passes(data: dict[str, Any]) -> None:
    case = next(c for c in data["cases"] if c["answerable"] and not c["passed"])
    case["outcome"], case["passed"], case["failed_checks"] = "abstain", True, []


def _passes_with_failures(data: dict[str, Any]) -> None:
    case = next(c for c in data["cases"] if c["failed_checks"])
    case["passed"] = True


def _slice_rate(data: dict[str, Any]) -> None:
    stats = next(iter(data["slices"].values()))
    stats["success"] += 3
    stats["rate"] = stats["success"] / stats["total"]


def _rate_only(data: dict[str, Any]) -> None:
    data["task_success"] = 0.9


def _interval(data: dict[str, Any]) -> None:
    data["intervals"]["task_success"] = [0.8, 0.95]


def _weighted(data: dict[str, Any]) -> None:
    data["weighted_task_success"] = 0.9


EDITS = {
    "success": (_raise_success, "success"),
    "unanswerable-passes": (_answered_unanswerable_passes, "passed"),
    "abstained-passes": (_abstained_answerable_passes, "passed"),
    "passes-with-failures": (_passes_with_failures, "passed"),
    "slice": (_slice_rate, ".success"),
    "rate": (_rate_only, "task_success"),
    "interval": (_interval, "intervals.task_success"),
    "weighted": (_weighted, "weighted_task_success"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_report_is_refused_by_report_and_compare(scored: Path, edit: str) -> None:
    change, field = EDITS[edit]
    edited = _edit(scored, change, digest=True)
    root = scored.parent.parent
    runs = [
        ["report", str(edited), "--html", str(root / "page.html")],
        ["report", str(scored), "--compare", str(edited), "--html", str(root / "page.html")],
        ["compare", str(scored), str(edited)],
        ["compare", str(edited), str(scored)],
    ]
    for args in runs:
        done = goldcase(root, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith(f"error: {edited}: "), done.stderr
        assert field in done.stderr and "edited" in done.stderr, done.stderr
    assert goldcase(root, "compare", str(scored), str(scored)).returncode == 0


# 9. Memory: one long line ----------------------------------------------------------------


def _long_line_results(path: Path, size: int) -> None:
    with path.open("wb") as fh:
        fh.write(b'{"id": "acc-001", "outcome": "answer", "answer": "')
        block = b"a" * (1 << 20)
        for _ in range(size // len(block)):
            fh.write(block)
        fh.write(b'"}\n')


def test_a_200_mb_results_line_is_refused_in_bounded_memory(sample: Path) -> None:
    results = sample / "long.jsonl"
    _long_line_results(results, 200 * 2**20)
    done = capped(sample, "score", "long.jsonl")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("error: long.jsonl:1 (byte 0): a line longer than 67,108,864")


@pytest.mark.parametrize("suffix", [".txt.gz", ".jsonl.gz", ".txt"])
def test_a_one_gb_record_is_refused_in_bounded_memory(sample: Path, suffix: str) -> None:
    import zlib

    path = sample / f"train{suffix}"
    size = 2**30 if suffix.endswith(".gz") else 100 * 2**20  # plain text: 100 MB on disk
    block = b"the quick brown fox " * (1 << 16)
    with path.open("wb") as fh:
        packer = zlib.compressobj(1, zlib.DEFLATED, 31) if suffix.endswith(".gz") else None
        first = b"a first short record\n"
        fh.write(packer.compress(first) if packer else first)
        for _ in range(size // len(block)):
            fh.write(packer.compress(block) if packer else block)
        if packer:
            fh.write(packer.compress(b"\n") + packer.flush())
    done = capped(sample, "contamination", path.name)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith(f"error: {path.name}:2 (byte 21): a line longer than"), (
        done.stderr[-2000:]
    )


# 5. The hashes file can be reversed -------------------------------------------------------


@pytest.mark.parametrize("how", [["--ngram", "1"], ["--ngram", "7"], ["config"]])
def test_hashes_refuses_a_small_ngram(sample: Path, how: list[str]) -> None:
    if how == ["config"]:
        config = sample / "goldcase.toml"
        text = config.read_text(encoding="utf-8")
        config.write_text("private = true\n" + text + "\n[leakage]\nngram = 2\n", encoding="utf-8")
        how = []
    done = goldcase(sample, "hashes", "--out", "golden.hashes", *how)
    assert done.returncode == 2
    assert "needs n-grams of at least 8 words" in done.stderr
    assert "read the golden questions back" in done.stderr
    assert not (sample / "golden.hashes").exists()
    assert goldcase(sample, "hashes", "--out", "ok.hashes", "--ngram", "8").returncode == 0


def test_the_floor_defeats_the_word_recovery_attack() -> None:
    """The attack of scripts/hashes_attack.py on the sample set: over 80% of the golden
    questions' words read back at n = 1; none at the floor."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "hashes_attack", REPO_ROOT / "scripts/hashes_attack.py"
    )
    assert spec is not None and spec.loader is not None
    attack = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(attack)
    from goldcase.cache import Cache
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.engine import load_case_set
    from goldcase.leakage.hashes import MIN_NGRAM, build

    golden = load_case_set(Context(load_config(REPO_ROOT), Cache(None))).golden
    lines = attack.corpus_words(REPO_ROOT)
    salt = "00" * 16
    got, total, _ = attack.recovered(build(golden, 1, salt), lines, 3_000_000)
    assert got / total > 0.8  # 84% on the set of the issue, 85% on the rebuilt one
    got, total, _ = attack.recovered(build(golden, MIN_NGRAM, salt), lines, 3_000_000)
    assert (got, MIN_NGRAM) == (0, 8) and total > 1000


# Newer surfaces: a system under test whose standard error never ends a line -----------------

NOISY_WORKER = """\
import json, os, sys
chunk = b"x" * (1 << 20)
for _ in range(2048):  # 2 GiB of standard error without a line break (a \\r progress bar)
    os.write(2, chunk)
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"outcome": "answer", "answer": "within 30 days"}), flush=True)
"""


def test_a_worker_whose_standard_error_never_ends_a_line_is_drained_in_bounded_memory(
    tmp_path: Path,
) -> None:
    """goldcase keeps a worker's last lines of standard error for its error message; it read
    them with an unbounded readline, so 2 GiB without a newline raised MemoryError in the
    draining thread and the worker, its pipe full, blocked forever."""
    from run.kit import make_set

    root = make_set(tmp_path / "repo")
    worker = tmp_path / "noisy.py"
    worker.write_text(NOISY_WORKER, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(worker))}"
    done = capped(root, "run", "--cmd", command, "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    answers = [json.loads(line)["answer"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert answers == ["within 30 days"] * 4


def test_a_bare_repository_committed_beside_the_config_runs_no_code(tmp_path: Path) -> None:
    """A golden set in a folder of a larger repository: a pull request that commits a bare
    repository's files (HEAD, config, objects/, refs/) into that folder made every git
    question goldcase asks there (``check --lock`` lists what the commit holds) find the
    stranger's repository and run its ``core.fsmonitor`` command."""
    top = tmp_path / "mono"
    sample_copy(top / "evals")
    shutil.rmtree(top / "evals" / ".git")
    git(top, "init", "-q", "-b", "main")
    marker = tmp_path / "ran"
    folder = top / "evals"
    (folder / "objects" / "info").mkdir(parents=True)
    (folder / "objects" / "info" / ".keep").write_text("", encoding="utf-8")
    (folder / "refs" / "heads").mkdir(parents=True)
    (folder / "refs" / "heads" / ".keep").write_text("", encoding="utf-8")
    (folder / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (folder / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
        f'\tfsmonitor = "echo ran >> {marker}; false"\n',
        encoding="utf-8",
    )
    commit(top, "a golden set, and a bare repository beside its config")
    with (folder / "corpus" / "returns-and-credits-policy.md").open("a", encoding="utf-8") as fh:
        fh.write("\nA new paragraph.\n")
    git(top, "add", "-A")
    goldcase(folder, "check", "--staged", "--lock", "corpus/returns-and-credits-policy.md")
    assert not marker.exists()


# A folder of the set committed as a link out of the repository -----------------------------

SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"


@pytest.mark.parametrize(
    "folder", ["corpus", "cases", "prompts", "cases/inbox", "cases/golden", "labels"]
)
def test_a_folder_linked_out_of_the_repository_is_refused(tmp_path: Path, folder: str) -> None:
    """git commits a link to a folder as a link: ``corpus`` pointing at ``../../.aws`` made
    check read every file there and print a passage of one next to a quote that was not
    found; ``cases/inbox`` pointing anywhere made triage write its drafts there."""
    from kit import golden_set

    root = golden_set(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "credentials").write_text(SECRET, encoding="utf-8")
    shutil.rmtree(root / folder, ignore_errors=True)
    (root / folder).parent.mkdir(parents=True, exist_ok=True)
    (root / folder).symlink_to(outside, target_is_directory=True)
    trace = tmp_path / "traces.jsonl"
    trace.write_text('{"question": "Can I return a kettle after a month?"}\n', encoding="utf-8")
    for args in (["check"], ["triage", str(trace), "--n", "1"]):
        done = goldcase(root, *args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith(f"error: {folder} is a link that leads outside"), done.stderr
        assert "wJalrXUtnFEMI" not in done.stdout + done.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["credentials"]


def test_a_labeller_folder_linked_out_of_the_repository_is_not_written(tmp_path: Path) -> None:
    from kit import golden_set

    root = golden_set(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "labels").mkdir()
    (root / "labels" / "bob").symlink_to(outside, target_is_directory=True)
    done = goldcase(root, "label", "sample", "--labeller", "bob", "--seed", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: labels/bob is a link that leads outside"), done.stderr
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", ["golden.version", "golden.lock"])
def test_a_version_or_lock_linked_out_of_the_repository_is_not_read(
    tmp_path: Path, name: str
) -> None:
    """golden.version linked to a one-line file anywhere (a credentials file) had its line
    printed by lock as the version, written into golden.lock and staged by the hook."""
    from kit import golden_set

    root = golden_set(tmp_path / "repo")
    secret = tmp_path / "credentials"
    secret.write_text("https://bob:ghp_0123456789abcdefSECRET@github.com\n", encoding="utf-8")
    (root / name).symlink_to(secret)
    for args in (["lock", "--check"], ["check"], ["lock"]):
        done = goldcase(root, *args)
        said = done.stdout + done.stderr
        assert "SECRET" not in said and name in said, (args, said)
        assert done.returncode != 0 or args == ["lock"], (args, said)
    for written in ("golden.version", "golden.lock"):
        path = root / written
        if path.is_file() and not path.is_symlink():
            assert "SECRET" not in path.read_text(encoding="utf-8"), written
    assert secret.read_text(encoding="utf-8").endswith("SECRET@github.com\n")


def test_a_label_file_linked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    """A label file was read wherever its link led (and its keys named in findings)."""
    from kit import golden_set

    root = golden_set(tmp_path / "repo")
    assert goldcase(root, "label", "sample", "--labeller", "bob", "--seed", "1").returncode == 0
    label = sorted((root / "labels" / "bob").iterdir())[0]
    outside = tmp_path / "settings.yaml"
    outside.write_text("password_SECRET: hunter2\n", encoding="utf-8")
    label.unlink()
    label.symlink_to(outside)
    done = goldcase(root, "check", "--select", "labelling")
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert f"labels/bob/{label.name}:1:1: GC509 " in said
    assert "SECRET" not in said


def test_a_labeller_folder_linked_into_the_repository_is_not_written(tmp_path: Path) -> None:
    """``labels/bob`` committed as a link to ``prompts/``: the sample's blank label files
    were written among the prompts (and into the golden cases' folder they stop only at a
    clash of names)."""
    from kit import golden_set

    root = golden_set(tmp_path / "repo")
    (root / "prompts").mkdir(exist_ok=True)
    before = sorted(p.name for p in (root / "prompts").iterdir())
    (root / "labels").mkdir()
    (root / "labels" / "bob").symlink_to("../prompts", target_is_directory=True)
    done = goldcase(root, "label", "sample", "--labeller", "bob", "--seed", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: labels/bob is a link (to "), done.stderr
    assert sorted(p.name for p in (root / "prompts").iterdir()) == before
