"""Run under Pyodide in node by pack-python.mjs at build time: the offline practice's
Python as the worker loads it, with its bytecode compiled once here instead of at
every start in the browser. Run by the machine's Python (``python3 bytecode.py REPO
PATH...``), it writes the sources alone as a zip to its standard output: the dev
server's ``remi-python.zip``.

Pyodide's standard library zip holds sources only, and its file system is new at every
start, so every module imported (Python's own start, Pyodide's, the rule engine's)
would be compiled from source each time the practice opens. Here, with the same
Pyodide (so the same Python and bytecode version), we write:

- ``remi-python.zip``: the packed sources and, beside each, its ``.pyc``;
- ``python_stdlib.zip``: Pyodide's standard library zip, every entry unchanged, plus a
  ``.pyc`` beside each module the practice imports (found by importing and running it
  here).

Every ``.pyc`` is hash-checked against its source (PEP 552, ``CHECKED_HASH``): Python
compares the source's hash at import and compiles the source instead if they differ,
so a stale ``.pyc`` is never run. zipimport finds ``name.pyc`` beside ``name.py``.
"""

from __future__ import annotations

import io
import json
import py_compile
import sys
import zipfile

STAMP = (1980, 1, 1, 0, 0, 0)
"""Every entry's date: the zips depend on their contents only."""

MODE = py_compile.PycInvalidationMode.CHECKED_HASH


def _pyc(source: bytes, shown_as: str) -> bytes:
    """The checked-hash bytecode of ``source``; tracebacks name it ``shown_as``."""
    with open("/tmp/bytecode-src.py", "wb") as f:
        f.write(source)
    py_compile.compile("/tmp/bytecode-src.py", cfile="/tmp/bytecode.pyc", dfile=shown_as,
                       doraise=True, invalidation_mode=MODE)
    with open("/tmp/bytecode.pyc", "rb") as f:
        return f.read()


def _put(out: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    out.writestr(info, data)


def _exercise() -> None:
    """Import and run what the practice runs, so that its modules are in sys.modules."""
    from server.practice.bridge import Session
    from server.practice.timing import decision_times
    from server.rules.catalogue import catalogue

    s = Session()
    s.start(json.dumps({"variant": "remi", "seats": 4}), "bytecode", 0.0, None, 0.0)
    s.message(json.dumps({"type": "hello"}), 0.0)
    s.state(0.0)
    for variant in catalogue():
        for level in ("easy", "normal", "hard"):
            decision_times(variant["id"], 2, level, 5, clock=lambda: 0.0)


def build(src_root: str, paths_json: str, remi_zip: str, remi_shown: str,
          stdlib_out: str) -> str:
    """Write both zips; return a summary (JSON) for the build's log."""
    paths: list[str] = json.loads(paths_json)
    stdlib_in = next(p for p in sys.path if p.endswith(".zip"))  # /lib/python3NN.zip
    with zipfile.ZipFile(remi_zip, "w") as out:
        for path in paths:
            with open(f"{src_root}/{path}", "rb") as f:
                source = f.read()
            _put(out, path, source)
            _put(out, path[:-3] + ".pyc", _pyc(source, f"{remi_shown}/{path}"))

    sys.path.insert(0, src_root)
    _exercise()
    used = set()
    prefix = stdlib_in + "/"
    for module in list(sys.modules.values()):
        where = getattr(module, "__file__", None) or ""
        if where.startswith(prefix) and where.endswith(".py"):
            used.add(where[len(prefix):])
    with zipfile.ZipFile(stdlib_in) as original, zipfile.ZipFile(stdlib_out, "w") as out:
        for info in original.infolist():
            data = original.read(info)
            out.writestr(info, data)
            if info.filename in used:
                _put(out, info.filename[:-3] + ".pyc", _pyc(data, f"{stdlib_in}/{info.filename}"))
    return json.dumps({"packed": len(paths), "stdlib_compiled": len(used)})


def source_zip(src_root: str, paths: list[str]) -> bytes:
    """The packed sources alone, deflated (no bytecode: Python compiles them at import)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for path in paths:
            with open(f"{src_root}/{path}", "rb") as f:
                _put(z, path, f.read())
    return out.getvalue()


if __name__ == "__main__":
    sys.stdout.buffer.write(source_zip(sys.argv[1], sys.argv[2:]))
