"""``goldcase run``: ask the system under test every case of a split, and write its results.

- ``protocol``: the request (id, question, trial; nothing of the expectations) and how a
  response becomes a result line;
- ``systems``: the three ways to reach a system (worker processes, HTTP, a Python callable);
- ``outfile``: the results file, appended one whole line at a time and resumed;
- ``manifest``: the run's provenance, in a sidecar file ``score`` reads;
- ``guard``: golden questions in few-shot files (before) and in the prompts sent (during);
- ``progress``: a progress bar on a terminal, plain lines elsewhere;
- ``runner``: the run itself.
"""
