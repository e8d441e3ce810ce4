"""server/rules, server/bots, the room core and the practice must run under Pyodide:
standard library only, no I/O, no clock, no threads, no global random (DEVELOPERS.md)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Everything the browser's offline practice runs under Pyodide (web/scripts/pack-python.mjs).
PURE = sorted(
    [
        *(ROOT / "server" / "rules").glob("*.py"),
        *(ROOT / "server" / "bots").glob("*.py"),
        *(ROOT / "server" / "practice").glob("*.py"),
        *(ROOT / "server" / "rooms" / "core").glob("*.py"),
        ROOT / "server" / "errors.py",
    ]
)
FORBIDDEN_MODULES = {
    "threading",
    "multiprocessing",
    "socket",
    "subprocess",
    "asyncio",
    "time",
    "datetime",
    "os",
    "secrets",
}
# The CLI entry points may read argv, print and time rounds; the rules proper may not.
ENTRY_POINTS = {"scenario.py", "arena.py"}
GLOBAL_RANDOM = {
    "random",
    "randint",
    "randrange",
    "choice",
    "choices",
    "shuffle",
    "sample",
    "uniform",
    "seed",
    "getrandbits",
    "gauss",
}


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
        if name.startswith(
            ("server.rules", "server.bots", "server.practice", "server.rooms.core", "server.errors")
        ):
            continue
        assert top in sys.stdlib_module_names, f"{path.name} imports {name}"
        if path.name not in ENTRY_POINTS:
            assert top not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
    if path.parent.name == "rules" and path.name not in ENTRY_POINTS:
        assert not any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("open", "print", "input")
            for n in ast.walk(tree)
        ), f"{path.name} does I/O"


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr not in GLOBAL_RANDOM, f"{path.name} uses random.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            assert not {a.name for a in node.names} & GLOBAL_RANDOM, f"{path.name}"


# Run in a fresh interpreter: what importing the package loads, and whether the import
# does anything but define (no thread, no file opened, no meta-path finder, no output).
_PROBE = """
import json, sys, threading
sys.path.insert(0, {root!r})
finders = list(sys.meta_path)
import {package}
stdlib = sys.stdlib_module_names
def ours(name):
    return name in ("__main__", "server", "server.rooms") or any(
        name == p or name.startswith(p + ".") for p in {allowed!r})
outside = sorted(m for m in sys.modules
                 if not ours(m) and m.split(".")[0] not in stdlib
                 and m.split(".")[0].lstrip("_") not in stdlib)
project = sorted(m for m in sys.modules if m.startswith("server") and not ours(m))
print(json.dumps({{"outside": outside, "project": project,
                   "finders_added": len(sys.meta_path) - len(finders),
                   "threads": threading.active_count()}}))
"""


_ALLOWED = {
    "server.rules": ("server.rules",),
    "server.bots": ("server.rules", "server.bots"),
    "server.rooms.core.room": ("server.rules", "server.bots", "server.rooms.core", "server.errors"),
    "server.practice.bridge": (
        "server.rules",
        "server.bots",
        "server.rooms.core",
        "server.errors",
        "server.practice",
    ),
}


@pytest.mark.parametrize("package", list(_ALLOWED))
def test_importing_the_package_loads_only_the_standard_library(package: str) -> None:
    """``import server.rules`` (and ``server.bots``, the room core, the practice) loads
    nothing outside the standard library but the pure packages (and ``server``, whose
    ``__init__`` is only a docstring), and runs nothing but definitions."""
    import json
    import subprocess

    # -I -S: no site packages, no .pth file, no environment: only what the import loads.
    allowed = _ALLOWED[package]
    probe = _PROBE.format(package=package, root=str(ROOT), allowed=allowed)
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = run.stdout.splitlines()
    assert len(lines) == 1 and run.stderr == "", "the import printed something"
    found = json.loads(lines[0])
    assert found["outside"] == []
    assert found["project"] == []  # nothing else of the project (server.api, rooms...)
    assert found["finders_added"] == 0 and found["threads"] == 1


def test_the_server_package_init_is_only_a_docstring() -> None:
    """``server/__init__.py`` runs nothing on import (no import hook)."""
    tree = ast.parse((ROOT / "server" / "__init__.py").read_text(encoding="utf-8"))
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
    doc = tree.body[0].value
    assert isinstance(doc, ast.Constant) and isinstance(doc.value, str)
