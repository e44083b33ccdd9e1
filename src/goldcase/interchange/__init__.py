"""Interchange with the evaluation tools teams already run: exporters (JSONL reference layout,
promptfoo, Inspect AI, OpenAI evals) and importers (JSONL, SQuAD, promptfoo)."""
