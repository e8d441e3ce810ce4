"""scripts/check_image.py: each Dockerfile stage built from exactly what it copies.

The real build runs in scripts/test (npm and pip take a minute); these tests run the check
on small Dockerfiles whose commands only look at the files, and read the real one.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_image", REPO / "scripts/check_image.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_image"] = module
    spec.loader.exec_module(module)
    return module


ci = _load()


def _repo(tmp: Path, dockerfile: str, node: str = ">=20") -> Path:
    repo = tmp / "repo"
    (repo / "web" / "node_modules" / "big").mkdir(parents=True)
    (repo / "web" / "package.json").write_text(json.dumps({"engines": {"node": node}}))
    (repo / "web" / "build.sh").write_text("ls ../server/rules/engine.py > built.txt\n")
    (repo / "server" / "rules").mkdir(parents=True)
    (repo / "server" / "rules" / "engine.py").write_text("")
    (repo / "server" / "__pycache__").mkdir()
    (repo / ".dockerignore").write_text("web/node_modules\n**/__pycache__\n")
    (repo / "Dockerfile").write_text(dockerfile)
    return repo


def _check(repo: Path, tmp: Path) -> list[str]:
    log: list[str] = []
    ci.check(repo / "Dockerfile", repo, tmp / "work", log)
    return log


WEB_ONLY = """\
ARG NODE=20
FROM node:${NODE}-slim AS web
WORKDIR /src/web
COPY web/ ./
RUN sh build.sh
FROM python:3.11-slim
WORKDIR /app
RUN useradd remi && mkdir -p /data
COPY --from=web /src/web/built.txt ./
"""


def test_a_stage_that_does_not_copy_what_its_build_reads_fails(tmp_path: Path) -> None:
    repo = _repo(tmp_path, WEB_ONLY)
    with pytest.raises(ci.ImageCheckError, match=r"RUN sh build\.sh failed"):
        _check(repo, tmp_path)


def test_the_stage_builds_once_it_copies_the_server(tmp_path: Path) -> None:
    fixed = WEB_ONLY.replace("RUN sh build.sh", "COPY server/ ../server/\nRUN sh build.sh")
    repo = _repo(tmp_path, fixed)
    log = _check(repo, tmp_path)
    work = tmp_path / "work"
    built = (work / "stage1" / "app" / "built.txt").read_text().strip()
    assert built == "../server/rules/engine.py"
    # .dockerignore is followed: neither node_modules nor __pycache__ reach the stage.
    assert not (work / "stage0" / "src" / "web" / "node_modules").exists()
    assert not (work / "stage0" / "src" / "server" / "__pycache__").exists()
    assert "[1] skipped (system set-up): useradd remi" in log
    assert "[1] skipped (system set-up): mkdir -p /data" in log


def test_a_copy_of_a_missing_file_fails(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "FROM node:20-slim\nCOPY web/missing.json ./\n")
    with pytest.raises(ci.ImageCheckError, match=r"missing\.json does not exist"):
        _check(repo, tmp_path)


def test_the_image_node_must_be_the_projects(tmp_path: Path) -> None:
    repo = _repo(tmp_path, WEB_ONLY, node=">=22")
    with pytest.raises(ci.ImageCheckError, match="the project's Node is 22"):
        _check(repo, tmp_path)


def test_the_real_dockerfile_follows_the_project() -> None:
    found = ci.stages((REPO / "Dockerfile").read_text())
    majors = {ci.node_major_of(s.image) for s in found} - {None}
    assert majors == {ci.project_node_major(REPO)}
    web = next(s for s in found if s.name == "web")
    copies = [rest for word, rest in web.steps if word == "COPY"]
    # What web/scripts/pack-python.mjs reads: the server's sources beside web/.
    assert any(c.startswith("server") for c in copies)
