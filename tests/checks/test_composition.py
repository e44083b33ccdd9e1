"""GC501-GC504, GC506, GC508 (the composition family), from small repositories built in
tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from checks.kit import Repo, brief, family_findings
from composition.kit import case, healthy
from goldcase.context import Context
from goldcase.model import Finding
from kit import run_cli


def findings(root: Path, family: str = "composition") -> list[Finding]:
    return family_findings(root, family)


def test_a_healthy_slice_passes(make_repo: Repo) -> None:
    assert findings(make_repo(healthy())) == []


def test_gc501_slice_under_its_floor_points_at_the_config(make_repo: Repo) -> None:
    files = healthy()
    files.update(
        {
            "cases/golden/x1.yaml": case("x1", slice_name="refunds", answerable=False),
            "cases/golden/x2.yaml": case("x2", slice_name="refunds"),
        }
    )
    found = findings(make_repo(files))
    assert brief(found) == [("goldcase.toml", 1, 1, "GC501", "warning")]
    assert found[0].message == (
        "slice 'refunds' has 2 golden cases; a reported slice needs at least 20: add 18, "
        "or list it in ambiguous_slices"
    )


def test_gc501_finds_its_table_past_a_long_line_that_looks_like_a_header(
    make_repo: Repo,
) -> None:
    """A line of "[a", spaces and no "]" (here in a TOML string) was tried as a table header at
    each end of its name, with a scan of the spaces after it: 4 MB took hours."""
    root = make_repo(healthy())
    (root / "goldcase.toml").write_text(
        'ambiguous_slices = ["""\n[a' + " " * 4_000_000 + 'x\n"""]\n[slices.returns]\nfloor = 25\n',
        encoding="utf-8",
    )
    found = findings(root)
    assert brief(found) == [("goldcase.toml", 4, 1, "GC501", "warning")]


def test_gc501_points_at_the_slice_table_and_uses_its_floor(make_repo: Repo) -> None:
    root = make_repo(healthy())
    (root / "goldcase.toml").write_text(
        "# config\n[composition]\nslice_floor = 10\n\n[slices.returns]\nfloor = 25\n"
        "traffic = 0.5\n",
        encoding="utf-8",
    )
    found = findings(root)
    assert brief(found) == [("goldcase.toml", 5, 1, "GC501", "warning")]
    assert "has 20 golden cases; a reported slice needs at least 25: add 5" in found[0].message


def test_inline_slice_table_and_pyproject_are_found(make_repo: Repo) -> None:
    root = make_repo(healthy())
    (root / "goldcase.toml").unlink()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.goldcase.slices]\nreturns = { floor = 21 }\n',
        encoding="utf-8",
    )
    assert brief(findings(root)) == [("pyproject.toml", 5, 1, "GC501", "warning")]


def test_ambiguous_slices_are_exempt(make_repo: Repo) -> None:
    files = healthy()
    files["cases/golden/x1.yaml"] = case(
        "x1", slice_name="unclear", source="synthetic", answerable=False
    )
    root = make_repo(files)
    (root / "goldcase.toml").write_text('ambiguous_slices = ["unclear"]\n', encoding="utf-8")
    assert findings(root) == []


def test_gc502_synthetic_share_over_the_cap(make_repo: Repo) -> None:
    files = healthy()
    # one more synthetic case: 5 of 21 is 24%, over 1/5
    files["cases/golden/r20.yaml"] = case("r20", source="synthetic", answerable=False)
    found = findings(make_repo(files))
    assert brief(found) == [("goldcase.toml", 1, 1, "GC502", "warning")]
    assert found[0].message.startswith("slice 'returns' is 5/21 synthetic (24%); at most 20%")


def test_gc502_exactly_at_the_cap_passes(make_repo: Repo) -> None:
    # healthy(): 4 of 20 synthetic, exactly 1/5
    assert [f for f in findings(make_repo(healthy())) if f.code == "GC502"] == []


def test_gc503_and_gc504_point_at_the_composition_table(make_repo: Repo) -> None:
    files = {f"cases/golden/a{i}.yaml": case(f"a{i}") for i in range(20)}
    files["cases/golden/u0.yaml"] = case("u0", answerable=False)
    root = make_repo(files)
    (root / "goldcase.toml").write_text("\n[composition]\nslice_floor = 5\n", encoding="utf-8")
    found = findings(root)
    assert brief(found) == [
        ("goldcase.toml", 2, 1, "GC503", "warning"),
        ("goldcase.toml", 2, 1, "GC504", "warning"),
    ]
    assert found[0].message.startswith("1 of 21 golden cases (5%) are unanswerable; expected")


def test_gc503_floor_from_config(make_repo: Repo) -> None:
    root = make_repo(healthy())  # 5 of 20 unanswerable: 25%
    (root / "goldcase.toml").write_text("[composition]\nunanswerable_floor = 0.3\n", "utf-8")
    assert [f.code for f in findings(root)] == ["GC503"]


def test_gc506_traffic_share_but_no_cases(make_repo: Repo) -> None:
    root = make_repo(healthy())
    (root / "goldcase.toml").write_text(
        "[slices.returns]\ntraffic = 0.9\n\n[slices.refunds]\ntraffic = 0.1\n", "utf-8"
    )
    found = findings(root)
    assert brief(found) == [("goldcase.toml", 4, 1, "GC506", "warning")]
    assert found[0].message.startswith("slice 'refunds' is 10% of traffic but has no golden")


def test_gc508_expected_answer_too_long(make_repo: Repo) -> None:
    files = healthy()
    long = "customers have fourteen days from the date of delivery to ask us for a credit"
    files["cases/golden/r19.yaml"] = case("r19", answer=long)  # 15 words
    found = findings(make_repo(files))
    assert brief(found) == [("cases/golden/r19.yaml", 3, 18, "GC508", "warning")]
    assert found[0].message.startswith("expected_answer has 15 words; a fact is at most 12")


def test_gc508_limit_from_config_and_dev_cases_are_not_checked(make_repo: Repo) -> None:
    files = healthy()
    files["cases/dev/d1.yaml"] = case("d1", answer="one two three four five six seven")
    root = make_repo(files)
    (root / "goldcase.toml").write_text("[composition]\nanswer_max_words = 1\n", "utf-8")
    found = findings(root)
    # every answerable golden case says "14 days" (2 words); the dev case is not looked at
    assert {f.code for f in found} == {"GC508"}
    assert len(found) == 15
    assert all(f.path.startswith("cases/golden/") for f in found)


def test_severity_overrides_apply(make_repo: Repo) -> None:
    files = healthy()
    files["cases/golden/x1.yaml"] = case("x1", slice_name="refunds", answerable=False)
    files["cases/golden/x2.yaml"] = case("x2", slice_name="refunds")
    root = make_repo(files)
    (root / "goldcase.toml").write_text('[severity]\nGC501 = "error"\n', "utf-8")
    assert brief(findings(root)) == [("goldcase.toml", 1, 1, "GC501", "error")]
    (root / "goldcase.toml").write_text('[severity]\nGC501 = "off"\n', "utf-8")
    assert findings(root) == []


def test_gc504_alone_when_the_unanswerable_share_is_fine(make_repo: Repo) -> None:
    files = {f"cases/golden/r{i:02d}.yaml": case(f"r{i:02d}", answerable=i >= 5) for i in range(20)}
    found = findings(make_repo(files))  # 5 of 20 unanswerable, none tagged false_premise
    assert brief(found) == [("goldcase.toml", 1, 1, "GC504", "warning")]
    assert found[0].message.startswith(
        "none of the 5 unanswerable golden cases has a false premise; add some tagged"
    )


def test_without_a_config_file_set_findings_point_at_the_golden_folder(make_repo: Repo) -> None:
    files = healthy()
    files["cases/golden/x1.yaml"] = case("x1", slice_name="refunds", answerable=False)
    root = make_repo(files)
    (root / "goldcase.toml").unlink()
    assert sorted(brief(findings(root))) == [
        ("cases/golden", 1, 1, "GC501", "warning"),
        ("cases/golden", 1, 1, "GC511", "warning"),
    ]


def test_check_paths_still_reports_set_findings_once(make_repo: Repo) -> None:
    """The plain pre-commit hook passes the staged case files: a finding about the whole set
    is reported once, whatever files were passed, and findings of other files are not."""
    files = healthy()
    files["cases/golden/x1.yaml"] = case("x1", slice_name="refunds", answerable=False)
    files["cases/golden/x2.yaml"] = case("x2", slice_name="refunds", answerable=False)
    long_answer = " ".join(["word"] * 13)  # GC508 on x3, which is not staged
    files["cases/golden/x3.yaml"] = case("x3", slice_name="refunds", answer=long_answer)
    root = make_repo(files)
    staged = [root / "cases/golden/x1.yaml", root / "cases/golden/x2.yaml"]
    result = run_cli("check", "--repo", root, "--select", "composition", *staged)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "goldcase.toml:1:1: GC501 slice 'refunds' has 3 golden cases; a reported slice needs "
        "at least 20: add 17, or list it in ambiguous_slices",
        "1 warning in 2 case files",
    ]
    everything = run_cli("check", "--repo", root, "--select", "composition")
    codes = [line.split(": ")[1].split()[0] for line in everything.stdout.splitlines()[:-1]]
    assert sorted(codes) == ["GC501", "GC508"]


# -- GC510, GC511: what a slice's cases expect; GC512: who decided a resolution ---------------


def test_gc510_a_slice_without_a_question_the_corpus_cannot_answer(make_repo: Repo) -> None:
    files = healthy()
    for i in range(2, 5):  # the three unanswerable cases that are not false premises
        files[f"cases/golden/r{i:02d}.yaml"] = case(f"r{i:02d}")
    root = make_repo(files)
    config = '[slices.returns]\nfloor = 20\n[severity]\nGC503 = "off"  # 2 of 20 now\n'
    (root / "goldcase.toml").write_text(config, "utf-8")
    found = findings(root)
    assert brief(found) == [("goldcase.toml", 1, 1, "GC510", "warning")]
    assert found[0].message.startswith(
        "slice 'returns' has no unanswerable case that is not a false premise"
    )


def test_gc511_a_slice_whose_every_case_expects_an_abstention(make_repo: Repo) -> None:
    files = healthy()
    files.update(
        {f"cases/golden/o{i:02d}.yaml": case(f"o{i:02d}", slice_name="oos", answerable=False)
         for i in range(20)}
    )  # fmt: skip
    found = findings(make_repo(files))
    assert brief(found) == [("goldcase.toml", 1, 1, "GC511", "warning")]
    assert "a system that always abstains passes it" in found[0].message
    files["cases/golden/o05.yaml"] = case("o05", slice_name="oos")  # one it can answer
    assert findings(make_repo(files)) == []


def test_gc510_and_gc511_take_their_severity_from_the_config(make_repo: Repo) -> None:
    files = healthy()
    files.update(
        {f"cases/golden/o{i:02d}.yaml": case(f"o{i:02d}", slice_name="oos", answerable=False)
         for i in range(20)}
    )  # fmt: skip
    root = make_repo(files)
    (root / "goldcase.toml").write_text('[severity]\nGC511 = "error"\n', "utf-8")
    assert brief(findings(root)) == [("goldcase.toml", 1, 1, "GC511", "error")]
    (root / "goldcase.toml").write_text('[severity]\nGC511 = "off"\n', "utf-8")
    assert findings(root) == []


def test_gc512_a_resolution_that_names_no_one(make_repo: Repo) -> None:
    files = healthy()
    files["cases/golden/r10.yaml"] = case("r10", extra="resolution: counts from delivery")
    files["cases/dev/d1.yaml"] = case("d1", extra="resolution:\n  rule: x\n  decided_by: lee")
    found = findings(make_repo(files))
    assert brief(found) == [("cases/golden/r10.yaml", 9, 13, "GC512", "warning")]
    assert found[0].message == (
        "resolution names no one who decided; write resolution: {rule: ..., decided_by: ...} "
        "with the role that owns the decision"
    )


@pytest.mark.parametrize(
    "resolution",
    [
        "resolution:\n  rule: counts from delivery\n",  # no one named
        "resolution:\n  rule: x\n  decided_by: lee\n  when: today\n",  # an unknown key
        "resolution:\n  rule: ' '\n  decided_by: lee\n",  # a blank rule
    ],
)
def test_a_resolution_table_needs_its_rule_and_who_decided(
    make_repo: Repo, resolution: str
) -> None:
    root = make_repo({"cases/golden/r1.yaml": case("r1", extra=resolution.rstrip())})
    assert [f.code for f in findings(root, "schema")] == ["GC107"]


@pytest.mark.parametrize(
    ("resolution", "message"),
    [
        ("resolution:\n  rule: x", "missing required key 'decided_by' in resolution"),
        ("resolution:\n  rule: x\n  decided_by: ' '", "resolution.decided_by is blank"),
        ("resolution: 5", "resolution should be {rule: ..., decided_by: ...}, got int 5"),
    ],
)
def test_a_malformed_resolution_is_explained(
    make_repo: Repo, resolution: str, message: str
) -> None:
    root = make_repo({"cases/golden/r1.yaml": case("r1", extra=resolution)})
    assert [f.message for f in findings(root, "schema")] == [message]


def test_the_config_is_read_once_for_the_tables_of_many_slices(
    make_repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each slice's finding searched the whole config for its table, read afresh: a config of
    100,000 slice tables (4.5 MB, each with a share and no golden case, GC506) ran over two
    minutes. The config is read and indexed once; each finding still points at its table."""
    root = make_repo(healthy())
    tables = "".join(f"[slices.s{i}]\ntraffic = 0.001\n" for i in range(200))
    (root / "goldcase.toml").write_text(tables, encoding="utf-8")
    reads: list[str] = []
    read_bytes = Context.read_bytes

    def counted(self: Context, rel: str) -> bytes:
        if rel == "goldcase.toml":
            reads.append(rel)
        return read_bytes(self, rel)

    monkeypatch.setattr(Context, "read_bytes", counted)
    found = [f for f in findings(root) if f.code == "GC506"]
    assert [(f.line, f.message.split("'")[1]) for f in found] == [
        (1 + 2 * i, f"s{i}") for i in range(200)
    ]
    assert len(reads) <= 2  # the slices' tables once, the composition table once


def test_a_huge_slice_name_is_quoted_cut(make_repo: Repo) -> None:
    """docs/composition.md: a finding names its slice; the schema sets no length on a slice
    name, and a 100 kB one made a 100 kB finding line. It is quoted cut to one short line."""
    name = "refunds-" + "x" * 100_000
    files = healthy()
    files.update(
        {
            "cases/golden/x1.yaml": case("x1", slice_name=name, answerable=False),
            "cases/golden/x2.yaml": case("x2", slice_name=name),
        }
    )
    found = [f for f in findings(make_repo(files)) if f.code == "GC501"]
    assert len(found) == 1
    message = found[0].message
    assert message.startswith("slice 'refunds-xxx")
    assert "…" in message
    assert len(message) < 300
    assert message.endswith(
        "a reported slice needs at least 20: add 18, or list it in ambiguous_slices"
    )
