"""A small, deterministic extractive answerer: the system under test of the sample runs
under ``runs/``, run as a ``goldcase run --cmd`` worker.

It reads one JSON request a line on standard input (``{"id", "question", "trial"}``) and writes
one JSON response a line. It splits every corpus document into sentence chunks (paragraph
sentences, list items, table rows, each indexed with the heading it sits under), ranks them for
the question with BM25 (rank-bm25, Okapi variant, default parameters), and answers with the best
K chunks joined, or abstains when its confidence is under a threshold. It reads the corpus only:
the cases, and so the expected answers, are never opened. The confidence is the best chunk's BM25
score divided by the score a chunk of average length holding every question term once would
get (the sum of the terms' idf; a term the corpus never uses counts with the largest idf the
corpus has), capped at 1, so it lies in 0..1 and falls when the question asks about words the
documents do not hold.

Every response holds outcome, answer, confidence, citations, retrieved (the top 5 chunks) and
context (the K chunks the answer was built from); goldcase adds id, trial and latency. No clock,
no randomness: the same question always gets the same response.

    goldcase run --cmd "python scripts/baseline.py --top-k 1 --threshold 0.35" \\
        --system baseline-k1 --out runs/baseline-k1.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from rank_bm25 import BM25Okapi

from goldcase.config import load_config

RETRIEVED = 5
_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from have how i if in is it me my of on or our "
    "so that the their there this to was we what when where which who will with you your"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_TOKEN = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\bCo\.)(?<!e\.g\.)(?<!i\.e\.)(?<!\bNo\.)\s+(?=[\"“(A-Z0-9£€$])"
)
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")


@dataclass(frozen=True)
class Chunk:
    doc: str
    number: int  # 1-based, in document order
    text: str
    heading: str = ""  # the heading the chunk sits under: indexed with it, never shown

    @property
    def id(self) -> str:
        return f"{self.doc}#{self.number}"


def stem(word: str) -> str:
    """A light suffix stripper, so "points" meets "point" and "expired" meets "expire"."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def _blocks(markdown: str) -> list[tuple[str, str]]:
    """(heading, text) of every paragraph, list item and table row; headings themselves and
    table rules are not blocks, but each block remembers the heading it sits under."""
    out: list[tuple[str, str]] = []
    heading = ""
    for block in re.split(r"\n\s*\n", markdown):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if lines and lines[0].startswith("#"):
            heading = lines[0].lstrip("#").strip()
            lines = lines[1:]
        if not lines:
            continue
        if lines[0].startswith("|"):
            texts = [_row(line) for line in lines if not _TABLE_RULE.match(line)]
        elif lines[0].startswith(("- ", "* ")):
            texts = _items(lines)
        else:
            texts = [" ".join(lines)]
        out.extend((heading, text) for text in texts if text)
    return out


def _row(line: str) -> str:
    return " | ".join(cell.strip() for cell in line.strip("|").split("|"))


def _items(lines: list[str]) -> list[str]:
    items: list[str] = []
    for line in lines:
        if line.startswith(("- ", "* ")):
            items.append(line[2:])
        elif items:
            items[-1] += " " + line
    return items


def chunk_document(name: str, markdown: str) -> list[Chunk]:
    pieces = [
        (heading, sentence.replace("**", "").strip())
        for heading, block in _blocks(markdown)
        for sentence in _SENTENCE_END.split(block)
    ]
    kept = [(heading, text) for heading, text in pieces if text]
    return [Chunk(name, i, text, heading) for i, (heading, text) in enumerate(kept, 1)]


def load_chunks(corpus: Path) -> list[Chunk]:
    chunks: list[Chunk] = []
    for path in sorted(corpus.glob("*.md")):
        chunks.extend(chunk_document(path.name, path.read_text(encoding="utf-8")))
    return chunks


_YES_NO = re.compile(r"^(do|does|did|is|are|was|can|could|will|would|should|has|have|must)\b")
_NEGATION = re.compile(
    r"\b(not|no|never|cannot|can't|won't|isn't|aren't|don't|doesn't|excluded|except)\b"
)


def yes_no(question: str, best: str) -> str:
    """A question asked for a yes or a no gets one first: "No." when the best chunk is
    negated, "Yes." otherwise. Crude, and a real system does better; it keeps the baseline
    from failing every yes/no question on its first word alone."""
    if not _YES_NO.match(question.strip().lower()):
        return ""
    return "No. " if _NEGATION.search(best.lower()) else "Yes. "


class Retriever:
    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.bm25 = BM25Okapi([tokens(f"{c.heading} {c.text}") for c in chunks])
        self.max_idf = max(self.bm25.idf.values())

    def rank(self, question: str) -> tuple[list[Chunk], float]:
        """Chunks best first (ties in corpus order) and the confidence of the best one."""
        query = tokens(question)
        if not query:
            return list(self.chunks[:RETRIEVED]), 0.0
        scores = self.bm25.get_scores(query)
        order = sorted(range(len(self.chunks)), key=lambda i: (-float(scores[i]), i))
        ceiling = sum(self.bm25.idf.get(t, self.max_idf) for t in query)
        confidence = max(0.0, min(1.0, float(scores[order[0]]) / ceiling))
        return [self.chunks[i] for i in order], confidence


def answer(question: str, retriever: Retriever, k: int, threshold: float) -> dict[str, Any]:
    """The response to one question: outcome, answer and citations (when it answers),
    confidence, and the retrieval trace."""
    ranked, unrounded = retriever.rank(question)
    confidence = round(unrounded, 4)  # decided on the value the line records
    context = ranked[:k]
    response: dict[str, Any] = {}
    if confidence < threshold:
        response["outcome"] = "abstain"
    else:
        response["outcome"] = "answer"
        response["answer"] = yes_no(question, context[0].text) + " ".join(c.text for c in context)
        response["citations"] = [{"id": c.id, "text": c.doc} for c in context]
    response["confidence"] = confidence
    response["retrieved"] = [{"doc": c.doc, "text": c.text} for c in ranked[:RETRIEVED]]
    response["context"] = [{"doc": c.doc, "text": c.text} for c in context]
    return response


def serve(retriever: Retriever, k: int, threshold: float, requests: TextIO, out: TextIO) -> None:
    """Answer one JSON request line with one JSON response line, until the input ends."""
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        response = answer(str(request["question"]), retriever, k, threshold)
        out.write(json.dumps(response, ensure_ascii=False) + "\n")
        out.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top-k", type=int, default=1, help="chunks the answer is built from")
    parser.add_argument("--threshold", type=float, default=0.35, help="abstain under this")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    if args.top_k < 1 or not 0 <= args.threshold <= 1:
        parser.error("--top-k must be at least 1 and --threshold between 0 and 1")
    corpus = load_config(args.repo).corpus_dir
    chunks = load_chunks(corpus)
    if not chunks:
        print(f"error: no Markdown documents with text under {corpus}", file=sys.stderr)
        return 1
    serve(Retriever(chunks), args.top_k, args.threshold, sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
