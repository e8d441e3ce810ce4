"""Load benchmark of the room server (not a test).

Runs the real server (uvicorn, SQLite by default, every move committed before
its ack) in a child process, and drives N tables of 4 real WebSocket clients
from this process:

1. idle: RSS of the server with the tables' rooms created, then with every
   client connected (per connection), then with every match started (per room);
2. paced: every table makes one move per ``--interval`` seconds for
   ``--duration`` seconds: p50/p99 from sending the action to its ``ack`` and to
   the event reaching the table's last client, moves/s;
3. saturated: every table moves again as soon as its last move reached all
   four clients, for ``--saturate`` seconds: moves/s;
4. baseline: a bare ``websockets`` echo server in a child process, the same
   number of connections, each sending as soon as its echo came back: round
   trips/s and RSS per idle connection. With ``--pairs N`` the saturated phase
   and the echo alternate N times instead (the echo server started beside the
   idle game server, each phase ``--saturate`` seconds): the ratio is of the
   sums, and each pair's own ratio is reported, its two phases seconds apart
   (the machine's speed drifts with other tenants' load);
5. the transport's ceiling for a move (``--no-fanout`` to skip): a bare
   ``websockets`` server where the same connections form groups of four, and each
   message goes to all four of its group (one read and four writes, as a move's
   frames, with no game, view or database); a group's next member sends once all
   four got it: fan-outs/s, what a move's frames alone allow through the library
   that gives the echo baseline.

The clients share the two cores with the server, so their own CPU per move
(``clients_cpu_us_per_move``) must stay small; what they measure does not depend
on it. Each move is a real action chosen from the mover's current view (``draw``
in the take phase, else a discard from its hand); the ack latency runs from
sending it to the ack's arrival, the broadcast latency to the event's arrival at
the last of the four clients, and a table's next move starts only once all four
saw the previous version. How the clients keep that cheap:

* moves are driven from the frame callbacks: the mover's ``ack`` gives the
  version, the event that brings the last player to it completes the move and,
  in the saturated phase, sends the table's next one from that same callback (no
  task, future or timer per move; one watchdog for all the tables gives up a
  move stalled for 30 s). The paced phase awaits one future per move;
* each player keeps its view up to date from every event (``patch`` applied in
  order, or the whole ``view``), but the three players who get the same event
  frame share one parse of it (orjson): two parses per move, not four;
* the action is formatted without ``json.dumps``; bench/wsclient.py parses a
  read holding one whole frame without copying it into a buffer.

``--client websockets`` (the library's client; a coroutine per table in the
saturated phase) stays as it was, and slower.

Usage: ``.venv/bin/python bench/load.py --tables 250 --interval 2 --duration 30``
(``--database-url postgresql+asyncpg://...`` to run on PostgreSQL).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic, perf_counter
from typing import Any

import httpx

try:
    from orjson import loads  # a server dependency; parses a frame in a third of json's time
except ImportError:  # pragma: no cover
    from json import loads  # type: ignore[assignment]
from websockets.asyncio.client import ClientConnection, connect
from wsclient import LightClient, Receiver
from wsclient import connect as light_connect

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- child processes


def serve(port: int, data_dir: str, database_url: str, bot_delay: float = 0.0) -> None:
    """The server under test (child process)."""
    sys.path.insert(0, str(ROOT))
    import uvicorn

    from server.app import create_app
    from server.settings import Settings

    settings = Settings(
        data_dir=Path(data_dir),
        database_url=database_url,
        log_level="WARNING",
        reconnect_grace_seconds=3600,
        empty_room_grace_seconds=3600,
        rate_limit_messages=1_000_000,  # the saturated phase exceeds a human's budget
        bot_delay_seconds=bot_delay,
        round_pause_seconds=0.5,
        idle_actor_seconds=3600,
        gc_freeze_interval_seconds=float(os.environ.get("REMI_BENCH_GC_INTERVAL", "10")),
    )
    app = create_app(settings)
    if os.environ.get("REMI_BENCH_GCLOG"):
        import gc

        started: dict[str, float] = {}

        def _gc(phase: str, info: dict[str, int]) -> None:
            if info["generation"] != 2:
                return
            if phase == "start":
                started["t"] = time.perf_counter()
            else:
                ms = (time.perf_counter() - started.get("t", 0)) * 1000
                n = len(gc.get_objects())
                print(f"gc2 {ms:.1f} ms collected={info['collected']} objects={n}", file=sys.stderr)
                if os.environ.get("REMI_BENCH_GCLOG") == "types" and n > 150_000:
                    from collections import Counter

                    top = Counter(type(o).__name__ for o in gc.get_objects()).most_common(12)
                    print(top, file=sys.stderr)
                    coros = Counter(
                        getattr(o, "__qualname__", "?")
                        for o in gc.get_objects()
                        if type(o).__name__ == "coroutine"
                    ).most_common(8)
                    print(coros, file=sys.stderr)
                    with contextlib.suppress(RuntimeError):
                        print("tasks", len(asyncio.all_tasks()), file=sys.stderr)

        gc.callbacks.append(_gc)
    profile_path = os.environ.get("REMI_BENCH_PROFILE")
    profiler = None
    if profile_path:
        import cProfile
        import signal

        def _exit(*_: object) -> None:
            raise SystemExit(0)

        signal.signal(signal.SIGTERM, _exit)  # uvicorn re-raises it after its shutdown
        profiler = cProfile.Profile()
        profiler.enable()
    try:
        _run(uvicorn, app, port, settings.max_frame_bytes)
    finally:
        if profiler is not None and profile_path:
            profiler.disable()
            profiler.dump_stats(profile_path)


def _run(uvicorn: Any, app: Any, port: int, max_size: int) -> None:
    """uvicorn as served (server.wsdirect: room sockets in direct mode), or, for a
    comparison, ``REMI_BENCH_WS=asgi`` (uvicorn's "auto") or another uvicorn ``ws``."""
    from server.wsdirect import uvicorn_options

    options = uvicorn_options(app.state.services.settings)
    options["ws_max_size"] = max_size
    ws = os.environ.get("REMI_BENCH_WS", "direct")
    if ws != "direct":
        options["ws"] = "auto" if ws == "asgi" else ws
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        loop="uvloop",
        backlog=4096,
        **options,
    )


def echo(port: int) -> None:
    """The baseline: a bare websockets echo server (child process)."""
    import uvloop
    from websockets.asyncio.server import ServerConnection
    from websockets.asyncio.server import serve as ws_serve

    async def handler(ws: ServerConnection) -> None:
        async for message in ws:
            await ws.send(message)

    async def main() -> None:
        async with ws_serve(handler, "127.0.0.1", port, compression=None, max_size=16384):
            await asyncio.Future()

    uvloop.run(main())


def fanout(port: int) -> None:
    """The transport's ceiling for a move (child process): a bare websockets server where
    the connections to ``/g/<n>`` form a group of four, and every message from one of
    them goes to all four with ``websockets.broadcast`` (one read, four writes: what a
    move costs the room server in frames, with no game, no view and no database)."""
    import uvloop
    from websockets.asyncio.server import ServerConnection, broadcast
    from websockets.asyncio.server import serve as ws_serve

    groups: dict[str, set[ServerConnection]] = {}

    async def handler(ws: ServerConnection) -> None:
        assert ws.request is not None
        group = groups.setdefault(ws.request.path, set())
        group.add(ws)
        try:
            async for message in ws:
                broadcast(group, message)
        finally:
            group.discard(ws)

    async def main() -> None:
        async with ws_serve(handler, "127.0.0.1", port, compression=None, max_size=16384):
            await asyncio.Future()

    uvloop.run(main())


def rss_kb(pid: int) -> int:
    """Resident set size of a process, in KB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int | None = None, main_thread: bool = False) -> float:
    """CPU time (user + system, every thread) of a process; None: this one.
    ``main_thread``: only its main thread's (the server's event loop)."""
    if pid is None:
        t = os.times()
        return t.user + t.system
    path = f"/proc/{pid}/task/{pid}/stat" if main_thread else f"/proc/{pid}/stat"
    fields = Path(path).read_text().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def wait_port(port: int, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


async def settle(pid: int, seconds: float = 2.0) -> int:
    await asyncio.sleep(seconds)
    return rss_kb(pid)


# --------------------------------------------------------------------------- clients


@dataclass(eq=False, slots=True)
class Player:
    """One WebSocket client seated at a table."""

    ws: ClientConnection | LightClient
    table: Table
    seat: int | None = None
    version: int = 0
    view: dict[str, Any] | None = None
    seq: int = 0
    arrived_v: int = 0  # the move in flight: the version of this player's event, and when
    arrived_t: float = 0.0
    waiter: asyncio.Future[None] | None = None
    wanted: Callable[..., bool] | None = None

    async def read(self) -> None:
        """Read a ``websockets`` connection (a LightClient calls :meth:`on_text` itself)."""
        ws = self.ws
        assert isinstance(ws, ClientConnection)
        with contextlib.suppress(Exception):
            async for text in ws:
                self.on_text(text)  # type: ignore[arg-type]

    def on_text(self, text: str) -> None:
        now = perf_counter()
        table = self.table
        # The three other players of a move get the same event frame (the mover gets its
        # own, with its hand): each is parsed once, and the parse shared. The last two kept.
        if text == table.text_a:
            event = table.event_a
        elif text == table.text_b:
            event = table.event_b
        else:
            parsed = self.parse(text, now)
            if parsed is None:
                return
            event = parsed
            table.text_b, table.event_b = table.text_a, table.event_a
            table.text_a, table.event_a = text, event
        version, view, patch = event
        self.version = version
        if view is not None:
            self.view = dict(view)  # a copy: the parse may be shared, views get patched
        elif patch is not None and self.view is not None:
            self.view.update(patch)  # hello asked for patches
        if table.busy:
            if version == table.target or not self.arrived_v:
                # The move's event (before the ack: the first event after the action,
                # which is the move's in any case but a server-made event in between)
                self.arrived_v, self.arrived_t = version, now
            table.seen()
        elif table.running:
            table.chain()  # an idle table (between rounds) tries again on each event
        if self.waiter is not None:
            self.wake()

    def parse(self, text: str, now: float) -> Event | None:
        """An event's (version, view, patch); other messages are handled here."""
        m = loads(text)
        kind = m["type"]
        if kind == "event":
            return m["version"], m["view"], m.get("patch")
        if kind == "snapshot":
            self.version, self.view, self.seat = m["version"], m["view"], m["you"]["seat"]
        elif kind in ("ack", "error"):
            self.table.replied(self, m, now)
        if self.waiter is not None:
            self.wake()
        return None

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done() and self.wanted is not None and self.wanted():
            waiter.set_result(None)

    async def send(self, text: str) -> None:
        ws = self.ws
        if isinstance(ws, LightClient):
            ws.send_text(text)
        else:
            await ws.send(text)

    async def close(self) -> None:
        ws = self.ws
        if isinstance(ws, LightClient):
            ws.close()
        else:
            await ws.close()

    async def until(self, check: Callable[..., bool], timeout: float = 30) -> None:
        """Wait until ``check()`` holds (checked after each frame; set-up only)."""
        if check():
            return
        loop = asyncio.get_running_loop()
        waiter = self.waiter = loop.create_future()
        self.wanted = check
        timer = loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self.waiter = None


Event = tuple[int, dict[str, Any] | None, dict[str, Any] | None]  # version, view, patch
NO_EVENT: Event = (0, None, None)


def _expire(waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


def next_move(view: dict[str, Any]) -> dict[str, Any]:
    if view["phase"] == "take":
        return {"do": "draw"}
    plain = [t for t in view["hand"] if t < 104] or view["hand"]
    return {"do": "discard", "tile": plain[-1]}


def action_text(seq: int, base_version: int, action: dict[str, Any]) -> str:
    """The ``action`` message as JSON (what ``json.dumps`` gives, in a tenth of its time)."""
    if action == {"do": "draw"}:
        body = '{"do":"draw"}'
    elif len(action) == 2 and action["do"] == "discard" and type(action.get("tile")) is int:
        body = f'{{"do":"discard","tile":{action["tile"]}}}'
    else:
        body = json.dumps(action)
    return f'{{"type":"action","seq":{seq},"base_version":{base_version},"action":{body}}}'


@dataclass
class Stats:
    ack: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    when: list[float] = field(default_factory=list)


def _ignore(ok: bool) -> None:
    pass


class Table:
    """Four players of one room, and the move in flight.

    A move is driven by the players' frame callbacks: the mover's ``ack`` gives the
    version, and the event that brings the last of the four players to it completes
    the move (``done``). In the saturated phase (:meth:`chain`) the completion sends
    the table's next move at once, from that callback: no task, future or timer per
    move (one watchdog for every table catches a stalled move).
    """

    __slots__ = (
        "busy",
        "done",
        "event_a",
        "event_b",
        "mover_p",
        "players",
        "room",
        "run",
        "running",
        "seq",
        "stats",
        "t0",
        "t_reply",
        "target",
        "text_a",
        "text_b",
    )

    def __init__(self, room: str) -> None:
        self.room = room
        self.players = [Player(ws=None, table=self) for _ in range(4)]  # type: ignore[arg-type]
        self.text_a: str | None = None  # the last two event frames, and their parses
        self.event_a: Event = NO_EVENT
        self.text_b: str | None = None
        self.event_b: Event = NO_EVENT
        self.busy = False  # a move is in flight
        self.mover_p: Player | None = None
        self.seq = 0
        self.target = 0  # the version the ack gave; 0 until it came
        self.t0 = 0.0
        self.t_reply = 0.0
        self.stats = Stats()
        self.done: Callable[[bool], None] = _ignore
        self.running = False  # chained moves (saturated phase)
        self.run: Chain | None = None

    def mover(self) -> Player | None:
        view = self.players[0].view
        if view is None or view["over"]:
            return None
        turn = view["turn"]
        for p in self.players:
            if p.seat == turn:
                return p
        return None

    def begin(self, stats: Stats, done: Callable[[bool], None]) -> tuple[Player, str] | None:
        """Start a move (the caller sends the text, after setting ``t0``); None when
        nobody can move now (between rounds, or a player is behind)."""
        if self.busy:
            return None
        p = self.mover()
        if p is None or p.view is None or p.view["turn"] != p.seat:
            return None
        version = p.version
        for q in self.players:
            if q.version != version:
                return None
        for q in self.players:
            q.arrived_v = 0
        p.seq += 1
        self.stats, self.done, self.mover_p, self.seq, self.target = stats, done, p, p.seq, 0
        self.busy = True
        return p, action_text(p.seq, version, next_move(p.view))

    def replied(self, p: Player, m: dict[str, Any], now: float) -> None:
        if not self.busy or p is not self.mover_p or m["seq"] != self.seq:
            return  # not the move in flight (one given up on)
        if m["type"] != "ack":
            self.stats.errors += 1
            self.finish(False)
            return
        self.t_reply = now
        self.target = m["version"]
        self.seen()

    def seen(self) -> None:
        """After each event during a move: complete it once all four have its version."""
        target = self.target
        if not target:
            return  # no ack yet
        for q in self.players:
            if q.version < target:
                return
        last = 0.0
        for q in self.players:
            t = q.arrived_t if q.arrived_v == target else perf_counter()
            if t > last:
                last = t
        stats, t0 = self.stats, self.t0
        stats.ack.append(self.t_reply - t0)
        stats.last.append(last - t0)
        stats.when.append(t0)
        stats.moves += 1
        self.finish(True)

    def finish(self, ok: bool) -> None:
        self.busy = False
        self.target = 0
        done, self.done = self.done, _ignore
        done(ok)

    def abandon(self) -> None:
        """Give up the move in flight (its late replies and events are ignored)."""
        self.busy = False
        self.target = 0
        self.done = _ignore

    async def move(self, stats: Stats) -> bool:
        """One move; False when nobody can move now (between rounds)."""
        loop = asyncio.get_running_loop()
        finished: asyncio.Future[bool] = loop.create_future()

        def done(ok: bool) -> None:
            if not finished.done():
                finished.set_result(ok)

        started = self.begin(stats, done)
        if started is None:
            return False
        p, text = started
        self.t0 = perf_counter()
        await p.send(text)
        timer = loop.call_later(MOVE_TIMEOUT, _expire, finished)
        try:
            return await finished
        except TimeoutError:
            self.abandon()
            raise
        finally:
            timer.cancel()

    def chain(self, ok: bool = True) -> None:
        """Saturated phase (LightClient): start the next move now, if the phase runs and
        somebody can move; else the next event (or the watchdog) calls again."""
        if not self.running or self.busy:
            return
        if not ok:  # an error reply: try again in 10 ms
            asyncio.get_running_loop().call_later(0.01, self.chain)
            return
        run = self.run
        assert run is not None
        if monotonic() >= run.end:
            run.stop(self)
            return
        started = self.begin(run.stats, self.chain)
        if started is None:
            return
        p, text = started
        ws = p.ws
        assert isinstance(ws, LightClient)
        self.t0 = perf_counter()
        try:
            ws.send_text(text)
        except ConnectionError as exc:
            self.abandon()
            run.fail(exc)


MOVE_TIMEOUT = 30.0


class Chain:
    """The saturated phase over LightClients: every table chains its moves from its
    frame callbacks; one watchdog a second gives up moves stalled for MOVE_TIMEOUT,
    retries idle tables and stops idle tables once the phase is over."""

    def __init__(self, tables: list[Table], duration: float) -> None:
        self.tables = tables
        self.stats = Stats()
        self.end = monotonic() + duration
        self.left = len(tables)
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.timer: asyncio.TimerHandle | None = None

    async def __call__(self) -> None:
        loop = asyncio.get_running_loop()
        for table in self.tables:
            table.run, table.running = self, True
        for table in self.tables:
            table.chain()
        self.timer = loop.call_later(1.0, self.watch)
        try:
            if self.left:
                await self.finished
        finally:
            self.timer.cancel()
            for table in self.tables:
                table.running, table.run = False, None

    def watch(self) -> None:
        now = perf_counter()
        for table in self.tables:
            if not table.running:
                continue
            if table.busy and now - table.t0 > MOVE_TIMEOUT:
                table.abandon()
            table.chain()
        if not self.finished.done():
            left = self.end - monotonic()  # once more at the end, then every second
            delay = left if 0 < left < 1.0 else 1.0
            self.timer = asyncio.get_running_loop().call_later(delay, self.watch)

    def stop(self, table: Table) -> None:
        table.running = False
        self.left -= 1
        if not self.left and not self.finished.done():
            self.finished.set_result(None)

    def fail(self, exc: BaseException) -> None:
        if not self.finished.done():
            self.finished.set_exception(exc)


async def _post(http: httpx.AsyncClient, url: str, **kw: Any) -> httpx.Response:
    """POST with a few retries: a pooled keep-alive connection the server closes as the
    request goes out fails with RemoteProtocolError or ReadError, before the request
    was handled (seen in setup: ReadError)."""
    for attempt in range(5):
        try:
            r = await http.post(url, **kw)
            r.raise_for_status()
            return r
        except (httpx.RemoteProtocolError, httpx.ConnectError, httpx.ReadError):
            if attempt == 4:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def setup_tables(base: str, ws_base: str, n: int) -> tuple[list[Table], list[str]]:
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:

        async def player(i: int) -> str:
            r = await _post(http, "/api/players", json={"display_name": f"p{i}"})
            token: str = r.json()["token"]
            return token

        tokens = await asyncio.gather(*(player(i) for i in range(4 * n)))
        http.cookies.clear()

        async def room(t: int) -> str:
            own = tokens[4 * t]
            r = await _post(
                http,
                "/api/rooms",
                json={"variant": "remi", "seats": 4, "turn_seconds": 120},
                headers={"Authorization": f"Bearer {own}"},
            )
            r.raise_for_status()
            room_id: str = r.json()["id"]
            for s in range(1, 4):
                await _post(
                    http,
                    f"/api/rooms/{room_id}/seats/{s}",
                    headers={"Authorization": f"Bearer {tokens[4 * t + s]}"},
                )
            return room_id

        rooms = await asyncio.gather(*(room(t) for t in range(n)))
    return [Table(room_id) for room_id in rooms], list(tokens)


async def start_bot_tables(base: str, ws_base: str, args: argparse.Namespace) -> list[Any]:
    """``--bot-tables``: rooms of four bot-played seats, playing all along beside the
    tables of the clients. Each is a player's room filled with bots, started; the player
    connects and leaves, so that a bot plays their seat too (one move per ``--bot-delay``
    seconds a room). Their sockets (kept open, left) are returned."""
    host, port = ws_base.removeprefix("ws://").split(":")
    clients: list[Any] = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        sem = asyncio.Semaphore(20)

        async def one(i: int) -> None:
            async with sem:
                r = await _post(http, "/api/players", json={"display_name": f"b{i}"})
                auth = {"Authorization": f"Bearer {r.json()['token']}"}
                http.cookies.clear()
                r = await _post(
                    http,
                    "/api/rooms",
                    json={
                        "variant": args.bot_variant,
                        "seats": 4,
                        "turn_seconds": 120,
                        "fill_with_bots": True,
                        "bot_level": args.bot_level,
                    },
                    headers=auth,
                )
                r.raise_for_status()
                room_id = r.json()["id"]
                await _post(http, f"/api/rooms/{room_id}/start", headers=auth)
                receiver = Receiver()
                client = await light_connect(
                    host, int(port), f"/ws/rooms/{room_id}", auth, receiver
                )
                clients.append(client)
                client.send_text(json.dumps({"type": "hello", "last_version": None}))
                await receiver.recv()
                client.send_text(json.dumps({"type": "leave"}))

        await asyncio.gather(*(one(i) for i in range(args.bot_tables)))
    return clients


async def connect_all(
    ws_base: str, tables: list[Table], tokens: list[str], patches: bool, light: bool
) -> list[asyncio.Task[None]]:
    readers = []
    sem = asyncio.Semaphore(64)

    async def one(t: int, s: int) -> None:
        p = tables[t].players[s]
        auth = {"Authorization": f"Bearer {tokens[4 * t + s]}"}
        async with sem:
            if light:
                host, port = ws_base.removeprefix("ws://").split(":")
                p.ws = await light_connect(
                    host, int(port), f"/ws/rooms/{tables[t].room}", auth, p.on_text
                )
            else:
                p.ws = await connect(
                    f"{ws_base}/ws/rooms/{tables[t].room}",
                    additional_headers=auth,
                    compression=None,
                    max_size=2**20,
                    open_timeout=60,
                )
                readers.append(asyncio.create_task(p.read()))
        hello = {"type": "hello", "last_version": None, "patches": patches}
        await p.send(json.dumps(hello))
        await p.until(lambda: p.seat is not None or p.version > 0)

    await asyncio.gather(*(one(t, s) for t in range(len(tables)) for s in range(4)))
    return readers


async def start_all(base: str, tables: list[Table], tokens: list[str]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        sem = asyncio.Semaphore(20)

        async def one(t: int) -> None:
            async with sem:
                await _post(
                    http,
                    f"/api/rooms/{tables[t].room}/start",
                    headers={"Authorization": f"Bearer {tokens[4 * t]}"},
                )

        await asyncio.gather(*(one(t) for t in range(len(tables))))
    for table in tables:
        for p in table.players:
            await p.until(lambda p=p: p.view is not None)


async def paced(tables: list[Table], interval: float, duration: float) -> Stats:
    stats = Stats()
    end = time.monotonic() + duration

    async def run(table: Table) -> None:
        await asyncio.sleep(random.random() * interval)
        tick = time.monotonic()
        while tick < end:
            with contextlib.suppress(TimeoutError):
                await table.move(stats)
            tick += interval
            await asyncio.sleep(max(0.0, tick - time.monotonic()))

    await asyncio.gather(*(run(t) for t in tables))
    return stats


async def saturated(tables: list[Table], duration: float, light: bool) -> tuple[Stats, float]:
    t0 = perf_counter()
    if light:
        run = Chain(tables, duration)
        await run()
        return run.stats, perf_counter() - t0
    stats = Stats()  # the websockets client: a coroutine per table
    end = monotonic() + duration

    async def one(table: Table) -> None:
        while monotonic() < end:
            ok = False
            with contextlib.suppress(TimeoutError):
                ok = await table.move(stats)
            if not ok:
                await asyncio.sleep(0.01)

    await asyncio.gather(*(one(t) for t in tables))
    return stats, perf_counter() - t0


async def measure_saturated(
    tables: list[Table], duration: float, light: bool, pid: int
) -> tuple[dict[str, Any], Stats]:
    """The saturated phase: its figures (with raw sums, see :func:`_public`), its moves."""
    phase("saturated", pid)
    cpu0, mine0, loop0 = cpu_s(pid), cpu_s(), cpu_s(pid, main_thread=True)
    sat, elapsed = await saturated(tables, duration, light)
    cpu1, mine1, loop1 = cpu_s(pid), cpu_s(), cpu_s(pid, main_thread=True)
    phase("saturated_done", pid)
    return _saturated_figures(sat, elapsed, cpu1 - cpu0, mine1 - mine0, loop1 - loop0), sat


def _saturated_figures(
    sat: Stats, elapsed: float, server_cpu: float, clients_cpu: float, loop_cpu: float
) -> dict[str, Any]:
    return {
        "duration_s": round(elapsed, 1),
        "moves": sat.moves,
        "moves_per_s": round(sat.moves / elapsed, 1),
        "errors": sat.errors,
        "server_cpu_pct": round(server_cpu / elapsed * 100),
        "server_cpu_us_per_move": round(server_cpu / max(1, sat.moves) * 1e6),
        # The event loop's thread alone (not the socket writer's, the journal's
        # checkpoints...): the one that cannot go faster than one core.
        "server_loop_cpu_pct": round(loop_cpu / elapsed * 100),
        "server_loop_cpu_us_per_move": round(loop_cpu / max(1, sat.moves) * 1e6),
        "clients_cpu_pct": round(clients_cpu / elapsed * 100),
        "clients_cpu_us_per_move": round(clients_cpu / max(1, sat.moves) * 1e6),
        "frames_out_per_s": round(sat.moves * 5 / elapsed, 1),
        "ack_ms": {
            "p50": round(pct(sat.ack, 0.5), 2),
            "p99": round(pct(sat.ack, 0.99), 2),
            "p999": round(pct(sat.ack, 0.999), 2),
            "max": round(max(sat.ack, default=float("nan")) * 1000, 2),
        },
        "last_broadcast_ms": {
            "p50": round(pct(sat.last, 0.5), 2),
            "p99": round(pct(sat.last, 0.99), 2),
        },
        "_elapsed": elapsed,
        "_server_cpu": server_cpu,
        "_clients_cpu": clients_cpu,
        "_loop_cpu": loop_cpu,
    }


def _combined_saturated(parts: list[tuple[dict[str, Any], Stats]]) -> dict[str, Any]:
    """Several saturated phases as one: totals over the summed time, centiles of all."""
    every = Stats()
    for _, sat in parts:
        every.moves += sat.moves
        every.errors += sat.errors
        every.ack += sat.ack
        every.last += sat.last
    return _public(
        _saturated_figures(
            every,
            sum(f["_elapsed"] for f, _ in parts),
            sum(f["_server_cpu"] for f, _ in parts),
            sum(f["_clients_cpu"] for f, _ in parts),
            sum(f["_loop_cpu"] for f, _ in parts),
        )
    )


async def paired(
    tables: list[Table], args: argparse.Namespace, env: dict[str, str], pid: int, light: bool
) -> dict[str, Any]:
    """``--pairs N``: the saturated phase and the echo, alternated N times (each phase
    ``--saturate`` seconds), the echo server started beside the idle game server. The
    machine's speed drifts with other tenants' load; a pair's phases are seconds apart."""
    sats: list[tuple[dict[str, Any], Stats]] = []
    echoes: list[dict[str, float]] = []
    async with baseline_server("echo", env) as (port, echo_pid):
        clients = EchoClients(port, 4 * args.tables, echo_pid, light)
        await clients.connect()
        try:
            for _ in range(args.pairs):
                sats.append(await measure_saturated(tables, args.saturate, light, pid))
                echoes.append(await clients.measure(args.saturate))
        finally:
            await clients.close()
    pairs = [
        {
            "moves_per_s": sat["moves_per_s"],
            "server_cpu_us_per_move": sat["server_cpu_us_per_move"],
            "echo_round_trips_per_s": echo["round_trips_per_s"],
            "echo_server_cpu_us_per_round_trip": echo["server_cpu_us_per_round_trip"],
            "ratio": round(sat["moves_per_s"] / echo["round_trips_per_s"], 3),
        }
        for (sat, _), echo in zip(sats, echoes, strict=True)
    ]
    ratios = sorted(p["ratio"] for p in pairs)
    return {
        "saturated": _combined_saturated(sats),
        "echo": _combined_echo(echoes),
        "pairs": pairs,
        "pair_ratio": {"min": ratios[0], "median": ratios[len(ratios) // 2], "max": ratios[-1]},
    }


class EchoClients:
    """The echo baseline's connections: connected once, measured once or, with
    ``--pairs``, once per pair (kept open in between)."""

    def __init__(self, port: int, conns: int, pid: int, light: bool) -> None:
        self.port, self.conns, self.pid, self.light = port, conns, pid, light
        self.sockets: list[Any] = []
        self.rss_per_idle_conn_kb = 0.0

    async def connect(self) -> None:
        base_rss = await settle(self.pid, 1.0)
        sem = asyncio.Semaphore(64)

        async def one() -> None:
            async with sem:
                if self.light:
                    receiver = Receiver()
                    client = await light_connect("127.0.0.1", self.port, "/", None, receiver)
                    self.sockets.append(LightEcho(client, receiver))
                else:
                    self.sockets.append(
                        await connect(
                            f"ws://127.0.0.1:{self.port}", compression=None, open_timeout=60
                        )
                    )

        await asyncio.gather(*(one() for _ in range(self.conns)))
        idle_rss = await settle(self.pid)
        self.rss_per_idle_conn_kb = round((idle_rss - base_rss) / self.conns, 1)

    async def measure(self, duration: float) -> dict[str, float]:
        """Every connection sends as soon as its echo came back, for ``duration`` s."""
        payload = json.dumps(
            {"type": "action", "seq": 1, "base_version": 1, "action": {"do": "discard", "tile": 40}}
        )
        count = 0
        end = time.monotonic() + duration

        async def run(ws: Any) -> None:
            nonlocal count
            while time.monotonic() < end:
                await ws.send(payload)
                await ws.recv()
                count += 1

        t0 = time.perf_counter()
        cpu0, mine0 = cpu_s(self.pid), cpu_s()
        await asyncio.gather(*(run(ws) for ws in self.sockets))
        elapsed = time.perf_counter() - t0
        cpu1, mine1 = cpu_s(self.pid), cpu_s()
        return _echo_figures(count, elapsed, cpu1 - cpu0, mine1 - mine0, self.rss_per_idle_conn_kb)

    async def close(self) -> None:
        for ws in self.sockets:
            await ws.close()


async def echo_baseline(
    port: int, conns: int, duration: float, pid: int, light: bool
) -> dict[str, float]:
    clients = EchoClients(port, conns, pid, light)
    await clients.connect()
    try:
        return _public(await clients.measure(duration))
    finally:
        await clients.close()


def _public(measured: dict[str, float]) -> dict[str, float]:
    """A measurement without its raw sums (the keys starting with ``_``)."""
    return {k: v for k, v in measured.items() if not k.startswith("_")}


def _echo_figures(
    count: int, elapsed: float, server_cpu: float, clients_cpu: float, rss_kb: float
) -> dict[str, float]:
    return {
        "duration_s": round(elapsed, 1),
        "round_trips": count,
        "round_trips_per_s": round(count / elapsed, 1),
        "server_cpu_pct": round(server_cpu / elapsed * 100),
        "server_cpu_us_per_round_trip": round(server_cpu / max(1, count) * 1e6, 1),
        "clients_cpu_pct": round(clients_cpu / elapsed * 100),
        "clients_cpu_us_per_round_trip": round(clients_cpu / max(1, count) * 1e6, 1),
        "rss_per_idle_conn_kb": rss_kb,
        "_elapsed": elapsed,
        "_server_cpu": server_cpu,
        "_clients_cpu": clients_cpu,
    }


def _combined_echo(parts: list[dict[str, float]]) -> dict[str, float]:
    """Several echo measurements as one: totals over the summed time."""
    return _public(
        _echo_figures(
            round(sum(p["round_trips"] for p in parts)),
            sum(p["_elapsed"] for p in parts),
            sum(p["_server_cpu"] for p in parts),
            sum(p["_clients_cpu"] for p in parts),
            parts[0]["rss_per_idle_conn_kb"],
        )
    )


async def fanout_baseline(port: int, groups: int, duration: float, pid: int) -> dict[str, float]:
    """Groups of four light clients on the ``fanout`` server: a member sends, and once
    all four got the message the next member sends (as a table's moves go round)."""
    members: list[list[LightClient]] = []
    sem = asyncio.Semaphore(64)
    count = 0
    end = 0.0
    done = asyncio.get_running_loop().create_future()
    running = 0
    payload = json.dumps(
        {"type": "action", "seq": 1, "base_version": 1, "action": {"do": "discard", "tile": 40}}
    )

    def group_chain(g: int) -> Callable[[str], None]:
        got = 0
        turn = 0

        def on_text(_: str) -> None:
            nonlocal got, turn, count, running
            got += 1
            if got < 4:
                return
            got = 0
            count += 1
            if monotonic() < end:
                turn = (turn + 1) % 4
                members[g][turn].send_text(payload)
            else:
                running -= 1
                if running == 0 and not done.done():
                    done.set_result(None)

        return on_text

    async def one(g: int, callback: Callable[[str], None]) -> LightClient:
        async with sem:
            return await light_connect("127.0.0.1", port, f"/g/{g}", None, callback)

    for g in range(groups):
        callback = group_chain(g)
        members.append(list(await asyncio.gather(*(one(g, callback) for _ in range(4)))))
    await asyncio.sleep(0.5)
    t0 = perf_counter()
    cpu0, mine0 = cpu_s(pid), cpu_s()
    end = monotonic() + duration
    running = groups
    for group in members:
        group[0].send_text(payload)
    await asyncio.wait_for(done, duration + 30)
    elapsed = perf_counter() - t0
    cpu1, mine1 = cpu_s(pid), cpu_s()
    for group in members:
        for client in group:
            client.close()
    return {
        "fanouts_per_s": round(count / elapsed, 1),
        "server_cpu_pct": round((cpu1 - cpu0) / elapsed * 100),
        "server_cpu_us_per_fanout": round((cpu1 - cpu0) / max(1, count) * 1e6, 1),
        "clients_cpu_us_per_fanout": round((mine1 - mine0) / max(1, count) * 1e6, 1),
    }


class LightEcho:
    """The ``send``/``recv``/``close`` of a websockets connection, over a LightClient."""

    def __init__(self, client: LightClient, receiver: Receiver) -> None:
        self.client = client
        self.receiver = receiver

    async def send(self, text: str) -> None:
        self.client.send_text(text)

    async def recv(self) -> str:
        return await self.receiver.recv()

    async def close(self) -> None:
        self.client.close()


_STATUS_CODE = (
    "from server import native\n"
    "from server.settings import Settings\n"
    "from server.socketwriter import SocketWriter\n"
    "print(native.status())\n"
    "print(SocketWriter(Settings().socket_writes).status)\n"
)


def phase(name: str, pid: int) -> None:
    """Note a phase change on stderr (``--phases``): e.g. to attach a profiler to ``pid``."""
    if PHASES:
        print(f"phase {name} server_pid={pid}", file=sys.stderr, flush=True)


PHASES: list[bool] = []


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


@contextlib.asynccontextmanager
async def baseline_server(command: str, env: dict[str, str]) -> AsyncIterator[tuple[int, int]]:
    """This file's ``command`` server (``echo``, ``fanout``) in a child process: its
    port and pid while the block runs."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, command, "--port", str(port)], env=env)
    try:
        await wait_port(port)
        yield port, proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


async def with_baseline(
    command: str,
    env: dict[str, str],
    measure: Callable[[int, int], Awaitable[dict[str, float]]],
) -> dict[str, float]:
    """Start the ``command`` server, run ``measure(port, pid)`` against it, stop it."""
    async with baseline_server(command, env) as (port, pid):
        return await measure(port, pid)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"tables": args.tables, "connections": 4 * args.tables}
    data = tempfile.mkdtemp(prefix="remi-bench-")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.profile:
        env["REMI_BENCH_PROFILE"] = args.profile
    # Whether the server runs the compiled modules (server/native.py), as its process sees it.
    # And who sends the sockets' bytes (REMI_SOCKET_WRITES, server/socketwriter.py).
    native_status, socket_writes = subprocess.run(
        [sys.executable, "-c", _STATUS_CODE],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    out["native"] = native_status
    out["socket_writes"] = socket_writes
    server = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "serve",
            "--port",
            str(port),
            "--data",
            data,
            "--database-url",
            args.database_url,
            "--bot-delay",
            str(args.bot_delay),
        ],
        env=env,
    )
    try:
        await wait_port(port)
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        rss0 = await settle(server.pid)
        tables, tokens = await setup_tables(base, ws_base, args.tables)
        rss1 = await settle(server.pid)
        light = args.client == "light"
        readers = await connect_all(ws_base, tables, tokens, args.patches, light)
        out["view_patches"] = args.patches
        out["client"] = args.client
        rss2 = await settle(server.pid)
        await start_all(base, tables, tokens)
        rss3 = await settle(server.pid)
        if args.bot_tables:
            bot_clients = await start_bot_tables(base, ws_base, args)
            out["bot_tables"] = {
                "tables": args.bot_tables,
                "variant": args.bot_variant,
                "level": args.bot_level,
                "bot_delay_s": args.bot_delay,
                "bot_searches": os.environ.get("REMI_BOT_SEARCHES", "process (default)"),
            }
        conns = 4 * args.tables
        out["rss_kb"] = {
            "started": rss0,
            "rooms_created": rss1,
            "clients_connected": rss2,
            "matches_started": rss3,
        }
        out["rss_per_idle_connection_kb"] = round((rss2 - rss1) / conns, 1)
        out["rss_per_playing_room_kb"] = round((rss3 - rss2) / args.tables, 1)
        out["rss_per_connection_all_in_kb"] = round((rss3 - rss1) / conns, 1)
        if args.warmup > 0:
            await paced(tables, args.interval, args.warmup)
        stats = await paced(tables, args.interval, args.duration)
        out["paced"] = {
            "interval_s": args.interval,
            "warmup_s": args.warmup,
            "duration_s": args.duration,
            "moves": stats.moves,
            "errors": stats.errors,
            "moves_per_s": round(stats.moves / args.duration, 1),
            "ack_ms": {"p50": round(pct(stats.ack, 0.5), 2), "p99": round(pct(stats.ack, 0.99), 2)},
            "last_broadcast_ms": {
                "p50": round(pct(stats.last, 0.5), 2),
                "p99": round(pct(stats.last, 0.99), 2),
            },
            "server_rss_kb": rss_kb(server.pid),
        }
        if args.verbose:
            start = min(stats.when)
            slow = sorted(zip(stats.ack, stats.when, strict=True), reverse=True)[:15]
            out["paced"]["slowest"] = [(round(a * 1000, 1), round(w - start, 2)) for a, w in slow]
            out["paced"]["ack_ms"]["p90"] = round(pct(stats.ack, 0.9), 2)
            out["paced"]["ack_ms"]["p95"] = round(pct(stats.ack, 0.95), 2)
        if args.saturate > 0 and args.pairs > 1 and args.echo:
            out.update(await paired(tables, args, env, server.pid, light))
        elif args.saturate > 0:
            figures, _ = await measure_saturated(tables, args.saturate, light, server.pid)
            out["saturated"] = _public(figures)
        for table in tables:
            for p in table.players:
                with contextlib.suppress(Exception):
                    await p.close()
        for r in readers:
            r.cancel()
        if args.bot_tables:
            for client in bot_clients:
                client.close()
            async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                text = (await http.get("/metrics")).text
            out["bot_tables"]["bot_moves"] = round(
                sum(
                    float(line.rsplit(" ", 1)[1])
                    for line in text.splitlines()
                    if line.startswith("remi_moves_total{") and 'source="bot"' in line
                )
            )
    finally:
        server.terminate()
        server.wait(10)
    if args.echo and "echo" not in out:
        out["echo"] = await with_baseline(
            "echo",
            env,
            lambda port, pid: echo_baseline(port, 4 * args.tables, args.saturate or 10, pid, light),
        )
    if "saturated" in out and "echo" in out:
        out["saturated_vs_echo"] = round(
            out["saturated"]["moves_per_s"] / out["echo"]["round_trips_per_s"], 3
        )
    if args.fanout and light:
        out["fanout"] = await with_baseline(
            "fanout",
            env,
            lambda port, pid: fanout_baseline(port, args.tables, args.saturate or 10, pid),
        )
        if "echo" in out:
            out["fanout_vs_echo"] = round(
                out["fanout"]["fanouts_per_s"] / out["echo"]["round_trips_per_s"], 3
            )
    return out


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd")
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--data", required=True)
    s.add_argument("--database-url", default="")
    s.add_argument("--bot-delay", type=float, default=0.0)
    e = sub.add_parser("echo")
    e.add_argument("--port", type=int, required=True)
    f = sub.add_parser("fanout")
    f.add_argument("--port", type=int, required=True)
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between a table's moves"
    )
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=30.0, help="paced play not measured")
    parser.add_argument("--saturate", type=float, default=15.0, help="0 to skip")
    parser.add_argument("--no-echo", dest="echo", action="store_false")
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="alternate the saturated phase and the echo this many times (each phase "
        "--saturate seconds): the ratio of the sums, and each pair's own",
    )
    parser.add_argument(
        "--no-fanout",
        dest="fanout",
        action="store_false",
        help="skip the fan-out ceiling (websockets, one read and four writes per message)",
    )
    parser.add_argument(
        "--client",
        choices=("light", "websockets"),
        default="light",
        help="client of the game and the echo alike: bench/wsclient.py (default) or the "
        "websockets library's asyncio client",
    )
    parser.add_argument(
        "--whole-views",
        dest="patches",
        action="store_false",
        help="clients get every event's whole view (default: view patches, as the web client)",
    )
    parser.add_argument("--database-url", default="", help="default: SQLite in a temp dir")
    parser.add_argument(
        "--bot-tables",
        type=int,
        default=0,
        help="also this many rooms of four bots, playing all along (REMI_BOT_SEARCHES "
        "says where their searches run)",
    )
    parser.add_argument("--bot-level", default="hard", choices=("easy", "normal", "hard"))
    parser.add_argument("--bot-variant", default="remi101")
    parser.add_argument("--bot-delay", type=float, default=0.8, help="seconds before each bot move")
    parser.add_argument("--verbose", action="store_true", help="slowest moves, more centiles")
    parser.add_argument("--profile", default="", help="write the server's cProfile stats here")
    parser.add_argument("--phases", action="store_true", help="print phase changes on stderr")
    args = parser.parse_args()
    if args.phases:
        PHASES.append(True)
    if args.cmd == "serve":
        serve(args.port, args.data, args.database_url, args.bot_delay)
        return
    if args.cmd == "echo":
        echo(args.port)
        return
    if args.cmd == "fanout":
        fanout(args.port)
        return
    import gc

    import uvloop

    # The measuring side must not add pauses of its own: no cyclic GC in this process.
    gc.disable()
    result = uvloop.run(main(args))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    cli()
