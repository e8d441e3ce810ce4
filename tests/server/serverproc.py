"""The server as a process of its own (``python -m server.cli serve``), for the tests that
need a real one: its log, a crash, what it leaves behind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    tmp_path: Path, settings: dict[str, str], *, own_group: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    """Start the server on a free port with ``settings`` (``REMI_*``; none taken from this
    process's environment), its output in ``tmp_path/server.log``, and wait until it
    answers ``/healthz``; the process and its base URL. ``own_group``: in a process group
    of its own (what it starts is in it)."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("REMI_")},
        "REMI_DATA_DIR": str(tmp_path),
        "REMI_ALLOWED_ORIGINS": f"http://127.0.0.1:{port}",
        **settings,
        "PYTHONPATH": str(ROOT),
    }
    log_path = tmp_path / "server.log"
    command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [*command, "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=own_group,
        )
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 60
    while True:
        if server.poll() is not None:
            raise AssertionError(log_path.read_text())
        try:
            httpx.get(f"{base}/healthz", timeout=1)
            return server, base
        except httpx.TransportError:
            if time.monotonic() > end:
                server.kill()
                raise AssertionError("the server did not start") from None
            time.sleep(0.1)
