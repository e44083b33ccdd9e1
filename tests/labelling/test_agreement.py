"""Second-labeller agreement: intervals and kappa against hand computation, the stratified
sample, the report and the command."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.labelling.agreement import agreement_summary, build_report, cohen_kappa, wilson
from goldcase.labelling.labels import allocate, draw_sample
from goldcase.model import Case, CaseSet
from kit import run_cli

Repo = Callable[..., Path]


def test_wilson_27_of_30() -> None:
    # z = 1.96, n = 30, p = 0.9: z^2 = 3.8415; denominator 1 + 3.8415/30 = 1.12805;
    # centre (0.9 + 3.8415/60) / 1.12805 = 0.964025 / 1.12805 = 0.85460;
    # half 1.96 * sqrt(0.09/30 + 3.8415/3600) / 1.12805 = 1.96 * 0.063774 / 1.12805 = 0.11081;
    # so 0.7438 to 0.9654.
    lo, hi = wilson(27, 30) or (0.0, 0.0)
    assert lo == pytest.approx(0.7438, abs=5e-4)
    assert hi == pytest.approx(0.9654, abs=5e-4)


def test_wilson_all_and_none() -> None:
    # k = n = 10: centre (1 + 0.19207) / 1.38415 = 0.86123, half 1.96 * sqrt(0.0096036) /
    # 1.38415 = 0.13877, so 0.7225 to 1.
    lo, hi = wilson(10, 10) or (0.0, 0.0)
    assert lo == pytest.approx(0.7225, abs=5e-4)
    assert hi == pytest.approx(1.0)
    assert wilson(0, 0) is None


def test_kappa_on_30_items() -> None:
    # both true 20, both false 6, case true / label false 2, case false / label true 2.
    # p_o = 26/30; each rater says true on 22/30, so p_e = (22/30)^2 + (8/30)^2 = 548/900.
    # kappa = (780/900 - 548/900) / (352/900) = 232/352 = 29/44 = 0.65909.
    # se = sqrt(p_o (1 - p_o) / (n (1 - p_e)^2)) = sqrt((104/900) / (30 * (352/900)^2))
    #    = sqrt(0.115556 / 4.589037) = 0.15869; 1.96 * se = 0.31103: 0.3481 to 0.9701.
    pairs = [(True, True)] * 20 + [(False, False)] * 6 + [(True, False)] * 2 + [(False, True)] * 2
    k = cohen_kappa(pairs)
    assert k is not None and k.kappa is not None and k.interval is not None
    assert k.observed == pytest.approx(26 / 30)
    assert k.expected == pytest.approx(548 / 900)
    assert k.kappa == pytest.approx(29 / 44)
    assert k.se == pytest.approx(0.15869, abs=1e-5)
    assert k.interval[0] == pytest.approx(0.3481, abs=5e-4)
    assert k.interval[1] == pytest.approx(0.9701, abs=5e-4)


def test_kappa_perfect_and_undefined() -> None:
    # perfect agreement with both values used: p_o = 1, p_e = 0.5, kappa = 1, se = 0; the
    # interval is Wilson's for 2 of 2, (0.34237, 1), through (p - 0.5) / 0.5: (-0.31526, 1)
    k = cohen_kappa([(True, True), (False, False)])
    assert k is not None and k.kappa == 1.0 and k.se == 0
    assert k.interval is not None
    assert k.interval[0] == pytest.approx(-0.31526, abs=1e-4) and k.interval[1] == 1.0
    # 20 items true for both and 10 false for both: p_e = (2/3)^2 + (1/3)^2 = 5/9; Wilson for
    # 30 of 30 is (0.88648, 1): kappa interval ((0.88648 - 5/9) / (4/9), 1) = (0.74459, 1)
    k = cohen_kappa([(True, True)] * 20 + [(False, False)] * 10)
    assert k is not None and k.kappa == pytest.approx(1.0) and k.interval is not None
    assert k.interval[0] == pytest.approx(0.74459, abs=1e-4) and k.interval[1] == 1.0
    # every item true for both: p_e = 1, kappa undefined
    k = cohen_kappa([(True, True)] * 5)
    assert k is not None and k.kappa is None and k.interval is None
    assert cohen_kappa([]) is None


def test_allocate_by_hand() -> None:
    # sizes 20, 12, 6, 2 (40 cases), n = 10: one each (4), 6 left over the spare 19, 11, 5, 1
    # (36): shares 3.17, 1.83, 0.83, 0.17 -> floors 3, 1, 0, 0 (4 more, 8 in all); the two
    # largest remainders (0.83, 0.83) go to (answerable, b) and (unanswerable, a).
    sizes = {
        ("answerable", "a"): 20,
        ("answerable", "b"): 12,
        ("unanswerable", "a"): 6,
        ("unanswerable", "b"): 2,
    }
    assert allocate(sizes, 10) == {
        ("answerable", "a"): 4,
        ("answerable", "b"): 3,
        ("unanswerable", "a"): 2,
        ("unanswerable", "b"): 1,
    }
    assert allocate(sizes, 100) == sizes
    assert sum(allocate(sizes, 3).values()) == 3


def make_cases(n: int) -> list[Case]:
    out = []
    for i in range(n):
        data = {"id": f"c{i:03d}", "question": "q", "slice": "ab"[i % 2]}
        if i % 4 == 0:
            data["answerable"] = False  # type: ignore[assignment]
        out.append(Case(f"cases/golden/c{i:03d}.yaml", "golden", data))
    return out


def test_draw_sample_is_deterministic_and_stratified() -> None:
    cases = make_cases(40)
    first = [c.id for c in draw_sample(cases, 10, "7")]
    assert first == [c.id for c in draw_sample(list(reversed(cases)), 10, "7")]
    assert first != [c.id for c in draw_sample(cases, 10, "8")]
    assert len(first) == 10
    chosen = [c for c in cases if c.id in first]
    # strata: (answerable, a) 10, (answerable, b) 20, (unanswerable, a) 10 -> 1 each, then 7
    # over spare 9, 19, 9 (37): 1.70, 3.59, 1.70 -> 1, 3, 1 and the two largest remainders
    # (0.70, 0.70) to the two 'a' strata: 3, 4, 3
    assert sum(not c.answerable for c in chosen) == 3
    assert sum(c.answerable and c.slice == "a" for c in chosen) == 3


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def answerable_case(case_id: str, answer: str = "14 days", extra: str = "") -> str:
    return (
        f"id: {case_id}\nquestion: how long for {case_id}\nexpected_answer: {answer}\n"
        "support:\n  - doc: returns-policy.md\n"
        "    quote: A customer has 14 days from delivery to request a credit\n" + extra
    )


def unanswerable_case(case_id: str) -> str:
    return f"id: {case_id}\nquestion: what about {case_id}\nanswerable: false\n"


@pytest.fixture
def labelled(make_repo: Repo) -> Path:
    """Four answerable and two unanswerable cases; lee labels five of them, one pending."""
    root = make_repo(
        {
            **{f"cases/golden/a{i}.yaml": answerable_case(f"a{i}") for i in range(4)},
            "cases/golden/u0.yaml": unanswerable_case("u0"),
            "cases/golden/u1.yaml": unanswerable_case("u1"),
        }
    )
    write(root, "labels/lee/a0.yaml", "id: a0\nanswerable: true\nexpected_answer: 14 Days\n")
    write(root, "labels/lee/a1.yaml", "id: a1\nanswerable: true\nexpected_answer: 30 days\n")
    write(root, "labels/lee/a2.yaml", "id: a2\nanswerable: false\n")
    write(root, "labels/lee/u0.yaml", "id: u0\nanswerable: false\n")
    write(root, "labels/lee/u1.yaml", "id: u1\nanswerable:\nexpected_answer:\n")
    return root


def ctx_of(root: Path) -> Context:
    return Context(load_config(root), Cache(None))


def loaded(root: Path) -> tuple[Context, CaseSet]:
    ctx = ctx_of(root)
    return ctx, load_case_set(ctx)


def test_report_counts(labelled: Path) -> None:
    report = build_report(*loaded(labelled))
    # compared: a0 (agree), a1 (answer differs), a2 (answerable differs), u0 (agree)
    assert report["items"] == 4
    assert report["pending"] == 1
    assert report["agreement"]["agree"] == 2
    assert report["agreement"]["rate"] == 0.5
    # answers: a0 and a1 are answerable for both; a0 agrees after normalising
    assert report["expected_answers"]["agree"] == 1
    assert report["expected_answers"]["of"] == 2
    # answerable pairs (case, label): (T,T) (T,T) (T,F) (F,F): p_o = 3/4;
    # case true 3/4, label true 2/4: p_e = 3/8 + 1/8 = 1/2; kappa = (3/4 - 1/2) / (1/2) = 1/2
    assert report["kappa_answerable"]["kappa"] == pytest.approx(0.5)
    assert [(d["id"], d["fields"], d["resolved"]) for d in report["disagreements"]] == [
        ("a1", ["expected_answer"], False),
        ("a2", ["answerable"], False),
    ]


def test_agreement_summary(labelled: Path, make_repo: Repo) -> None:
    summary = agreement_summary(*loaded(labelled))
    assert summary is not None
    assert (summary["items"], summary["agreements"], summary["rate"]) == (4, 2, 0.5)
    assert summary["unresolved"] == 2
    assert summary["labellers"] == ["lee"]
    lo, hi = summary["interval"]
    # Wilson for 2 of 4: centre (0.5 + 0.48021) / 1.96036 = 0.5; half
    # 1.96 * sqrt(0.0625 + 0.060021) / 1.96036 = 0.34998: 0.1500 to 0.8500
    assert lo == pytest.approx(0.1500, abs=5e-4)
    assert hi == pytest.approx(0.8500, abs=5e-4)


def test_agreement_summary_without_labels(make_repo: Repo) -> None:
    root = make_repo({"cases/golden/a0.yaml": answerable_case("a0")})
    assert agreement_summary(*loaded(root)) is None


def test_agreement_command_text_and_json(labelled: Path) -> None:
    result = run_cli("agreement", "--repo", labelled)
    assert result.exit_code == 1  # two unresolved disagreements
    lines = result.stdout.splitlines()
    assert lines[0] == "labeller: lee; items compared: 4; pending: 1"
    assert lines[1].startswith("agreement (the ceiling for model scores): 2/4 = 50.0%")
    assert "  a2 [UNRESOLVED] answerable: case true, label false (labels/lee/a2.yaml)" in lines
    data = json.loads(run_cli("agreement", "--repo", labelled, "--format", "json").stdout)
    assert data["agreement"]["agree"] == 2


def test_agreement_command_resolved_exits_0(labelled: Path) -> None:
    for name in ("a1", "a2"):
        path = labelled / "cases" / "golden" / f"{name}.yaml"
        path.write_text(
            path.read_text("utf-8") + "resolution: the policy text decides, not the FAQ\n",
            encoding="utf-8",
        )
    result = run_cli("agreement", "--repo", labelled, "--labeller", "lee")
    assert result.exit_code == 0
    assert "  a1 [resolved]" in result.stdout


LINKED = (
    "GC509 a link to a folder, which goldcase does not follow, so no label file behind it is "
    "read; label files live in labels/<labeller>/<id>.yaml, folders and files of their own: "
    "replace the link with what it leads to"
)


def test_a_link_to_a_folder_among_the_labels_is_reported_not_passed_over(
    labelled: Path, tmp_path: Path
) -> None:
    """A labeller's folder committed as a link, or a link where a label file would be: the
    walk of labels/ listed it among the folders and did not enter it, so its labels dropped
    out of the count without a word (``--labeller bob`` said there were no label files)."""
    outside = tmp_path / "outside"
    write(outside, "bob/a3.yaml", "id: a3\nanswerable: false\n")
    (labelled / "labels" / "bob").symlink_to(outside / "bob", target_is_directory=True)
    (labelled / "labels" / "lee" / "a3.yaml").symlink_to(outside, target_is_directory=True)
    result = run_cli("agreement", "--repo", labelled)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "labeller: lee; items compared: 4; pending: 1"
    assert result.stdout.endswith(f"labels/bob:1:1: {LINKED}\nlabels/lee/a3.yaml:1:1: {LINKED}\n")
    result = run_cli("agreement", "--repo", labelled, "--labeller", "bob")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout.splitlines()[0] == "labeller: bob; items compared: 0; pending: 0"
    assert result.stdout.endswith(f"disagreements: 0\nlabels/bob:1:1: {LINKED}\n")


def test_label_sample_writes_blank_files_and_refuses_to_overwrite(make_repo: Repo) -> None:
    root = make_repo(
        {
            **{f"cases/golden/a{i}.yaml": answerable_case(f"a{i}") for i in range(6)},
            **{f"cases/golden/u{i}.yaml": unanswerable_case(f"u{i}") for i in range(2)},
        }
    )
    result = run_cli("label", "sample", "--n", "4", "--seed", "s1", "--repo", root)
    assert result.exit_code == 0, result.stderr
    written = sorted((root / "labels" / "second").glob("*.yaml"))
    assert len(written) == 4
    # two strata (answerable 6, unanswerable 2): one each, then 2 over spare 5 and 1 ->
    # 1.67 and 0.33 -> 1 and 0, the last by remainder to the answerable stratum: 3 and 1
    assert sum(p.stem.startswith("u") for p in written) == 1
    text = written[0].read_text("utf-8")
    assert "answerable:\n" in text and "expected_answer:\n" in text and "expect:\n" in text
    # a blank label is pending: no finding, nothing compared
    check = run_cli("check", "--repo", root, "--select", "labelling")
    assert "GC509" not in check.stdout and "GC507" not in check.stdout
    again = run_cli("label", "sample", "--n", "4", "--seed", "s1", "--repo", root)
    assert again.exit_code == 2
    assert again.stderr.startswith("error: label files exist already: labels/second/")
    assert sorted((root / "labels" / "second").glob("*.yaml")) == written


def test_label_sample_without_golden_cases(make_repo: Repo) -> None:
    result = run_cli("label", "sample", "--seed", "1", "--repo", make_repo())
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no valid golden case to sample")


def test_agreement_without_labels_says_how_to_start(make_repo: Repo) -> None:
    root = make_repo({"cases/golden/a0.yaml": answerable_case("a0")})
    result = run_cli("agreement", "--repo", root)
    assert result.exit_code == 0
    assert "labeller: no labeller; items compared: 0; pending: 0" in result.stdout
    assert "no label files under labels/: run goldcase label sample" in result.stdout


def test_label_sample_takes_every_case_when_n_is_larger(make_repo: Repo) -> None:
    root = make_repo({f"cases/golden/a{i}.yaml": answerable_case(f"a{i}") for i in range(3)})
    result = run_cli(
        "label", "sample", "--n", "30", "--seed", "x", "--labeller", "kim", "--repo", root
    )
    assert result.exit_code == 0
    assert sorted(p.name for p in (root / "labels" / "kim").iterdir()) == [
        "a0.yaml",
        "a1.yaml",
        "a2.yaml",
    ]


def test_label_sample_refuses_a_bad_labeller_name(make_repo: Repo) -> None:
    root = make_repo({"cases/golden/a0.yaml": answerable_case("a0")})
    result = run_cli("label", "sample", "--seed", "x", "--labeller", "../up", "--repo", root)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: labeller name '../up' may hold only letters")
    assert not (root / "labels").exists()


def test_a_label_answer_agrees_when_it_would_pass_the_case(make_repo: Repo) -> None:
    """The label's answer is graded as a system's answer would be: on the case's text checks
    (contains, not_contains, lead), or on the case's answer as a run of whole words when the
    case declares none. Checks that need a system's citations are not applied to a label."""
    root = make_repo(
        {
            "cases/golden/a0.yaml": answerable_case(
                "a0",
                "Yes, claims are accepted within 7 days",
                'expect:\n  contains: ["yes", "7"]\n',
            ),
            "cases/golden/a1.yaml": answerable_case("a1", "24 months from purchase"),
            "cases/golden/a2.yaml": answerable_case(
                "a2", "14 days", 'expect:\n  contains: ["14"]\n  cites: "§ 3"\n'
            ),
        }
    )
    write(root, "labels/lee/a0.yaml", "id: a0\nanswerable: true\nexpected_answer: Yes, 7 days\n")
    write(
        root,
        "labels/lee/a1.yaml",
        "id: a1\nanswerable: true\nexpected_answer: Within 24 months from purchase.\n",
    )
    write(root, "labels/lee/a2.yaml", "id: a2\nanswerable: true\nexpected_answer: two weeks, 14\n")
    write(root, "labels/kim/a0.yaml", "id: a0\nanswerable: true\nexpected_answer: 'Yes'\n")
    write(root, "labels/kim/a1.yaml", "id: a1\nanswerable: true\nexpected_answer: 24 months\n")
    report = build_report(*loaded(root))
    # lee passes all three; kim's bare "Yes" lacks the 7, and "24 months" lacks "from purchase"
    assert (report["items"], report["agreement"]["agree"]) == (5, 3)
    assert (report["expected_answers"]["agree"], report["expected_answers"]["of"]) == (3, 5)
    details = {(d["labeller"], d["id"]): d["detail"] for d in report["disagreements"]}
    assert sorted(details) == [("kim", "a0"), ("kim", "a1")]
    assert details["kim", "a0"].endswith(
        "label 'Yes' (the label's answer fails the case's contains)"
    )
    assert details["kim", "a1"] == (
        "expected_answer: case '24 months from purchase', label '24 months' "
        "(the case's answer is not in the label's)"
    )
