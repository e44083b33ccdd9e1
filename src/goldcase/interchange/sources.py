"""Where the results ``goldcase score`` reads come from, and what their provenance says.

- a goldcase results file: scored as it is; when ``goldcase run`` wrote it, its manifest says
  which version of the set it was made on, and a warning says so when that is not this one;
- another tool's output (``--from promptfoo``, ``--from inspect``): converted to result lines
  first (``goldcase.interchange.converted``); the ``golden_version`` the export wrote into each
  test's metadata is compared the same way.

Either way the traffic shares are looked at too: a slice with a share but no case scored, and
shares that do not sum to 1, are warned about (``scoring.weighted.share_warnings``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.interchange import from_inspect, from_promptfoo
from goldcase.interchange.converted import FORMATS, Converted
from goldcase.run.manifest import stale_warning
from goldcase.scoring.scorer import score
from goldcase.scoring.weighted import share_warnings

SOURCES = ("results", *FORMATS)
_READERS = {"promptfoo": from_promptfoo.read, "inspect": from_inspect.read}


def score_from(
    ctx: Context,
    path: Path,
    *,
    source: str = "results",
    split: str = "golden",
    threshold: float | None = None,
    digest: bool = True,
) -> tuple[dict[str, Any], list[str]]:
    """The report on the results in ``path`` (a results file, or ``source``'s output), and the
    warnings its provenance deserves (``digest``: see ``scorer.score``)."""
    if source == "results":
        report = score(ctx, path, shown=str(path), split=split, threshold=threshold, digest=digest)
        warning = stale_warning(path, report["golden_version"], report["set_digest"], ctx.root)
        provenance = [] if warning is None else [warning]
    else:
        converted = convert(source, path, str(path), ctx.config.run.abstain_patterns)
        shown = f"{path} (from {source})"
        raw = converted.take_raw()
        report = score(
            ctx, path, shown=shown, split=split, threshold=threshold, raw=raw, digest=digest
        )
        provenance = _version_warnings(converted.versions, report["golden_version"], path)
    return report, [*provenance, *share_warnings(ctx.config, report)]


def _version_warnings(seen: set[str], current: str | None, path: Path) -> list[str]:
    other = sorted(v for v in seen if v != current)
    if not other:
        return []
    return [
        f"{path} was exported from golden version {', '.join(other)}; the set is now version "
        f"{current}: cases added since are missing and changed cases are graded on their new "
        "expectations; export the set again"
    ]


def convert(fmt: str, path: Path, shown: str, patterns: Sequence[str]) -> Converted:
    """The results in ``path``, written by ``fmt`` (promptfoo or inspect)."""
    if fmt not in _READERS:
        raise GoldcaseError(f"--from {fmt!r}: choose one of {', '.join(FORMATS)}")
    converted = _READERS[fmt](path, shown, patterns)
    converted.check(shown)
    return converted
