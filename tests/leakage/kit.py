"""A golden set and a small corpus in every input format, with the planted lines known, for
the tests of the partitioned contamination scan (local and Dask engines)."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from goldcase.leakage.contamination import GramIndex
from goldcase.model import Case

# 17 words: five 13-grams
LONG_Q = "Can a customer who bought a damaged kettle last month still ask us for a credit note?"
SHORT_Q = "Do you take American Express?"
# 18 words: six 13-grams
LONG_A = (
    "Yes, a customer has fourteen days from delivery to request a credit for a damaged "
    "delivery, by email"
)
FILLER = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
]


def case_yaml(case_id: str, question: str, answer: str | None = None) -> str:
    lines = [f"id: {case_id}", f"question: {json.dumps(question)}"]
    if answer is None:
        lines.append("answerable: false")
    else:
        lines += [
            f"expected_answer: {json.dumps(answer)}",
            "support:",
            "  - doc: returns-policy.md",
            "    quote: A customer has 14 days from delivery to request a credit",
        ]
    return "\n".join(lines) + "\n"


CASE_FILES = {
    "cases/golden/long.yaml": case_yaml("long", LONG_Q),
    "cases/golden/amex.yaml": case_yaml("amex", SHORT_Q, "Yes"),
    "cases/golden/window.yaml": case_yaml("window", "What is the credit window?", LONG_A),
}


def index() -> GramIndex:
    cases = [
        Case("long.yaml", "golden", {"id": "long", "question": LONG_Q}),
        Case("amex.yaml", "golden", {"id": "amex", "question": SHORT_Q, "expected_answer": "Yes"}),
        Case(
            "window.yaml",
            "golden",
            {"id": "window", "question": "What is the credit window?", "expected_answer": LONG_A},
        ),
    ]
    return GramIndex.build(cases, 13)


def filler(rng: random.Random) -> str:
    return " ".join(rng.choice(FILLER) for _ in range(rng.randint(3, 14)))


def text_lines(count: int, planted: dict[int, str], seed: int = 3) -> list[str]:
    """``count`` lines of filler; line k (1-based) of ``planted`` holds that text instead."""
    rng = random.Random(seed)
    return [planted.get(k, filler(rng)) + "\n" for k in range(1, count + 1)]


# 1-based line -> text, for train.txt
TEXT_PLANTED = {
    100: f"forum: {LONG_Q} thanks",
    2500: f"Q: {SHORT_Q.upper()} A: yes.",
    2999: f"{LONG_Q[:60]}",  # the first 11 words only: no 13-gram
}
# 1-based line -> record, for ft.jsonl
JSONL_PLANTED = {
    7: {"messages": [{"role": "user", "content": SHORT_Q}, {"role": "assistant", "content": "No"}]},
    300: {"prompt": "What is the credit window?", "completion": LONG_A},
}


def jsonl_lines(count: int) -> list[str]:
    rng = random.Random(5)
    return [
        json.dumps(JSONL_PLANTED.get(k, {"text": filler(rng)})) + "\n" for k in range(1, count + 1)
    ]


def write_corpus(folder: Path) -> dict[str, Path]:
    """train.txt, ft.jsonl, ft.jsonl.gz, ft.jsonl.zst and rows.parquet in ``folder``."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zstandard

    folder.mkdir(parents=True, exist_ok=True)
    out = {
        name: folder / name
        for name in ("train.txt", "ft.jsonl", "ft.jsonl.gz", "ft.jsonl.zst", "rows.parquet")
    }
    out["train.txt"].write_text("".join(text_lines(3000, TEXT_PLANTED)), encoding="utf-8")
    records = "".join(jsonl_lines(400)).encode()
    out["ft.jsonl"].write_bytes(records)
    out["ft.jsonl.gz"].write_bytes(gzip.compress(records, mtime=0))
    out["ft.jsonl.zst"].write_bytes(zstandard.ZstdCompressor().compress(records))
    rng = random.Random(9)
    prompts = [filler(rng) for _ in range(200)]
    completions: list[str | None] = [filler(rng) for _ in range(200)]
    prompts[120], completions[120] = SHORT_Q, "yes"
    completions[7] = LONG_A
    completions[8] = None
    table = pa.table({"id": list(range(200)), "prompt": prompts, "completion": completions})
    pq.write_table(table, out["rows.parquet"], row_group_size=50)
    return out


def offset_of(lines: list[str], line: int) -> int:
    """Byte offset of 1-based ``line``."""
    return len("".join(lines[: line - 1]).encode())
