"""goldcase.interchange.promptfoo_grader: the exported JavaScript assertion, run in Node as
promptfoo runs it (a function of ``output`` and ``context``), grades every output as
``goldcase score --from promptfoo`` grades it: the sample set's cases with their questions,
expected answers and probes, cases that use every check, structured responses, and seeded
random needles and answers in the characters the folds and word edges turn on. (The real
promptfoo runs the export in test_promptfoo_client.py.)"""

from __future__ import annotations

import json
import random
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any

import pytest

from goldcase.commands.common import open_context
from goldcase.config import ABSTAIN_PATTERNS
from goldcase.engine import load_case_set
from goldcase.interchange.converted import Converted
from goldcase.interchange.promptfoo_grader import grader_config, grader_javascript
from goldcase.model import Case
from goldcase.scoring.expect import _framed, fold
from goldcase.scoring.outcomes import CaseGrader
from goldcase.scoring.results import Result
from kit import REPO_ROOT, run_node

# promptfoo builds a multi-line javascript assertion as new Function('output', 'context',
# 'process', value) and passes the assertion's config as context.config
HARNESS = """\
const grade = new Function('output', 'context', 'process', INPUT.code);
const graded = INPUT.items.map(([config, output]) => grade(output, { config }, {}));
console.log(JSON.stringify(graded.map((g) => [g.pass, g.score, g.reason])));
"""
Item = tuple[Case, Any]


def case(data: dict[str, Any]) -> Case:
    return Case(f"cases/golden/{data['id']}.yaml", "golden", {"answerable": True, **data})


def in_javascript(items: Sequence[Item], patterns: Sequence[str] = ABSTAIN_PATTERNS) -> list[Any]:
    code = grader_javascript(patterns)
    graded = run_node(HARNESS, {"code": code, "items": [[grader_config(c), o] for c, o in items]})
    return [tuple(g) for g in graded]


def in_goldcase(items: Sequence[Item], patterns: Sequence[str] = ABSTAIN_PATTERNS) -> list[Any]:
    """What goldcase score --from promptfoo gives each output."""
    out = []
    for c, output in items:
        converted = Converted()
        converted.add(c.id, 1, output, 0.0, patterns)
        graded = CaseGrader(c).grade([Result(1, converted.lines[0])])
        failed = ", ".join(graded.failed)
        reason = f"goldcase: failed {failed}" if failed else "goldcase: passed"
        out.append((graded.passed, int(graded.passed), reason))
    return out


def disagreements(items: Sequence[Item], patterns: Sequence[str] = ABSTAIN_PATTERNS) -> list[Any]:
    theirs, ours = in_javascript(items, patterns), in_goldcase(items, patterns)
    assert len(theirs) == len(ours) == len(items)
    return [(c.id, o, t, g) for (c, o), t, g in zip(items, theirs, ours, strict=True) if t != g]


def sample_cases() -> list[Case]:
    return list(load_case_set(open_context(REPO_ROOT)).cases)


def sample_outputs(c: Case) -> list[Any]:
    probes = c.data.get("probes") or {}
    texts = [c.question, str(c.expected_answer or "")]
    texts += [*probes.get("pass", ()), *probes.get("fail", ())]
    structured = [{"answer": t, "citations": [{"id": "x#1", "text": "policy.md"}]} for t in texts]
    return [*texts, "I don't know.", *(json.dumps(s) for s in structured[:2]), *structured[2:3]]


def test_every_sample_case_grades_alike_on_its_question_answer_and_probes() -> None:
    items = [(c, output) for c in sample_cases() for output in sample_outputs(c)]
    assert len(items) > 1000
    assert disagreements(items) == []


SYNTHETIC = [
    case({"id": "s-cites", "expect": {"cites": "returns-and-credits", "cites_id": "RC-4"}}),
    case({"id": "s-cites-15", "expect": {"cites": "15"}}),
    case({"id": "s-scope", "expect": {"scope": "UK  Mainland", "fact": "window_30_days"}}),
    case({"id": "s-words", "expect": {"contains": ["lose", ["RW", "inc"], "14", "£19"]}}),
    case({"id": "s-not", "expect": {"not_contains": ["24 months", "can", "10%"]}}),
    case({"id": "s-lead", "expect": {"lead": ["no", "nope", "sadly"], "contains": ["1,000"]}}),
    case({"id": "s-yes", "expect": {"lead": "Yes"}}),
    case({"id": "s-default", "expected_answer": "1.5 litres"}),
    case({"id": "s-the", "expected_answer": "The Straße"}),
    case({"id": "s-no-answer"}),
    case({"id": "s-unicode", "expect": {"contains": ["STRASSE", "ΟΔΟΣ", "１５", "“it”", "a–b"]}}),
    case({"id": "s-una", "answerable": False, "tags": ["unanswerable"]}),
    case(
        {
            "id": "s-premise",
            "answerable": False,
            "tags": ["false_premise"],
            "expect": {"lead": ["no", "sorry"], "contains": ["£25"]},
        }
    ),
    case({"id": "s-premise-untagged", "answerable": False, "expect": {"contains": ["£25"]}}),
]
TEXTS = [
    "You lose your points: RW 1, 14 days, £19",
    "If you close it, since 14 days, £19",  # lose and inc only inside words
    "You lose your points",
    "If you close your account your points are kept",
    "It starts with WR, otherwise fine",
    "A reference like RW 123456, a 14-day window (£19).",
    "Prices have not changed since 2020; 14 days; £19",
    "12 months, not 24 months",
    "You can't cancel; 10% off",
    "You can cancel, 10%",
    "No, 1,000 points.",
    "Nope. 1000 points",
    "**Sadly** 1,000 points",
    "Yes.",
    "yes, you're inside the seven days",
    "I don't know.",
    "1.5 litres",
    "15 litres",
    "the straße",
    "The Strasse, ὈΔΌΣ and １５ and \u201cit\u201d, a\u2013b",
    'strasse οδοσ 15 "it" a-b',
    "No, the late fee is £25.",
    "Sorry - £250",
    "",
    "   \n",
]
STRUCTURED: list[Any] = [
    {"answer": "see 4.2", "citations": [{"id": "RC-4.2", "text": "returns-and-credits-policy.md"}]},
    {"answer": "see", "citations": [{"id": "rc-4", "text": "policy-150.md"}, {"text": "15."}]},
    {"answer": "x", "citations": [{"id": "RC-44"}, {"text": "returns-and-credit"}]},
    {"fact": "window_30_days", "scope": "uk mainland"},
    {"fact": "window_30_days ", "scope": "uk mainland", "answer": "No, 1,000"},
    {"outcome": "abstain"},
    {"outcome": "abstain", "answer": "No, 1,000"},
    {"answer": "I don't know."},
    {"error": "boom"},
    {"error": None, "answer": "You lose your points"},
    {"outcome": "answer"},
    {"outcome": "maybe", "answer": "yes"},
    {"outcome": "answer", "answer": "No, the late fee is £25."},
]
# what a command-line provider prints: JSON text, a response or not, and outputs that are no text
OUTPUTS: list[Any] = [
    *TEXTS,
    *STRUCTURED,
    *(json.dumps(s) for s in STRUCTURED),
    "\n  " + json.dumps(STRUCTURED[0]) + "\n",
    '{"answer": "No, 1,000"',  # not JSON: the text itself
    '{"answer": NaN}',
    None,
    17,
]


def test_every_check_and_output_kind_grades_alike() -> None:
    items = [(c, output) for c in SYNTHETIC for output in OUTPUTS]
    assert disagreements(items) == []


def test_the_patterns_of_the_config_decide_abstentions() -> None:
    unanswerable = next(c for c in SYNTHETIC if c.id == "s-una")
    items = [(unanswerable, text) for text in ("No idea.", "I don't know.", "no idea, £25")]
    assert disagreements(items, ("^no idea\\b",)) == []
    assert [g[0] for g in in_javascript(items, ("^no idea\\b",))] == [True, False, True]
    assert disagreements(items, ()) == []


ALPHABET = "ab Ab15.,-–’'\"“§ＡＢ１\u00a0\u2028\t\n\x1cßΣς£%"


def random_items(seed: int, count: int) -> list[Item]:
    rng = random.Random(seed)

    def text(most: int) -> str:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, most)))

    items: list[Item] = []
    for n in range(count):
        expect: dict[str, Any] = {}
        if rng.random() < 0.7:
            expect["contains"] = [text(5) if rng.random() < 0.6 else [text(5), text(4)]]
        if rng.random() < 0.4:
            expect["not_contains"] = [text(4)]
        if rng.random() < 0.3:
            expect["lead"] = [text(4), text(3)] if rng.random() < 0.5 else text(4)
        data = {"id": f"r-{n}", "expected_answer": text(8), "expect": expect}
        items.append((case(data), text(24)))
    return items


def test_seeded_random_needles_and_answers_grade_alike() -> None:
    items = random_items(20261201, 3000)
    assert sum(c.expect == {} for c, _ in items) > 100  # the expected-answer rule is among them
    assert disagreements(items) == []


FOLD_PROGRAM = """\
const grade = new Function('output', 'context', 'process',
  INPUT.code.split('\\nfunction structured')[0] + '\\nreturn [fold, framed];');
const [fold, framed] = grade('', { config: {} }, {});
console.log(JSON.stringify(INPUT.texts.map((t) => [fold(t), framed(t)])));
"""


def test_the_folds_agree_on_every_character_python_knows() -> None:
    assigned = [chr(c) for c in range(sys.maxunicode + 1)]
    texts = [c for c in assigned if unicodedata.category(c) not in ("Cn", "Cs")]
    texts += ["ΟΔΟΣ ΟΔΟΣ.", "ὈΔΌΣ", "İstanbul", "ǅemal", "ﬁne ﬀ", "x\u0345y", "1.5, 2,000. the"]
    folded = run_node(FOLD_PROGRAM, {"code": grader_javascript(()), "texts": texts})
    different = [(t, f) for t, f in zip(texts, folded, strict=True) if f != [fold(t), _framed(t)]]
    assert different == []


@pytest.mark.parametrize("needle", ["{{ env.HOME }}", "{% raw %}", "{#x#}", "@SPACE@ @CHECKS@"])
def test_no_code_or_config_reads_as_a_template_tag(needle: str) -> None:
    """promptfoo renders the assertion's code with Nunjucks, and in its config the templates
    that name env: neither may hold a tag that comes from a case or the config."""
    c = case({"id": "t", "expect": {"contains": [needle], "cites_id": needle, "scope": needle}})
    code = grader_javascript([needle])
    assert not any(tag in code for tag in ("{{", "{%", "{#"))
    assert "{{" not in json.dumps(grader_config(c))
    assert disagreements([(c, needle), (c, "x")], [needle]) == []
