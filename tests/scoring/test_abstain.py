"""goldcase.scoring.abstain: the default patterns, and the JavaScript the promptfoo export
carries, which says the same as Python on the same texts (run in Node when there is one)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from goldcase.config import ABSTAIN_PATTERNS
from goldcase.scoring.abstain import abstains, javascript_regexp

ABSTAIN = [
    "I don't know.",
    "i dont know",
    "I do not know what the policy says.",
    "Sorry, I don’t know.",
    "I can't answer that from Brightwater's documents.",
    "I cannot answer that.",
    "I am unable to answer this question.",
    "The documents do not say.",
    "The context doesn't mention a student discount.",
]
ANSWER = [
    "You have 30 days; I don't know of any exception.",
    "Yes. Refunds are paid within 5 days.",
    "No, the documents say 14 days.",
    "",
    "I know: 30 days.",
]


@pytest.mark.parametrize("text", ABSTAIN)
def test_abstentions(text: str) -> None:
    assert abstains(text, ABSTAIN_PATTERNS)


@pytest.mark.parametrize("text", ANSWER)
def test_answers(text: str) -> None:
    assert not abstains(text, ABSTAIN_PATTERNS)


def test_no_patterns_means_no_abstention_by_text() -> None:
    assert not abstains("I don't know.", ())
    assert javascript_regexp(()) == "null"


def test_the_javascript_agrees_with_python() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    texts = ABSTAIN + ANSWER
    program = (
        f"const texts = {json.dumps(texts)};\n"
        f"const abstain = {javascript_regexp(ABSTAIN_PATTERNS)};\n"
        "console.log(JSON.stringify(texts.map(output => abstain.test(output))));"
    )
    done = subprocess.run([node, "-e", program], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [abstains(t, ABSTAIN_PATTERNS) for t in texts]
