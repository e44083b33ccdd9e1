"""The Inspect task file written beside an Inspect export (``--out golden.jsonl`` writes
``golden_task.py``): the dataset, a system prompt asking for the abstention the patterns
recognise, ``generate()``, and goldcase's pass rule as the scorer
(``goldcase.interchange.inspect_scorer``).

The abstain patterns are the config's when the set was exported, written into the file as
Python string literals (``repr``): data, never code from the repository.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from goldcase.interchange.export import SYSTEM_PROMPT

_TEMPLATE = '''\
"""Inspect task for the goldcase {split} set, version {version}, in {dataset} beside this file.

    inspect eval {task_file} --model <provider/model>
    goldcase score --from inspect logs/<the log>.eval

The scorer is goldcase's own pass rule (goldcase must be installed where Inspect runs), so
Inspect's accuracy and goldcase score agree case by case. A solver of your own may replace
generate(); one that knows more than text can leave goldcase's response fields (outcome,
answer, citations, ...) in state.store["goldcase"].
"""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.solver import generate, system_message

from goldcase.interchange.inspect_scorer import goldcase_scorer

# [run] abstain_patterns of the set's config when it was exported
ABSTAIN_PATTERNS = {patterns}
SYSTEM_PROMPT = {system}


@task
def {name}() -> Task:
    return Task(
        dataset=json_dataset(str(Path(__file__).with_name({dataset_literal}))),
        solver=[system_message(SYSTEM_PROMPT), generate()],
        scorer=goldcase_scorer(ABSTAIN_PATTERNS),
    )
'''


_PLAIN = re.compile(r"[\w.+-]+")


def task_path(dataset: Path) -> Path:
    return dataset.with_name(f"{dataset.stem}_task.py")


def task_file(dataset: Path, split: str, version: str | None, patterns: Sequence[str]) -> str:
    """The text of the task file for the dataset at ``dataset``."""
    listed = "[" + "".join(f"\n    {p!r}," for p in patterns) + ("\n]" if patterns else "]")
    plain = _PLAIN.fullmatch(dataset.name) is not None  # names in the docstring stay inert
    return _TEMPLATE.format(
        split=split,
        version=version if version and _PLAIN.fullmatch(version) else "(see golden.version)",
        dataset=dataset.name if plain else "the dataset",
        dataset_literal=repr(dataset.name),
        task_file=task_path(dataset).name if plain else "THIS_FILE",
        patterns=listed,
        system=repr(SYSTEM_PROMPT),
        name=split,
    )
