"""The hot modules compiled by mypyc, used only when built from the very sources here.

A move's own CPU (the engine's ``apply``, the views and their patches, the room
actor that checks, commits and broadcasts it) is plain Python. mypyc compiles the
same source files, unchanged, to C extensions (``scripts/build_native.py``, which
``scripts/run`` and ``scripts/test`` call): about a fifth less server CPU per move
in bench/load.py (docs/benchmarks.md). The ``.py`` files stay the reference: the
browser runs them under Pyodide, and they run wherever nothing was built.

The build goes to ``build/native/`` (never next to the sources, where an extension
would shadow its ``.py`` and hide an edit) with a stamp: a digest of the compiled
sources and of the Python ABI, and the mypy version that built it.
:func:`install`, called when the ``server`` package is imported, puts an import
finder for the compiled modules in front of the path only when the stamp matches
the sources as they are now, and all of them or none: a compiled module calls the
others of its build directly, so one edited source sends every module back to its
``.py``. ``REMI_NATIVE=0`` in the environment turns the build off; ``REMI_NATIVE=1``
makes a missing or stale build an error (CI uses it, so that the tests run on what
was built). docs/operations.md, "Compiled modules", says what mypyc changes.

>>> "server.rules.state" in COMPILED and "server.rooms.actor" in COMPILED
True
>>> status().split(":")[0] in {"on", "off"}
True
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
"""The directory holding the ``server`` package (the checkout, or /app in the image)."""

BUILD_DIR = ROOT / "build" / "native"
STAMP = "stamp.json"
GROUP = "remi_native"
"""mypyc's name for the build."""
SHARED_LIB = f"{GROUP}__mypyc"
"""The build's shared library: a top-level module holding the code of every compiled one."""

COMPILED: tuple[str, ...] = (
    "server.rules.tiles",
    "server.rules.melds",
    "server.rules.actions",
    "server.rules.state",
    "server.rules.views",
    "server.rooms.conn",
    "server.rooms.actor",
)
"""The modules compiled, in dependency order. Not variants.py: mypyc supports no
class-level default such as a variant family's ``frozenset`` of actions."""

C_EXTENSIONS: dict[str, str] = {"remi_sockwriter": "server/rooms/sockwriter.c"}
"""Extensions written in C, built with the compiled modules and used with them (all or
none): module name -> source file from the root. ``remi_sockwriter``: the room sockets'
writes on a thread of their own (server/socketwriter.py)."""

ENV = "REMI_NATIVE"


class NativeBuildError(RuntimeError):
    """``REMI_NATIVE=1`` and no usable build."""


def source_path(module: str, root: Path = ROOT) -> Path:
    """The ``.py`` file of a compiled module."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def digest(root: Path = ROOT, modules: Sequence[str] = COMPILED) -> str:
    """What a build is made from: the Python ABI and every compiled source file (the C
    extensions' too)."""
    h = hashlib.sha256()
    h.update(sys.implementation.cache_tag.encode())
    h.update(importlib.machinery.EXTENSION_SUFFIXES[0].encode())
    for module in modules:
        h.update(module.encode() + b"\0")
        h.update(source_path(module, root).read_bytes())
    for name, source in C_EXTENSIONS.items():
        h.update(name.encode() + b"\0")
        h.update(root.joinpath(source).read_bytes())
    return h.hexdigest()


def extension_path(module: str, build_dir: Path = BUILD_DIR) -> Path:
    """Where the build puts a compiled module (or, for the group, its shared library)."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return build_dir.joinpath(*module.split(".")).with_name(module.split(".")[-1] + suffix)


class NativeFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules (and mypyc's shared library) in a build directory."""

    def __init__(self, build_dir: Path, modules: Sequence[str] = COMPILED) -> None:
        self.paths = {name: extension_path(name, build_dir) for name in modules}
        self.paths[SHARED_LIB] = extension_path(SHARED_LIB, build_dir)
        for name in C_EXTENSIONS:
            self.paths[name] = extension_path(name, build_dir)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        location = self.paths.get(fullname)
        if location is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(location))
        return importlib.util.spec_from_file_location(fullname, location, loader=loader)


def check(build_dir: Path = BUILD_DIR, root: Path = ROOT) -> str:
    """Why the build in ``build_dir`` can or cannot be used: ``on`` or ``off: <reason>``."""
    stamp_path = build_dir / STAMP
    if not stamp_path.is_file():
        return "off: not built (scripts/build_native.py)"
    try:
        stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "off: unreadable stamp"
    if stamp.get("modules") != list(COMPILED):
        return "off: built for other modules"
    try:
        current = digest(root)
    except OSError:  # a source file is missing (e.g. an installed package without the C)
        return "off: the compiled sources are not all here"
    if stamp.get("digest") != current:
        return "off: stale (a source or Python changed since the build)"
    built = (*COMPILED, SHARED_LIB, *C_EXTENSIONS)
    missing = [m for m in built if not extension_path(m, build_dir).is_file()]
    if missing:
        return f"off: missing {missing[0]}"
    return "on"


def install(build_dir: Path = BUILD_DIR, environ: Mapping[str, str] | None = None) -> str:
    """Use the compiled modules if the build matches the sources; the status (as
    :func:`status`). Call it before any compiled module is imported."""
    env = os.environ if environ is None else environ
    wanted = env.get(ENV, "")
    already = [m for m in COMPILED if m in sys.modules]
    if _installed():
        result = "on"
    elif wanted == "0":
        result = f"off: {ENV}=0"
    elif already:
        result = f"off: {already[0]} was imported first"
    else:
        result = check(build_dir)
        if result == "on":
            finder = NativeFinder(build_dir)
            result = _load_shared_lib(finder)
            if result == "on":
                sys.meta_path.insert(0, finder)
    if wanted == "1" and result != "on":
        raise NativeBuildError(f"{ENV}=1 but the compiled modules are {result}")
    return result


def _installed() -> bool:
    return any(isinstance(f, NativeFinder) for f in sys.meta_path)


def _load_shared_lib(finder: NativeFinder) -> str:
    """Load the build's shared library now, where a failure (a file that is not a
    loadable extension) still leaves every module to its ``.py``: ``on`` or why not."""
    spec = finder.find_spec(SHARED_LIB, None)
    assert spec is not None and spec.loader is not None
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError) as exc:
        return f"off: the build does not load ({exc})"
    sys.modules[SHARED_LIB] = module
    return "on"


def status(build_dir: Path = BUILD_DIR, environ: Mapping[str, str] | None = None) -> str:
    """``on`` when the compiled modules are in use, else ``off: <reason>``."""
    env = os.environ if environ is None else environ
    if _installed():
        return "on"
    if env.get(ENV, "") == "0":
        return f"off: {ENV}=0"
    reason = check(build_dir)
    return "off: not installed (the build is current)" if reason == "on" else reason


def c_extension(name: str) -> ModuleType | None:
    """The C extension ``name`` of :data:`C_EXTENSIONS` when the build is in use (see
    :func:`install`), else None.

    >>> c_extension("remi_sockwriter") is None or status() == "on"
    True
    """
    if name not in C_EXTENSIONS:
        raise KeyError(name)
    if not _installed():
        return None
    return importlib.import_module(name)


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled build."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
