"""The layers of docs/architecture.md, checked on the import graph drawn from the source: every
``import`` of a goldcase module, at any depth of a file (a function's imports count too)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from goldcase import checks
from goldcase.cli import COMMANDS
from kit import REPO_ROOT

SRC = REPO_ROOT / "src" / "goldcase"
ARCHITECTURE = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
# The domain package each check family may import besides the core (None: the core alone).
FAMILY_DOMAIN = {
    "schema": None,
    "support": None,
    "leakage": "leakage",
    "version": "versioning",
    "composition": "composition",
    "labelling": "labelling",
    "privacy": "privacy",
    "probes": "scoring",
}
# Cycles between domain packages that docs/architecture.md explains.
DOCUMENTED_CYCLES = [{"labelling", "scoring"}]


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def resolve(base: str, name: str) -> str:
    """``from base import name``: the module ``base.name`` when there is one, else ``base``."""
    candidate = f"{base}.{name}"
    return candidate if candidate in modules() else base


@cache
def imports(module: str) -> frozenset[str]:
    """The goldcase modules ``module`` imports."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "goldcase")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*head, *([base] if base else [])])
            if base.split(".")[0] == "goldcase":
                out.update(resolve(base, alias.name) for alias in node.names)
    return frozenset(out)


def layer(module: str) -> str:
    """``core``, ``commands``, ``checks`` or the name of a domain package."""
    parts = module.split(".")
    if len(parts) == 1:
        return "core"
    if parts[1] in ("commands", "checks") or (SRC / parts[1]).is_dir():
        return parts[1]
    return "core"


def in_layer(name: str) -> Iterator[str]:
    return (m for m in modules() if layer(m) == name)


def domains() -> list[str]:
    return sorted({layer(m) for m in modules()} - {"core", "commands", "checks"})


def is_family(module: str) -> bool:
    return module.startswith("goldcase.checks.")


def test_the_core_imports_no_domain_command_or_family() -> None:
    for module in in_layer("core"):
        for target in imports(module):
            if module == "goldcase.engine" and target == "goldcase.checks":
                continue  # the registry, which names each family's module as a string
            assert layer(target) == "core", f"{module} imports {target}"


def test_a_check_family_imports_the_core_and_its_own_domain() -> None:
    assert set(FAMILY_DOMAIN) == set(checks.FAMILIES), "a family without its domain here"
    for name, module in checks.FAMILIES.items():
        own = FAMILY_DOMAIN[name]
        for target in imports(module):
            assert target != "goldcase.engine", f"{module} imports the engine"
            assert layer(target) in ("core", own), f"{module} imports {target}"
    registry = imports("goldcase.checks")
    assert all(layer(target) == "core" for target in registry), registry


def test_nothing_imports_a_check_family() -> None:
    for module in modules():
        for target in imports(module):
            assert not is_family(target), f"{module} imports the check family {target}"


def test_a_domain_imports_no_command_and_no_family() -> None:
    for domain in domains():
        for module in in_layer(domain):
            for target in imports(module):
                assert layer(target) not in ("commands", "checks"), f"{module} imports {target}"


def domain_graph() -> dict[str, set[str]]:
    """Domain package -> the other domain packages its modules import."""
    graph: dict[str, set[str]] = {d: set() for d in domains()}
    for domain in domains():
        for module in in_layer(domain):
            graph[domain].update(
                layer(t) for t in imports(module) if layer(t) not in ("core", domain)
            )
    return graph


def documented_graph() -> dict[str, set[str]]:
    section = ARCHITECTURE.split("## Which domain imports which", 1)[1].split("\n## ", 1)[0]
    graph: dict[str, set[str]] = {}
    for row in re.findall(r"^\| `([a-z_]+)` \| (.+?) \|$", section, re.MULTILINE):
        package, imported = row
        graph[package] = set(re.findall(r"`([a-z_]+)`", imported))
    return graph


def test_the_domain_graph_is_the_documented_one() -> None:
    assert domain_graph() == documented_graph()


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one package."""
    reach = {node: _reachable(graph, node) for node in graph}
    found: list[set[str]] = []
    for node in sorted(graph):
        component = {other for other in reach[node] if node in reach[other]}
        if len(component) > 1 and component not in found:
            found.append(component)
    return found


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_no_cycle_between_domains_but_the_documented_one() -> None:
    assert cycles(domain_graph()) == DOCUMENTED_CYCLES
    assert "One cycle between packages" in ARCHITECTURE


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [{"a", "b", "c"}]


@pytest.mark.parametrize("module", sorted(modules()))
def test_every_module_is_in_the_architecture(module: str) -> None:
    path = modules()[module]
    rel = path.relative_to(SRC).as_posix()
    if path.name == "__init__.py" and "/" in rel and rel != "checks/__init__.py":
        package = path.parent.relative_to(SRC).as_posix()
        assert f"`{package}/" in ARCHITECTURE, f"{package}/ is not in docs/architecture.md"
    elif rel.startswith("commands/") and path.stem in {m for m, _ in COMMANDS.values()}:
        return  # one module a command, listed in cli.COMMANDS
    else:
        assert f"`{rel}`" in ARCHITECTURE, f"{rel} is not in docs/architecture.md"


def test_every_module_the_architecture_names_exists() -> None:
    named = {
        rel
        for rel in re.findall(r"`([a-z_/]+\.py)`", ARCHITECTURE)
        if not rel.startswith(("tests/", "test_")) and rel != "kit.py"
    }
    assert named, "no module named in docs/architecture.md"
    missing = sorted(rel for rel in named if not (SRC / rel).is_file())
    assert missing == []
