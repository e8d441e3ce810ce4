"""A minimal WebSocket client for the load benchmark (not part of the server).

The load benchmark runs its clients on the same two cores as the server, so the
clients' own cost per frame is part of what limits a run. The ``websockets``
library's asyncio client costs about 14 µs of CPU per frame (a task, a queue and
a coroutine resumption per message); this client is an ``asyncio.Protocol`` that
parses frames in ``data_received`` and hands each text message to a callback, and
writes a masked frame with one ``transport.write``. A read that holds whole text
frames (nearly every read: one event, or an ack and an event) is parsed in place;
only a partial frame or a control frame goes through the buffer. It speaks just
what the benchmark needs (RFC 6455): the opening handshake, unfragmented text
frames both ways, ping → pong, close. Used for both the game clients and the echo
baseline, so both are measured through the same client.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import struct
from collections.abc import Callable
from typing import cast

from websockets.speedups import apply_mask  # C; the same masking the library uses

_PACK_7 = struct.Struct("!BBI").pack  # first byte, mask bit + length, masking key
_PACK_16 = struct.Struct("!BBHI").pack
_PACK_64 = struct.Struct("!BBQI").pack


class LightClient(asyncio.Protocol):
    """One connection; ``on_text`` receives every text message (str)."""

    __slots__ = (
        "buffer",
        "close_code",
        "closed",
        "handshake_done",
        "on_text",
        "opened",
        "transport",
    )

    def __init__(self, on_text: Callable[[str], None] | None = None) -> None:
        self.on_text = on_text
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.handshake_done = False
        self.close_code: int | None = None

    # ------------------------------------------------------------------ asyncio

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(self.close_code)

    def data_received(self, data: bytes) -> None:
        if self.buffer or not self.handshake_done:
            self._buffered(data)
            return
        # Nothing buffered: parse ``data`` in place. First the commonest read of all, one
        # whole unfragmented text frame (a game event, an echo).
        n = len(data)
        on_text = self.on_text
        if n >= 4 and data[0] == 0x81 and on_text is not None:
            length = data[1]  # a server's frames are not masked
            if length == n - 2:
                on_text(data[2:].decode())
                return
            if length == 126 and (data[2] << 8) | data[3] == n - 4:
                on_text(data[4:].decode())
                return
        pos = 0  # else whole frames one by one while they are text frames (ack + event)
        while n - pos >= 2 and data[pos] == 0x81:
            length = data[pos + 1]
            if length < 126:
                start = pos + 2
            elif length == 126 and n - pos >= 4:
                length = (data[pos + 2] << 8) | data[pos + 3]
                start = pos + 4
            else:
                break  # a 64-bit length, or a partial header
            end = start + length
            if end > n:
                break
            if on_text is not None:
                on_text(data[start:end].decode())
            pos = end
        if pos < n:  # a partial frame or a control frame: the general path
            self._buffered(data[pos:] if pos else data)

    def _buffered(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if not self.handshake_done:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end])
            del buf[: end + 4]
            if not head.startswith(b"HTTP/1.1 101"):
                self.opened.set_exception(ConnectionError(head.split(b"\r\n", 1)[0].decode()))
                assert self.transport is not None
                self.transport.close()
                return
            self.handshake_done = True
            self.opened.set_result(None)
        pos = 0
        n = len(buf)
        while n - pos >= 2:
            b0 = buf[pos]
            length = buf[pos + 1] & 0x7F
            start = pos + 2
            if length == 126:
                if n - pos < 4:
                    break
                length = (buf[pos + 2] << 8) | buf[pos + 3]
                start = pos + 4
            elif length == 127:
                if n - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                start = pos + 10
            end = start + length
            if end > n:
                break
            opcode = b0 & 0x0F
            payload = bytes(buf[start:end])
            pos = end
            if opcode == 1:
                if self.on_text is not None:
                    self.on_text(payload.decode())
            elif opcode == 9:
                self._write(0x8A, payload)
            elif opcode == 8:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                self._write(0x88, payload[:2])
                assert self.transport is not None
                self.transport.close()
        del buf[:pos]

    # ------------------------------------------------------------------ sending

    def _write(self, first: int, payload: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            raise ConnectionError("the connection is closed")
        length = len(payload)
        if length < 126:  # header and masking key in one pack
            head = _PACK_7(first, 0x80 | length, random.getrandbits(32))
        elif length < 65536:
            head = _PACK_16(first, 0x80 | 126, length, random.getrandbits(32))
        else:
            head = _PACK_64(first, 0x80 | 127, length, random.getrandbits(32))
        transport.write(head + apply_mask(payload, head[-4:]))

    def send_text(self, text: str) -> None:
        """Send one text message now."""
        self._write(0x81, text.encode())

    def close(self) -> None:
        """Send a close frame (1000) and close the socket."""
        transport = self.transport
        if transport is not None and not transport.is_closing():
            self._write(0x88, struct.pack("!H", 1000))
            transport.close()


async def connect(
    host: str,
    port: int,
    path: str,
    headers: dict[str, str] | None = None,
    on_text: Callable[[str], None] | None = None,
    timeout: float = 60,
) -> LightClient:
    """Open a WebSocket to ``ws://host:port/path``; returns once the server answered 101."""
    loop = asyncio.get_running_loop()
    transport, client = await asyncio.wait_for(
        loop.create_connection(lambda: LightClient(on_text), host, port), timeout
    )
    client.transport = transport
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *(f"{k}: {v}" for k, v in (headers or {}).items()),
    ]
    assert client.transport is not None
    client.transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await asyncio.wait_for(client.opened, timeout)
    return client


class Receiver:
    """``await recv()`` on a :class:`LightClient` (the echo baseline's send-and-wait loop)."""

    def __init__(self) -> None:
        self.waiter: asyncio.Future[str] | None = None
        self.pending: list[str] = []

    def __call__(self, text: str) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(text)
        else:
            self.pending.append(text)

    async def recv(self) -> str:
        if self.pending:
            return self.pending.pop(0)
        waiter: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.waiter = waiter
        try:
            return await waiter
        finally:
            self.waiter = None
