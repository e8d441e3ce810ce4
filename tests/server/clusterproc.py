"""Several server processes on one PostgreSQL and one Redis, and the clients that play on
them, for the multi-node tests (tests/server/test_cluster.py).

* :class:`Node`: one ``python -m server.cli serve`` on a fixed loopback port, which the
  test may kill (SIGKILL), pause (SIGSTOP / SIGCONT), stop (SIGTERM) and start again;
  its JSON log is read back (claims, releases, drops, lapses of its leases).
* :class:`Player`: one seated client. It plays its turns (draw, then discard), and
  reconnects by itself as the browser does, with its last version, through a
  round-robin "load balancer": each new connection goes to the next node that
  accepts it (or to the node a test pins it to, ``via``). It records every frame, per
  connection, every move it sent, and every ack and refusal.
* :class:`Cluster`: the nodes, the rooms and their players, the history of the rooms'
  leases (:meth:`Cluster.watch_leases`: each epoch and when the database granted it),
  and :meth:`Cluster.audit`, which counts what the issue's cases must show to be zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from serverproc import ROOT, free_port
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from server.rooms.match import restored_round
from server.rules import view_for
from server.storage.gamelog import LoggedAction, RoundRecord

THINK = (0.02, 0.06)
"""A player's pause before each of its moves (seconds, uniform)."""

FATAL = {4003, 4401, 4403, 4404, 4409}

PING = 2.0
"""How often a player with a heartbeat pings (the browser's ``PING_MS``, web/src/conn.ts)."""

SILENT = 6.0
"""A socket that brought nothing for this long is left (the browser's ``SILENT_MS``)."""


class Node:
    """One server process on a fixed port (kept across restarts)."""

    def __init__(self, index: int, env: dict[str, str], workdir: Path) -> None:
        self.index = index
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**env, "REMI_ALLOWED_ORIGINS": self.base, "REMI_NODE_NAME": f"n{index}"}
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0
        self.logs: list[Path] = []
        self.deaths: dict[int, float] = {}  # run -> when it was killed (SIGKILL)

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("REMI_")}
        env.update(self.env)
        env["PYTHONPATH"] = str(ROOT)
        self.runs += 1
        path = self.workdir / f"node{self.index}-run{self.runs}.log"
        self.logs.append(path)
        with path.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"node {self.index} exited: {self.tail()}")
            try:
                if httpx.get(f"{self.base}/livez", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > end:
                raise AssertionError(f"node {self.index} did not start: {self.tail()}")
            time.sleep(0.1)

    @property
    def up(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.deaths[self.runs] = time.time()
        self.proc.wait(10)

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM: the graceful stop (the rooms handed over); the exit status."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def tail(self, lines: int = 30) -> str:
        if not self.logs:
            return ""
        return "\n".join(self.logs[-1].read_text(errors="replace").splitlines()[-lines:])

    def records(self) -> list[dict[str, Any]]:
        """Every JSON log line of every run, with its run's number."""
        out = []
        for run, path in enumerate(self.logs, 1):
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("{"):
                    with contextlib.suppress(ValueError):
                        record = json.loads(line)
                        record["run"] = run
                        out.append(record)
        return out

    def metrics(self) -> dict[str, float]:
        """This node's /metrics as {series: value} (samples without labels sorted in)."""
        body = httpx.get(f"{self.base}/metrics", timeout=5).text
        values: dict[str, float] = {}
        for line in body.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                with contextlib.suppress(ValueError):
                    values[name] = float(value)
        return values


@dataclass
class Conversation:
    """One connection of a player: the frames it got, in order."""

    node: int
    hello_version: int | None
    frames: list[dict[str, Any]] = field(default_factory=list)
    close_code: int | None = None


class Player:
    """A seated client that plays its turns and reconnects (see the module doc)."""

    def __init__(self, cluster: Cluster, room: str, seat: int, token: str, home: int) -> None:
        self.cluster = cluster
        self.room = room
        self.seat = seat
        self.token = token
        self._auth = {"Authorization": f"Bearer {token}"}
        self.home = home
        self.version: int | None = None
        self.view: dict[str, Any] | None = None
        self.convs: list[Conversation] = []
        self.acks: dict[int, int] = {}  # seq -> version
        self.refused: dict[int, str] = {}  # seq -> error code
        self.sent: dict[int, dict[str, Any]] = {}  # seq -> the move, once on the socket
        self.errors: list[str] = []
        self.via: Node | None = None
        """The node every new connection goes to (a test pins the socket), else None."""
        self.heartbeat = False
        """Ping every :data:`PING` s and leave a socket silent for :data:`SILENT` s, as
        the browser does (off by default: some cases need a socket held on a node; it
        takes effect on the open socket at once)."""
        self.left_silent = 0
        """Sockets left because they fell silent."""
        self.seq = 0
        self.pending: int | None = None
        self.playing = True
        self.stopped = False
        self.last_frame = time.monotonic()
        self.ws: ClientConnection | None = None
        self._turn = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._run()), asyncio.create_task(self._play())]

    async def stop(self) -> None:
        self.stopped = True
        self._turn.set()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def my_turn(self) -> bool:
        v = self.view
        return bool(v and not v["over"] and v["turn"] == self.seat == v["seat"])

    async def _run(self) -> None:
        attempt = 0
        while not self.stopped:
            node = self.via or self.cluster.pick(self.home + attempt)
            attempt += 1
            url = f"ws://127.0.0.1:{node.port}/ws/rooms/{self.room}"
            try:
                ws = await connect(
                    url,
                    additional_headers=self._auth,
                    compression=None,
                    open_timeout=3,
                    max_size=2**22,
                )
            except (OSError, TimeoutError, InvalidStatus, WebSocketException):
                await asyncio.sleep(random.uniform(0.05, 0.15))
                continue
            conv = Conversation(node.index, self.version)
            self.convs.append(conv)
            self.ws = ws
            self.last_frame = time.monotonic()
            beat = asyncio.create_task(self._beat(ws))
            try:
                await ws.send(
                    json.dumps({"type": "hello", "last_version": self.version, "patches": True})
                )
                async for raw in ws:
                    self._frame(conv, json.loads(raw))
            except (ConnectionClosed, OSError):
                pass
            finally:
                beat.cancel()
                conv.close_code = ws.close_code
                self.ws = None
                self.pending = None
            if conv.close_code in FATAL:
                raise AssertionError(f"fatal close {conv.close_code}: {conv.frames[-2:]}")
            await asyncio.sleep(random.uniform(0.1, 0.3))  # the browser's back-off

    async def _beat(self, ws: ClientConnection) -> None:
        """The browser's application heartbeat: a ping every :data:`PING` s; a socket
        that brought nothing for :data:`SILENT` s is dropped at once (a frozen node never
        answers a close), and :meth:`_run` connects again, through the load balancer."""
        on_since: float | None = None
        while True:
            await asyncio.sleep(PING)
            if not self.heartbeat:
                on_since = None
                continue
            now = time.monotonic()
            on_since = now if on_since is None else on_since
            if now - max(self.last_frame, on_since) > SILENT:
                self.left_silent += 1
                ws.transport.abort()
                return
            with contextlib.suppress(ConnectionClosed, OSError):
                await ws.send(json.dumps({"type": "ping"}))

    def _frame(self, conv: Conversation, m: dict[str, Any]) -> None:
        m["_t"] = time.monotonic()
        conv.frames.append(m)
        self.last_frame = time.monotonic()
        kind = m["type"]
        if kind == "snapshot":
            self.version, self.view = m["version"], m["view"]
            if m["last_seq"] is not None:
                self.seq = max(self.seq, m["last_seq"])
        elif kind == "event":
            self.version = m["version"]
            if m["view"] is not None:
                self.view = m["view"]
            elif m.get("patch") is not None and self.view is not None:
                self.view = {**self.view, **m["patch"]}
        elif kind == "ack":
            self.acks[m["seq"]] = m["version"]
            if m["seq"] == self.pending:
                self.pending = None
        elif kind == "error":
            self.errors.append(m["code"])
            if m.get("seq") is not None:
                self.refused[m["seq"]] = m["code"]
                if m["seq"] == self.pending:
                    self.pending = None
        self._turn.set()

    async def _play(self) -> None:
        while not self.stopped:
            await self._turn.wait()
            self._turn.clear()
            if not self.playing or self.pending is not None or not self.my_turn():
                continue
            await asyncio.sleep(random.uniform(*THINK))
            ws, view = self.ws, self.view
            if ws is None or view is None or not self.my_turn() or self.pending is not None:
                continue
            if view["phase"] == "take":
                action: dict[str, Any] = {"do": "draw"}
            else:
                plain = [t for t in view["hand"] if t < 104] or view["hand"]
                action = {"do": "discard", "tile": plain[-1]}
            self.seq += 1
            self.pending = self.seq
            seq = self.seq
            with contextlib.suppress(ConnectionClosed, OSError):
                await ws.send(
                    json.dumps(
                        {
                            "type": "action",
                            "seq": seq,
                            "base_version": self.version,
                            "action": action,
                        }
                    )
                )
                self.sent[seq] = action
            self._turn.set()  # look again after the answer (or at once if refused)


LEASE_COLUMNS = "room_id, epoch, node, claimed_at, CAST(CAST(xmin AS text) AS bigint) AS xid"
"""What the audit reads of ``room_leases``: ``xid`` is the transaction that wrote the
row (the claim that granted its epoch, or a release since)."""


@dataclass(frozen=True)
class Grant:
    """When a room's epoch was granted: the database's clock, and the transaction."""

    at: Any
    xid: int


def _result(event: dict[str, Any]) -> str:
    """A match's result as a ``match_over`` event or ``match_results`` row gives it."""
    return json.dumps({k: event.get(k) for k in ("totals", "winners", "rounds")}, sort_keys=True)


def _xid_after(a: int | None, b: int) -> bool:
    """Whether PostgreSQL transaction id ``a`` was assigned after ``b`` (32-bit ids that
    wrap around, compared as PostgreSQL does)."""
    return a is not None and 0 < (a - b) % 2**32 < 2**31


@dataclass
class Audit:
    """What the issue's cases count (each must be 0), and a few figures."""

    acked: int = 0
    results: int = 0
    acked_lost: list[Any] = field(default_factory=list)
    stale_epoch_writes: list[Any] = field(default_factory=list)
    log_gaps: list[Any] = field(default_factory=list)
    log_forks: list[Any] = field(default_factory=list)
    two_owners: list[Any] = field(default_factory=list)
    duplicate_results: list[Any] = field(default_factory=list)
    version_gaps: list[Any] = field(default_factory=list)
    version_forks: list[Any] = field(default_factory=list)
    views_differing: list[Any] = field(default_factory=list)

    def problems(self) -> dict[str, list[Any]]:
        return {k: v for k, v in vars(self).items() if isinstance(v, list) and v}


class Cluster:
    """The nodes, rooms and players of one multi-node test (see the module doc)."""

    def __init__(self, nodes: list[Node], db_url: str, schema: str) -> None:
        self.nodes = nodes
        self.db_url = db_url
        self.schema = schema
        self.players: list[Player] = []
        self.rooms: list[str] = []
        self.redis: Any = None
        """The test's own Redis (tests/server/redisproc.py), which a case stops."""
        self.grants: dict[tuple[str, int], Grant] = {}
        """Each (room, epoch) seen in ``room_leases``: when and by which transaction the
        database granted it, kept by :meth:`watch_leases`."""
        self._watch: asyncio.Task[None] | None = None

    @property
    def dsn(self) -> str:
        """The database for asyncpg (the test's own connections)."""
        return self.db_url.replace("postgresql+asyncpg://", "postgresql://", 1)

    async def connect(self) -> asyncpg.Connection:
        """A connection of the test's own, on the cluster's schema."""
        return await asyncpg.connect(
            self.dsn, timeout=5, server_settings={"search_path": self.schema}
        )

    def watch_leases(self) -> None:
        """Keep the history of the rooms' leases from now on: ``room_leases`` holds only
        each room's last epoch, and the audit needs when each one was granted. Read every
        0.1 s; an epoch missed between two reads (two claims that close) only makes the
        audit's bound looser (the next epoch's grant is later), never wrong."""

        async def watch() -> None:
            conn: asyncpg.Connection | None = None
            try:
                while True:
                    try:
                        if conn is None:
                            conn = await self.connect()
                        await self._read_grants(conn)
                    except (OSError, asyncpg.PostgresError, TimeoutError):
                        if conn is not None:
                            conn.terminate()
                        conn = None
                    await asyncio.sleep(0.1)
            finally:
                if conn is not None:
                    conn.terminate()

        self._watch = asyncio.create_task(watch())

    async def _read_grants(self, conn: asyncpg.Connection) -> None:
        for r in await conn.fetch(f"SELECT {LEASE_COLUMNS} FROM room_leases"):
            self.grants.setdefault((r["room_id"], r["epoch"]), Grant(r["claimed_at"], r["xid"]))

    async def unwatch_leases(self) -> None:
        task, self._watch = self._watch, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def pick(self, start: int) -> Node:
        """The load balancer: the first node from ``start`` (round robin) that is up."""
        n = len(self.nodes)
        for i in range(n):
            node = self.nodes[(start + i) % n]
            if node.up:
                return node
        return self.nodes[start % n]

    async def _post(
        self,
        http: httpx.AsyncClient,
        node: Node,
        path: str,
        token: str | None,
        body: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        for _ in range(20):
            try:
                r = await http.post(node.base + path, json=body, headers=headers)
            except httpx.TransportError:
                await asyncio.sleep(0.2)
                continue
            if r.status_code == 503:  # the room is changing hands: again
                await asyncio.sleep(0.2)
                continue
            assert r.status_code in (200, 201), (path, r.status_code, r.text)
            http.cookies.clear()
            data: dict[str, Any] = r.json()
            return data
        raise AssertionError(f"{path}: no answer")

    async def add_room(
        self, humans: int = 4, *, start: bool = True, rounds: int | None = None
    ) -> str:
        """A four-seat Remi room with ``humans`` players (the other seats: bots), each
        player's socket on a different node, every HTTP command sent to another node;
        its match is endless, or ends after ``rounds`` rounds."""
        i = len(self.rooms)
        async with httpx.AsyncClient(timeout=10) as http:
            tokens = []
            for s in range(humans):
                node = self.nodes[(i + s) % len(self.nodes)]
                body = await self._post(
                    http, node, "/api/players", None, {"display_name": f"r{i}s{s}"}
                )
                tokens.append(body["token"])
            settings: dict[str, Any] = {
                "variant": "remi",
                "seats": 4,
                "turn_seconds": 120,
                "fill_with_bots": humans < 4,
            }
            if rounds is not None:
                settings["end"] = {"kind": "rounds", "rounds": rounds}
            room = (
                await self._post(
                    http, self.nodes[i % len(self.nodes)], "/api/rooms", tokens[0], settings
                )
            )["id"]
            for s in range(1, humans):
                node = self.nodes[(i + s + 1) % len(self.nodes)]
                await self._post(http, node, f"/api/rooms/{room}/seats/{s}", tokens[s])
            players = [Player(self, room, s, tokens[s], i + s) for s in range(humans)]
            for p in players:
                p.start()
            self.players.extend(players)
            self.rooms.append(room)
            await self.until(lambda: all(p.version is not None for p in players), "snapshots")
            if start:
                await self._post(
                    http,
                    self.nodes[(i + 2) % len(self.nodes)],
                    f"/api/rooms/{room}/start",
                    tokens[0],
                )
                await self.until(lambda: all(p.view is not None for p in players), "deals")
        return room

    @staticmethod
    async def until(check: Any, what: str, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while not check():
            if time.monotonic() > end:
                raise AssertionError(f"timed out: {what}")
            await asyncio.sleep(0.05)

    def moves(self) -> int:
        return sum(len(p.acks) for p in self.players)

    async def play_for(self, seconds: float) -> int:
        """Let them play ``seconds``; the moves acked meanwhile."""
        before = self.moves()
        await asyncio.sleep(seconds)
        return self.moves() - before

    async def quiesce(self, timeout: float = 60.0, rooms: list[str] | None = None) -> None:
        """Stop playing; wait until every room's players hold the same version, still
        for a second (the bots wait for a human's turn), with no move in flight.
        ``rooms``: only these rooms' players (the others play on)."""
        players = [p for p in self.players if rooms is None or p.room in rooms]
        for p in players:
            p.playing = False
        end = time.monotonic() + timeout
        by_room: dict[str, list[Player]] = defaultdict(list)
        for p in players:
            by_room[p.room].append(p)
        while True:
            now = time.monotonic()
            settled = all(
                p.ws is not None
                and p.pending is None
                and now - p.last_frame > 1.0
                and len({q.version for q in ps}) == 1
                for ps in by_room.values()
                for p in ps
            )
            if settled:
                return
            if now > end:
                states = {
                    room: [(q.version, q.ws is not None, q.pending) for q in ps]
                    for room, ps in by_room.items()
                }
                raise AssertionError(f"the rooms did not settle: {states}")
            await asyncio.sleep(0.2)

    def resume_play(self, rooms: list[str] | None = None) -> None:
        """Let the players (of ``rooms`` only, if given) play again."""
        for p in self.players:
            if rooms is None or p.room in rooms:
                p.playing = True
                p._turn.set()

    async def stop_players(self) -> None:
        await asyncio.gather(*(p.stop() for p in self.players))

    # ------------------------------------------------------------------ audit

    async def _rows(self) -> dict[str, Any]:
        engine = create_async_engine(
            self.db_url, connect_args={"server_settings": {"search_path": self.schema}}
        )
        try:
            async with engine.connect() as conn:

                async def q(sql: str) -> list[Any]:
                    return list((await conn.execute(text(sql))).all())

                return {
                    "actions": await q(
                        "SELECT r.room_id, r.number, a.seq, a.seat, a.client_seq, a.version, "
                        "a.epoch, a.action, a.created_at, CAST(CAST(a.xmin AS text) AS bigint) "
                        "AS xid FROM actions a "
                        "JOIN rounds r ON r.id = a.round_id ORDER BY r.room_id, r.number, a.seq"
                    ),
                    "rounds": await q(
                        "SELECT id, room_id, number, variant, seed, first_seat, options, "
                        "finished, result, created_at, epoch FROM rounds "
                        "ORDER BY room_id, number"
                    ),
                    "results": await q(
                        "SELECT room_id, totals, winners, rounds_played FROM match_results"
                    ),
                    "leases": await q(f"SELECT {LEASE_COLUMNS} FROM room_leases"),
                }
        finally:
            await engine.dispose()

    def _ownership(self) -> list[Any]:
        """Rooms that two nodes played at one instant, from the nodes' own logs: each
        claim of a room must come after its previous owner stopped playing it (dropped,
        fenced or released it, its leases lapsed, or it was killed)."""
        claims: dict[str, list[tuple[int, float, str]]] = defaultdict(list)
        ends: dict[tuple[str, int], list[float]] = defaultdict(list)
        lapses: dict[str, list[tuple[float, float]]] = defaultdict(list)  # node -> (since, back)
        kills: dict[str, float] = {}
        for node in self.nodes:
            node_ids: dict[int, str] = {}
            for r in node.records():
                event = r.get("event")
                if event == "node_joined":
                    node_ids[r["run"]] = r["node"]
                if event == "room_claimed":
                    claims[r["room_id"]].append((r["epoch"], r["at"], r["node"]))
                elif event in ("room_dropped", "room_released", "room_fenced") and "at" in r:
                    ends[(r["room_id"], r.get("epoch", -1))].append(r["at"])
                elif event == "node_leases_lapsed":
                    lapses[r["node"]].append((r["since"], float("inf")))
                elif event == "node_leases_trusted" and lapses[r["node"]]:
                    since, _ = lapses[r["node"]][-1]
                    lapses[r["node"]][-1] = (since, r["at"])
            for run, when in node.deaths.items():
                if run in node_ids:
                    kills[node_ids[run]] = when
        problems = []
        for room, seq in claims.items():
            seq.sort()
            for (e1, _t1, n1), (e2, t2, n2) in itertools.pairwise(seq):
                stopped = min(
                    [
                        *ends.get((room, e1), []),
                        *([kills[n1]] if n1 in kills else []),
                        *[since for since, back in lapses.get(n1, []) if back > t2],
                    ],
                    default=None,
                )
                if n1 != n2 and (stopped is None or stopped > t2):
                    problems.append((room, e1, n1, e2, n2, t2, stopped))
        return problems

    async def log_audit(self) -> Audit:
        """The audit of the rooms' logs alone, from the database (any time): the stale
        epoch writes and the logs' gaps and forks (:meth:`_epochs`, :meth:`_log_shape`)."""
        rows = await self._rows()
        out = Audit()
        self._epochs(out, rows)
        self._log_shape(out, rows)
        return out

    def _epochs(self, out: Audit, rows: dict[str, Any]) -> None:
        """Writes committed under an epoch older than their room's owner's at the time.

        A write's transaction share-locks its room's lease row first thing (the fence),
        and a claim locks it for update, so each waits for the other: a move committed
        under epoch ``e`` was made by a transaction that took its id (PostgreSQL assigns
        it at the first lock or write) before the transaction that granted any later
        epoch took its own, and was created (``created_at``, the writer's clock before
        it submitted the write) before that grant (``claimed_at``, the database's clock
        on this machine). A later epoch's grant is the lease row's ``xmin`` and
        ``claimed_at`` as :meth:`watch_leases` saw them. A round is checked by its
        ``created_at`` only (its finish rewrites the row). (No write of the server uses a
        savepoint, whose rows would carry a later transaction id.) A row without an epoch (an
        unfenced write) counts too, and so does a row whose epoch is lower than an
        earlier row's of its room."""
        for r in rows["leases"]:
            self.grants.setdefault((r.room_id, r.epoch), Grant(r.claimed_at, r.xid))
        granted: dict[str, list[tuple[int, Grant]]] = defaultdict(list)
        for (room, epoch), grant in self.grants.items():
            granted[room].append((epoch, grant))
        writes: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        for r in rows["rounds"]:
            writes[r.room_id].append((r.number, 0, r.epoch, r.created_at, None))
        for a in rows["actions"]:
            writes[a.room_id].append((a.number, a.seq, a.epoch, a.created_at, a.xid))
        for room, ws in writes.items():
            ws.sort(key=lambda w: w[:2])
            for number, seq, epoch, created, xid in ws:
                where = f"room {room}, round {number}" + (f" seq {seq}" if seq else " (begun)")
                if epoch is None:
                    out.stale_epoch_writes.append(f"{where}: written without an epoch")
                    continue
                for e, grant in sorted(granted[room]):
                    if e > epoch and (created >= grant.at or _xid_after(xid, grant.xid)):
                        out.stale_epoch_writes.append(
                            f"{where}: written under epoch {epoch} (transaction {xid}, "
                            f"created {created:%H:%M:%S.%f}) after epoch {e} was granted "
                            f"(transaction {grant.xid}, {grant.at:%H:%M:%S.%f})"
                        )
                        break
            for before, after in itertools.pairwise(ws):
                if None not in (before[2], after[2]) and after[2] < before[2]:
                    out.stale_epoch_writes.append((room, before[:3], after[:3]))

    @staticmethod
    def _log_shape(out: Audit, rows: dict[str, Any]) -> None:
        """Gaps and forks in each room's log: its rounds are numbered 1, 2, ... and all
        but the last finished; each round's moves are numbered 1, 2, ...; the versions the
        moves were acked with grow along the log (a fork, two owners writing one room
        from different states, shows as a version going back)."""
        rounds: dict[str, list[Any]] = defaultdict(list)
        for r in rows["rounds"]:
            rounds[r.room_id].append(r)
        for room, rs in rounds.items():
            numbers = [r.number for r in rs]
            if numbers != list(range(1, len(rs) + 1)):
                out.log_gaps.append((room, "round numbers", numbers))
            early = [r.number for r in rs[:-1] if not r.finished]
            if early:
                out.log_gaps.append((room, "unfinished rounds before the last", early))
        seqs: dict[tuple[str, int], list[int]] = defaultdict(list)
        versions: dict[str, list[tuple[int, int, int | None]]] = defaultdict(list)
        for a in rows["actions"]:
            seqs[(a.room_id, a.number)].append(a.seq)
            versions[a.room_id].append((a.number, a.seq, a.version))
        for (room, number), ss in seqs.items():
            if ss != list(range(1, len(ss) + 1)):
                out.log_gaps.append((room, f"round {number} seqs", ss))
        for room, vs in versions.items():
            for before, after in itertools.pairwise(vs):
                if before[2] is None or after[2] is None or after[2] <= before[2]:
                    out.log_forks.append((room, before, after))

    async def audit(self) -> Audit:
        """Count what must be zero (call after :meth:`quiesce`)."""
        rows = await self._rows()
        out = Audit()
        self._epochs(out, rows)
        self._log_shape(out, rows)
        logged = {
            (a.room_id, a.seat, a.client_seq): a.version
            for a in rows["actions"]
            if a.client_seq is not None
        }
        for p in self.players:
            for seq, version in p.acks.items():
                out.acked += 1
                if logged.get((p.room, p.seat, seq)) != version:
                    out.acked_lost.append((p.room, p.seat, seq, version))
        self._results(out, rows)
        out.two_owners = self._ownership()
        self._versions(out)
        self._views(out, rows)
        return out

    def _results(self, out: Audit, rows: dict[str, Any]) -> None:
        """The finished matches' results (one row per room: its primary key) against the
        rooms' logs and what their players saw: a result counts every round its room's
        log has begun, all of them finished (a stale owner that played on after the match
        ended, or ended it again, shows here), and each player saw at most one
        ``match_over``, the stored one."""
        rounds: dict[str, list[Any]] = defaultdict(list)
        for r in rows["rounds"]:
            rounds[r.room_id].append(r)
        stored = {}
        for r in rows["results"]:
            out.results += 1
            stored[r.room_id] = _result(
                {"totals": r.totals, "winners": r.winners, "rounds": r.rounds_played}
            )
            begun = rounds[r.room_id]
            finished = sum(1 for x in begun if x.finished)
            if not r.rounds_played == len(begun) == finished:
                out.duplicate_results.append(
                    f"room {r.room_id}: a result after {r.rounds_played} rounds, its log has "
                    f"{len(begun)} begun, {finished} finished"
                )
        for p in self.players:
            seen = {
                _result(m["event"])
                for c in p.convs
                for m in c.frames
                if m["type"] == "event" and m["event"].get("do") == "match_over"
            }
            if seen and seen != {stored.get(p.room)}:
                out.duplicate_results.append(
                    f"room {p.room}, seat {p.seat} saw {sorted(seen)}, the database holds "
                    f"{stored.get(p.room)}"
                )

    def _versions(self, out: Audit) -> None:
        signature: dict[tuple[str, int], tuple[Any, ...]] = {}
        for p in self.players:
            last = None
            for c in p.convs:
                expected = None
                for m in c.frames:
                    if m["type"] == "snapshot":
                        expected = m["version"] + 1
                        v = m["version"]
                    elif m["type"] == "event":
                        v = m["version"]
                        if expected is None:  # a replay starts after the hello's version
                            expected = (c.hello_version or 0) + 1
                        if v != expected:
                            out.version_gaps.append((p.room, p.seat, c.node, expected, v))
                        expected = v + 1
                        e = m["event"]
                        sig = (e.get("do"), e.get("seat"), e.get("by"), e.get("round"))
                        known = signature.setdefault((p.room, v), sig)
                        if known != sig:
                            out.version_forks.append((p.room, v, known, sig))
                    else:
                        continue
                    if last is not None and v < last:
                        out.version_gaps.append((p.room, p.seat, "backwards", last, v))
                    last = v

    def _views(self, out: Audit, rows: dict[str, Any]) -> None:
        rounds: dict[str, Any] = {}
        for r in rows["rounds"]:
            rounds[r.room_id] = r  # the last one
        actions: dict[tuple[str, int], list[Any]] = defaultdict(list)
        for a in rows["actions"]:
            actions[(a.room_id, a.number)].append(a)
        for p in self.players:
            r = rounds.get(p.room)
            if r is None or p.view is None:
                continue
            record = RoundRecord(
                id=r.id,
                number=r.number,
                variant=r.variant,
                seed=r.seed,
                first_seat=r.first_seat,
                options=r.options,
                finished=r.finished,
                result=r.result,
                created_at=r.created_at,
                actions=[
                    LoggedAction(
                        a.seq, a.seat, a.action, a.client_seq, "player", a.created_at, a.version
                    )
                    for a in actions[(p.room, r.number)]
                ],
            )
            players = p.view["players"]
            rebuilt = json.loads(
                json.dumps(view_for(restored_round(record, players), p.seat).to_dict())
            )
            if rebuilt != p.view:
                diff = sorted(
                    k for k in set(rebuilt) | set(p.view) if rebuilt.get(k) != p.view.get(k)
                )
                out.views_differing.append((p.room, p.seat, diff))
