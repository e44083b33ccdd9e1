"""goldcase new: an id no other branch takes, verified quotes, hints, prompts, and a file that
passes goldcase check and goldcase fmt --check as written."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from goldcase.authoring import new as new_module
from goldcase.cli import cli
from goldcase.ids import name_prefix
from kit import REPO_ROOT, run_cli

Maker = Callable[..., Path]
QUOTE = "A customer has 14 days from delivery to request a credit"


def case(case_id: str, slice_name: str) -> str:
    return f"id: {case_id}\nquestion: question {case_id}\nanswerable: false\nslice: {slice_name}\n"


def new(root: Path, *args: str) -> tuple[int, str, str]:
    """``goldcase new`` in a repository that holds the case schema already (as ``init``
    leaves it), so the output is the case alone."""
    schema = root / "schema" / "case.schema.json"
    if not schema.exists():
        schema.parent.mkdir(parents=True, exist_ok=True)
        schema.write_bytes((REPO_ROOT / "schema" / "case.schema.json").read_bytes())
    result = run_cli("new", "--repo", root, "--no-prompt", *args)
    return result.exit_code, result.stdout, result.stderr


def test_new_writes_the_schema_its_modeline_names_when_it_is_missing(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-014.yaml": case("ret-014", "returns")})
    result = run_cli("new", "--repo", root, "--no-prompt", "--slice", "returns", *ANSWERED)
    assert result.exit_code == 0, result.stderr
    first, *schemas = result.stdout.splitlines()
    case_id = written(first + "\n", "golden", "ret-")
    assert schemas == ["wrote schema/case.schema.json, a schema for editors"]
    path = root / f"cases/golden/{case_id}.yaml"
    target = path.read_text(encoding="utf-8").splitlines()[0].split("$schema=", 1)[1]
    schema = (path.parent / target).resolve()
    assert schema.read_bytes() == (REPO_ROOT / "schema" / "case.schema.json").read_bytes()


ANSWERED = (
    "--question",
    "How long do I have to ask for a credit on a damaged parcel?",
    "--expected-answer",
    "14 days",
    "--doc",
    "returns-policy.md",
    "--quote",
    QUOTE,
)


SUFFIX = "[0-9a-hjkmnp-tv-z]{9}"  # docs/new.md: five characters of time, four random


def written(out: str, folder: str, prefix: str) -> str:
    """The id ``goldcase new`` reports writing, after checking the line's shape."""
    match = re.fullmatch(rf"wrote cases/{folder}/({re.escape(prefix)}{SUFFIX})\.yaml\n", out)
    assert match, out
    return match[1]


def test_writes_a_new_id_of_the_slice_with_schema_line_and_hints(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", "returns"),
            "cases/dev/ret-009.yaml": case("ret-009", "returns"),
            "cases/golden/del-020.yaml": case("del-020", "delivery"),
        }
    )
    code, out, err = new(root, "--slice", "returns", "--tag", "numeric", *ANSWERED)
    assert (code, err) == (0, "")
    case_id = written(out, "golden", "ret-")
    assert (root / f"cases/golden/{case_id}.yaml").read_text(encoding="utf-8") == (
        "# yaml-language-server: $schema=../../schema/case.schema.json\n"
        f"id: {case_id}\n"
        "question: How long do I have to ask for a credit on a damaged parcel?\n"
        "answerable: true\n"
        "expected_answer: 14 days\n"
        "support:\n"
        "  - doc: returns-policy.md\n"
        f"    quote: {QUOTE}\n"
        "# expect:                        # partial checks on a free-text answer; all optional\n"
        '#   contains: ["14", ["fourteen", "14"]]  # every entry must appear; a list: any one\n'
        '#   not_contains: ["30 days"]    # a wrong figure an answer once carried\n'
        '#   lead: "yes"                  # the first word, lower-cased\n'
        "# probes:                        # answers to try the checks on (goldcase check)\n"
        '#   pass: ["14 days from delivery"]      # right answers, in other words\n'
        '#   fail: ["30 days", "within 14 weeks"]  # wrong ones: a confusable figure, a negation\n'
        "slice: returns\n"
        "tags: [numeric]\n"
        "# source: hand-written            # transcript | hand-written | synthetic\n"
        "# labelled_by: your-name          # who read the source and wrote this\n"
        "# notes: why this case exists; never used in scoring\n"
    )
    check = run_cli("check", "--repo", root, "--select", "schema", "--select", "support")
    assert check.exit_code == 0, check.stdout
    assert run_cli("fmt", "--repo", root, "--check").exit_code == 0


@pytest.mark.parametrize(
    ("existing", "prefix"),
    [
        (["ret-0099"], "ret-"),  # a sequential id's prefix, without its number
        (["ret-009", "ret-010", "r2-001"], "ret-"),  # the most common prefix of the slice
        (["refund-1h4kq9m2x", "refund-1h4kr0a3b"], "refund-"),
        (["r7", "r8"], "r"),  # no dash: the text before the number
    ],
)
def test_the_id_keeps_the_prefix_of_the_slice(
    make_repo: Maker, existing: list[str], prefix: str
) -> None:
    root = make_repo({f"cases/golden/{i}.yaml": case(i, "returns") for i in existing})
    code, out, _ = new(root, "--slice", "returns", "--unanswerable", "--question", "Who?")
    assert code == 0
    written(out, "golden", prefix)


def test_a_new_slice_gets_a_prefix_from_its_name(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-003.yaml": case("ret-003", "returns")})
    code, out, _ = new(root, "--slice", "unanswerable", "--unanswerable", "--question", "Who?")
    written(out, "golden", "una-")
    code, out, _ = new(root, "--slice", "retail", "--unanswerable", "--question", "Who?")
    assert code == 0
    written(out, "golden", "reta-")  # ret- belongs to returns


def test_name_prefix() -> None:
    assert name_prefix("Returns", set()) == "ret-"
    assert name_prefix("returns", {"ret-", "retu-"}) == "retur-"
    assert name_prefix("returns", {"dev-ret-"}) == "retu-"  # a dev prefix takes it too
    assert name_prefix("--", set()) == "cas-"


def test_a_quote_not_in_the_document_is_refused_with_the_closest_passage(
    make_repo: Maker,
) -> None:
    root = make_repo({})
    args = [a.replace("14 days from", "15 days from") for a in ANSWERED]
    code, out, err = new(root, *args)
    assert (code, out) == (2, "")
    assert err == (
        "error: quote not found verbatim in returns-policy.md; closest passage (line 5): "
        '"A customer has 14 days from delivery to request a credit" — differs at "15" / "14"; '
        "nothing was written\n"
    )
    assert list((root / "cases").rglob("*.yaml")) == []


def test_the_document_is_found_when_only_one_holds_the_quote(make_repo: Maker) -> None:
    root = make_repo({})
    code, out, _ = new(
        root,
        "--question",
        "q?",
        "--expected-answer",
        "7 days",
        "--quote",
        "Parcels we could not deliver are held at the depot for 7 days.",
    )
    assert code == 0
    case_id = written(out, "golden", "cas-")
    text = (root / f"cases/golden/{case_id}.yaml").read_text(encoding="utf-8")
    assert "  - doc: delivery.md\n" in text
    assert "# slice: returns " in text  # no slice given: its hint


def test_a_quote_in_two_documents_needs_doc(make_repo: Maker) -> None:
    root = make_repo({})
    code, _, err = new(
        root,
        "--question",
        "q?",
        "--expected-answer",
        "14 days",
        "--quote",
        "Items bought in a sale can be returned within 14 days.",
    )
    assert code == 2
    assert err == (
        "error: the quote is in delivery.md, returns-policy.md; name one with "
        "--doc, or quote a longer passage\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--question", "q?"], "an answerable case needs --expected-answer"),
        (["--question", "q?", "--expected-answer", "x"], "needs a support quote"),
        (["--unanswerable", "--question", "q?", "--slice", "bad slice"], "slice 'bad slice'"),
        (["--unanswerable"], "the question is blank"),
        (
            ["--unanswerable", "--question", "q?", "--expected-answer", "x"],
            "has no expected answer",
        ),
        (
            ["--question", "q?", "--expected-answer", "x", "--doc", "nope.md", "--quote", "x"],
            "document 'nope.md' is not in corpus/",
        ),
    ],
)
def test_incomplete_or_wrong_input_is_refused(
    make_repo: Maker, args: list[str], message: str
) -> None:
    root = make_repo({})
    code, _, err = new(root, *args)
    assert code == 2
    assert message in err
    assert list((root / "cases").rglob("*.yaml")) == []


def test_prompts_for_what_is_missing(make_repo: Maker) -> None:
    root = make_repo({})
    answers = (
        "returns\nHow long for a damaged parcel?\n14 days\nreturns-policy.md\n"
        "A customer has 15 days\n\n" + QUOTE + "\n"
        "You have 14 days from delivery.\n30 days\n"
    )
    result = CliRunner().invoke(cli, ["new", "--repo", str(root), "--prompt"], input=answers)
    assert result.exit_code == 0, result.output
    assert "error: quote not found verbatim in returns-policy.md" in result.output
    *_, wrote_case, wrote_schema = result.output.splitlines(keepends=True)
    assert wrote_schema.startswith("wrote schema/case.schema.json")  # make_repo has none
    case_id = written(wrote_case, "golden", "ret-")
    text = (root / f"cases/golden/{case_id}.yaml").read_text(encoding="utf-8")
    assert "question: How long for a damaged parcel?\n" in text
    assert f"    quote: {QUOTE}\n" in text
    assert "  - doc: returns-policy.md\n" in text
    assert "probes:\n  pass: [You have 14 days from delivery.]\n  fail: [30 days]\n" in text


def test_the_new_file_gets_the_usual_permissions(make_repo: Maker) -> None:
    import os

    root = make_repo({})
    mask = os.umask(0o022)
    try:
        _, out, _ = new(root, "--unanswerable", "--question", "Who?")
    finally:
        os.umask(mask)
    case_id = written(out, "golden", "cas-")
    assert (root / f"cases/golden/{case_id}.yaml").stat().st_mode & 0o777 == 0o644


def test_dev_cases_do_not_continue_the_golden_numbering(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-014.yaml": case("ret-014", "returns")})
    args = ("--slice", "returns", "--unanswerable", "--question", "Who?")
    written(new(root, "--dev", *args)[1], "dev", "dev-ret-")
    written(new(root, *args)[1], "golden", "ret-")


def test_dev_cases_keep_their_own_prefix(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": case("ret-014", "returns"),
            "cases/dev/dv-ret-003.yaml": case("dv-ret-003", "returns"),
        }
    )
    args = ("--slice", "returns", "--unanswerable", "--question", "Who?")
    written(new(root, "--dev", *args)[1], "dev", "dv-ret-")


def test_two_cases_in_a_row_get_different_ids(make_repo: Maker) -> None:
    root = make_repo({})
    args = ("--slice", "returns", "--unanswerable", "--question", "Who?")
    ids = {written(new(root, *args)[1], "golden", "ret-") for _ in range(5)}
    assert len(ids) == 5
    assert run_cli("check", "--repo", root, "--select", "schema").exit_code == 0


def test_without_doc_a_quote_found_nowhere_shows_the_nearest_document(make_repo: Maker) -> None:
    root = make_repo({})
    code, _, err = new(
        root,
        "--question",
        "q?",
        "--expected-answer",
        "7 days",
        "--quote",
        "Parcels we could not deliver are kept at the depot for 7 days.",
    )
    assert code == 2
    assert err == (
        'error: quote not found verbatim in delivery.md; closest passage (line 6): "Parcels we '
        'could not deliver are held at the depot for 7 days." — differs at "kept" / "held"; '
        "nothing was written\n"
    )


def test_an_empty_corpus_says_no_document_holds_the_quote(make_repo: Maker) -> None:
    root = make_repo({}, corpus=False)
    code, _, err = new(root, "--question", "q?", "--expected-answer", "x", "--quote", "x y")
    assert code == 2
    assert err == (
        'error: no document in corpus/ holds the quote "x y"; copy it verbatim, or '
        "name the document with --doc\n"
    )


def test_doc_and_quote_counts_must_agree(make_repo: Maker) -> None:
    root = make_repo({})
    code, _, err = new(
        root,
        "--question",
        "q?",
        "--expected-answer",
        "x",
        "--doc",
        "a.md",
        "--doc",
        "b.md",
        "--quote",
        "x",
    )
    assert code == 2
    assert err.startswith("error: 2 --doc for 1 --quote")


def test_probes_are_written_and_one_that_does_not_hold_is_a_warning(make_repo: Maker) -> None:
    root = make_repo({})
    probes = ["--pass-probe", "You have 14 days.", "--pass-probe", "Two weeks."]
    code, out, err = new(root, *ANSWERED, *probes, "--fail-probe", "30 days")
    assert code == 0
    case_id = written(out, "golden", "cas-")
    text = (root / f"cases/golden/{case_id}.yaml").read_text(encoding="utf-8")
    assert "probes:\n  pass: [You have 14 days., Two weeks.]\n  fail: [30 days]\n" in text
    assert err == (
        f"warning: cases/golden/{case_id}.yaml: pass-probe 'Two weeks.' fails the case's checks "
        "(expected_answer: '14 days' not in it); write an expect block that holds it "
        "(goldcase check reports it as GC601 / GC602)\n"
    )
    found = run_cli("check", "--repo", root, "--select", "probes")
    assert found.stdout.splitlines()[0].startswith(f"cases/golden/{case_id}.yaml:14:29: GC601 ")


def test_the_nearest_document_is_looked_for_with_the_quote_s_start(
    make_repo: Maker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each document was compared with the whole quote: its length times the square of the
    quote's. Now with the start the closest passage is searched with (2,000 characters at
    most, fewer in a large document; docs/check.md)."""
    root = make_repo({})
    given: list[int] = []
    real = new_module.fuzz.partial_ratio

    def recording(quote: str, text: str) -> float:
        given.append(len(quote))
        return real(quote, text)

    monkeypatch.setattr(new_module.fuzz, "partial_ratio", recording)
    quote = "Parcels we could not deliver are kept at the depot " * 200
    code, _, err = new(root, "--question", "q?", "--expected-answer", "7 days", "--quote", quote)
    assert code == 2 and "closest passage" in err
    assert given and max(given) == 2000
