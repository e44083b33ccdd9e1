"""GC307 and GC308: golden facts (support quotes and their sentences), not questions, leaking
into prompt files and the dev set; both ends named, no text printed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.cache import Cache, decode
from goldcase.checks import leakage as leakage_check
from goldcase.checks.leakage import fact_units
from goldcase.model import Case
from kit import cache_folder, cached_table, run_cli

Repo = Callable[..., Path]
QUOTE = (
    "Nominated-day delivery lets you choose a weekday, up to 21 days ahead, for £6.95. "
    "Saturday is not available."
)


def answered(case_id: str, question: str, quote: str, doc: str = "delivery.md") -> str:
    return (
        f"id: {case_id}\nquestion: {json.dumps(question)}\nexpected_answer: 'No'\n"
        f"support:\n  - doc: {doc}\n    quote: {json.dumps(quote)}\n"
    )


def leakage(root: Path) -> tuple[int, list[str]]:
    result = run_cli("check", "--repo", root, "--select", "leakage")
    return result.exit_code, result.stdout.splitlines()[:-1]


def repo(make_repo: Repo, files: dict[str, str]) -> Path:
    root = make_repo(files)
    (root / "corpus" / "delivery.md").write_text(f"# Delivery\n\n{QUOTE}\n", encoding="utf-8")
    return root


def test_fact_units_are_the_quote_its_sentences_of_four_words_and_clauses_of_six() -> None:
    assert fact_units(QUOTE) == [
        "nominated day delivery lets you choose a weekday up to 21 days ahead for 6 95 "
        "saturday is not available",
        "nominated day delivery lets you choose a weekday up to 21 days ahead for 6 95",
        "saturday is not available",
        "nominated day delivery lets you choose a weekday",  # "up to 21 days ahead": 5 words
    ]
    assert fact_units("Closed on Sunday.") == []  # three words: too common to search
    assert fact_units("£5 per order") == []


@pytest.mark.parametrize(
    "answer",
    [
        "£6.95 per order. Saturday is not available (Delivery guide, 4.3).",
        "SATURDAY  IS  NOT  AVAILABLE",
        "No: saturday is not available!",
    ],
)
def test_gc307_a_fewshot_answer_that_states_a_golden_sentence(make_repo: Repo, answer: str) -> None:
    fewshot = f"- question: how much is nominated day\n  answer: {json.dumps(answer)}\n"
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered("del-013", "can i pick saturday", QUOTE),
            "prompts/fewshot.yaml": fewshot,
        },
    )
    code, lines = leakage(root)
    assert code == 1
    assert [line.split("sha256")[0] for line in lines] == [
        "cases/golden/del-013.yaml:6:12: GC307 support quote 1 is stated in "
        "prompts/fewshot.yaml:2 (",
        "prompts/fewshot.yaml:2:1: GC307 states the fact of golden case del-013 (its support "
        "quote 1, ",
    ]
    assert "saturday" not in " ".join(lines).lower()


def test_gc307_a_golden_sentence_copied_with_a_clause_dropped(make_repo: Repo) -> None:
    """Many quotes are one long sentence: dropping its last clause must not hide the copy."""
    quote = (
        "You can return most items for a full refund within 30 days from delivery, for any "
        "reason, including a simple change of mind."
    )
    answer = "Yes, you can return most items for a full refund within 30 days from delivery."
    fewshot = f"- question: can i send back a kettle\n  answer: {json.dumps(answer)}\n"
    root = repo(
        make_repo,
        {
            "cases/golden/ret-001.yaml": answered("ret-001", "how long to return", quote),
            "prompts/fewshot.yaml": fewshot,
        },
    )
    (root / "corpus" / "delivery.md").write_text(f"# Returns\n\n{quote}\n", encoding="utf-8")
    code, lines = leakage(root)
    assert code == 1
    assert "prompts/fewshot.yaml:2:1: GC307 states the fact of golden case ret-001" in "\n".join(
        lines
    )


def test_gc307_a_shared_short_clause_is_common_wording_not_a_copy(make_repo: Repo) -> None:
    quote = "Returns are free, within 30 days of delivery, for any reason at all."
    answer = "Exchanges are possible within 30 days of delivery."  # a five-word clause
    fewshot = f"- question: can i exchange it\n  answer: {json.dumps(answer)}\n"
    root = repo(
        make_repo,
        {
            "cases/golden/ret-002.yaml": answered("ret-002", "are returns free", quote),
            "prompts/fewshot.yaml": fewshot,
        },
    )
    (root / "corpus" / "delivery.md").write_text(f"# Returns\n\n{quote}\n", encoding="utf-8")
    assert leakage(root) == (0, [])


def test_gc307_in_a_text_prompt_at_every_line(make_repo: Repo) -> None:
    prompt = "# System\n\nSaturday is\nnot available.\n\nAlso: saturday is not available.\n"
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered("del-013", "can i pick saturday", QUOTE),
            "prompts/system.md": prompt,
        },
    )
    _, lines = leakage(root)
    assert [line.split(" GC307")[0] for line in lines] == [
        "cases/golden/del-013.yaml:6:12:",
        "prompts/system.md:3:1:",
        "prompts/system.md:6:1:",
    ]


def test_no_gc307_for_a_paraphrase_or_a_word_inside_a_word(make_repo: Repo) -> None:
    prompt = "You cannot choose a Saturday.\nSaturday is unavailable; saturdays is not available\n"
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered("del-013", "can i pick saturday", QUOTE),
            "prompts/system.md": prompt,
        },
    )
    assert leakage(root) == (0, [])


def test_a_dev_quote_is_not_a_prompt_fact(make_repo: Repo) -> None:
    root = repo(
        make_repo,
        {
            "cases/dev/dev-001.yaml": answered("dev-001", "can i pick saturday", QUOTE),
            "prompts/system.md": "Saturday is not available.\n",
        },
    )
    assert leakage(root) == (0, [])


@pytest.mark.parametrize(
    ("dev_quote", "golden_quote"),
    [
        (QUOTE, QUOTE),  # the same quote
        ("Saturday is not available.", QUOTE),  # a sentence of the golden quote
        (QUOTE, "Saturday is not available."),  # the golden quote is a sentence of the dev one
        ("lets you choose a weekday, up to 21 days ahead", QUOTE),  # a fragment inside it
    ],
)
def test_gc308_a_dev_case_that_shares_a_golden_quote(
    make_repo: Repo, dev_quote: str, golden_quote: str
) -> None:
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered("del-013", "can i pick saturday", golden_quote),
            "cases/dev/dev-001.yaml": answered("dev-001", "nominated day price", dev_quote),
        },
    )
    code, lines = leakage(root)
    assert code == 0  # a warning
    assert [line.split(" (sha256")[0] for line in lines] == [
        "cases/dev/dev-001.yaml:6:12: GC308 support quote 1 shares a sentence with support "
        "quote 1 of golden case del-013",
        "cases/golden/del-013.yaml:6:12: GC308 support quote 1 shares a sentence with support "
        "quote 1 of dev case dev-001",
    ]


def _focused(root: Path, path: str) -> list[str]:
    result = run_cli("check", "--repo", root, "--select", "leakage", root / path)
    return [line for line in result.stdout.splitlines() if "GC308" in line]


@pytest.mark.parametrize(
    "damage",
    [
        lambda text, starts, owners, table: [text, starts, owners, {u: [99] for u in table}],
        lambda text, starts, owners, table: [text + " more \x00", starts, owners, table],
        lambda text, starts, owners, table: [text, [*starts, 9], owners, table],
        lambda text, starts, owners, table: [text, [s + 1 for s in starts], owners, table],
        lambda text, starts, owners, table: [text, starts, [["cases/golden/gone.yaml", 0]], table],
        lambda text, starts, owners, table: [text, starts, [[p, 7] for p, _ in owners], table],
        lambda text, starts, owners, table: {"a unit": [["cases/golden/del-013.yaml", 0]]},
        # of the right types, but no run could have written them: no quote in the text, a
        # unit of white space or of nothing (no word to anchor it by)
        lambda text, starts, owners, table: ["saturday is not available", [], [], {}],
        lambda text, starts, owners, table: [text, starts, owners, {" ": [0], **table}],
        lambda text, starts, owners, table: [text, starts, owners, {"": [0], **table}],
    ],
)
def test_gc308_of_a_commit_is_found_from_the_other_splits_table_even_a_damaged_one(
    make_repo: Repo, damage: Callable[..., object]
) -> None:
    """A focused check of a dev case finds its GC308 against the golden set's facts as kept
    by the whole run before; a table that names no quote of the set is built again."""
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered("del-013", "can i pick saturday", QUOTE),
            "cases/golden/del-014.yaml": answered("del-014", "saturday?", "Saturday is fine."),
            "cases/dev/dev-001.yaml": answered(
                "dev-001", "nominated day", "Saturday is not available."
            ),
        },
    )
    whole = [line for line in leakage(root)[1] if line.startswith("cases/dev/")]
    assert len(whole) == 1 and "GC308" in whole[0]
    assert _focused(root, "cases/dev/dev-001.yaml") == whole
    kept = decode((cache_folder(root) / "leakage-facts-golden.msgpack").read_bytes())
    assert kept  # the whole run kept the golden facts (in a part or two)
    cache = Cache.for_repository(root)
    for key, value in kept.items():
        cache.put("leakage-facts-golden", key, damage(*value))
    cache.save()
    dev = root / "cases" / "dev" / "dev-001.yaml"
    dev.write_text(dev.read_text() + "notes: edited\n")
    assert _focused(root, "cases/dev/dev-001.yaml") == whole


def test_after_a_golden_case_changes_a_commit_builds_its_part_of_the_facts_alone(
    make_repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The golden facts are kept in parts by case path: once a golden case changed, a focused
    check of a dev case builds that case's part again, reads every other part from the
    cache, and finds what the whole run finds."""
    golden = {
        f"cases/golden/g-{i:03d}.yaml": answered(
            f"g-{i:03d}", f"question {i}", f"Parcel number {i} travels by the usual carrier."
        )
        for i in range(48)  # every part holds some (16 parts)
    }
    golden["cases/golden/del-013.yaml"] = answered("del-013", "can i pick saturday", QUOTE)
    dev = {"cases/dev/dev-001.yaml": answered("dev-001", "nominated", "Saturday is not available.")}
    root = repo(make_repo, golden | dev)
    whole = [line for line in leakage(root)[1] if line.startswith("cases/dev/")]
    assert len(whole) == 1 and "GC308" in whole[0]
    table = cache_folder(root) / "leakage-facts-golden.msgpack"
    parts = decode(table.read_bytes())
    assert len(parts) == 16
    changed = root / "cases" / "golden" / "g-007.yaml"
    original = changed.read_text()
    changed.write_text(original + "notes: edited\n")
    built: list[list[str]] = []
    real = leakage_check._facts_built

    def counted(ctx: object, cases: list[Case], split: str) -> object:
        built.append([case.path for case in cases])
        return real(ctx, cases, split)  # type: ignore[arg-type]

    monkeypatch.setattr(leakage_check, "_facts_built", counted)
    assert _focused(root, "cases/dev/dev-001.yaml") == whole
    [part] = built
    assert "cases/golden/g-007.yaml" in part and 0 < len(part) < 49 // 4
    # the parts replaced do not pile up: once four (a quarter) are left they are dropped
    assert len(cached_table(root, "leakage-facts-golden")) == 17
    for edit in range(1, 4):
        changed.write_text(original + f"notes: edit {edit}\n")
        assert _focused(root, "cases/dev/dev-001.yaml") == whole
        assert len(cached_table(root, "leakage-facts-golden")) == (17 + edit if edit < 3 else 16)
    assert not table.with_suffix(".journal").exists()


def test_no_gc308_for_quotes_of_different_sentences(make_repo: Repo) -> None:
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered(
                "del-013", "can i pick saturday", "Saturday is not available."
            ),
            "cases/dev/dev-001.yaml": answered(
                "dev-001",
                "nominated day price",
                "Nominated-day delivery lets you choose a weekday, up to 21 days ahead, for £6.95.",
            ),
        },
    )
    assert leakage(root) == (0, [])


def test_gc307_and_gc308_severities_come_from_the_config(make_repo: Repo) -> None:
    root = repo(
        make_repo,
        {
            "cases/golden/del-013.yaml": answered("del-013", "can i pick saturday", QUOTE),
            "cases/dev/dev-001.yaml": answered("dev-001", "nominated day price", QUOTE),
            "prompts/system.md": "Saturday is not available.\n",
        },
    )
    (root / "goldcase.toml").write_text('[severity]\nGC307 = "warning"\nGC308 = "error"\n')
    result = run_cli("check", "--repo", root, "--select", "leakage", "--format", "json")
    found = json.loads(result.stdout)["findings"]
    assert sorted({(f["code"], f["severity"]) for f in found}) == [
        ("GC307", "warning"),
        ("GC308", "error"),
    ]
