"""Coverage-guided fuzzing of goldcase's in-memory parsers with atheris (libFuzzer), for long
runs beside the hypothesis suite (tests/fuzz). Not part of CI: it runs until a crash or
``-max_total_time``.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python scripts/fuzz_atheris.py case -max_total_time=600
    make fuzz-atheris            # every target, 120 s each

Targets: case (loader.parse_case, also what label files go through), results
(scoring.results.parse_results), lock (lockfile.parse), hashes (the hashes file's JSON),
report (the report reader: JSON, schema, case digest). An expected failure (a finding, a
``GoldcaseError``, a ``LockError``) is a result; anything else is a crash that libFuzzer saves
as ``crash-<sha1>`` for a regression test. Seeds come from tests/data.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from goldcase.errors import GoldcaseError
    from goldcase.leakage import hashes
    from goldcase.loader import parse_case
    from goldcase.scoring import reportfile
    from goldcase.scoring.results import parse_results
    from goldcase.versioning import lockfile

ROOT = Path(__file__).resolve().parent.parent
MAX_INPUT = 256 * 1024


def fuzz_case(data: bytes) -> None:
    parsed, findings = parse_case("cases/golden/x.yaml", data)
    assert (parsed is None) == bool(findings)


def fuzz_results(data: bytes) -> None:
    parse_results(data, "run.jsonl")


def fuzz_lock(data: bytes) -> None:
    with contextlib.suppress(lockfile.LockError):
        lockfile.parse(data.decode("utf-8", "replace"))


def fuzz_hashes(data: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".hashes") as fh:
        fh.write(data)
        fh.flush()
        with contextlib.suppress(GoldcaseError):
            hashes.load(Path(fh.name))


def fuzz_report(data: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".json") as fh:
        fh.write(data)
        fh.flush()
        with contextlib.suppress(GoldcaseError):
            reportfile.load_report(Path(fh.name))


TARGETS: dict[str, tuple[Callable[[bytes], None], list[str]]] = {
    "case": (fuzz_case, ["tests/data/valid", "tests/data/invalid"]),
    "results": (fuzz_results, []),
    "lock": (fuzz_lock, ["golden.lock"]),
    "hashes": (fuzz_hashes, []),
    "report": (fuzz_report, ["tests/data/reports"]),
}


def seed_folder(name: str, sources: list[str]) -> str:
    """A temporary folder of seed files for libFuzzer (it adds what it finds there)."""
    folder = Path(tempfile.mkdtemp(prefix=f"goldcase-atheris-{name}-"))
    for source in sources:
        path = ROOT / source
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for number, item in enumerate(f for f in files if f.is_file()):
            (folder / f"{item.stem}-{number}").write_bytes(item.read_bytes()[:MAX_INPUT])
    return str(folder)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: fuzz_atheris.py {{{'|'.join(TARGETS)}}} [libFuzzer options]")
    name = sys.argv[1]
    target, sources = TARGETS[name]
    argv = [sys.argv[0], *sys.argv[2:], f"-max_len={MAX_INPUT}", seed_folder(name, sources)]
    atheris.Setup(argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
