"""Build what the Dockerfile builds, without a container engine.

Each stage of the Dockerfile is built in a directory of its own that holds only what the
stage's COPY lines put there (the build context filtered by .dockerignore, or the files of
an earlier stage), laid out as in the image (a path `/src/web` of the image is
`<stage dir>/src/web`). The stage's RUN commands then run there, in its WORKDIR, with its
ENV; a Python stage runs them with a fresh virtual environment's `python` and `pip`
first on PATH. A command that only sets up the system (users, owners, directories named
by an absolute path) is skipped and listed. The check fails when a COPY names a file that
is not there or a RUN command fails, so the image cannot silently stop building.

It also checks that the Node of the image is the project's (web/package.json
"engines.node", the one place that names it).

    python scripts/check_image.py [--dockerfile Dockerfile] [--keep]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import venv
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Programs that set up the system rather than build anything; the check skips them.
SYSTEM_PROGRAMS = {"useradd", "groupadd", "adduser", "addgroup", "chown", "chmod", "apt-get"}
#: Settings that only keep the image small; the check keeps pip's cache to run quickly.
SPEED_ONLY_ENV = {"PIP_NO_CACHE_DIR"}


class ImageCheckError(Exception):
    """What makes the image fail to build (or follow the wrong Node)."""


@dataclass
class Stage:
    """One `FROM` of the Dockerfile and the instructions under it."""

    image: str
    name: str
    steps: list[tuple[str, str]] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's (INSTRUCTION, arguments), continuation lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    if pending:
        raise ImageCheckError("the Dockerfile ends inside a continued line")
    return out


def stages(text: str) -> list[Stage]:
    """The stages of a Dockerfile, global ARG defaults substituted into FROM."""
    args: dict[str, str] = {}
    found: list[Stage] = []
    for word, rest in instructions(text):
        if word == "ARG" and not found:
            key, _, value = rest.partition("=")
            args[key.strip()] = value.strip().strip('"')
        elif word == "FROM":
            image = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args[m.group(1) or m.group(2)], rest)
            parts = image.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else str(len(found))
            found.append(Stage(image=parts[0], name=name))
        elif found:
            found[-1].steps.append((word, rest))
    return found


def node_major_of(image: str) -> int | None:
    """The Node major version of a `node:<major>...` image, None for another image."""
    m = re.fullmatch(r"(?:docker\.io/)?(?:library/)?node:(\d+)\S*", image)
    return int(m.group(1)) if m else None


def project_node_major(repo: Path) -> int:
    """The project's Node major version: the first number of web/package.json engines.node."""
    package = json.loads((repo / "web" / "package.json").read_text())
    wanted = package.get("engines", {}).get("node")
    m = re.search(r"\d+", wanted or "")
    if not m:
        raise ImageCheckError('web/package.json names no Node version ("engines": {"node": ...})')
    return int(m.group(0))


def ignore_patterns(repo: Path) -> list[str]:
    path = repo / ".dockerignore"
    if not path.exists():
        return []
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line.rstrip("/") for line in lines if line and not line.startswith("#")]


def ignored(rel: str, patterns: list[str]) -> bool:
    """Whether .dockerignore leaves `rel` (or a folder above it) out of the build context."""
    parts = rel.split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        for pattern in patterns:
            bare = pattern[3:] if pattern.startswith("**/") else None
            if fnmatch.fnmatchcase(prefix, pattern) or (bare and fnmatch.fnmatchcase(prefix, bare)):
                return True
    return False


def copy_tree(src: Path, dest: Path, rel: str | None, patterns: list[str]) -> None:
    """Copy a file or a folder's contents to dest, leaving out what .dockerignore names
    (rel is src's path in the build context; None for a file of an earlier stage)."""
    if src.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        for child in sorted(src.iterdir()):
            child_rel = f"{rel}/{child.name}" if rel is not None else None
            if child_rel is not None and ignored(child_rel, patterns):
                continue
            copy_tree(child, dest / child.name, child_rel, patterns)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)


def inside(root: Path, container_path: str, workdir: str) -> Path:
    """Where a path of the image is in a stage's directory."""
    path = container_path if container_path.startswith("/") else f"{workdir}/{container_path}"
    return root / os.path.normpath(path).lstrip("/")


def do_copy(
    rest: str, root: Path, workdir: str, built: dict[str, Path], repo: Path, patterns: list[str]
) -> None:
    words = shlex.split(rest)
    origin: Path | None = None
    while words and words[0].startswith("--"):
        flag = words.pop(0)
        if flag.startswith("--from="):
            origin = built[flag.split("=", 1)[1]]
    *sources, dest = words
    dest_path = inside(root, dest, workdir)
    as_dir = dest.endswith("/") or len(sources) > 1
    for source in sources:
        if origin is not None:
            src = inside(origin, source, "/")
            rel = None
        else:
            rel = os.path.normpath(source).strip("/")
            src = repo / rel
        if not src.exists():
            raise ImageCheckError(f"COPY {rest}: {source} does not exist")
        target = dest_path / src.name if (as_dir and src.is_file()) else dest_path
        copy_tree(src, target, rel, patterns)


def runnable(command: str) -> tuple[list[str], list[str]]:
    """A RUN line's `&&` steps split into those the check runs and those it skips."""
    run: list[str] = []
    skipped: list[str] = []
    for step in (s.strip() for s in command.split("&&")):
        words = shlex.split(step)
        absolute = any(w.startswith("/") for w in words[1:])
        (skipped if not words or words[0] in SYSTEM_PROGRAMS or absolute else run).append(step)
    return run, skipped


def build_stage(
    stage: Stage,
    root: Path,
    built: dict[str, Path],
    repo: Path,
    patterns: list[str],
    log: list[str],
) -> None:
    workdir = "/"
    env = dict(os.environ, HOME=str(root / "home"))
    (root / "home").mkdir(parents=True, exist_ok=True)
    if stage.image.split(":")[0].endswith("python"):
        venv.create(root / "venv", with_pip=True)
        env["PATH"] = f"{root / 'venv' / 'bin'}{os.pathsep}{env['PATH']}"
        env["VIRTUAL_ENV"] = str(root / "venv")
    for word, rest in stage.steps:
        if word == "WORKDIR":
            workdir = rest if rest.startswith("/") else f"{workdir}/{rest}"
            inside(root, workdir, "/").mkdir(parents=True, exist_ok=True)
        elif word == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                if key not in SPEED_ONLY_ENV:
                    env[key] = value
        elif word in ("COPY", "ADD"):
            do_copy(rest, root, workdir, built, repo, patterns)
            log.append(f"[{stage.name}] COPY {rest}")
        elif word == "RUN":
            run, skipped = runnable(rest)
            for step in skipped:
                log.append(f"[{stage.name}] skipped (system set-up): {step}")
            if not run:
                continue
            script = " && ".join(run)
            log.append(f"[{stage.name}] RUN {script}")
            cwd = inside(root, workdir, "/")
            done = subprocess.run(
                ["bash", "-ec", script], cwd=cwd, env=env, capture_output=True, text=True
            )
            if done.returncode != 0:
                tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
                raise ImageCheckError(
                    f"stage {stage.name}: RUN {script} failed ({done.returncode}):\n{tail}"
                )
    built[stage.name] = root


def check(dockerfile: Path, repo: Path, work: Path, log: list[str]) -> None:
    """Build every stage of the Dockerfile under work; raise ImageCheckError on a failure."""
    found = stages(dockerfile.read_text())
    project_node = project_node_major(repo)
    for stage in found:
        major = node_major_of(stage.image)
        if major is not None and major != project_node:
            raise ImageCheckError(
                f"stage {stage.name} builds on {stage.image}, the project's "
                f"Node is {project_node} (web/package.json engines.node)"
            )
    patterns = ignore_patterns(repo)
    built: dict[str, Path] = {}
    for i, stage in enumerate(found):
        build_stage(stage, work / f"stage{i}", built, repo, patterns, log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dockerfile", type=Path, default=REPO / "Dockerfile")
    parser.add_argument("--keep", action="store_true", help="keep the stages' directories")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="image-check-"))
    log: list[str] = []
    try:
        check(args.dockerfile, REPO, work, log)
    except ImageCheckError as exc:
        print("\n".join(log))
        print(f"image check FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\n".join(log))
    print(f"image check passed: every stage of {args.dockerfile.name} builds from what it copies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
