"""The hashes file: the golden questions as salted hashes, for checking a repository that must
not see the golden set (the application with its prompts).

Format (JSON, UTF-8, keys sorted, one question a line so that diffs review well)::

    {
      "format": "goldcase-hashes",
      "version": 1,
      "normaliser": "normalise_input/2",
      "hash": "sha256",
      "salt": "<32 hex digits, random per set>",
      "ngram": 13,
      "min_words": 4,
      "golden_version": "2026.11.1",          # golden.version, or null
      "questions": [                            # sorted by sha256: file order says nothing
        {"id": "ret-014", "sha256": "<64 hex>", "words": 15,
         "ngrams": ["<32 hex>", ...]}           # only for questions of ngram words or more
      ]
    }

``sha256`` is ``sha256(salt_bytes + normalised_question_utf8)``; each n-gram hash is the first
32 hex digits of the same over the n-gram's words joined by one space. Without the salt a
table of hashes of likely questions matches nothing; with it, matching still needs the exact
question. ``id`` is left out with ``goldcase hashes --no-ids``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from goldcase import progress
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.model import Case
from goldcase.safeio import Outside, read_inside, read_regular, refuse_linked_output, under
from goldcase.text import normalise_input
from goldcase.versioning.version import read_version
from goldcase.writer import atomic_write_text

if TYPE_CHECKING:
    from goldcase.context import Context

FORMAT = "goldcase-hashes"
VERSION = 1
NORMALISER = "normalise_input/2"  # /2: default-ignorables dropped, confusables mapped
# The smallest n-gram a hashes file may hold. Its n-grams overlap by n - 1 words, so one
# n-gram read back unrolls the whole question at V guesses a word; anyone holding the file
# and the corpus gets that first n-gram by hashing the corpus's own n-grams or every n-gram
# over its vocabulary (V ** n). On the sample set (scripts/hashes_attack.py) that reads back
# 85% of the golden questions' words at n = 1, 83% at 2, 35% at 3, 8% at 4, 2% at 5 and none
# from 6 on; 8 leaves a margin for a larger corpus and for guessed openings.
MIN_NGRAM = 8
MIN_WORDS = 4  # as the leakage check: shorter questions are not searched inside text
NGRAM_HEX = 32


class HashedQuestion(Struct, frozen=True):
    id: str | None
    sha256: str
    words: int
    ngrams: tuple[str, ...]


class Hashes(Struct, frozen=True):
    salt: str
    ngram: int
    questions: tuple[HashedQuestion, ...]
    golden_version: str | None = None
    min_words: int = MIN_WORDS

    def digest(self, text: str) -> str:
        """The salted sha256 of an already normalised text."""
        return hashlib.sha256(bytes.fromhex(self.salt) + text.encode()).hexdigest()

    def gram(self, words: Sequence[str]) -> str:
        return self.digest(" ".join(words))[:NGRAM_HEX]


def new_salt() -> str:
    return secrets.token_hex(16)


def build(
    cases: Iterable[Case],
    ngram: int,
    salt: str,
    *,
    ids: bool = True,
    golden_version: str | None = None,
) -> Hashes:
    if ngram < 1:
        raise GoldcaseError(f"--ngram must be at least 1, got {ngram}")
    empty = Hashes(salt, ngram, ())
    listed = list(cases)
    with progress.task("hashing questions", len(listed), show=len(listed) >= SHOW_FROM) as step:
        questions = [_hashed(empty, case, ngram, ids) for case in progress.each(step, listed)]
    questions.sort(key=lambda q: (q.sha256, q.id or ""))
    return Hashes(salt, ngram, tuple(questions), golden_version)


SHOW_FROM = 1000  # questions before hashing shows a progress bar (as many as a cold check)


def _hashed(empty: Hashes, case: Case, ngram: int, ids: bool) -> HashedQuestion:
    words = normalise_input(case.question).split()
    grams = () if len(words) < ngram else _grams(empty, words, ngram)
    return HashedQuestion(
        case.id if ids else None, empty.digest(" ".join(words)), len(words), grams
    )


def _grams(hashes: Hashes, words: list[str], n: int) -> tuple[str, ...]:
    return tuple(hashes.gram(words[i : i + n]) for i in range(len(words) - n + 1))


def dumps(hashes: Hashes) -> str:
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "normaliser": NORMALISER,
        "hash": "sha256",
        "salt": hashes.salt,
        "ngram": hashes.ngram,
        "min_words": hashes.min_words,
        "golden_version": hashes.golden_version,
    }
    head = json.dumps(payload, sort_keys=True, indent=1)[:-2]  # without the closing "\n}"
    rows = ",\n  ".join(json.dumps(_question(q), sort_keys=True) for q in hashes.questions)
    return (
        f'{head},\n "questions": [\n  {rows}\n ]\n}}\n'
        if rows
        else (f'{head},\n "questions": []\n}}\n')
    )


def _question(q: HashedQuestion) -> dict[str, Any]:
    out: dict[str, Any] = {"sha256": q.sha256, "words": q.words, "ngrams": list(q.ngrams)}
    if q.id is not None:
        out["id"] = q.id
    return out


MAX_FILE = 256 * 1024 * 1024  # ten thousand questions' n-grams take about 15 MB


def load(path: Path, root: Path | None = None) -> Hashes:
    """Read and validate a hashes file; anything wrong is a ``GoldcaseError``. A file under
    ``root`` (the repository) is read only inside it, as golden.version is: a link out of it
    is refused, never followed."""
    try:
        data = json.loads(_read(path, root).decode("utf-8"))
    except Outside:
        raise GoldcaseError(
            f"{path}: a link leading outside the repository; goldcase reads the hashes file "
            "in the repository only from inside it: put the file itself there"
        ) from None
    except OSError as exc:
        raise GoldcaseError(f"{path}: cannot read the hashes file: {exc.strerror or exc}") from exc
    except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, a number too long
        raise GoldcaseError(f"{path}: not a goldcase hashes file (not JSON: {exc})") from exc
    try:
        return _parse(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise GoldcaseError(f"{path}: malformed hashes file: {exc}") from exc


def _read(path: Path, root: Path | None) -> bytes:
    rel = None if root is None else under(root, path)
    if rel is None:  # named on the command line, outside any repository: the user's choice
        return read_regular(path, MAX_FILE)
    return read_inside(root or Path(), rel, MAX_FILE)


def _parse(data: Any) -> Hashes:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"'format' should be {FORMAT!r}; write it with goldcase hashes")
    if data.get("version") != VERSION:
        raise ValueError(f"version {data.get('version')!r}; this goldcase reads version {VERSION}")
    if data.get("normaliser") != NORMALISER:
        raise ValueError(
            f"normaliser {data.get('normaliser')!r}; expected {NORMALISER!r}: "
            "write the file again with this goldcase (goldcase hashes)"
        )
    salt, ngram = data["salt"], data["ngram"]
    if not (isinstance(salt, str) and len(salt) == SALT_HEX and _HEX.fullmatch(salt)):
        raise ValueError(f"the salt should be {SALT_HEX} hex digits (16 bytes)")
    if not _count(ngram) or ngram > MAX_NGRAM:
        raise ValueError(f"ngram should be an integer from 1 up to {MAX_NGRAM}, got {ngram!r}")
    min_words = data.get("min_words", MIN_WORDS)
    if not _count(min_words):
        raise ValueError("min_words should be a positive integer")
    questions = tuple(_parse_question(q, ngram) for q in data["questions"])
    version = data.get("golden_version")
    return Hashes(salt, ngram, questions, version if isinstance(version, str) else None, min_words)


SALT_HEX = 32  # what new_salt draws: each hash is sha256(salt + text), so the salt is read often
MAX_NGRAM = 1000  # as [leakage] ngram: shorter questions are hashed at every window length
_HEX = re.compile(r"[0-9a-fA-F]+")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _parse_question(raw: Any, ngram: int) -> HashedQuestion:
    sha, words, grams = raw["sha256"], raw["words"], raw.get("ngrams", [])
    if not (isinstance(sha, str) and len(sha) == 64) or not _count(words):
        raise ValueError("each question needs a 64-digit sha256 and a positive word count")
    if not isinstance(grams, list) or not all(isinstance(g, str) for g in grams):
        raise ValueError("ngrams should be a list of hex strings")
    if len(grams) != max(words - ngram + 1, 0):
        raise ValueError(
            f"a question of {words} words holds {len(grams)} n-gram hashes; "
            f"expected {max(words - ngram + 1, 0)} (one for each {ngram} words in a row)"
        )
    case_id = raw.get("id")
    return HashedQuestion(case_id if isinstance(case_id, str) else None, sha, words, tuple(grams))


def write_hashes(
    ctx: Context, out: Path, *, ngram: int | None = None, ids: bool = True, fresh: bool = False
) -> tuple[Hashes, list[str]]:
    """Hash the golden set of ``ctx`` into ``out`` (atomically): the hashes, and the golden
    case files left out because they do not pass the schema. The salt of an existing ``out``
    is kept, so an unchanged set writes an unchanged file, unless ``fresh``."""
    size = ngram or ctx.config.leakage.ngram
    if size < MIN_NGRAM:
        where = "--ngram" if ngram else "[leakage] ngram"
        raise GoldcaseError(
            f"{where} is {size}; a hashes file needs n-grams of at least {MIN_NGRAM} words: with "
            "shorter ones anyone holding the file and the corpus can read the golden questions "
            "back (at 1, over 80% of their words, in order, on the sample set; see "
            "docs/leakage.md, threat model)"
        )
    if size > MAX_NGRAM:
        raise GoldcaseError(f"--ngram is {size}; at most {MAX_NGRAM} words an n-gram")
    refuse_linked_output(ctx.root, out, "goldcase hashes")
    salt = new_salt()
    if out.exists() and not fresh:
        with contextlib.suppress(GoldcaseError):  # not ours, or damaged: a new salt
            salt = load(out, ctx.root).salt
    case_set = load_case_set(ctx)
    left_out = [f.path for f in case_set.files if f.split == "golden" and not f.valid]
    hashes = build(
        case_set.golden,
        size,
        salt,
        ids=ids,
        golden_version=read_version(ctx.config),
    )
    atomic_write_text(out, dumps(hashes))
    return hashes, left_out
