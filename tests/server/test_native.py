"""server/native.py: the compiled modules are used only when built from these sources."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server import native
from server.rooms import actor
from server.rules import state, variants

ROOT = Path(__file__).resolve().parents[2]


def fake_build(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the compiled modules' sources and a build directory whose stamp matches
    them, with an (empty) file for every extension: what ``check`` looks at."""
    root = tmp_path / "src"
    for module in native.COMPILED:
        target = native.source_path(module, root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(native.source_path(module), target)
    for source in native.C_EXTENSIONS.values():
        (root / source).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / source, root / source)
    build = tmp_path / "build"
    for module in [*native.COMPILED, native.SHARED_LIB, *native.C_EXTENSIONS]:
        path = native.extension_path(module, build)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    stamp = {"digest": native.digest(root), "modules": list(native.COMPILED)}
    (build / native.STAMP).write_text(json.dumps(stamp), encoding="utf-8")
    return root, build


def test_a_build_matching_its_sources_is_used(tmp_path: Path) -> None:
    root, build = fake_build(tmp_path)
    assert native.check(build, root) == "on"


def test_an_edited_source_turns_every_compiled_module_off(tmp_path: Path) -> None:
    root, build = fake_build(tmp_path)
    views = native.source_path("server.rules.views", root)
    views.write_text(views.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert native.check(build, root).startswith("off: stale")


def test_an_edited_c_extension_turns_the_build_off(tmp_path: Path) -> None:
    root, build = fake_build(tmp_path)
    source = root / native.C_EXTENSIONS["remi_sockwriter"]
    source.write_text(source.read_text(encoding="utf-8") + "\n/* edited */\n", encoding="utf-8")
    assert native.check(build, root).startswith("off: stale")


def test_a_missing_incomplete_or_foreign_build_is_not_used(tmp_path: Path) -> None:
    root, build = fake_build(tmp_path)
    assert native.check(tmp_path / "nothing", root).startswith("off: not built")
    native.extension_path("server.rooms.actor", build).unlink()
    assert native.check(build, root) == "off: missing server.rooms.actor"
    native.extension_path("server.rooms.actor", build).write_bytes(b"")
    native.extension_path("remi_sockwriter", build).unlink()
    assert native.check(build, root) == "off: missing remi_sockwriter"
    source = root / native.C_EXTENSIONS["remi_sockwriter"]
    kept = source.read_bytes()
    source.unlink()
    assert native.check(build, root) == "off: the compiled sources are not all here"
    source.write_bytes(kept)
    stamp = json.loads((build / native.STAMP).read_text(encoding="utf-8"))
    stamp["modules"] = stamp["modules"][:-1]
    (build / native.STAMP).write_text(json.dumps(stamp), encoding="utf-8")
    assert native.check(build, root) == "off: built for other modules"
    (build / native.STAMP).write_text("{not json", encoding="utf-8")
    assert native.check(build, root) == "off: unreadable stamp"


def test_the_finder_knows_only_the_compiled_modules(tmp_path: Path) -> None:
    finder = native.NativeFinder(tmp_path)
    assert finder.find_spec("server.rules.match", None) is None
    assert finder.find_spec("json", None) is None
    spec = finder.find_spec("server.rules.state", None)
    assert spec is not None and spec.origin == str(
        native.extension_path("server.rules.state", tmp_path)
    )
    writer = finder.find_spec("remi_sockwriter", None)
    assert writer is not None and writer.origin == str(
        native.extension_path("remi_sockwriter", tmp_path)
    )
    group = finder.find_spec(native.SHARED_LIB, None)
    assert group is not None and group.origin is not None
    assert Path(group.origin).parent == tmp_path


def test_remi_native_0_turns_it_off_and_1_requires_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, build = fake_build(tmp_path)
    # As in a process that has not installed the finder yet.
    monkeypatch.setattr(sys, "meta_path", [
        f for f in sys.meta_path if not isinstance(f, native.NativeFinder)
    ])
    assert native.install(build, environ={"REMI_NATIVE": "0"}) == "off: REMI_NATIVE=0"
    # The modules are imported already (by this test): never mixed with a build.
    assert native.install(build, environ={}) == "off: server.rules.tiles was imported first"
    with pytest.raises(native.NativeBuildError, match="imported first"):
        native.install(build, environ={"REMI_NATIVE": "1"})
    assert not any(isinstance(f, native.NativeFinder) for f in sys.meta_path)


def test_this_run_uses_what_remi_native_asks_for() -> None:
    """CI runs the suite twice: compiled (REMI_NATIVE=1) and as plain Python (=0)."""
    wanted = os.environ.get("REMI_NATIVE", "")
    if wanted == "1":
        assert native.status() == "on"
        assert all(native.is_compiled(m) for m in (actor, state))
    elif wanted == "0":
        assert native.status() == "off: REMI_NATIVE=0"
        assert not any(native.is_compiled(m) for m in (actor, state))
    assert not native.is_compiled(variants)  # never compiled (server/native.py)
    # The C extensions go with the compiled modules.
    assert (native.c_extension("remi_sockwriter") is not None) == (native.status() == "on")


def test_a_fresh_process_without_a_build_imports_the_sources(tmp_path: Path) -> None:
    code = (
        "from pathlib import Path\n"
        "from server import native\n"
        "import server.rooms.actor as a\n"
        "print(native.status().split(' ')[0], native.is_compiled(a), Path(a.__file__).suffix)\n"
    )
    env = {**os.environ, "REMI_NATIVE": "0"}
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True)
    assert run.stdout.split() == ["off:", "False", ".py"]


def test_a_build_that_does_not_load_leaves_the_sources(tmp_path: Path) -> None:
    """A stamp that matches but a library that is no extension (here, empty files):
    nothing is taken from the build."""
    _, build = fake_build(tmp_path)
    stamp = json.loads((build / native.STAMP).read_text(encoding="utf-8"))
    stamp["digest"] = native.digest()  # the real sources, so that check() says "on"
    (build / native.STAMP).write_text(json.dumps(stamp), encoding="utf-8")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from server import native\n"
        f"print(native.install(Path({str(build)!r}), environ={{}}))\n"
        "import server.rules.state as s\n"
        "print(native.status(), native.is_compiled(s))\n"
    )
    env = {**os.environ, "REMI_NATIVE": "0"}  # the package's own install() stays out
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True)
    first, second = run.stdout.splitlines()
    assert first.startswith("off: the build does not load")
    assert second == "off: REMI_NATIVE=0 False"
