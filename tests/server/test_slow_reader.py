"""A client that stops reading, on a real uvicorn server: closed with 1008 once more than
``send_queue_limit`` frames wait for it, and its room goes on meanwhile.

:class:`RawClient` drives the WebSocket protocol by hand over a plain socket with a
small receive buffer, so that the test decides when (and whether) the client reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import base_settings
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri
from wsharness import FAST, Client, Server, running_server, simple_move


async def until(check: Callable[[], object], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


class RawClient:
    """A WebSocket client over a plain socket: it reads only when asked to."""

    def __init__(self, sock: socket.socket, proto: ClientProtocol) -> None:
        self.sock = sock
        self.proto = proto
        self.texts: list[str] = []
        self.close_code: int | None = None

    @classmethod
    async def open(cls, srv: Server, token: str, room: str, rcvbuf: int) -> RawClient:
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # a small TCP window
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

    async def send_many(self, texts: list[str]) -> None:
        """Several messages in one write."""
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

    async def read_until_closed(self, timeout: float = 20.0) -> int:
        async with asyncio.timeout(timeout):
            while self.close_code is None:
                await self._read_events()
        return self.close_code

    def close(self) -> None:
        self.sock.close()


async def _playing_room(srv: Server) -> tuple[str, Client, str]:
    """A started 2-seat match: Ana (seat 0, connected, said hello); Bob's token (seat 1)."""
    _, ana = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    room = await srv.room(ana, variant="remi", seats=2, turn_seconds=60)
    await srv.sit(bob, room, 1)
    a = await srv.client(ana, room)
    await a.hello()
    await srv.start(ana, room)
    await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
    return room, a, bob


async def test_a_client_that_stops_reading_is_closed_and_the_room_goes_on(
    tmp_path: Path,
) -> None:
    settings = base_settings(
        data_dir=tmp_path,
        database_url="",
        send_queue_limit=64,
        rate_limit_messages=100_000,
        reconnect_grace_seconds=0,
    )
    async with running_server(settings, {**FAST, "idle_actor_seconds": 30}) as srv:
        room, a, bob = await _playing_room(srv)
        actor = srv.live.actors[room]
        slow = await RawClient.open(srv, bob, room, rcvbuf=4096)
        hello = json.dumps({"type": "hello", "last_version": None})
        await slow.send_many([hello])
        await until(lambda: any(c.seat == 1 and c.ready for c in actor.conns))
        [conn] = [c for c in actor.conns if c.seat == 1]
        # Each hello is answered with a whole snapshot, which the client never reads:
        # the kernel's buffers fill, then uvicorn's, then the frames wait in the Conn.
        # A few at a time (far fewer than the limit): only a socket that takes nothing
        # lets them pile up.
        sent = 0
        while not conn.closed:
            assert sent < 40_000, "never closed"
            await slow.send_many([hello] * 4)
            sent += 4
            await asyncio.sleep(0.002)
        assert conn.close_code == 1008
        assert not conn.waiting  # what waited is dropped, not kept for a reader that is gone
        # The room is not held up: Bob is away, and Ana's move is acknowledged.
        away = await a.wait(
            lambda m: (
                m["type"] == "event"
                and m["event"]["do"] == "presence"
                and m["event"]["seat"] == 1
                and m["event"]["away"] is True
            )
        )
        assert away["seats"][1]["away"]
        while True:
            assert a.view is not None
            reply = await a.act(simple_move(a.view))
            if reply["type"] == "ack" or reply["code"] != "stale_version":
                break
            await asyncio.sleep(0.01)  # an event was still on its way: play on it
        assert reply["type"] == "ack", reply
        # The client reads again: the frames that were sent, then the close with 1008.
        assert await slow.read_until_closed() == 1008
        kinds = [json.loads(t)["type"] for t in slow.texts]
        # How many snapshots the buffers held depends on a snapshot's size; some did.
        assert set(kinds) <= {"snapshot", "event"} and kinds.count("snapshot") >= 1
        slow.close()
        await a.close()
