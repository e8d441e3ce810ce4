"""Build the compiled modules and the C extensions into build/native (server/native.py).

server.native.COMPILED is compiled by mypyc, server.native.C_EXTENSIONS by the C compiler.

Usage: ``.venv/bin/python scripts/build_native.py`` (``--force`` to build again even
when the stamp is current). Needs mypy and a C compiler. The sources are not
touched: the C code goes to build/native-src, the objects to build/native-tmp, and
the finished build replaces build/native only once complete.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["REMI_NATIVE"] = "0"  # build from the sources, never import a compiled module
sys.path.insert(0, str(ROOT))

from server import native  # noqa: E402

log = logging.getLogger("build_native")


def build(force: bool) -> int:
    from importlib import metadata

    from mypyc.build import mypycify
    from setuptools import Extension, setup

    mypy_version = metadata.version("mypy")
    if not force and native.check() == "on" and _built_by() == mypy_version:
        log.info("build/native is current")
        return 0

    started = time.monotonic()
    source_digest = native.digest()
    os.chdir(ROOT)
    new = ROOT / "build" / "native-new"
    shutil.rmtree(new, ignore_errors=True)
    paths = [str(native.source_path(m).relative_to(ROOT)) for m in native.COMPILED]
    extensions = mypycify(
        paths, opt_level="3", group_name=native.GROUP, target_dir="build/native-src"
    )
    extensions += [
        Extension(name, sources=[source], extra_compile_args=["-O2", "-std=gnu11"])
        for name, source in native.C_EXTENSIONS.items()
    ]
    setup(
        name="remi-native",
        ext_modules=extensions,
        script_args=[
            "-q", "build_ext", "--build-lib", str(new), "--build-temp", "build/native-tmp",
        ],
    )
    (new / native.STAMP).write_text(
        json.dumps(
            {"digest": source_digest, "modules": list(native.COMPILED), "mypy": mypy_version},
            indent=1,
        ),
        encoding="utf-8",
    )
    if native.check(new) != "on":
        log.error("the new build does not check: %s", native.check(new))
        return 1
    old = native.BUILD_DIR
    shutil.rmtree(old, ignore_errors=True)
    new.rename(old)
    log.info(
        "built %d modules and %d C extensions in %.0f s",
        len(native.COMPILED), len(native.C_EXTENSIONS), time.monotonic() - started,
    )
    return 0


def _built_by() -> str | None:
    """The mypy version of the current build (None: no readable stamp)."""
    try:
        stamp = json.loads((native.BUILD_DIR / native.STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = stamp.get("mypy")
    return version if isinstance(version, str) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    # A handler of its own: setuptools' "-q" sets the root logger to warnings only.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("build_native: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    return build(args.force)


if __name__ == "__main__":
    sys.exit(main())
