"""The server under test: its store, its process (started as the CLI starts it), its
resources as /proc shows them, and what its database holds afterwards; or several server
processes (nodes) on one PostgreSQL and a Redis of their own (:class:`Nodes`).

The server runs ``python -m server.cli serve`` in a process group of its own, with
its settings in ``REMI_*`` environment variables: a fresh store (a SQLite file in a
temporary directory, or a schema of its own on PostgreSQL, dropped afterwards) and
the few settings a benchmark needs (below); any ``REMI_*`` variable already set in
the benchmark's environment wins over them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

ROOT = Path(__file__).resolve().parents[2]

POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"

BENCH_SETTINGS = {
    "REMI_LOG_LEVEL": "WARNING",
    # Clients never reconnect here, and no room must end or go idle during a run.
    "REMI_RECONNECT_GRACE_SECONDS": "3600",
    "REMI_EMPTY_ROOM_GRACE_SECONDS": "3600",
    "REMI_IDLE_ACTOR_SECONDS": "3600",
    # The saturated phase sends far more than a human's message budget.
    "REMI_RATE_LIMIT_MESSAGES": "1000000",
    # Every simulated player and room is created from this one address.
    "REMI_CREATE_LIMIT_PER_ADDRESS": "1000000",
    "REMI_CREATE_LIMIT_PER_IDENTITY": "1000000",
    # A round's end is followed by the next deal after this pause (5 s by default).
    "REMI_ROUND_PAUSE_SECONDS": "0.5",
}


BRIDGED = 'remi_bridged_connections{side="client"}'
"""The metric of the sockets a node carries for rooms another node plays."""


@dataclass
class Store:
    """Where the server keeps its rooms for one run."""

    name: str  # "sqlite" or "postgres"
    url: str
    data_dir: Path
    schema: str | None = None

    @classmethod
    def fresh(cls, name: str, postgres_url: str) -> Store:
        data_dir = Path(tempfile.mkdtemp(prefix="remi-bench-"))
        if name == "sqlite":
            return cls(name, f"sqlite+aiosqlite:///{data_dir / 'remi.sqlite3'}", data_dir)
        return cls(name, postgres_url, data_dir, schema=f"bench_{uuid.uuid4().hex[:12]}")

    def environment(self) -> dict[str, str]:
        env = {"REMI_DATA_DIR": str(self.data_dir), "REMI_DATABASE_URL": self.url}
        if self.schema:
            env["REMI_DATABASE_SCHEMA"] = self.schema
        return env

    def player_actions(self) -> set[tuple[str, int, int]]:
        """(room, seat, client seq) of every player's action in the database."""
        query = (
            "SELECT rounds.room_id, actions.seat, actions.client_seq FROM actions "
            "JOIN rounds ON rounds.id = actions.round_id "
            "WHERE actions.source = 'player' AND actions.client_seq IS NOT NULL"
        )
        if self.name == "sqlite":
            path = self.url.split("///", 1)[1]
            with sqlite3.connect(path) as db:
                return {(r, s, q) for r, s, q in db.execute(query)}
        return asyncio.run(self._postgres(query))

    async def _postgres(self, query: str) -> set[tuple[str, int, int]]:
        engine = create_async_engine(
            self.url, connect_args={"server_settings": {"search_path": str(self.schema)}}
        )
        try:
            async with engine.connect() as db:
                rows = (await db.execute(text(query))).all()
                return {(r[0], r[1], r[2]) for r in rows}
        finally:
            await engine.dispose()

    def drop(self) -> None:
        """Remove the store (the PostgreSQL schema; the temporary directory is kept:
        it holds the server's log)."""
        if self.schema:
            asyncio.run(self._drop_schema())

    async def _drop_schema(self) -> None:
        engine = create_async_engine(self.url)
        try:
            async with engine.begin() as db:
                await db.execute(text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))
        finally:
            await engine.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``python -m server.cli serve`` on a free local port, its output in a log file.

    ``profile``: a path; the server then runs under ``cProfile`` (slower: its figures
    are not the product's), and :meth:`kill` interrupts it first so that it writes
    its profile there (read it with ``python -m pstats PATH``). ``promotions``: the
    server counts what its collector promotes (bench/load/gcwatch; :meth:`promotions`).
    """

    def __init__(
        self,
        store: Store,
        profile: str | None = None,
        extra: dict[str, str] | None = None,
        name: str = "server",
        promotions: bool = False,
    ) -> None:
        self.store = store
        self.port = free_port()
        self.ports = [self.port]
        self.log_path = store.data_dir / f"{name}.log"
        env = {**BENCH_SETTINGS, **os.environ, **store.environment(), **(extra or {})}
        path = [str(ROOT), env.get("PYTHONPATH")]
        self.promotions_path = store.data_dir / f"{name}.promotions.json" if promotions else None
        if self.promotions_path:
            path.insert(0, str(Path(__file__).parent / "gcwatch"))
            env["REMI_BENCH_PROMOTIONS"] = str(self.promotions_path)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, path))
        command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]
        if profile:
            command[1:1] = ["-m", "cProfile", "-o", profile]
        self.profile = profile
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [*command, "--port", str(self.port)],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: its worker processes go with it
            )
        self.pid = self.proc.pid

    def promotions(self) -> dict[str, int]:
        """Objects promoted to the oldest generation so far, by kind (with
        ``promotions``; else empty)."""
        if self.promotions_path is None or not self.promotions_path.exists():
            return {}
        counts: dict[str, int] = json.loads(self.promotions_path.read_text(encoding="utf-8"))
        return counts

    def wait_ready(self, timeout: float = 120) -> None:
        """Until the server accepts connections (the migrations run before that)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited; see {self.log_path}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the server did not listen within {timeout} s; see {self.log_path}")

    def rss_kb(self) -> int:
        """Resident set size of the server process, KB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def settled_rss_kb(self, seconds: float = 2.0) -> int:
        time.sleep(seconds)
        return self.rss_kb()

    def cpu_s(self) -> float:
        """CPU seconds (user + system, every thread) of the server process."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(") ", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def metrics(self) -> dict[str, float]:
        """The server's ``/metrics``, each sample by its name with its labels."""
        url = f"http://127.0.0.1:{self.port}/metrics"
        with urllib.request.urlopen(url, timeout=30) as answer:
            text = answer.read().decode()
        values: dict[str, float] = {}
        for line in text.splitlines():
            name, _, value = line.rpartition(" ")
            if name and not line.startswith("#"):
                values[name] = float(value)
        return values

    def gc_full(self) -> tuple[int, float, float]:
        """The server's full collections so far: how many, their pauses' total and the
        longest pause, in seconds (``remi_gc_pause_*{generation="2"}`` of ``/metrics``)."""
        values = self.metrics()
        full = '{generation="2"}'
        return (
            int(values.get(f"remi_gc_pause_seconds_count{full}", 0)),
            values.get(f"remi_gc_pause_seconds_sum{full}", 0.0),
            values.get(f"remi_gc_pause_longest_seconds{full}", 0.0),
        )

    def bridged(self) -> int:
        """The sockets this server carries for rooms another node plays (bridged)."""
        return int(self.metrics().get(BRIDGED, 0.0))

    def kill(self) -> None:
        """SIGKILL the server's process group: nothing it has not committed survives
        (with ``profile``, the server is interrupted first and left to exit)."""
        if self.profile and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(120)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        self.proc.wait(30)


class Nodes:
    """Several servers (nodes) on one PostgreSQL store and a redis-server of their own
    (on a free port, nothing persisted), seen as one server: their ports, their summed
    memory, CPU and collections, killed together."""

    def __init__(
        self, store: Store, count: int, profile: str | None = None, promotions: bool = False
    ) -> None:
        if store.name != "postgres":
            raise SystemExit("several nodes share one PostgreSQL: use --store postgres")
        binary = shutil.which("redis-server")
        if binary is None:
            raise SystemExit("several nodes need redis-server")
        self.redis_port = free_port()
        self.redis = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(store.data_dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        extra = {"REMI_REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0"}
        self.servers = []
        for i in range(count):
            extra_i = {**extra, "REMI_NODE_NAME": f"bench{i}"}
            self.servers.append(
                Server(
                    store, f"{profile}.{i}" if profile else None, extra_i, f"node{i}", promotions
                )
            )
            if i == 0:  # the first one migrates alone
                self.servers[0].wait_ready()
        self.ports = [s.port for s in self.servers]
        self.port = self.ports[0]
        self.log_path = self.servers[0].log_path

    def wait_ready(self, timeout: float = 120) -> None:
        for server in self.servers:
            server.wait_ready(timeout)

    def rss_kb(self) -> int:
        return sum(s.rss_kb() for s in self.servers)

    def settled_rss_kb(self, seconds: float = 2.0) -> int:
        time.sleep(seconds)
        return self.rss_kb()

    def cpu_s(self) -> float:
        return sum(s.cpu_s() for s in self.servers)

    def promotions(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for server in self.servers:
            counts.update(server.promotions())
        return dict(counts)

    def bridged(self) -> int:
        return sum(s.bridged() for s in self.servers)

    def gc_full(self) -> tuple[int, float, float]:
        counts = [s.gc_full() for s in self.servers]
        return (
            sum(c[0] for c in counts),
            sum(c[1] for c in counts),
            max(c[2] for c in counts),
        )

    def kill(self) -> None:
        for server in self.servers:
            server.kill()
        if self.redis.poll() is None:
            self.redis.kill()
            self.redis.wait(10)
