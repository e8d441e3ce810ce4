"""server/rules and server/bots must run under Pyodide: standard library only, no I/O,
no clock, no threads, no global random (DEVELOPERS.md; issue 2 item 2, issue 4)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = sorted([*(ROOT / "server" / "rules").glob("*.py"), *(ROOT / "server" / "bots").glob("*.py")])
FORBIDDEN_MODULES = {"threading", "multiprocessing", "socket", "subprocess", "asyncio",
                     "time", "datetime", "os", "secrets"}
# The CLI entry points may read argv, print and time rounds; the rules proper may not.
ENTRY_POINTS = {"scenario.py", "arena.py"}
GLOBAL_RANDOM = {"random", "randint", "randrange", "choice", "choices", "shuffle", "sample",
                 "uniform", "seed", "getrandbits", "gauss"}


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_only_the_standard_library_and_the_pure_packages(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for name in _imports(tree):
        top = name.split(".")[0]
        if name.startswith(("server.rules", "server.bots")):
            continue
        assert top in sys.stdlib_module_names, f"{path.name} imports {name}"
        if path.name not in ENTRY_POINTS:
            assert top not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
    if path.parent.name == "rules" and path.name not in ENTRY_POINTS:
        assert not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                       and n.func.id in ("open", "print", "input") for n in ast.walk(tree)), (
            f"{path.name} does I/O")


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "random":
            assert node.attr not in GLOBAL_RANDOM, f"{path.name} uses random.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            assert not {a.name for a in node.names} & GLOBAL_RANDOM, f"{path.name}"
