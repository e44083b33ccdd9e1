"""A promptfoo ``exec:`` provider that calls no model: it answers each test with the line a
goldcase results file holds for the test's case (``metadata.id`` in the context promptfoo
passes as the last argument).

    exec: python scripts/promptfoo_replay.py RESULTS.jsonl text|json [FAILING_ID]

(absolute paths: promptfoo runs it from the config's folder). ``make run`` replays the sample
run through the exported config with it.

``text`` prints the answer (an abstention as "I don't know."); ``json`` prints the line's
response fields as one JSON object. The case FAILING_ID exits with status 1 (a provider error).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FIELDS = ("outcome", "answer", "fact", "citations", "scope", "confidence")


def main() -> int:
    results, mode, *rest = sys.argv[1:]
    failing = rest[0] if len(rest) == 4 else None
    context = json.loads(rest[-1])
    case_id = context["test"]["metadata"]["id"]
    lines = (json.loads(x) for x in Path(results).read_text(encoding="utf-8").splitlines())
    line = next(x for x in lines if x["id"] == case_id)
    if case_id == failing or line["outcome"] == "error":
        print(f"the system failed on {case_id}", file=sys.stderr)
        return 1
    if mode == "json":
        print(json.dumps({k: line[k] for k in FIELDS if k in line}))
    else:
        print(line.get("answer") or "I don't know.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
