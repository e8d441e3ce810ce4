"""A redis-server of a test's own, on a free port, that the test may stop and restart.

Tests of Redis loss use it so that the shared Redis (``REMI_TEST_REDIS_URL``) is never
disturbed. Nothing is persisted: a restart is a Redis that lost everything.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisProcess:
    """One redis-server subprocess on a fixed port: :meth:`start`, :meth:`stop`, :meth:`restart`."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.port = port or _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._workdir = workdir
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Start redis-server and wait until it accepts connections."""
        binary = shutil.which("redis-server")
        assert binary is not None, "redis-server is not installed"
        self._proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self._workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self._proc.poll() is None, "redis-server exited at start-up"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.02)
        raise AssertionError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        """Kill redis-server (SIGKILL: every client connection drops at once) and reap it."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(10)
        self._proc = None

    def restart(self, down_seconds: float = 0.0) -> None:
        """Stop, stay down ``down_seconds``, start again on the same port."""
        self.stop()
        time.sleep(down_seconds)
        self.start()


@contextmanager
def redis_process(workdir: Path) -> Iterator[RedisProcess]:
    """A started :class:`RedisProcess`, stopped afterwards whatever happens."""
    proc = RedisProcess(workdir)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
