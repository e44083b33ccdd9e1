"""``goldcase hashes`` and ``goldcase leakage --against``: the hashes file round-trips, holds
no question text, and finds what the leakage check finds without the golden set."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldcase.leakage.against import HashedMatcher
from goldcase.leakage.hashes import HashedQuestion, Hashes, dumps, load
from kit import run_cli

LONG = "Is it true that a customer who bought a damaged kettle can still ask for a credit note"
SHORT = "Do you take American Express?"
TINY = "Refunds?"


def case(case_id: str, question: str) -> str:
    return f"id: {case_id}\nquestion: {json.dumps(question)}\nanswerable: false\n"


@pytest.fixture
def golden_repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo(
        {
            "cases/golden/long.yaml": case("long", LONG),
            "cases/golden/short.yaml": case("short", SHORT),
            "cases/golden/tiny.yaml": case("tiny", TINY),
            "cases/dev/dev-1.yaml": case("dev-1", "Can I pay by bank transfer?"),
        }
    )


def write_hashes(root: Path, out: Path, *extra: str) -> None:
    result = run_cli("hashes", "--repo", root, "--out", out, *extra)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"wrote {out}: 3 golden questions, 6 13-gram hashes\n"


def salted(salt: str, text: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + text.encode()).hexdigest()


def test_hashes_file_round_trips_and_holds_no_text(golden_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "golden.hashes"
    write_hashes(golden_repo, out)
    raw = out.read_text("utf-8")
    data = json.loads(raw)
    assert data["format"] == "goldcase-hashes" and data["version"] == 1
    assert data["ngram"] == 13 and data["min_words"] == 4
    salt = data["salt"]
    assert len(bytes.fromhex(salt)) == 16
    by_id = {q["id"]: q for q in data["questions"]}
    long_words = (
        "is it true that a customer who bought a damaged kettle can still ask for a credit note"
    )
    assert by_id["long"]["sha256"] == salted(salt, long_words)
    assert by_id["long"]["words"] == 18
    words = long_words.split()
    assert by_id["long"]["ngrams"] == [
        salted(salt, " ".join(words[i : i + 13]))[:32] for i in range(18 - 13 + 1)
    ]
    assert by_id["short"] == {
        "id": "short",
        "sha256": salted(salt, "do you take american express"),
        "words": 5,
        "ngrams": [],
    }
    for word in ("kettle", "damaged", "american", "express", "refunds", "Refunds"):
        assert word not in raw
    loaded = load(out)
    assert loaded.salt == salt
    assert [(q.id, q.sha256, q.words, list(q.ngrams)) for q in loaded.questions] == [
        (q["id"], q["sha256"], q["words"], q["ngrams"]) for q in data["questions"]
    ]


def test_salt_is_kept_unless_asked(golden_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "golden.hashes"
    write_hashes(golden_repo, out)
    first = out.read_bytes()
    write_hashes(golden_repo, out)
    assert out.read_bytes() == first
    write_hashes(golden_repo, out, "--new-salt", "--no-ids")
    data = json.loads(out.read_text("utf-8"))
    assert data["salt"] != json.loads(first)["salt"]
    assert all("id" not in q for q in data["questions"])
    assert not {q["sha256"] for q in data["questions"]} & {
        q["sha256"] for q in json.loads(first)["questions"]
    }


def test_a_broken_golden_case_is_named(golden_repo: Path, tmp_path: Path) -> None:
    (golden_repo / "cases" / "golden" / "broken.yaml").write_text("id: broken\n", "utf-8")
    result = run_cli("hashes", "--repo", golden_repo, "--out", tmp_path / "g.hashes")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"wrote {tmp_path / 'g.hashes'}: 3 golden questions")
    assert result.stderr == (
        "warning: 1 golden case file(s) left out, they do not pass the schema "
        "(first: cases/golden/broken.yaml); run goldcase check\n"
    )


@pytest.mark.parametrize(
    "content",
    ["not json", '{"format": "other"}', '{"format": "goldcase-hashes", "version": 9}'],
)
def test_a_bad_hashes_file_cannot_run(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "bad.hashes"
    bad.write_text(content, encoding="utf-8")
    prompt = tmp_path / "p.md"
    prompt.write_text("hello\n", encoding="utf-8")
    result = run_cli("leakage", "--against", bad, prompt)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr


@pytest.fixture
def app(golden_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An application repository that holds the hashes file and prompts, not the set."""
    root = tmp_path / "app"
    (root / "prompts").mkdir(parents=True)
    write_hashes(golden_repo, root / "golden.hashes")
    monkeypatch.chdir(root)
    return root


def test_against_finds_copies_by_file_and_line(app: Path) -> None:
    (app / "prompts" / "system.md").write_text(
        "# Assistant\n\nAnswer briefly.\n"
        "Example: DO YOU TAKE american express? Yes.\n"
        "Another: is it true that a customer who bought a damaged\n"
        "kettle can still ask for a credit note, please\n"
        "Refunds? ask the desk.\n",
        encoding="utf-8",
    )
    (app / "prompts" / "shots.jsonl").write_text(
        json.dumps({"input": "Do you take  American-Express"})
        + "\n"
        + json.dumps({"input": "Refunds?"})
        + "\n",
        encoding="utf-8",
    )
    result = run_cli("leakage", "--against", "golden.hashes")
    assert result.exit_code == 1
    lines = [line.split(" (salted")[0] for line in result.stdout.splitlines()]
    assert lines == [
        "prompts/shots.jsonl:1:1: GC301 few-shot example equals the question of golden case short",
        "prompts/shots.jsonl:2:1: GC301 few-shot example equals the question of golden case tiny",
        "prompts/system.md:4:1: GC302 holds the question of golden case short",
        "prompts/system.md:5:1: GC302 holds the question of golden case long",
        "4 errors in 2 files",  # the tiny question is too short to search inside text
    ]
    assert "american" not in result.stdout.lower()


def test_against_agrees_with_the_leakage_check(golden_repo: Path, app: Path) -> None:
    text = f"Intro line\nQ: {LONG}\nQ: {SHORT}\nQ: something else entirely, four words\n"
    (app / "prompts" / "p.md").write_text(text, encoding="utf-8")
    (golden_repo / "prompts").mkdir()
    (golden_repo / "prompts" / "p.md").write_text(text, encoding="utf-8")
    against = run_cli("leakage", "--against", "golden.hashes", "prompts/p.md")
    inside = run_cli(
        "check", "--repo", golden_repo, "--select", "leakage", golden_repo / "prompts" / "p.md"
    )
    assert (against.exit_code, inside.exit_code) == (1, 1)

    def places(out: str) -> list[str]:
        return [" ".join(line.split(" ")[:2]) for line in out.splitlines()[:-1]]

    assert (
        places(against.stdout)
        == places(inside.stdout)
        == [
            "prompts/p.md:2:1: GC302",
            "prompts/p.md:3:1: GC302",
        ]
    )


def test_against_on_a_clean_file(app: Path) -> None:
    (app / "prompts" / "system.md").write_text("Be brief and kind.\n", encoding="utf-8")
    result = run_cli("leakage", "--against", "golden.hashes", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "findings": [],
        "summary": {"errors": 0, "warnings": 0, "files": 1},
    }


def test_against_a_folder_scans_every_file_under_it(app: Path) -> None:
    (app / "prompts" / "nested").mkdir()
    (app / "prompts" / "nested" / "shots.md").write_text(f"Q: {SHORT}\n", encoding="utf-8")
    (app / "prompts" / "system.md").write_text("Be brief.\n", encoding="utf-8")
    (app / "prompts" / ".hidden.md").write_text(f"Q: {SHORT}\n", encoding="utf-8")
    result = run_cli("leakage", "--against", "golden.hashes", "prompts/")
    assert result.exit_code == 1, result.stderr
    lines = [line.split(" (salted")[0] for line in result.stdout.splitlines()]
    assert lines == [
        "prompts/nested/shots.md:1:1: GC302 holds the question of golden case short",
        "1 error in 2 files",
    ]


def test_against_says_what_a_path_is(app: Path) -> None:
    os.mkfifo(app / "prompts" / "pipe.md")
    fifo = run_cli("leakage", "--against", "golden.hashes", "prompts/pipe.md")
    assert (fifo.exit_code, fifo.stdout.splitlines()[0]) == (
        1,
        "prompts/pipe.md:1:1: GC306 cannot read the file: not a regular file "
        "(a FIFO, socket or device)",
    )
    missing = run_cli("leakage", "--against", "golden.hashes", "prompts/nope.md")
    assert (missing.exit_code, missing.stderr) == (
        2,
        "error: prompts/nope.md: no such file; give prompt files or folders\n",
    )


def test_a_hashes_file_linked_out_of_the_repository_is_not_read(app: Path, tmp_path: Path) -> None:
    """An application repository whose golden.hashes is a link to a file elsewhere (here a
    real hashes file, so that reading it would have worked): refused, naming the file."""
    elsewhere = tmp_path / "elsewhere.hashes"
    (app / "golden.hashes").rename(elsewhere)
    (app / "golden.hashes").symlink_to(elsewhere)
    (app / "prompts" / "shots.md").write_text(f"Q: {SHORT}\n", encoding="utf-8")
    result = run_cli("leakage", "--against", "golden.hashes")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: golden.hashes: a link leading outside the repository; goldcase reads the "
        "hashes file in the repository only from inside it: put the file itself there\n"
    )


def test_a_hashes_file_linked_inside_the_repository_is_read(app: Path) -> None:
    (app / "keep").mkdir()
    (app / "golden.hashes").rename(app / "keep" / "golden.hashes")
    (app / "golden.hashes").symlink_to(Path("keep") / "golden.hashes")
    (app / "prompts" / "shots.md").write_text(f"Q: {SHORT}\n", encoding="utf-8")
    result = run_cli("leakage", "--against", "golden.hashes")
    assert result.exit_code == 1, result.stderr


def test_hashes_never_reads_or_writes_through_a_link(golden_repo: Path, tmp_path: Path) -> None:
    """The repository's golden.hashes is a link to a file outside it: its salt is not read
    and nothing is written, there or over the link."""
    outside = tmp_path / "outside.hashes"
    write_hashes(golden_repo, outside)
    before = outside.read_bytes()
    link = golden_repo / "golden.hashes"
    link.symlink_to(outside)
    result = run_cli("hashes", "--repo", golden_repo, "--out", link)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {link}: is a link (to {outside}); goldcase hashes writes the file itself, "
        "never through a link: remove the link, or name another file with --out\n"
    )
    assert link.is_symlink() and outside.read_bytes() == before


def test_hashes_never_writes_through_a_linked_folder(golden_repo: Path, tmp_path: Path) -> None:
    away = tmp_path / "away"
    away.mkdir()
    (golden_repo / "dist").symlink_to(away)
    result = run_cli("hashes", "--repo", golden_repo, "--out", golden_repo / "dist" / "g.hashes")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {golden_repo / 'dist' / 'g.hashes'}: a linked folder")
    assert list(away.iterdir()) == []


def _hostile(written: dict[str, object], change: str) -> dict[str, object]:
    """A copy of a hashes file goldcase wrote, with one field made hostile."""
    data = json.loads(json.dumps(written))
    first = data["questions"][0]
    if change == "megabyte salt":  # every hash reads the salt: a hang on a long prompt
        data["salt"] = "ab" * 500_000
    elif change == "salt not hex":
        data["salt"] = "zz" * 16
    elif change == "huge ngram":  # every shorter question hashed at every length
        data["ngram"] = 10**9
    elif change == "min_words 0":
        data["min_words"] = 0
    elif change == "negative words":
        first["words"] = -5
    elif change == "words beyond its n-grams":
        first["words"] = 20_000
    return data


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("megabyte salt", "the salt should be 32 hex digits"),
        ("salt not hex", "the salt should be 32 hex digits"),
        ("huge ngram", "ngram should be an integer from 1 up to 1000, got 1000000000"),
        ("min_words 0", "min_words should be a positive integer"),
        ("negative words", "a 64-digit sha256 and a positive word count"),
        ("words beyond its n-grams", "a question of 20000 words holds"),
    ],
)
def test_a_hostile_hashes_file_is_refused_before_any_text_is_hashed(
    golden_repo: Path, tmp_path: Path, change: str, says: str
) -> None:
    good = tmp_path / "good.hashes"
    write_hashes(golden_repo, good)
    bad = tmp_path / "bad.hashes"
    written = json.loads(good.read_text(encoding="utf-8"))
    bad.write_text(json.dumps(_hostile(written, change)), encoding="utf-8")
    prompt = tmp_path / "p.md"
    prompt.write_text(f"Q: {SHORT}\n", encoding="utf-8")
    result = run_cli("leakage", "--against", bad, prompt)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(f"error: {bad}: malformed hashes file: ")
    assert says in result.stderr


def test_questions_shorter_than_the_ngram_are_found_at_every_length(
    golden_repo: Path, app: Path
) -> None:
    result = run_cli("hashes", "--repo", golden_repo, "--out", app / "g.hashes", "--ngram", "1000")
    assert result.exit_code == 0, result.stderr
    (app / "p.md").write_text(f"intro\nQ: {SHORT}\nthen: {LONG}, thanks\n", encoding="utf-8")
    found = run_cli("leakage", "--against", "g.hashes", "p.md")
    assert found.exit_code == 1
    assert [line.split(" (salted")[0] for line in found.stdout.splitlines()[:-1]] == [
        "p.md:2:1: GC302 holds the question of golden case short",
        "p.md:3:1: GC302 holds the question of golden case long",
    ]


def test_hashes_refuses_an_ngram_over_a_thousand(golden_repo: Path, tmp_path: Path) -> None:
    result = run_cli("hashes", "--repo", golden_repo, "--out", tmp_path / "g", "--ngram", "1001")
    assert result.exit_code == 2
    assert result.stderr == "error: --ngram is 1001; at most 1000 words an n-gram\n"


def _hashes_of(path: Path, questions: list[str], ngram: int = 8) -> Hashes:
    """A hashes file of ``questions`` (already normalised), written as goldcase writes one."""
    salt = "00112233445566778899aabbccddeeff"
    empty = Hashes(salt, ngram, ())
    hashed = []
    for i, question in enumerate(questions):
        words = question.split()
        grams = tuple(empty.gram(words[k : k + ngram]) for k in range(len(words) - ngram + 1))
        hashed.append(HashedQuestion(f"q{i}", empty.digest(question), len(words), grams))
    hashes = Hashes(salt, ngram, tuple(sorted(hashed, key=lambda q: q.sha256)))
    path.write_text(dumps(hashes), encoding="utf-8")
    return hashes


class _Read(list[str]):
    """The words of a prompt, counting how many are read (a slice counts its length)."""

    read = 0

    def __getitem__(self, at: Any) -> Any:
        got = list.__getitem__(self, at)
        _Read.read += len(got) if isinstance(at, slice) else 1
        return got


def test_questions_ending_in_one_another_are_read_once_each(tmp_path: Path) -> None:
    """32 questions of a repeated word, 1,000 to 19,600 words, against 20,000 of it: each
    window's n-gram was compared with every question starting with it, and its whole window
    hashed, for each of them (about two minutes). The words are now read once for the n-grams
    and once for each question's whole hash."""
    questions = ["a " * (1000 + 600 * i) for i in range(32)]
    matcher = HashedMatcher(_hashes_of(tmp_path / "deep.hashes", [q.strip() for q in questions]))
    words = _Read(["a"] * 20_000)
    _Read.read = 0
    found = list(matcher.find(words))
    assert len(found) == sum(20_000 - len(q.split()) + 1 for q in questions)
    assert _Read.read <= 8 * len(words) + sum(len(q.split()) for q in questions)


@pytest.mark.parametrize("shape", ["copies", "nested"])
def test_a_hashes_file_of_questions_ending_in_one_another_is_refused(
    tmp_path: Path, shape: str
) -> None:
    """2,000 questions that all end with the same words, found each at every word of a prompt
    repeating them: refused, naming the file, before any prompt is read."""
    if shape == "copies":  # one question 2,000 times over (the whole hashes made up)
        hashes = _hashes_of(tmp_path / "g.hashes", ["a " * 40] * 2000)
        forged = [
            HashedQuestion(q.id, f"{i:064x}", q.words, q.ngrams)
            for i, q in enumerate(hashes.questions)
        ]
        (tmp_path / "g.hashes").write_text(
            dumps(Hashes(hashes.salt, hashes.ngram, tuple(forged))), encoding="utf-8"
        )
    else:  # each a word longer than the last
        _hashes_of(tmp_path / "g.hashes", [" ".join(["a"] * (8 + i)) for i in range(2000)])
    prompt = tmp_path / "p.md"
    prompt.write_text("a " * 20_000 + "\n", encoding="utf-8")
    result = run_cli("leakage", "--against", tmp_path / "g.hashes", prompt)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {tmp_path / 'g.hashes'}: more than 32 of its questions end with the same "
        "words (each the end of the next, or one question under other hashes): a prompt "
        "repeating those words would hold each of them at every word; no golden set holds "
        "such questions: write the file again with goldcase hashes\n"
    )


def test_cases_sharing_one_question_are_found_once_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A set may hold one question in many cases (GC304 turned off): ``goldcase hashes``
    writes each, and ``--against`` finds the question once a line, naming the first case and
    counting the others, however many they are."""
    question = "summarise the obligations of the supplier under this contract in three points"
    hashes = _hashes_of(tmp_path / "g.hashes", [question] * 40)
    first = hashes.questions[0].id
    monkeypatch.chdir(tmp_path)
    Path("p.md").write_text(f"Do not {question}.\nAgain: {question}\n", encoding="utf-8")
    Path("shots.jsonl").write_text(json.dumps({"input": question}) + "\n", encoding="utf-8")
    result = run_cli("leakage", "--against", "g.hashes", "p.md", "shots.jsonl")
    assert result.exit_code == 1
    lines = [line.split(" (salted")[0] for line in result.stdout.splitlines()]
    named = f"the question of golden case {first} and of 39 other golden cases"
    assert lines == [
        f"p.md:1:1: GC302 holds {named}",
        f"p.md:2:1: GC302 holds {named}",
        f"shots.jsonl:1:1: GC301 few-shot example equals {named}",
        "3 errors in 2 files",
    ]


HEAD = "what is the refund window for product"


def test_many_questions_sharing_their_first_words_are_each_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 questions sharing their first 8 words (and so their first n-gram): each copied
    one is found at its line, and none of the others, nor the shared start alone."""
    questions = [f"{HEAD} {i} bought in store {i % 7}" for i in range(3000)]
    questions += [f"{HEAD} {i} bought in store" for i in range(3)]  # a start of q0, q1, q2
    _hashes_of(tmp_path / "g.hashes", questions)
    (tmp_path / "p.md").write_text(
        f"intro\nQ: {HEAD} 12 bought in store 5, thanks\n"  # q12
        f"{HEAD} 2999 bought in store 3\n"  # q2999 ends the file's line
        f"{HEAD} 12 bought in store 4\n"  # the store differs: nothing
        f"{HEAD} 1 bought in store 1 and {HEAD} 0 bought in store\n"  # q1, q3001; q3000
        f"{HEAD} 3001\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("leakage", "--against", "g.hashes", "p.md")
    assert result.exit_code == 1, result.stderr
    assert [line.split(" (salted")[0] for line in result.stdout.splitlines()] == [
        "p.md:2:1: GC302 holds the question of golden case q12",
        "p.md:3:1: GC302 holds the question of golden case q2999",
        "p.md:5:1: GC302 holds the question of golden case q1",
        "p.md:5:1: GC302 holds the question of golden case q3000",
        "p.md:5:1: GC302 holds the question of golden case q3001",
        "5 errors in 1 file",
    ]
