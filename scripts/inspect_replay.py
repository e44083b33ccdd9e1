"""An Inspect solver that calls no model: each sample gets the answer a goldcase results file
holds for its case, replayed (trial 1, or the line with the sample's epoch as its trial).

    inspect eval golden_task.py --model none --solver scripts/inspect_replay.py@replay \\
        -S results=runs/baseline-k3.jsonl

With ``-S structured=true`` (the default) the whole response (outcome, answer, citations,
confidence, …) goes into the sample's store under ``goldcase``, where the exported scorer and
``goldcase score --from inspect`` read it; with ``structured=false`` only the text does, and an
abstention is the text "I don't know.", read back by the abstain patterns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

RESPONSE = ("outcome", "answer", "fact", "citations", "scope", "confidence", "error")
ABSTAIN_TEXT = "I don't know."


def _lines(results: str) -> dict[tuple[str, int], dict[str, Any]]:
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for raw in Path(results).read_text(encoding="utf-8").splitlines():
        if raw.strip():
            line = json.loads(raw)
            out[(line["id"], int(line.get("trial") or 1))] = line
    return out


@solver
def replay(results: str, structured: bool = True) -> Solver:
    lines = _lines(results)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        key = (str(state.sample_id), state.epoch)
        line = lines.get(key) or lines.get((str(state.sample_id), 1))
        if line is None:
            raise ValueError(f"no line for {state.sample_id} in {results}")
        if line["outcome"] == "error":
            raise RuntimeError(line.get("error") or "the system failed")
        text = line.get("answer") or (ABSTAIN_TEXT if line["outcome"] == "abstain" else "")
        state.output = ModelOutput.from_content(model="replay", content=text)
        if structured:
            state.store.set("goldcase", {k: line[k] for k in RESPONSE if k in line})
        return state

    return solve
