"""GC3xx from real repositories in tmp_path: every variant of a copied question is caught, a
merely similar question is not an error, and every finding names both ends."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kit import cache_folder, run_cli

GOLD = "How many days does a customer have to request a credit for a damaged delivery?"
GOLD_SHA = "sha256 "  # findings show a hash prefix, never the text


def case(case_id: str, question: str, **extra: str) -> str:
    lines = [
        f"id: {case_id}",
        f"question: {json.dumps(question, ensure_ascii=False)}",
        "answerable: false",
    ]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def leakage(root: Path, *paths: str | Path) -> tuple[int, list[str]]:
    result = run_cli("check", "--repo", root, "--select", "leakage", *paths)
    return result.exit_code, result.stdout.splitlines()[:-1]


@pytest.mark.parametrize(
    "variant",
    [
        GOLD,
        GOLD.upper(),  # case
        "how many days does a customer have to request a credit for a damaged delivery",
        "How  many days\tdoes a customer have to request a credit for a damaged delivery ?",
        "How many days, does a customer have to request a credit — for a damaged delivery!!",
        "Ｈｏｗ many days does a customer have to request a credit for a damaged delivery?",
        "How many da\u00adys does a customer have to request a cre\u200bdit for a damaged "
        "delivery?",
    ],
    ids=["same", "case", "lower-no-punct", "whitespace", "punctuation", "fullwidth", "invisible"],
)
def test_gc301_golden_equals_dev_in_every_variant(
    make_repo: Callable[..., Path], variant: str
) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "cases/dev/dev-031.yaml": case("dev-031", variant),
        }
    )
    code, lines = leakage(root)
    assert code == 1
    assert len(lines) == 2
    gold_line, dev_line = sorted(lines, key=lambda x: "dev" in x.split(":")[0])
    assert gold_line.startswith(
        "cases/golden/ret-014.yaml:2:11: GC301 question equals the "
        "question of dev case dev-031 (sha256 "
    )
    assert dev_line.startswith(
        "cases/dev/dev-031.yaml:2:11: GC301 question equals the "
        "question of golden case ret-014 (sha256 "
    )
    assert "damaged" not in "".join(lines)


def test_a_merely_similar_question_is_not_an_error(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "cases/dev/dev-031.yaml": case(
                "dev-031",
                "How many days does a customer have to request a refund for a late delivery?",
            ),
        }
    )
    code, lines = leakage(root)
    assert code == 0
    assert all(" GC303 " in line for line in lines)


def test_gc301_few_shot_example_in_yaml_json_and_jsonl(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "prompts/shots.yaml": "examples:\n  - question: Something else entirely here\n"
            f"  - question: '{GOLD.lower()}'\n    answer: 14 days\n",
            "prompts/chat.jsonl": json.dumps({"messages": [{"role": "user", "content": GOLD}]})
            + "\n",
            "prompts/tests.json": json.dumps(
                {"tests": [{"vars": {"input": GOLD + "  "}}]}, indent=2
            ),
        }
    )
    code, lines = leakage(root)
    assert code == 1
    prompt_lines = sorted(line.split(" (")[0] for line in lines if line.startswith("prompts/"))
    assert prompt_lines == [
        "prompts/chat.jsonl:1:1: GC301 few-shot example equals the question of golden case ret-014",
        "prompts/shots.yaml:3:1: GC301 few-shot example equals the question of golden case ret-014",
        "prompts/tests.json:5:1: GC301 few-shot example equals the question of golden case ret-014",
    ]
    gold = [line for line in lines if line.startswith("cases/")]
    assert sorted(g.split(" at ")[1].split(" ")[0] for g in gold) == [
        "prompts/chat.jsonl:1",
        "prompts/shots.yaml:3",
        "prompts/tests.json:5",
    ]


def test_gc302_golden_question_inside_a_text_prompt(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "cases/golden/ret-015.yaml": case("ret-015", "Refunds?"),  # too short to search
            "prompts/system.md": "# System\n\nYou help customers with refunds.\n\n"
            "Example: Q: HOW MANY DAYS does a customer have to request a credit\n"
            "for a damaged delivery? A: 14 days.\n",
        }
    )
    code, lines = leakage(root)
    assert code == 1
    assert len(lines) == 2
    assert lines[0].startswith(
        "cases/golden/ret-014.yaml:2:11: GC302 question appears inside prompts/system.md:5 (sha256 "
    )
    assert lines[1].startswith(
        "prompts/system.md:5:1: GC302 holds the question of golden case ret-014 (sha256 "
    )


def test_gc302_needs_whole_words(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", "what is the refund window"),
            "prompts/system.md": "Tell them somewhat is the refund windows policy.\n",
        }
    )
    assert leakage(root) == (0, [])


def test_paths_keep_the_prompt_files_findings(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "prompts/system.md": f"Q: {GOLD}\n",
        }
    )
    code, lines = leakage(root, root / "prompts" / "system.md")
    assert code == 1
    assert [line.split(" (")[0] for line in lines] == [
        "prompts/system.md:1:1: GC302 holds the question of golden case ret-014"
    ]


@pytest.mark.parametrize(
    ("edited", "question", "code"),
    [
        ("cases/golden/e.yaml", "How many companies were listed on the WSE on May 2009?", "GC303"),
        ("cases/golden/e.yaml", GOLD, "GC304"),
        ("cases/dev/e.yaml", GOLD.upper(), "GC301"),
    ],
    ids=["near", "golden-twin", "dev-copy"],
)
def test_a_case_given_by_path_is_paired_with_the_cases_not_given(
    make_repo: Callable[..., Path], edited: str, question: str, code: str
) -> None:
    # check PATHS reports on the given file what the whole check reports on it: its pair
    # with an unchanged case is found, with the rest of the set read from a warm cache.
    root = make_repo(
        {
            "cases/golden/g.yaml": case("g", GOLD),
            "cases/golden/w.yaml": case(
                "w", "How many companies were listed on the WSE on August 2009?"
            ),
            edited: case("e", "What colour is the depot door on a Tuesday?"),
        }
    )
    assert leakage(root) == (0, [])  # fills the cache
    (root / edited).write_text(case("e", question))
    focused = leakage(root, root / edited)[1]
    everything = leakage(root)[1]
    assert focused == [line for line in everything if line.startswith(edited + ":")]
    assert [line.split(" ")[1] for line in focused] == [code]


def test_gc303_real_paraphrase_pair_is_a_warning(make_repo: Callable[..., Path]) -> None:
    # SQuAD 2.0 dev: an answerable question and the unanswerable edit written from it.
    root = make_repo(
        {
            "cases/golden/sq-1.yaml": case(
                "sq-1", "How many companies were listed on the WSE on August 2009?"
            ),
            "cases/dev/sq-2.yaml": case(
                "sq-2", "How many companies were listed on the WSE on April 2009?"
            ),
        }
    )
    code, lines = leakage(root)
    assert code == 0
    # word sets: 10 shared of 12 distinct words
    assert sorted(line.split(";")[0] for line in lines) == [
        "cases/dev/sq-2.yaml:2:11: GC303 question is a near-duplicate of the question of "
        "golden case sq-1 (word Jaccard 0.82)",
        "cases/golden/sq-1.yaml:2:11: GC303 question is a near-duplicate of dev case sq-2 "
        "(word Jaccard 0.82)",
    ]


def test_gc303_as_error_through_config(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/a.yaml": case("a", "when does my store credit note expire exactly"),
            "cases/golden/b.yaml": case("b", "when does my store credit note expire"),
        }
    )
    (root / "goldcase.toml").write_text('[severity]\nGC303 = "error"\n')
    code, lines = leakage(root)
    assert code == 1
    assert len(lines) == 2  # golden pair: one finding at each end, not four
    assert all(" GC303 " in line and "(word Jaccard 0.88)" in line for line in lines)  # 7/8


def test_gc304_two_golden_cases_same_question(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/a.yaml": case("a", "Can I pay with AMEX?"),
            "cases/golden/b.yaml": case("b", "can i pay with amex"),
        }
    )
    code, lines = leakage(root)
    assert code == 1
    assert [line.split(" (")[0] for line in lines] == [
        "cases/golden/a.yaml:2:11: GC304 question equals the question of golden case b after "
        "normalisation",
        "cases/golden/b.yaml:2:11: GC304 question equals the question of golden case a after "
        "normalisation",
    ]


@pytest.mark.parametrize(
    ("derived", "expected"),
    [
        ("derived_from: ret-001", "5:15: GC305 derived_from names golden case ret-001"),
        ("derived_from: dev-999", "5:15: GC305 derived_from 'dev-999' names no case"),
        ("", "4:9: GC305 synthetic case without derived_from"),
        ("derived_from: dev-001", None),
    ],
)
def test_gc305_synthetic_origin(
    make_repo: Callable[..., Path], derived: str, expected: str | None
) -> None:
    extra = {"source": "synthetic"}
    if derived:
        extra["derived_from"] = derived.split(": ")[1]
    root = make_repo(
        {
            "cases/golden/ret-001.yaml": case("ret-001", "Where is my parcel right now?"),
            "cases/dev/dev-001.yaml": case("dev-001", "When will my parcel arrive?"),
            "cases/golden/syn-1.yaml": case("syn-1", "What happened to my order?", **extra),
        }
    )
    code, lines = leakage(root)
    if expected is None:
        assert (code, lines) == (0, [])
    else:
        assert code == 1
        assert lines == [line for line in lines if line.startswith("cases/golden/syn-1.yaml:")]
        assert lines[0].startswith(f"cases/golden/syn-1.yaml:{expected}")


def test_gc306_malformed_prompt_file_is_a_finding(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "prompts/shots.yaml": f"examples:\n  - question: [{GOLD}\n",
            "prompts/bad.jsonl": '{"input": "fine"}\n{"input": \n',
            "prompts/latin1.txt": "caf\xe9\n".encode("latin-1"),
            "prompts/logo.png": b"\x89PNG\x00\x00binary",
        }
    )
    code, lines = leakage(root)
    assert code == 1
    gc306 = sorted(line.split(":", 3)[0:3] for line in lines if " GC306 " in line)
    assert gc306 == [
        ["prompts/bad.jsonl", "2", "11"],
        ["prompts/latin1.txt", "1", "1"],
        ["prompts/logo.png", "1", "1"],  # refused, not skipped: UTF-16 looks the same
        ["prompts/shots.yaml", "3", "1"],
    ]
    # the malformed YAML is still searched as text
    assert any(line.startswith("prompts/shots.yaml:2:1: GC302 ") for line in lines)


def test_fewshot_globs_from_config(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "app/templates/answer.jinja": f"{{# {GOLD} #}}\n",
            "prompts/system.md": f"{GOLD}\n",
        }
    )
    (root / "goldcase.toml").write_text('[leakage]\nfewshot = ["app/**/*.jinja"]\n')
    code, lines = leakage(root)
    assert code == 1
    assert {line.split(":")[0] for line in lines} == {
        "cases/golden/ret-014.yaml",
        "app/templates/answer.jinja",
    }


def test_a_broad_glob_skips_the_cases(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "notes/ideas.md": "Nothing to see here, only notes.\n",
        }
    )
    (root / "goldcase.toml").write_text('[leakage]\nfewshot = ["**"]\n')
    assert leakage(root) == (0, [])


def test_sample_set_is_leak_free() -> None:
    from kit import REPO_ROOT

    code, lines = leakage(REPO_ROOT)
    assert [line for line in lines if " GC30" in line and " GC303 " not in line] == []
    assert code == 0


def test_the_cache_follows_every_edit(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", GOLD),
            "prompts/system.md": "Answer from the documents only.\n",
            "prompts/shots.jsonl": json.dumps({"input": "Where is my parcel?"}) + "\n",
        }
    )
    assert leakage(root) == (0, [])
    (root / "prompts" / "system.md").write_text(f"Answer.\nQ: {GOLD}\n", encoding="utf-8")
    code, lines = leakage(root)
    assert (code, [line.split(" (")[0] for line in lines]) == (
        1,
        [
            "cases/golden/ret-014.yaml:2:11: GC302 question appears inside prompts/system.md:2",
            "prompts/system.md:2:1: GC302 holds the question of golden case ret-014",
        ],
    )
    # the golden case reworded: the copy in the prompt is no longer its question
    (root / "cases" / "golden" / "ret-014.yaml").write_text(
        case("ret-014", "Where do I send a damaged kettle back to?"), encoding="utf-8"
    )
    assert leakage(root) == (0, [])
    (root / "prompts" / "shots.jsonl").write_text(
        json.dumps({"input": "where do i send a damaged kettle back to"}) + "\n", encoding="utf-8"
    )
    code, lines = leakage(root)
    assert code == 1
    assert [line.split(" (")[0] for line in lines] == [
        "cases/golden/ret-014.yaml:2:11: GC301 question equals a few-shot example at "
        "prompts/shots.jsonl:1",
        "prompts/shots.jsonl:1:1: GC301 few-shot example equals the question of golden case "
        "ret-014",
    ]
    assert (cache_folder(root) / "leakage-findings.msgpack").is_file()


NEAR_PAIR = {
    "cases/golden/sq-1.yaml": case(
        "sq-1", "How many companies were listed on the WSE on August 2009?"
    ),
    "cases/dev/sq-2.yaml": case("sq-2", "How many companies were listed on the WSE on April 2009?"),
    "cases/golden/other.yaml": case("other", "Which depot handles returns from the islands?"),
    "prompts/shots.jsonl": json.dumps({"input": "How many companies were listed on the WSE?"})
    + "\n",
}


@pytest.mark.parametrize("edited", sorted(p for p in NEAR_PAIR if p.startswith("cases/")))
def test_a_file_edited_but_its_question_is_paired_as_in_the_whole_run(
    make_repo: Callable[..., Path], edited: str
) -> None:
    # The questions are those the whole run paired: the focused run takes its pairs from
    # there (no signatures computed) and reports on the file exactly what the whole run does.
    root = make_repo(NEAR_PAIR)
    everything = leakage(root)[1]
    assert any(" GC303 " in line for line in everything)
    (root / edited).write_text(NEAR_PAIR[edited] + "notes: reviewed again\n", encoding="utf-8")
    for _ in range(2):  # found, then from the cache
        focused = leakage(root, root / edited)[1]
        assert focused == [line for line in everything if line.startswith(edited + ":")]


def test_a_focused_runs_findings_follow_an_edit_of_the_other_end(
    make_repo: Callable[..., Path],
) -> None:
    root = make_repo(
        {
            "cases/golden/g.yaml": case("g", GOLD),
            "cases/golden/e.yaml": case("e", GOLD.upper()),
        }
    )
    edited = root / "cases/golden/e.yaml"
    assert [line.split(" ")[1] for line in leakage(root, edited)[1]] == ["GC304"]
    assert [line.split(" ")[1] for line in leakage(root, edited)[1]] == ["GC304"]  # cached
    (root / "cases/golden/g.yaml").write_text(case("g", "Which depot takes returns?"))
    assert leakage(root, edited) == (0, [])
    assert leakage(root) == (0, [])
