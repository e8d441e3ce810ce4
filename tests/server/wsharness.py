"""A real uvicorn server on loopback and WebSocket clients for the room tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.app import create_app
from server.cli import uvicorn_options
from server.protocol import validate_server
from server.rooms.live import LiveRooms
from server.rooms.lobby.service import RoomEvents
from server.settings import Settings

FAST: dict[str, Any] = {
    "bot_delay_seconds": 0.0,
    "round_pause_seconds": 0.0,
    "turn_time_scale": 1.0,
    "idle_actor_seconds": 0.5,
}
"""Live-room pacing for the tests (overrides of :class:`Settings` fields)."""

BOT_ROUNDS: dict[str, Any] = {**FAST, "reconnect_grace_seconds": 0.05}
""":data:`FAST` for rounds played by bots, one of them in the seat of a player who never
connects: the bot takes that seat at once instead of after the reconnect grace."""


def with_overrides(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """``settings`` with some fields replaced (validated: unknown names are refused)."""
    unknown = set(overrides) - set(Settings.model_fields)
    assert not unknown, f"not settings: {sorted(unknown)}"
    return Settings.model_validate({**settings.model_dump(), **overrides})


@dataclass
class Server:
    """A running app: its URLs, live rooms and an HTTP client."""

    base: str
    ws_base: str
    live: LiveRooms
    http: httpx.AsyncClient
    uvicorn: uvicorn.Server
    settings: Settings

    async def player(self, name: str = "Ana") -> tuple[str, str]:
        """Create a player: (id, token)."""
        r = await self.http.post("/api/players", json={"display_name": name})
        assert r.status_code == 201, r.text
        self.http.cookies.clear()
        body = r.json()
        return body["player"]["id"], body["token"]

    async def room(self, token: str, **settings: Any) -> str:
        r = await self.http.post("/api/rooms", json=settings, headers=_auth(token))
        assert r.status_code == 201, r.text
        room_id: str = r.json()["id"]
        return room_id

    async def sit(self, token: str, room_id: str, seat: int) -> None:
        r = await self.http.post(f"/api/rooms/{room_id}/seats/{seat}", headers=_auth(token))
        assert r.status_code == 200, r.text

    async def start(self, token: str, room_id: str) -> None:
        r = await self.http.post(f"/api/rooms/{room_id}/start", headers=_auth(token))
        assert r.status_code == 200, r.text

    async def scores(self, room_id: str) -> dict[str, Any]:
        r = await self.http.get(f"/api/rooms/{room_id}/scores")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    async def client(
        self, token: str | None, room_id: str, *, origin: str | None = None, query: str = ""
    ) -> Client:
        headers = _auth(token) if token else {}
        ws = await connect(
            f"{self.ws_base}/ws/rooms/{room_id}{query}",
            additional_headers=headers,
            origin=origin,  # type: ignore[arg-type]
            compression=None,
            max_size=2**22,
        )
        c = Client(ws)
        c.start()
        return c


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


@asynccontextmanager
async def running_server(
    settings: Settings,
    live: dict[str, Any] = FAST,
    sock: socket.socket | None = None,
    events: RoomEvents | None = None,
) -> AsyncIterator[Server]:
    """Start the app under uvicorn on a free loopback port; stop it on exit.

    ``live`` overrides settings for this server (the live rooms' pacing by default);
    ``events`` hears every room event (after the live rooms and the lobby bus).
    """
    settings = with_overrides(settings, live)
    app = create_app(settings, events)
    rooms: LiveRooms = app.state.live
    sock = sock or free_socket()
    port = sock.getsockname()[1]
    cfg = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
        **uvicorn_options(settings),
    )
    server = uvicorn.Server(cfg)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if task.done():
        task.result()
    base = f"http://127.0.0.1:{port}"
    # Idle connections are dropped well before uvicorn closes them (5 s keep-alive): a
    # request is never sent on a connection the server is closing at that instant.
    limits = httpx.Limits(keepalive_expiry=1.0)
    async with httpx.AsyncClient(base_url=base, timeout=10, limits=limits) as http:
        try:
            yield Server(base, f"ws://127.0.0.1:{port}", rooms, http, server, settings)
        finally:
            server.should_exit = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 15)
            sock.close()


@dataclass
class Client:
    """A WebSocket client that records every frame and tracks the room's state."""

    ws: ClientConnection
    frames: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    version: int | None = None
    view: dict[str, Any] | None = None
    seat: int | None = None
    seats: list[dict[str, Any]] | None = None
    deadline: float | None = None
    status: str | None = None
    closed: asyncio.Future[tuple[int | None, str]] | None = None
    seq: int = 0
    patches: bool = False
    """Ask for view patches in ``hello`` (the view is then rebuilt from them)."""
    _cursor: int = 0
    _new: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.closed = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.closed is not None
        try:
            async for text in self.ws:
                assert isinstance(text, str)
                data = json.loads(text)
                validate_server(data)  # every frame matches the protocol models
                self.raw.append(text)
                self.frames.append(data)
                self._track(data)
                self._new.set()
        except ConnectionClosed:
            pass
        finally:
            rcvd = self.ws.close_code
            if not self.closed.done():
                self.closed.set_result((rcvd, self.ws.close_reason or ""))
            self._new.set()

    def _track(self, m: dict[str, Any]) -> None:
        if m["type"] == "snapshot":
            self.version = m["version"]
            self.view = m["view"]
            self.seat = m["you"]["seat"]
            self.seats = m["seats"]
            self.deadline = m["deadline"]
            self.status = m["room"]["status"]
            self.seq = max(self.seq, m["last_seq"] or 0)  # another device may have used seqs
        elif m["type"] == "event":
            self.version = m["version"]
            if m["view"] is not None:
                self.view = m["view"]
            elif m.get("patch") is not None:
                assert self.view is not None, "a patch with no view to apply it to"
                self.view = {**self.view, **m["patch"]}
                self.deadline = m["deadline"]
            if m["seats"] is not None:
                self.seats = m["seats"]
                self.deadline = m["deadline"]
            if m["event"].get("do") == "match_over":
                self.status = "finished"

    async def send(self, msg: dict[str, Any] | str) -> None:
        await self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    async def hello(self, last_version: int | None = None) -> dict[str, Any]:
        mark = len(self.frames)
        hello: dict[str, Any] = {"type": "hello", "last_version": last_version}
        if self.patches:
            hello["patches"] = True
        await self.send(hello)
        return await self.wait(lambda m: m["type"] in ("snapshot", "event"), since=mark)

    async def act(
        self, action: dict[str, Any], *, base: int | None = None, seq: int | None = None
    ) -> dict[str, Any]:
        """Send an action (fresh seq unless given); returns its ack or error.

        After an ack, also waits for the event of that version (so the view is current).
        """
        if seq is None:
            self.seq += 1
            seq = self.seq
        mark = len(self.frames)
        await self.send(
            {
                "type": "action",
                "seq": seq,
                "base_version": self.version if base is None else base,
                "action": action,
            }
        )
        reply = await self.wait(
            lambda m: m["type"] in ("ack", "error") and m.get("seq") == seq, since=mark
        )
        if reply["type"] == "ack":
            version = reply["version"]
            await self.wait(
                lambda m: m["type"] in ("event", "snapshot") and m["version"] >= version,
                since=mark,
            )
        return reply

    async def wait(
        self,
        pred: Callable[[dict[str, Any]], bool],
        *,
        since: int | None = None,
        timeout: float = 10.0,
    ) -> dict[str, Any]:
        """The first frame (from ``since``, default: not yet consumed) matching ``pred``."""
        i = self._cursor if since is None else since
        end = time.monotonic() + timeout
        while True:
            while i < len(self.frames):
                m = self.frames[i]
                i += 1
                if pred(m):
                    self._cursor = max(self._cursor, i)
                    return m
            if self.closed is not None and self.closed.done():
                raise AssertionError(f"connection closed {self.closed.result()} while waiting")
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    "timed out waiting for a frame; last: " + repr(self.frames[-3:])
                )
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)

    def my_turn(self) -> bool:
        v = self.view
        return bool(v and not v["over"] and v["seat"] is not None and v["turn"] == v["seat"])

    async def close(self) -> None:
        await self.ws.close()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 5)


async def still_open(client: Client) -> bool:
    """The connection still answers a ping."""
    mark = len(client.frames)
    await client.send({"type": "ping"})
    try:
        await client.wait(lambda m: m["type"] == "pong", since=mark, timeout=5)
    except AssertionError:
        return False
    return True


async def two_player_room(srv: Server, **settings: object) -> tuple[str, Client, Client, str, str]:
    """A started ``remi`` room of two players, Ana (seat 0) and Bob, both said ``hello``
    and got the round's start (``settings``: the room's, over these); the room's id, the
    two clients and their tokens."""
    _, ana = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    room = await srv.room(ana, **{"variant": "remi", "seats": 2, "turn_seconds": 60, **settings})
    await srv.sit(bob, room, 1)
    a = await srv.client(ana, room)
    b = await srv.client(bob, room)
    await a.hello()
    await b.hello()
    await srv.start(ana, room)
    for c in (a, b):
        await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
    return room, a, b, ana, bob


def simple_move(view: dict[str, Any]) -> dict[str, Any]:
    """Draw, then discard the newest non-joker tile."""
    if view["phase"] == "take":
        return {"do": "draw"}
    plain = [t for t in view["hand"] if t < 104] or view["hand"]
    return {"do": "discard", "tile": plain[-1]}


async def play_until(client: Client, done: Callable[[], bool], timeout: float = 60.0) -> None:
    """Play this client's turns with :func:`simple_move` until ``done()``."""
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise AssertionError("play_until timed out")
        if client.my_turn() and client.view is not None:
            reply = await client.act(simple_move(client.view))
            if reply["type"] == "error" and reply["code"] not in ("stale_version",):
                raise AssertionError(f"move refused: {reply}")
            if reply["type"] == "error":
                await asyncio.sleep(0.005)
            continue
        client._new.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client._new.wait(), 0.5)
