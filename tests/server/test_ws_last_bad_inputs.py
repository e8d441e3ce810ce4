"""The socket's last bad inputs, sent by a raw client (every byte at once, as an attacker
would): a message too big even in small fragments gets its 1009 close frame (the socket
is not reset under it), invalid UTF-8 closes 1007 and is logged at info without a
traceback, and WebSocket pings count against the connection's message budget."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri
from wsharness import Server, running_server

from server.settings import Settings


@pytest.fixture
async def srv(settings: Settings) -> AsyncIterator[Server]:
    async with running_server(settings) as server:
        yield server


async def _raw(srv: Server, send: Callable[[ClientProtocol], None]) -> tuple[int | None, bool]:
    """Open a room socket, let ``send`` queue frames, write them all at once; the close
    code received and whether the connection was reset."""
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    port = int(srv.ws_base.rsplit(":", 1)[1])
    proto = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/ws/rooms/{room}"), max_size=2**22)
    request = proto.connect()
    request.headers["Authorization"] = f"Bearer {ana}"
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    proto.send_request(request)
    writer.write(b"".join(proto.data_to_send()))
    while proto.state.name != "OPEN":
        proto.receive_data(await reader.read(65536))
        assert proto.handshake_exc is None
    send(proto)
    writer.write(b"".join(proto.data_to_send()))
    reset = False
    try:
        await writer.drain()
        while data := await asyncio.wait_for(reader.read(65536), 10):
            proto.receive_data(data)
            writer.write(b"".join(proto.data_to_send()))  # the reply to a close frame
    except ConnectionResetError:
        reset = True
    writer.close()
    rcvd = proto.close_rcvd
    return (rcvd.code if rcvd else None), reset


async def test_a_message_too_big_in_small_fragments_closes_1009(srv: Server) -> None:
    def fragments(proto: ClientProtocol) -> None:
        chunk = b"x" * 4096  # each fragment well under the 16 KB limit; 2 MB in all
        proto.send_text(chunk, fin=False)
        for _ in range(510):
            proto.send_continuation(chunk, fin=False)
        proto.send_continuation(chunk, fin=True)

    code, reset = await _raw(srv, fragments)
    assert (code, reset) == (1009, False)


async def test_invalid_utf8_closes_1007_logged_at_info(
    srv: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    code, _ = await _raw(srv, lambda p: p.send_frame(Frame(Opcode.TEXT, b'{"type":\xff}')))
    assert code == 1007
    assert any(
        r.getMessage() == "ws_invalid_utf8" and r.levelno == logging.INFO for r in caplog.records
    )
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_pings_count_against_the_message_budget(srv: Server) -> None:
    budget = srv.settings.rate_limit_messages

    def pings(proto: ClientProtocol) -> None:
        for _ in range(budget * 3):
            proto.send_ping(b"p")

    code, _ = await _raw(srv, pings)
    assert code == 1008
