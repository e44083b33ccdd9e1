"""``goldcase leakage --against golden.hashes``: GC301 / GC302 in a repository that holds no
golden set, from the salted hashes alone.

The same rules as the leakage check: a few-shot example whose normalised text hashes to a
golden question is GC301; a golden question of ``min_words`` words or more found inside any
file's normalised text, on word boundaries, is GC302. A question of ``ngram`` words or more is
found by its n-gram hashes, all questions at once (a trie walked once over the text's n-grams),
then confirmed by the hash of the whole window; a shorter one by hashing every window of its
length. Near-duplicates (GC303) need the text, so they are not checked here.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from pathlib import Path

from goldcase.errors import GoldcaseError
from goldcase.leakage.hashes import HashedQuestion, Hashes, load
from goldcase.leakage.prompts import MAX_PROMPT_BYTES, matching_files, read_prompt_file
from goldcase.leakage.textmatch import NormalisedLines
from goldcase.model import Finding
from goldcase.safeio import not_a_file, read_inside, shown_path
from goldcase.text import normalise_input

# The most distinct questions of a hashes file that may end with the same words: each the end
# of the next, or one text under other whole hashes (which only a forged file holds). Every one
# of them is found at every place those words end, so a prompt repeating them gives this many
# findings a word. A question ending another is rare in a golden set; a file of thousands is
# made by hand, to hold the search. Copies of one question (one whole hash) count once.
MAX_NESTED = 32


class NestedQuestions(ValueError):
    """A hashes file whose questions end in one another more than ``MAX_NESTED`` deep."""


class HashedMatcher:
    """Finds golden questions, known only by their salted hashes, in normalised words.

    The questions of ``ngram`` words or more are a trie keyed by their successive n-gram
    hashes, with Aho-Corasick failure links: the text's n-grams are walked once, whatever the
    number of questions sharing a start, and at each n-gram the questions ending there are
    read off the node reached. A hashes file whose questions end in one another more than
    ``MAX_NESTED`` deep raises ``NestedQuestions``."""

    def __init__(self, hashes: Hashes) -> None:
        self.hashes = hashes
        # one question of each text: its copies (cases sharing a question, GC304 turned
        # off) are found once and counted in its findings
        self.whole: dict[str, HashedQuestion] = {}
        self.copies: Counter[str] = Counter()
        for q in hashes.questions:
            self.whole.setdefault(q.sha256, q)
            self.copies[q.sha256] += 1
        n = hashes.ngram
        self._goto: dict[tuple[int, str], int] = {}  # (node, n-gram hash) -> node; root 0
        self._ends: dict[int, list[HashedQuestion]] = {}
        self._short: set[int] = set()
        for q in self.whole.values():
            if q.words >= n and q.ngrams:
                self._ends.setdefault(self._insert(q.ngrams), []).append(q)
            elif hashes.min_words <= q.words < n:
                self._short.add(q.words)
        self._fail = [0] * (len(self._goto) + 1)
        self._out = self._links()
        self._confirmed: dict[int, tuple[HashedQuestion, ...]] = {}
        self._lengths = sorted(self._short)
        self._salt = bytes.fromhex(hashes.salt)

    def _insert(self, grams: Sequence[str]) -> int:
        node = 0
        for gram in grams:
            child = self._goto.get((node, gram))
            if child is None:
                child = self._goto[node, gram] = len(self._goto) + 1
            node = child
        return node

    def _links(self) -> list[int]:
        """Fills each node's failure link (the node of its longest proper suffix in the
        trie), breadth first, and returns the output links (the nearest node on the failure
        chain, itself included, where questions end; 0 for none); counts the questions on
        each chain."""
        kids: dict[int, list[tuple[str, int]]] = {}
        for (parent, gram), child in self._goto.items():
            kids.setdefault(parent, []).append((gram, child))
        fail = self._fail
        out, nested = [0] * len(fail), [0] * len(fail)
        queue = deque([0])
        while queue:
            node = queue.popleft()
            for gram, child in kids.get(node, ()):
                fail[child] = self._step(fail[node], gram) if node else 0
                ending = len(self._ends.get(child, ()))
                nested[child] = ending + nested[fail[child]]
                if nested[child] > MAX_NESTED:
                    raise NestedQuestions
                out[child] = child if ending else out[fail[child]]
                queue.append(child)
        return out

    def _step(self, node: int, gram: str) -> int:
        while node and (node, gram) not in self._goto:
            node = self._fail[node]
        return self._goto.get((node, gram), 0)

    def example(self, text: str) -> HashedQuestion | None:
        return self.whole.get(self.hashes.digest(normalise_input(text)))

    def find(self, words: Sequence[str]) -> Iterator[tuple[int, HashedQuestion]]:
        """(index of the first word, question) for every golden question in ``words``.

        Each window's n-gram is hashed once and steps the trie once; the windows shorter
        than ``ngram`` are hashed a word at a time (one hash grown, read at each length a
        question has)."""
        n = self.hashes.ngram
        node = 0
        for p in range(len(words)):
            if self._goto and p + n <= len(words):
                node = self._step(node, self.hashes.gram(words[p : p + n]))
                yield from self._ending(words, p, node)
            yield from self._short_at(words, p)

    def _ending(
        self, words: Sequence[str], last: int, node: int
    ) -> Iterator[tuple[int, HashedQuestion]]:
        """The questions whose last n-gram starts at word ``last``, along the output links."""
        found = self._out[node]
        while found:
            for q in self._confirm(words, last, found):
                yield last - len(q.ngrams) + 1, q
            found = self._out[self._fail[found]]

    def _confirm(self, words: Sequence[str], last: int, node: int) -> tuple[HashedQuestion, ...]:
        """The questions ending at ``node`` whose whole salted hash is the window's. Hashed
        the first time the node is reached only: its n-gram hashes name the window's words,
        so the window is the same wherever it is reached again, and so is the answer."""
        confirmed = self._confirmed.get(node)
        if confirmed is None:
            ending = self._ends[node]
            start = last - len(ending[0].ngrams) + 1
            digest = self._whole(words[start : start + ending[0].words])
            confirmed = self._confirmed[node] = tuple(q for q in ending if q.sha256 == digest)
        return confirmed

    def _whole(self, window: Sequence[str]) -> str:
        return hashlib.sha256(self._salt + " ".join(window).encode()).hexdigest()

    def _short_at(self, words: Sequence[str], p: int) -> Iterator[tuple[int, HashedQuestion]]:
        if not self._lengths or p + self._lengths[0] > len(words):
            return
        grown = hashlib.sha256(self._salt + words[p].encode())
        length = 1
        for wanted in self._lengths:
            if p + wanted > len(words):
                break
            while length < wanted:
                grown.update(b" " + words[p + length].encode())
                length += 1
            short = self.whole.get(grown.copy().hexdigest())
            if short is not None and short.words == wanted:
                yield p, short


def label(q: HashedQuestion) -> str:
    return f"golden case {q.id}" if q.id else "a golden question"


def scan_file(matcher: HashedMatcher, rel: str, raw: bytes) -> list[Finding]:
    """GC301 / GC302 / GC306 findings for one file (``rel`` is how findings name it)."""
    read = read_prompt_file(rel, raw)
    out: list[Finding] = []
    if read.problem is not None:
        line, col, message = read.problem
        out.append(Finding(rel, line, col, "GC306", "error", message))
    exact: set[str] = set()
    for example in read.examples:
        q = matcher.example(example.text)
        if q is not None:
            exact.add(q.sha256)
            copies = matcher.copies[q.sha256]
            out.append(_finding(rel, example.line, "GC301", "few-shot example equals", q, copies))
    out.extend(_inside(matcher, rel, NormalisedLines.of_numbered(read.numbered()), exact))
    return sorted(set(out))


def _inside(
    matcher: HashedMatcher, rel: str, text: NormalisedLines, exact: set[str]
) -> Iterator[Finding]:
    words = text.text.split(" ") if text.text else []
    offsets, at = [], 0
    for word in words:
        offsets.append(at)
        at += len(word) + 1
    seen: set[tuple[int, int]] = set()  # (line, question): a question is reported once a line
    for start, q in matcher.find(words):
        if q.sha256 not in exact:
            line = text.line_of(offsets[start])
            if (line, id(q)) not in seen:
                seen.add((line, id(q)))
                yield _finding(rel, line, "GC302", "holds", q, matcher.copies[q.sha256])


def _finding(
    rel: str, line: int, code: str, verb: str, q: HashedQuestion, copies: int = 1
) -> Finding:
    what = "the question of " + label(q) if q.id else "a golden question"
    if copies > 1:
        what += f" and of {copies - 1:,} other golden case{'s' if copies > 2 else ''}"
    return Finding(
        rel,
        line,
        1,
        code,
        "error",
        f"{verb} {what} (salted sha256 {q.sha256[:12]}); prompts and few-shot examples must "
        "not carry golden questions: use a dev case instead",
    )


def scan_paths(matcher: HashedMatcher, root: Path, rels: Sequence[str]) -> list[Finding]:
    """Every file in ``rels`` (relative to ``root``); an unreadable one is GC306. Findings
    name a file as every finding does: a byte of its name that is not UTF-8 escaped."""
    out: list[Finding] = []
    for rel in rels:
        try:
            raw = read_inside(root, rel, MAX_PROMPT_BYTES)
        except OSError as exc:
            message = f"cannot read the file: {exc.strerror or exc}"
            out.append(Finding(shown_path(rel), 1, 1, "GC306", "error", message))
            continue
        out.extend(scan_file(matcher, shown_path(rel), raw))
    return sorted(set(out))


def expand_paths(root: Path, paths: Sequence[Path]) -> list[str]:
    """PATHS as the files to scan, relative to ``root`` when under it: a folder stands for
    every file under it (hidden names and linked folders left out), in name order. A path that
    does not exist, or is neither a file nor a folder, is refused, saying what it is."""
    out: list[str] = []
    for path in paths:
        absolute = path if path.is_absolute() else root / path
        if absolute.is_dir():
            out.extend(_relative(root, file) for file in _files_under(absolute))
            continue
        if not absolute.exists():  # a broken link too: exists() follows links
            raise GoldcaseError(f"{path}: {not_a_file(absolute)}; give prompt files or folders")
        out.append(_relative(root, absolute))  # a FIFO or a device: GC306 says so, unread
    return out


def _files_under(folder: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        found.extend(Path(dirpath) / name for name in sorted(filenames) if not name.startswith("."))
    return found


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def check_against(
    hashes_file: Path, root: Path, paths: Sequence[str], patterns: Sequence[str]
) -> tuple[list[Finding], int]:
    """(findings, files scanned): ``paths`` (relative to ``root``), or when there are none,
    the files matched by the few-shot globs ``patterns``."""
    matcher = matcher_for(hashes_file, root)
    rels = list(paths) if paths else matching_files(root, patterns)
    return scan_paths(matcher, root, rels), len(rels)


def matcher_for(hashes_file: Path, root: Path) -> HashedMatcher:
    """The matcher of a hashes file; one whose questions end in one another more than
    ``MAX_NESTED`` deep (no golden set holds such) is refused before any text is read."""
    try:
        return HashedMatcher(load(hashes_file, root))
    except NestedQuestions:
        raise GoldcaseError(
            f"{hashes_file}: more than {MAX_NESTED} of its questions end with the same words "
            "(each the end of the next, or one question under other hashes): a prompt "
            "repeating those words would hold each of them at every word; no golden set holds "
            "such questions: "
            "write the file again with goldcase hashes"
        ) from None
