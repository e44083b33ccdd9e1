"""goldcase.cache.code_salt: a cached finding is keyed by the code that made it, so the salt
covers every package a check family imports (an edit to scoring/ changes what the probes
family finds, and must not be answered from the cache)."""

from __future__ import annotations

import ast
import importlib

from goldcase import cache, checks
from kit import REPO_ROOT

SRC = REPO_ROOT / "src" / "goldcase"


def packages_imported(module: str) -> set[str]:
    tree = ast.parse(
        (SRC / (module.removeprefix("goldcase.").replace(".", "/") + ".py")).read_text()
    )
    names = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    parts = [name.split(".") for name in names if name.startswith("goldcase.")]
    return {p[1] for p in parts if len(p) > 1 and (SRC / p[1]).is_dir()}


def test_the_salt_covers_every_package_a_check_family_imports() -> None:
    for module in checks.FAMILIES.values():
        importlib.import_module(module)  # the registry names real modules
        assert packages_imported(module) <= set(cache._SALTED), module
