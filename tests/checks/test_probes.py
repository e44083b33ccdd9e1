"""GC601-GC606 (the probes family): each case's checks tried on its probes, at the probe's
line and column; the language rule; severities from the config; a warm run from the cache."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.cache import Cache
from goldcase.checks.probes import foreign
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import run_checks
from kit import REPO_ROOT, run_cli

Repo = Callable[..., Path]
QUOTE = "A customer has 14 days from delivery to request a credit for a damaged delivery."
HEAD = (
    "id: g1\nquestion: can i request a credit for a damaged delivery\n"
    f"expected_answer: 14 days\nsupport:\n  - doc: returns-policy.md\n    quote: {QUOTE}\n"
)  # six lines


def brief(root: Path, cache: Cache | None = None) -> list[tuple[int, int, str, str]]:
    ctx = Context(load_config(root), cache or Cache(None))
    return [(f.line, f.col, f.code, f.severity) for f in run_checks(ctx, ["probes"]).findings]


def golden(make_repo: Repo, text: str, config: str = "") -> Path:
    root = make_repo({"cases/golden/g1.yaml": text})
    (root / "goldcase.toml").write_text(config, encoding="utf-8")
    return root


def test_probes_that_hold_give_nothing(make_repo: Repo) -> None:
    text = HEAD + (
        "expect:\n  lead: 'no'\n  contains: [[14 days, two weeks]]\n"
        "probes:\n  pass: ['No - two weeks from delivery.']\n"
        "  fail: ['Yes, two weeks.', 'No, 30 days.', 'No.']\n"
    )
    assert brief(golden(make_repo, text)) == []


def test_each_probe_that_does_not_hold_is_reported_at_its_value(make_repo: Repo) -> None:
    text = HEAD + (
        "expect:\n  contains: [14 days]\n"
        "probes:\n"
        "  pass:\n    - You have 14 days.\n    - You have fourteen days.\n"  # 11, 12
        "  fail: [30 days, You have 14 days or so.]\n"  # 13
    )
    assert brief(golden(make_repo, text)) == [
        (12, 7, "GC601", "error"),
        (13, 19, "GC602", "error"),
    ]


def test_the_message_names_the_check_and_what_it_found(make_repo: Repo) -> None:
    text = HEAD + (
        "expect:\n  lead: 'yes'\n  not_contains: [30 days]\n"
        "probes:\n  pass: ['No, 30 days.']\n  fail: ['Yes, within 14 days.']\n"
    )
    result = run_cli("check", "--repo", golden(make_repo, text), "--select", "probes")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "cases/golden/g1.yaml:11:10: GC601 pass-probe 'No, 30 days.' fails the case's checks "
        "(lead: starts with 'no', not 'yes'; not_contains: has '30 days'); a right answer must "
        "pass: widen the check (an any-of alternative) or fix the probe",
        "cases/golden/g1.yaml:12:10: GC602 fail-probe 'Yes, within 14 days.' passes every check "
        "of the case (lead, not_contains); add a check it fails (a lead, a tighter contains, a "
        "not_contains of the wrong figure)",
    ]


def test_without_checks_a_probe_is_graded_by_the_expected_answer(make_repo: Repo) -> None:
    text = HEAD + "probes:\n  pass: ['14 days.', '14-day window']\n  fail: ['You have 14 days']\n"
    assert brief(golden(make_repo, text)) == [(8, 22, "GC601", "error"), (9, 10, "GC602", "error")]


def test_an_answerable_golden_case_without_a_fail_probe_warns(make_repo: Repo) -> None:
    assert brief(golden(make_repo, HEAD + "expect:\n  contains: [14 days]\n")) == [
        (1, 1, "GC603", "warning")
    ]
    with_pass = HEAD + "expect:\n  contains: [14 days]\nprobes:\n  pass: [14 days]\n"
    assert brief(golden(make_repo, with_pass)) == [(9, 1, "GC603", "warning")]


def test_dev_and_unanswerable_cases_need_no_fail_probe(make_repo: Repo) -> None:
    root = make_repo(
        {
            "cases/dev/d1.yaml": HEAD.replace("g1", "d1") + "expect:\n  contains: [14 days]\n",
            "cases/golden/g2.yaml": "id: g2\nquestion: who founded you\nanswerable: false\n",
        }
    )
    assert brief(root) == []


@pytest.mark.parametrize(
    ("level", "expected"), [("error", [(1, 1, "GC603", "error")]), ("off", [])]
)
def test_the_fail_probe_warning_takes_its_severity_from_the_config(
    make_repo: Repo, level: str, expected: list[tuple[int, int, str, str]]
) -> None:
    root = golden(
        make_repo, HEAD + "expect:\n  contains: [14 days]\n", f'[severity]\nGC603 = "{level}"\n'
    )
    assert brief(root) == expected


@pytest.mark.parametrize(
    ("question", "tags", "warned"),
    [
        ("Wie viele Tage habe ich, wenn das Paket beschädigt ankam?", "", True),
        ("¿cuántos días tengo si el paquete llegó roto?", "", True),
        ("can i request a credit for my damaged delivery", "", False),
        ("how long have i got", "tags: [multilingual]\n", True),  # the tag always counts
    ],
)
def test_a_case_in_another_language_needs_an_expect_block(
    make_repo: Repo, question: str, tags: str, warned: bool
) -> None:
    text = HEAD.replace("can i request a credit for a damaged delivery", question) + tags
    text += "probes:\n  fail: [30 days]\n"
    root = golden(make_repo, text)
    with_sample_corpus(root)
    found = [f for f in brief(root) if f[2] == "GC604"]
    assert found == ([(2, 11, "GC604", "warning")] if warned else [])
    (root / "cases/golden/g1.yaml").write_text(text + "expect:\n  contains: ['14']\n")
    assert [f for f in brief(root) if f[2] == "GC604"] == []


def with_sample_corpus(root: Path) -> None:
    """The sample set's corpus (about 1,600 distinct words), beside the test documents."""
    for document in (REPO_ROOT / "corpus").glob("*.md"):
        shutil.copy(document, root / "corpus" / document.name)


def test_a_small_corpus_is_not_judged_by_its_words(make_repo: Repo) -> None:
    question = "Wie viele Tage habe ich, wenn das Paket beschädigt ankam?"
    text = HEAD.replace("can i request a credit for a damaged delivery", question)
    root = golden(make_repo, text + "probes:\n  fail: [30 days]\n")
    assert brief(root) == []  # the test corpus has about 70 distinct words


@pytest.mark.parametrize(
    ("question", "is_foreign"),
    [
        ("Sie haben mir den falschen Artikel geschickt", True),
        ("le livreur est passé mais je n'étais pas là", True),
        ("czy zwrócicie opłatę za dostawę", True),
        ("the customer has fourteen days", False),
        ("wat compost shuld i use in the returns", False),  # typos: still mostly corpus words
        ("rücksendung?", False),  # under three words: not judged
        ("12 34 56 78", False),  # numbers are not words
    ],
)
def test_the_language_rule(question: str, is_foreign: bool) -> None:
    words = "a customer has 14 days from delivery to request credit for the damaged i in use"
    vocabulary = frozenset([*words.split(), "returns", "what", *map(str, range(500))])
    assert foreign(question, vocabulary) is is_foreign
    assert foreign(question, frozenset(list(vocabulary)[:499])) is False  # too small to judge


def test_an_expect_block_no_answer_can_meet_warns(make_repo: Repo) -> None:
    text = "id: g1\nquestion: who founded you\nanswerable: false\nexpect:\n  contains: [x]\n"
    assert brief(golden(make_repo, text)) == [(4, 1, "GC605", "warning")]
    premise = text + "tags: [false_premise]\n"
    assert brief(golden(make_repo, premise)) == []


def test_a_false_premise_correction_is_probed(make_repo: Repo) -> None:
    text = (
        "id: g1\nquestion: the credit window is 30 days right\nanswerable: false\n"
        "expect:\n  lead: 'no'\n  contains: [14 days]\n"
        "probes:\n  pass: ['No, it is 14 days.', 'I cannot answer that.']\n"  # 8
        "  fail: ['Yes, 30 days.']\ntags: [false_premise]\n"
    )
    assert brief(golden(make_repo, text)) == [(8, 32, "GC601", "error")]
    abstain_only = text.replace("expect:\n  lead: 'no'\n  contains: [14 days]\n", "")
    assert brief(golden(make_repo, abstain_only)) == [
        (5, 10, "GC601", "error"),
        (5, 32, "GC601", "error"),
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # the expected answer is in the question: an echo passes a case with no check
        ("expected_answer: 14 days\n", [(2, 11, "GC606", "warning")]),
        ("expected_answer: two weeks\n", []),
        (
            "expected_answer: 14 days\nexpect:\n  contains: [[14 days, two weeks]]\n",
            [(2, 11, "GC606", "warning")],
        ),
        # a lead the question does not start with: an echo fails
        ("expected_answer: 14 days\nexpect:\n  lead: 'yes'\n  contains: [14 days]\n", []),
        (
            "expected_answer: 14 days\nexpect:\n  not_contains: [30 days]\n",
            [(2, 11, "GC606", "warning")],
        ),
    ],
)
def test_a_question_that_passes_its_own_checks_is_flagged(
    make_repo: Repo, body: str, expected: list[tuple[int, int, str, str]]
) -> None:
    text = (
        "id: g1\nquestion: is it 14 days to ask for a credit\n"  # line 2, value at column 11
        "support:\n  - doc: returns-policy.md\n"
        f"    quote: {QUOTE}\nprobes:\n  fail: ['No, 30 days.']\n" + body
    )
    assert brief(golden(make_repo, text)) == expected


def test_a_false_premise_whose_correction_the_question_meets_is_flagged(make_repo: Repo) -> None:
    text = (
        "id: g1\nquestion: the late fee is £50, can it be waived\nanswerable: false\n"
        "tags: [false_premise]\nexpect:\n  contains: [[fee, £25]]\n"
    )
    root = golden(make_repo, text)
    result = run_cli("check", "--repo", root, "--select", "probes")
    assert result.stdout.splitlines()[0] == (
        "cases/golden/g1.yaml:2:11: GC606 the question, given as the answer, passes the case's "
        "checks (contains: has 'fee'); a system that repeats the question would pass: add a "
        "check only an answer meets (a lead, a word or figure the question lacks)"
    )
    assert result.exit_code == 0  # a warning
    tightened = text.replace("[[fee, £25]]", "['£25']")
    assert brief(golden(make_repo, tightened)) == []
    abstention_only = text.replace("tags: [false_premise]\n", "")  # no answer passes: GC605
    assert [f[2] for f in brief(golden(make_repo, abstention_only))] == ["GC605"]


@pytest.mark.parametrize(
    ("level", "expected"), [("error", [(2, 11, "GC606", "error")]), ("off", [])]
)
def test_the_echo_rule_takes_its_severity_from_the_config(
    make_repo: Repo, level: str, expected: list[tuple[int, int, str, str]]
) -> None:
    text = "id: g1\nquestion: so the late fee is £50\nanswerable: false\ntags: [false_premise]\n"
    text += "expect:\n  contains: [fee]\n"
    assert brief(golden(make_repo, text, f'[severity]\nGC606 = "{level}"\n')) == expected


def test_a_warm_run_gives_the_same_findings(make_repo: Repo, tmp_path: Path) -> None:
    text = HEAD + "expect:\n  contains: [14 days]\nprobes:\n  pass: [fourteen days]\n"
    root = golden(make_repo, text)
    cache_dir = tmp_path / "cache"
    cold = brief(root, Cache(cache_dir))
    assert cold == [(9, 1, "GC603", "warning"), (10, 10, "GC601", "error")]
    assert brief(root, Cache(cache_dir)) == cold


def test_probes_of_the_wrong_shape_are_the_schema_checks_business(make_repo: Repo) -> None:
    text = HEAD + "expect:\n  contains: [14 days]\nprobes:\n  pass: 14 days\n  fail: [3, [x]]\n"
    root = golden(make_repo, text)
    assert brief(root) == []  # nothing to grade in a case the schema refuses
    result = run_cli("check", "--repo", root, "--select", "schema")
    assert result.exit_code == 1 and "GC107" in result.stdout
