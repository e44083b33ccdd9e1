"""What every fuzz test shares: the hypothesis profiles, the seed corpora, byte and tree
mutations, and the property itself (a result, or a finding / ``error:`` line with exit 1 or 2;
never a traceback, a hang or unbounded memory).

Profiles: ``fuzz`` (the default, and what CI runs: few examples, derandomised so a CI failure
reproduces) and ``long`` (``HYPOTHESIS_PROFILE=long``, ``make fuzz-long``: LONG_FACTOR times
as many examples, random). Each test names its CI count; ``examples(n)`` scales it.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from kit import DATA, REALDATA, REPO_ROOT, Result, run_cli

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "fuzz")
LONG_FACTOR = 40
PER_INPUT_SECONDS = 20.0  # a normal input takes milliseconds; this only catches a hang
SUBPROCESS_SECONDS = 60.0
MEMORY_BYTES = 1536 * 1024 * 1024  # address space of an end-to-end subprocess

_HEALTH = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.function_scoped_fixture,
    HealthCheck.large_base_example,
]
settings.register_profile(
    "fuzz",
    max_examples=20,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=_HEALTH,
)
settings.register_profile(
    "long",
    max_examples=20 * LONG_FACTOR,
    deadline=None,
    database=None,
    suppress_health_check=_HEALTH,
)


def examples(ci: int) -> settings:
    """Settings for a test that runs ``ci`` inputs in CI and LONG_FACTOR times more long."""
    count = ci * LONG_FACTOR if PROFILE == "long" else ci
    return settings(settings.get_profile(PROFILE), max_examples=count)


# ---- seeds ------------------------------------------------------------------------------


def _files(folder: Path, pattern: str) -> list[bytes]:
    if not folder.is_dir():
        return []
    return [p.read_bytes() for p in sorted(folder.rglob(pattern)) if p.is_file()]


def case_seeds() -> list[bytes]:
    """Every case fixture (valid and invalid), and a sample of the repository's own set."""
    seeds = _files(DATA / "valid", "*.yaml") + _files(DATA / "invalid", "*.yaml")
    seeds += _files(REPO_ROOT / "cases" / "golden", "*.yaml")[:20]
    seeds += _files(REPO_ROOT / "cases" / "dev", "*.yaml")[:10]
    return seeds


def report_seeds() -> list[bytes]:
    return _files(DATA / "reports", "*.json")


def realdata(name: str) -> Path | None:
    """A file under ../shared/realdata, or None when it is absent (a user's clone)."""
    path = REALDATA / name
    return path if path.exists() else None


def squad_seeds() -> list[bytes]:
    """SQuAD-shaped JSON: a hand-made one, and the first articles of the real sets, cut small."""
    seeds = [json.dumps(SQUAD_MINI).encode()]
    for name in ("squad2-dev-cs224n/dev-v2.0.json", "xquad-en/xquad.en.json"):
        path = realdata(name)
        if path is not None:
            data = json.loads(path.read_text(encoding="utf-8"))
            article = data["data"][0]
            article["paragraphs"] = article["paragraphs"][:2]
            seeds.append(json.dumps({"version": data.get("version"), "data": [article]}).encode())
    return seeds


SQUAD_MINI = {
    "version": "v2.0",
    "data": [
        {
            "title": "Returns",
            "paragraphs": [
                {
                    "context": "A customer has 14 days from delivery to request a credit. "
                    "Credits are paid back within five working days.",
                    "qas": [
                        {
                            "id": "q1",
                            "question": "How many days does a customer have?",
                            "answers": [{"text": "14 days", "answer_start": 15}],
                            "is_impossible": False,
                        },
                        {
                            "id": "q2",
                            "question": "Who pays the courier?",
                            "answers": [],
                            "plausible_answers": [{"text": "courier", "answer_start": 3}],
                            "is_impossible": True,
                        },
                    ],
                }
            ],
        }
    ],
}


# ---- mutations --------------------------------------------------------------------------

TOKENS: tuple[bytes, ...] = (
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\r\n",
    b"\r",
    b"\n",
    b"\t",
    "\u200b".encode(),
    "\u00e9".encode(),
    "e\u0301".encode(),
    "\u2028".encode(),
    b"\x1b[2J",
    b"&a ",
    b"*a",
    b"!!python/object/apply:os.system ['true']",
    b"!custom ",
    b"---\n",
    b"...\n",
    b"<<<<<<< HEAD\n",
    b"=======\n",
    b">>>>>>> theirs\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b"'",
    b": ",
    b"- ",
    b"# ",
    b"%YAML 1.1\n",
    b"? ",
    b"|\n",
    b">-\n",
    b"null",
    b"true",
    b"~",
    b"1e999",
    b"-0",
    b"NaN",
    b"Infinity",
    b"0x1F",
    b"\\u0000",
    b"\\ud800",
    b"9" * 400,
    b"[" * 300,
    b'{"a":' * 300,
    b"- " * 300,
    b"../../etc/passwd",
    b"/etc/hostname",
    b"file://../../x",
    b"=" * 7,
    b" " * 1000,
    b"x" * 5000,
)


@st.composite
def mutated(draw: st.DrawFn, seeds: Sequence[bytes], tokens: Sequence[bytes] = TOKENS) -> bytes:
    """A seed with a few byte-level edits: tokens or random bytes in, slices out or repeated,
    bytes flipped, the tail cut, or a piece of another seed spliced in."""
    data = bytearray(draw(st.sampled_from(list(seeds))))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.integers(0, 6))
        at = draw(st.integers(0, len(data)))
        if op == 0:
            data[at:at] = draw(st.sampled_from(list(tokens)))
        elif op == 1:
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        elif op == 2:
            data[at : at + draw(st.integers(1, 64))] = b""
        elif op == 3 and data:
            i = min(at, len(data) - 1)
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == 4:
            piece = bytes(data[at : at + draw(st.integers(1, 200))])
            data[at:at] = piece * draw(st.integers(1, 8))
        elif op == 5:
            del data[at:]
        else:
            other = draw(st.sampled_from(list(seeds)))
            start = draw(st.integers(0, len(other)))
            data[at:at] = other[start : start + draw(st.integers(1, 300))]
    return bytes(data)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    )


JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=40),
        st.sampled_from(["", "answer", "abstain", "error", "golden", "dev", "1", "ret-001"]),
    ),
    _containers,
    max_leaves=12,
)


@st.composite
def mutated_tree(draw: st.DrawFn, seed: Any, keys: Sequence[str] = ()) -> Any:
    """``seed`` (parsed JSON or YAML) with a few subtrees replaced, keys dropped or added."""
    tree = json.loads(json.dumps(seed))
    for _ in range(draw(st.integers(1, 4))):
        tree = _edit(draw, tree, keys, depth=0)
    return tree


def _edit(draw: st.DrawFn, node: Any, keys: Sequence[str], depth: int) -> Any:
    if depth > 0 and draw(st.integers(0, 3)) == 0:
        return draw(JSON_VALUES)
    if isinstance(node, dict) and node:
        key = draw(st.sampled_from(sorted(node)))
        choice = draw(st.integers(0, 4))
        if choice == 0:
            del node[key]
        elif choice == 1:
            node[draw(st.sampled_from([*keys, "extra"]) if keys else st.text(max_size=8))] = draw(
                JSON_VALUES
            )
        else:
            node[key] = _edit(draw, node[key], keys, depth + 1)
        return node
    if isinstance(node, list) and node:
        i = draw(st.integers(0, len(node) - 1))
        if draw(st.booleans()):
            node[i] = _edit(draw, node[i], keys, depth + 1)
        else:
            node.append(node[i])
        return node
    return draw(JSON_VALUES)


# ---- the property -----------------------------------------------------------------------


class Hang(BaseException):
    """Raised in the main thread when one input overruns PER_INPUT_SECONDS (a BaseException,
    so no ``except Exception`` in the code under test can swallow it)."""


@contextlib.contextmanager
def deadline(seconds: float = PER_INPUT_SECONDS) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise Hang(f"one input ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def goldcase(*args: str | Path) -> Result:
    """``goldcase ARGS`` in-process, bounded in time."""
    with deadline():
        return run_cli(*args)


def assert_handled(result: Result, allowed: Sequence[int] = (0, 1, 2)) -> None:
    """A result, or a finding / ``error:`` line with exit 1 or 2; never a traceback."""
    streams = f"exit {result.exit_code}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr}"
    assert "Traceback" not in result.stderr, streams
    assert "internal error" not in result.stderr, streams
    assert result.exit_code in allowed, streams
    if result.exit_code == 2:
        assert any(line.startswith("error: ") for line in result.stderr.splitlines()), streams
    if result.exit_code == 1:
        assert result.stdout.strip() or "error:" in result.stderr, streams


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_bounded(args: Sequence[str | Path], cwd: Path) -> Finished:
    """``goldcase ARGS`` in a subprocess with a time limit and a memory cap."""
    goldcase_bin = Path(sys.executable).parent / "goldcase"
    proc = subprocess.run(
        [str(goldcase_bin), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        timeout=SUBPROCESS_SECONDS,
        preexec_fn=_limits,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    )
    return Finished(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def assert_handled_subprocess(done: Finished) -> None:
    assert_handled(Result(done.returncode, done.stdout, done.stderr))


def tiny_repo(root: Path) -> Path:
    """A locked three-case golden set (tests/goldrepo.py) that each fuzz input is tried on."""
    from kit import golden_set

    golden_set(root, ("ret-001", "ret-002", "ret-003"))
    for number, source in ((1, "ret-002"), (2, "ret-003")):
        text = (root / "cases/golden" / f"{source}.yaml").read_text(encoding="utf-8")
        dev = root / "cases/dev" / f"dev-00{number}.yaml"
        dev.write_text(text.replace(f"id: {source}", f"id: dev-00{number}"), encoding="utf-8")
    prompts = root / "prompts"
    prompts.mkdir(exist_ok=True)
    (prompts / "fewshot.md").write_text(
        "Q: Where are credits paid back to?\nA: the original payment method\n", encoding="utf-8"
    )
    done = run_cli("lock", "--repo", root)
    assert done.exit_code in (0, 1), done.stderr
    return root
