"""The SQuAD v2.0 evaluation script's answer normalisation, exact match and token F1, written
out plainly from its definition (evaluate-v2.0.py: normalize_answer, get_tokens,
compute_exact, compute_f1), as the reference goldcase's metrics are held to."""

from __future__ import annotations

import re
import string
from collections import Counter


def normalize(text: str) -> str:
    """Lower case; drop every character of string.punctuation; the words a, an, the become a
    space; white space runs become one space."""
    lowered = text.lower()
    kept = "".join(ch for ch in lowered if ch not in set(string.punctuation))
    spaced = re.sub(re.compile(r"\b(a|an|the)\b", re.UNICODE), " ", kept)
    return " ".join(spaced.split())


def tokens(text: str) -> list[str]:
    return normalize(text).split() if text else []


def exact(gold: str, predicted: str) -> int:
    return int(normalize(gold) == normalize(predicted))


def f1(gold: str, predicted: str) -> float:
    want, have = tokens(gold), tokens(predicted)
    if not want or not have:
        return float(want == have)
    same = sum((Counter(want) & Counter(have)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(have), same / len(want)
    return 2 * precision * recall / (precision + recall)
