"""The dev/golden rule, enforced by the run itself.

Before the first request, the few-shot and prompt files (``[leakage] fewshot``, read as the
leakage check reads them: ``goldcase.leakage.prompts``) must not hold a golden question: a
few-shot example equal to one, or a golden question of four words or more inside a file's text,
on word boundaries (``goldcase.leakage.textmatch``), after ``normalise_input``. Any such file
stops the run before it starts.

During the run, a response may say what it sent to its model (``prompt``). A prompt that holds
a golden question other than the one asked (equal to it, or inside it, by the same rule) fails
the run, naming both case ids, never the text.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from msgspec import Struct

from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.leakage.hashes import MIN_WORDS
from goldcase.leakage.prompts import load_prompts
from goldcase.leakage.textmatch import PhraseIndex
from goldcase.model import Case
from goldcase.text import normalise_input


class Leak(Struct, frozen=True):
    """A golden case whose question was found, and where (a file and line, or a case id)."""

    golden_id: str
    where: str


class Guard:
    """The golden questions, normalised and indexed the first time there is something to look
    in (a prompt file, a prompt a response reports): a run that has neither does not pay for
    an index of the whole set."""

    def __init__(self, golden: Iterable[Case]) -> None:
        self._golden = list(golden)
        self._lock = threading.Lock()
        self._built = False
        self._exact: dict[str, list[str]] = {}
        self._text_of: dict[str, str] = {}
        self._index: PhraseIndex[str] = PhraseIndex(())

    def _build(self) -> None:
        with self._lock:
            if self._built:
                return
            inside: list[tuple[str, str]] = []
            for case in self._golden:
                text = normalise_input(case.question)
                if not text:
                    continue
                self._text_of[case.id] = text
                self._exact.setdefault(text, []).append(case.id)
                if text.count(" ") + 1 >= MIN_WORDS:
                    inside.append((text, case.id))
            self._index = PhraseIndex(inside)
            self._built = True

    def found(self, normalised: str) -> list[str]:
        """Ids of the golden cases whose question ``normalised`` is or holds, each once."""
        self._build()
        ids = list(self._exact.get(normalised, ()))
        for _start, _end, values in self._index.find(normalised):
            ids.extend(values)
        return list(dict.fromkeys(ids))

    def fewshot_leaks(self, ctx: Context) -> list[Leak]:
        """Golden questions in the configured few-shot and prompt files."""
        config = ctx.config
        leaks: set[Leak] = set()
        prompts = load_prompts(ctx.root, config.leakage.fewshot, ctx.cache, config.cases)
        if prompts:
            self._build()
        for prompt in prompts:
            for text, line in prompt.examples:
                leaks.update(
                    Leak(gid, f"{prompt.path}:{line}") for gid in self._exact.get(text, ())
                )
            for start, _end, ids in self._index.find(prompt.text.text):
                where = f"{prompt.path}:{prompt.text.line_of(start)}"
                leaks.update(Leak(gid, where) for gid in ids)
        return sorted(leaks, key=lambda leak: (leak.where, leak.golden_id))

    def prompt_leak(self, prompt: str, case: Case) -> str | None:
        """The id of a golden case other than ``case`` whose question ``prompt`` holds."""
        own = normalise_input(case.question)
        for golden_id in self.found(normalise_input(prompt)):  # builds the index first
            if golden_id != case.id and self._text_of[golden_id] != own:
                return golden_id
        return None


def refuse_fewshot(leaks: list[Leak]) -> None:
    """Stop before the first request when a few-shot or prompt file holds a golden question."""
    if not leaks:
        return
    shown = [f"{leak.where}: holds the question of golden case {leak.golden_id}" for leak in leaks]
    more = f"\nerror: … and {len(shown) - 20} more" if len(shown) > 20 else ""
    raise GoldcaseError(
        "\nerror: ".join(shown[:20])
        + more
        + "\nerror: the run did not start: few-shot examples and prompts must not carry golden "
        "questions (use dev cases); goldcase check shows GC301 / GC302"
    )
