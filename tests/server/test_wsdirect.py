"""Room sockets in direct mode (server.wsdirect) on a real uvicorn server.

Most clients are ordinary ``websockets`` clients (wsharness); :class:`RawClient`
drives the WebSocket protocol by hand over a plain socket, so that a test decides
when (and whether) the client reads, and when it sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri
from wsharness import FAST, Client, Server, running_server, simple_move

from server import native, ws
from server.rooms.actor import RoomActor
from server.rooms.conn import DirectConn, text_frame
from server.socketwriter import ChannelTransport
from server.wsdirect import RoomWSProtocol


def _settings(tmp_path: Path, **overrides: Any) -> Any:
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "database_url": "",
        "rate_limit_messages": 20,
        "rate_limit_window_seconds": 20,
        "reconnect_grace_seconds": 0,
    }
    values.update(overrides)
    return base_settings(**values)


@pytest.fixture(params=["thread", "loop"])
async def srv(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Server]:
    """Each test twice: the sockets' bytes sent by the writer thread (when built,
    server/socketwriter.py), then by the event loop."""
    settings = _settings(tmp_path, socket_writes=request.param)
    # Rooms stay live while a test holds on to their actor.
    async with running_server(settings, {**FAST, "idle_actor_seconds": 30}) as server:
        yield server


def protocols(srv: Server) -> list[RoomWSProtocol]:
    """The server's WebSocket connections (uvicorn's protocol instances)."""
    conns = srv.uvicorn.server_state.connections
    return [p for p in conns if isinstance(p, RoomWSProtocol)]


def direct_protocols(srv: Server) -> list[RoomWSProtocol]:
    return [p for p in protocols(srv) if p.on_closed is not None]


async def until(check: Callable[[], object], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


class _RecordingInbox(deque[tuple[Any, ...]]):
    """An actor's inbox that also keeps a list of every command put in it."""

    def __init__(self, queued: deque[tuple[Any, ...]], posted: list[tuple[Any, ...]]) -> None:
        super().__init__(queued)
        self.posted = posted

    def append(self, command: tuple[Any, ...]) -> None:
        self.posted.append(command)
        super().append(command)


def spy_posts(actor: RoomActor) -> list[tuple[Any, ...]]:
    """Record every command posted to ``actor`` (they are still handled).

    Through its inbox, not by replacing ``post``: a compiled actor's methods cannot be
    replaced (server/native.py)."""
    posted: list[tuple[Any, ...]] = []
    actor._inbox = _RecordingInbox(actor._inbox, posted)
    return posted


def gones(posted: list[tuple[Any, ...]]) -> list[Any]:
    return [c[1] for c in posted if c[0] == "gone"]


class RawClient:
    """A WebSocket client over a plain socket: it reads only when asked to."""

    def __init__(self, sock: socket.socket, proto: ClientProtocol) -> None:
        self.sock = sock
        self.proto = proto
        self.texts: list[str] = []
        self.close_code: int | None = None

    @classmethod
    async def open(cls, srv: Server, token: str, room: str, rcvbuf: int | None = None) -> RawClient:
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:  # before connecting: the TCP window stays small
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        port = int(srv.ws_base.rsplit(":", 1)[1])
        await loop.sock_connect(sock, ("127.0.0.1", port))
        proto = ClientProtocol(parse_uri(f"{srv.ws_base}/ws/rooms/{room}"), max_size=None)
        request = proto.connect()
        request.headers["Authorization"] = f"Bearer {token}"
        proto.send_request(request)
        client = cls(sock, proto)
        await client.flush()
        while not any(isinstance(e, Response) for e in await client._read_events()):
            pass
        assert proto.handshake_exc is None
        return client

    async def flush(self) -> None:
        data = b"".join(self.proto.data_to_send())
        if data:
            await asyncio.get_running_loop().sock_sendall(self.sock, data)

    async def send(self, text: str) -> None:
        self.proto.send_text(text.encode())
        await self.flush()

    async def send_many(self, texts: list[str]) -> None:
        """Several messages in one write (one TCP segment when small)."""
        for text in texts:
            self.proto.send_text(text.encode())
        await self.flush()

    async def _read_events(self) -> list[Any]:
        data = await asyncio.get_running_loop().sock_recv(self.sock, 65536)
        self.proto.receive_data(data)
        events = self.proto.events_received()
        for event in events:
            if isinstance(event, Frame) and event.opcode == Opcode.TEXT:
                self.texts.append(bytes(event.data).decode())
        if self.proto.close_rcvd is not None:
            self.close_code = self.proto.close_rcvd.code
        if not data and self.close_code is None:
            self.close_code = 1006
        with contextlib.suppress(OSError):  # pongs, the close answer
            await self.flush()
        return events

    async def read(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Read until ``count`` text messages came in (in total)."""
        async with asyncio.timeout(timeout):
            while len(self.texts) < count and self.close_code is None:
                await self._read_events()
        return [json.loads(t) for t in self.texts]

    async def read_until_closed(self, timeout: float = 20.0) -> int:
        async with asyncio.timeout(timeout):
            while self.close_code is None:
                await self._read_events()
        return self.close_code

    def close(self) -> None:
        self.sock.close()


async def _playing_room(srv: Server) -> tuple[str, Client, str, str]:
    """A started 2-seat match: Ana (seat 0, connected, said hello), Bob (seat 1)."""
    _, ana = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    room = await srv.room(ana, variant="remi", seats=2, turn_seconds=60)
    await srv.sit(bob, room, 1)
    a = await srv.client(ana, room)
    await a.hello()
    await srv.start(ana, room)
    await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
    return room, a, ana, bob


def test_text_frame_matches_websockets() -> None:
    from websockets.frames import Frame as WsFrame

    for n in (0, 1, 125, 126, 65535, 65536, 70000):
        text = "é" * (n // 2) + "x" * (n % 2)
        expected = WsFrame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
        assert text_frame(text) == expected


async def test_direct_mode_is_used_and_early_messages_come_first(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    # Hold the switch back until the client's first messages surely arrived.
    live = srv.live
    attach = live.attach
    arrived = asyncio.Event()

    async def slow_attach(room_id: str, conn: Any) -> Any:
        await asyncio.wait_for(arrived.wait(), 5)
        await asyncio.sleep(0.1)
        return await attach(room_id, conn)

    live.attach = slow_attach  # type: ignore[method-assign]
    c = await RawClient.open(srv, ana, room)
    query = {"type": "query", "query": "formations", "formations": [[0, 1, 2]]}
    await c.send_many(
        [
            json.dumps({**query, "seq": 1}),  # refused: before the hello
            json.dumps({"type": "hello", "last_version": None}),
            json.dumps({**query, "seq": 2}),  # answered by the room, after the snapshot
        ]
    )
    arrived.set()
    [p] = await asyncio.wait_for(_one_direct(srv), 5)
    frames = await c.read(3)
    assert [(m["type"], m.get("seq")) for m in frames[:2]] == [("error", 1), ("snapshot", None)]
    assert "hello" in frames[0]["message"]
    assert frames[2]["seq"] == 2 and "hello" not in frames[2].get("message", "")
    assert not p.read_paused  # reading resumed after the queue was delivered
    await c.send(json.dumps({"type": "ping"}))
    assert (await c.read(4))[3]["type"] == "pong"
    live.attach = attach  # type: ignore[method-assign]
    # The frames are written by the protocol itself, not through ASGI.
    actor = live.actors[room]
    [conn] = actor.conns
    assert isinstance(conn, DirectConn) and conn.socket is p
    c.close()


async def _one_direct(srv: Server) -> list[RoomWSProtocol]:
    while True:
        found = direct_protocols(srv)
        if found:
            return found
        await asyncio.sleep(0.01)


async def test_room_sockets_write_through_the_thread_when_it_is_built(srv: Server) -> None:
    room, a, _, bob = await _playing_room(srv)
    b = await srv.client(bob, room)
    await b.hello()
    threaded = srv.settings.socket_writes == "thread" and native.status() == "on"
    [*direct] = direct_protocols(srv)
    assert len(direct) == 2
    assert all((p.channel is not None) == threaded for p in direct)
    assert all(isinstance(p.transport, ChannelTransport) == threaded for p in direct)
    # Ana plays: both get the move's frames, in order, through whichever path.
    assert a.view is not None
    reply = await a.act(simple_move(a.view))
    assert reply["type"] == "ack"
    await b.wait(lambda m: m["type"] == "event" and m["version"] == reply["version"])
    stats = srv.live.socket_writer.stats()
    assert (stats.get("sent_bytes", 0) > 0) == threaded
    # The server's close frame (uvicorn's close_sent) seals the channel: a room frame
    # sent after it is dropped and its connection counted gone, on either path.
    p = direct[0]
    [conn] = [c for c in srv.live.actors[room].conns if isinstance(c, DirectConn) and c.socket is p]
    p.write_close(4001)
    assert p.close_sent
    if threaded:
        assert p.channel is not None and p.channel.write_texts(1 << 30, "late") == 0
    conn.send('{"type":"pong"}')
    assert conn.closed and conn.close_code == 1006
    await a.close()
    await b.close()


async def test_oversize_frames_close_with_1009_before_parsing(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    # Text under uvicorn's limit raised, over the app's: the app closes, nothing parsed.
    srv.uvicorn.config.ws_max_size = 10 * 2**20
    try:
        c = await RawClient.open(srv, ana, room)
        await c.read(0)
        await until(lambda: direct_protocols(srv))
        await c.send(json.dumps({"type": "ping", "pad": "y" * 20000}))
        assert await c.read_until_closed() == 1009
        assert c.texts == []
        b = await RawClient.open(srv, ana, room)
        b.proto.send_binary(b"\x00" * 20000)
        await b.flush()
        assert await b.read_until_closed() == 1009
        assert b.texts == []
    finally:
        srv.uvicorn.config.ws_max_size = srv.settings.max_frame_bytes
    # Over uvicorn's limit (the parser's): 1009 as well.
    d = await RawClient.open(srv, ana, room)
    await d.send(json.dumps({"type": "ping", "pad": "z" * 20000}))
    assert await d.read_until_closed() == 1009


async def test_bad_input_gets_errors_and_the_connection_stays_usable(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    c = await srv.client(ana, room)
    await until(lambda: direct_protocols(srv))
    mark = len(c.frames)
    await c.send("{not json")
    r = await c.wait(lambda m: m["type"] == "error", since=mark)
    assert r == {
        "type": "error",
        "seq": None,
        "code": "bad_message",
        "message": "the frame is not valid JSON",
    }
    mark = len(c.frames)
    await c.ws.send(b"\x00\x01")
    r = await c.wait(lambda m: m["type"] == "error", since=mark)
    assert r["code"] == "bad_message" and "text" in r["message"]
    mark = len(c.frames)
    await c.send({"type": "action", "seq": 1, "base_version": 0, "action": {"do": "draw"}})
    r = await c.wait(lambda m: m["type"] == "error", since=mark)
    assert r["code"] == "bad_message" and "hello" in r["message"]
    assert (await c.hello())["type"] == "snapshot"
    await c.send({"type": "ping"})
    await c.wait(lambda m: m["type"] == "pong")
    assert c.closed is not None and not c.closed.done()
    await c.close()


async def test_invalid_utf8_closes_with_1007(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    actor = await srv.live.actor(room)
    posted = spy_posts(actor)
    c = await RawClient.open(srv, ana, room)
    await until(lambda: direct_protocols(srv))
    c.proto.send_frame(Frame(Opcode.TEXT, b"\xff\xfe"))
    await c.flush()
    assert await c.read_until_closed() == 1007
    await until(lambda: gones(posted))
    assert len(gones(posted)) == 1


async def test_a_failing_handler_ends_its_connection_only(
    srv: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    actor = await srv.live.actor(room)
    posted = spy_posts(actor)
    parse = ws.parse_client

    def parse_or_fail(text: str) -> Any:
        if "boom" in text:
            raise RuntimeError("boom")
        return parse(text)

    monkeypatch.setattr(ws, "parse_client", parse_or_fail)
    c = await srv.client(ana, room)
    other = await srv.client(ana, room)
    await c.hello()
    await c.send({"type": "ping", "boom": 1})
    code, _ = await c.closed  # type: ignore[misc]
    assert code == 1000  # as when the ASGI receive loop fails
    await until(lambda: gones(posted))
    assert len(gones(posted)) == 1
    await other.send({"type": "ping"})
    await other.wait(lambda m: m["type"] == "pong")
    await other.close()


async def test_message_budget_closes_with_1008(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    actor = await srv.live.actor(room)
    posted = spy_posts(actor)
    c = await RawClient.open(srv, ana, room)
    await until(lambda: direct_protocols(srv))
    await c.send_many([json.dumps({"type": "ping"})] * 25)  # the budget is 20 per 20 s
    assert await c.read_until_closed() == 1008
    frames = [json.loads(t) for t in c.texts]
    assert [m["type"] for m in frames] == ["pong"] * 20 + ["error"]
    assert frames[-1]["code"] == "rate_limited"  # and nothing after the close
    await until(lambda: gones(posted))
    await asyncio.sleep(0.1)
    assert len(gones(posted)) == 1


async def test_close_and_disconnect_post_gone_once_and_the_seat_goes_away(
    srv: Server,
) -> None:
    room, a, _, bob = await _playing_room(srv)
    actor = srv.live.actors[room]
    posted = spy_posts(actor)
    for how in ("close", "abort"):
        b = await srv.client(bob, room)
        await b.hello()
        [conn] = [c for c in actor.conns if c.seat == 1]
        mark = len(a.frames)
        if how == "close":
            await b.close()
        else:
            b.ws.transport.abort()  # gone without a close frame
        away = await a.wait(
            lambda m: (
                m["type"] == "event"
                and m["event"]["do"] == "presence"
                and m["event"]["seat"] == 1
                and m["event"]["away"] is True
            ),
            since=mark,
        )
        assert away["seats"][1]["away"]
        await asyncio.sleep(0.1)
        assert gones(posted).count(conn) == 1 and conn not in actor.conns
        assert conn.closed
    assert len(gones(posted)) == 2
    gauge = srv.live.services.metrics.registry.get_sample_value("remi_connections")
    assert gauge == 1  # only Ana's
    await a.close()


@pytest.mark.parametrize("socket_writes", ["thread", "loop"])
async def test_a_client_that_stops_reading_is_closed_and_the_room_goes_on(
    tmp_path: Path, socket_writes: str
) -> None:
    # Past 64 KiB waiting (the smallest limit: the transport's high-water mark)
    settings = _settings(
        tmp_path,
        send_buffer_bytes=65536,
        rate_limit_messages=100_000,
        socket_writes=socket_writes,
    )
    async with running_server(settings) as srv:
        room, a, _, bob = await _playing_room(srv)
        actor = srv.live.actors[room]
        posted = spy_posts(actor)
        slow = await RawClient.open(srv, bob, room, rcvbuf=4096)
        hello = json.dumps({"type": "hello", "last_version": None})
        await slow.send(hello)
        await until(lambda: any(c.seat == 1 and c.ready for c in actor.conns))
        [conn] = [c for c in actor.conns if c.seat == 1]
        assert isinstance(conn, DirectConn)
        # Each hello is answered with a full snapshot, which the client never reads.
        sent = 0
        while not conn.closed:
            assert sent < 20_000, "never closed"
            await slow.send_many([hello] * 50)
            sent += 50
            await asyncio.sleep(0.005)
        assert conn.close_code == 1008
        buffered = conn.socket.transport.get_write_buffer_size()
        assert buffered < 64 * 1024 + 16 * 1024  # bounded: the limit plus one frame
        # The room is not held up: Bob is away, and Ana plays (once she has every
        # event: a move based on an older version is refused as stale), her move is
        # acknowledged.
        await until(lambda: gones(posted))
        assert gones(posted) == [conn]
        await until(lambda: actor.seats[1].away)  # the presence event is out
        await until(lambda: a.version == actor.version)
        assert a.view is not None
        reply = await a.act(simple_move(a.view))
        assert reply["type"] == "ack", reply
        # The client reads again: everything written, then the close with 1008.
        assert await slow.read_until_closed() == 1008
        kinds = [json.loads(t)["type"] for t in slow.texts]
        assert set(kinds) <= {"snapshot", "event"} and kinds.count("snapshot") > 10
        await a.close()


async def test_keepalive_pings_still_work(srv: Server) -> None:
    room, a, _, bob = await _playing_room(srv)  # Ana: connected before, not affected
    srv.uvicorn.config.ws_ping_interval = 0.2
    srv.uvicorn.config.ws_ping_timeout = 0.3
    try:
        actor = srv.live.actors[room]
        posted = spy_posts(actor)
        # A client that answers pings stays; its round trips are measured.
        b = await srv.client(bob, room)
        await b.hello()
        [p] = [x for x in direct_protocols(srv) if x.ping_interval == 0.2]
        await asyncio.sleep(1.0)
        assert p.last_ping_rtt > 0 and b.closed is not None and not b.closed.done()
        await b.send({"type": "ping"})
        await b.wait(lambda m: m["type"] == "pong")
        await b.close()
        await until(lambda: len(gones(posted)) == 1)
        # A client that never answers is closed by the keepalive: gone, once.
        mute = await RawClient.open(srv, bob, room)
        await mute.send(json.dumps({"type": "hello", "last_version": None}))
        await until(lambda: len(gones(posted)) == 2, timeout=5)
        assert await mute.read_until_closed() == 1011
        await asyncio.sleep(0.1)
        assert len(gones(posted)) == 2
        await a.close()
    finally:
        srv.uvicorn.config.ws_ping_interval = 20.0
        srv.uvicorn.config.ws_ping_timeout = 20.0


# ---------------------------------------------------------------------- fast frame parsing


def _masked(b0: int, payload: bytes, long_length: bool = False) -> bytes:
    """A client frame by hand: ``b0`` (FIN, opcode), masked ``payload``; ``long_length``
    writes a short length in the 16-bit form (allowed by the parser, not the shortest)."""
    from websockets.utils import apply_mask

    key = b"\x01\x02\x03\x04"
    n = len(payload)
    if n < 126 and not long_length:
        head = bytes((b0, 0x80 | n))
    else:
        head = bytes((b0, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + key + apply_mask(payload, key)


def _query(seq: int, tiles: int) -> bytes:
    """A valid query message judging ``tiles`` tiles (40 per formation, at most 30)."""
    ids = [100 + i % 5 for i in range(tiles)]
    formations = [ids[i : i + 40] for i in range(0, tiles, 40)]
    msg = {"type": "query", "seq": seq, "query": "formations", "formations": formations}
    return json.dumps(msg).encode()


async def _fast_client(srv: Server) -> tuple[RawClient, RoomWSProtocol]:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    c = await RawClient.open(srv, ana, room)
    await c.send(json.dumps({"type": "hello", "last_version": None}))
    assert (await c.read(1))[0]["type"] == "snapshot"
    [p] = direct_protocols(srv)
    return c, p


async def _write(c: RawClient, data: bytes) -> None:
    await asyncio.get_running_loop().sock_sendall(c.sock, data)


async def test_fast_mode_parses_frames_split_and_joined_anywhere(srv: Server) -> None:
    c, p = await _fast_client(srv)
    assert p.fast  # the parser was between frames at the switch: frames are parsed here
    sizes = [1, 11, 12, 100, 600, 1200]  # bodies of 73, 123, 128, 572, 3096, 6126 bytes
    bodies = [_query(seq, size) for seq, size in enumerate(sizes, 1)]
    assert len(bodies[1]) < 126 <= len(bodies[2])  # either side of the 16-bit length
    wire = b"".join(_masked(0x81, body) for body in bodies)
    # One byte per write (each read may end anywhere in a header or a payload)...
    for i in range(0, 400):
        await _write(c, wire[i : i + 1])
        if i % 50 == 0:
            await asyncio.sleep(0.005)
    # ...then the rest: several frames per write, cut at odd places.
    for i in range(400, len(wire), 777):
        await _write(c, wire[i : i + 777])
    frames = await c.read(1 + len(sizes))
    answers = frames[1:]
    # Each query was parsed and validated whole: the room answers it by its seq (no
    # round is being played in a room not started).
    assert [m.get("code") for m in answers] == ["room_closed"] * len(sizes)
    assert [m["seq"] for m in answers] == list(range(1, len(sizes) + 1))
    assert p.fast and p._partial == b""
    c.close()


async def test_fast_mode_hands_other_frames_to_websockets(srv: Server) -> None:
    c, p = await _fast_client(srv)
    assert p.fast
    # A binary frame: websockets' parser, the usual error; then fast again.
    await _write(c, _masked(0x82, b"\x00\x01") + _masked(0x81, _query(1, 5)))
    frames = await c.read(3)
    assert frames[1]["type"] == "error" and "text" in frames[1]["message"]
    assert (frames[2]["seq"], frames[2]["code"]) == (1, "room_closed")
    assert p.fast
    # A ping from the client: a pong with its payload (answered in fast mode).
    await _write(c, _masked(0x89, b"are you there"))
    pongs: list[bytes] = []
    while not pongs:
        events = await c._read_events()
        pongs = [bytes(e.data) for e in events if isinstance(e, Frame) and e.opcode == Opcode.PONG]
    assert pongs == [b"are you there"] and p.fast
    # A length not in its shortest form: websockets' parser accepts it; the byte count
    # no longer balances, so this connection stays on that parser, and still works.
    await _write(c, _masked(0x81, _query(2, 5), long_length=True))
    await _write(c, _masked(0x81, _query(3, 5)))
    frames = await c.read(5)
    assert [m.get("seq") for m in frames[3:]] == [2, 3] and not p.fast
    c.close()


async def test_fast_mode_fragments_and_close(srv: Server) -> None:
    c, p = await _fast_client(srv)
    actor = srv.live.actors[p.scope["path"].rsplit("/", 1)[1]]
    posted = spy_posts(actor)
    body = _query(1, 100)
    # A message in two fragments goes to websockets' parser, which joins it.
    await _write(c, _masked(0x01, body[:100]) + _masked(0x80, body[100:]))
    frames = await c.read(2)
    assert (frames[1]["seq"], frames[1]["code"]) == (1, "room_closed")
    await until(lambda: p.fast)
    # A close frame: answered, the connection ends, gone once.
    await _write(c, _masked(0x88, (1000).to_bytes(2, "big")))
    assert await c.read_until_closed() == 1000
    await until(lambda: gones(posted))
    assert len(gones(posted)) == 1
