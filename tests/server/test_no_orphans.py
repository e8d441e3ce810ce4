"""A crash of the server leaves no process behind: after a kill -9
of ``python -m server.cli serve``, its bot-search worker and multiprocessing's
resource tracker used to run on, two orphans per crash."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serverproc import start_server

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) of a live process, else None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(") ", 1)[1].split()
    return fields[0], int(fields[1]), int(fields[2])


def _processes() -> Iterator[tuple[int, str, int, int]]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                yield (int(entry.name), *stat)


def _descendants(root: int) -> set[int]:
    """Every live process below ``root`` (children, their children, ...)."""
    table = [(pid, ppid) for pid, _, ppid, _ in _processes()]
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in table if ppid in frontier and pid not in found}
        found |= frontier
    return found


def _alive(pids: set[int], group: int) -> set[int]:
    """The processes of ``pids`` or of process group ``group`` that still run (a zombie
    has exited: it only waits for its new parent to reap it)."""
    return {
        pid
        for pid, state, _, pgrp in _processes()
        if (pid in pids or pgrp == group) and state != "Z"
    }


def test_kill_9_of_the_server_leaves_no_worker_or_resource_tracker(tmp_path: Path) -> None:
    settings = {
        "REMI_LOG_FORMAT": "text",
        "REMI_BOT_SEARCHES": "process",
        "REMI_BOT_DELAY_SECONDS": "0",
        "REMI_RECONNECT_GRACE_SECONDS": "0",  # the seat of a player never connected: a bot's
        "REMI_ROUND_PAUSE_SECONDS": "0",
    }
    server, base = start_server(tmp_path, settings, own_group=True)
    group = server.pid
    try:
        with httpx.Client(base_url=base, timeout=10) as http:
            token = http.post("/api/players", json={"display_name": "Ana"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            room = http.post(
                "/api/rooms", json={"seats": 2, "fill_with_bots": True}, headers=auth
            ).json()["id"]
            assert http.post(f"/api/rooms/{room}/start", headers=auth).status_code == 200
            # The bots play both seats, their searches in the worker (beside it the
            # resource tracker): once a round is over, the worker is up and searching.
            end = time.monotonic() + 60
            while not http.get(f"/api/rooms/{room}/scores").json()["rounds"]:
                assert time.monotonic() < end, "the bots finished no round"
                time.sleep(0.2)
        started = _descendants(server.pid)
        assert len(started) >= 2, f"no worker and resource tracker: {started}"

        os.kill(server.pid, signal.SIGKILL)  # the crash: the server process alone
        server.wait(10)
        end = time.monotonic() + 5
        while _alive(started, group) and time.monotonic() < end:
            time.sleep(0.1)
        assert _alive(started, group) == set(), "processes of the server outlived it"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        server.wait(10)
