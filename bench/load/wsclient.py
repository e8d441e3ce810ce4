"""A minimal WebSocket client (RFC 6455) for the load benchmark's client processes.

Thousands of sockets share the machine's cores with the server under test, so a
client must cost little per frame: this one is an ``asyncio.Protocol`` that parses
the frames in ``data_received`` and hands each text message to a callback (no task,
queue or coroutine per message), and writes a masked frame with one
``transport.write``. It speaks what the benchmark needs: the opening handshake,
unfragmented text frames both ways, ping -> pong, close.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable
from typing import cast

_PACK_7 = struct.Struct("!BB4s").pack  # first byte, mask bit + length, masking key
_PACK_16 = struct.Struct("!BBH4s").pack
_PACK_64 = struct.Struct("!BBQ4s").pack


def mask(payload: bytes, key: bytes) -> bytes:
    """``payload`` XOR the repeated 4-byte ``key`` (RFC 6455 §5.3), as one big integer.

    >>> mask(mask(b"hello", b"abcd"), b"abcd")
    b'hello'
    >>> mask(b"", b"abcd")
    b''
    """
    n = len(payload)
    if not n:
        return b""
    stream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big")


class LightClient(asyncio.Protocol):
    """One connection; ``on_text`` receives every text message (str)."""

    def __init__(self, on_text: Callable[[str], None] | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.on_text = on_text
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.handshake_done = False
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    # ------------------------------------------------------------------ asyncio

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        if self.buffer or not self.handshake_done:
            self._buffered(data)
            return
        # Nothing buffered: whole unmasked text frames are parsed in place, one by one
        # (a read is nearly always one event, or an ack and an event).
        n = len(data)
        pos = 0
        on_text = self.on_text
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
        if not self.handshake_done and not self._handshake():
            return
        pos, n = 0, len(buf)
        while n - pos >= 2:
            opcode = buf[pos] & 0x0F
            length = buf[pos + 1] & 0x7F
            start = pos + 2
            if length == 126:
                if n - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                start = pos + 4
            elif length == 127:
                if n - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                start = pos + 10
            end = start + length
            if end > n:
                break
            payload = bytes(buf[start:end])
            pos = end
            if opcode == 1:
                if self.on_text is not None:
                    self.on_text(payload.decode())
            elif opcode == 9:  # ping
                self._write(0x8A, payload)
            elif opcode == 8:  # close: answer and hang up
                self._write(0x88, payload[:2])
                assert self.transport is not None
                self.transport.close()
        del buf[:pos]

    def _handshake(self) -> bool:
        buf = self.buffer
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(buf[:end])
        del buf[: end + 4]
        if not head.startswith(b"HTTP/1.1 101"):
            self.opened.set_exception(ConnectionError(head.split(b"\r\n", 1)[0].decode()))
            assert self.transport is not None
            self.transport.close()
            return False
        self.handshake_done = True
        self.opened.set_result(None)
        return True

    # ------------------------------------------------------------------ sending

    def _write(self, first: int, payload: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            raise ConnectionError("the connection is closed")
        key = os.urandom(4)
        length = len(payload)
        if length < 126:
            head = _PACK_7(first, 0x80 | length, key)
        elif length < 65536:
            head = _PACK_16(first, 0x80 | 126, length, key)
        else:
            head = _PACK_64(first, 0x80 | 127, length, key)
        transport.write(head + mask(payload, key))

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
    transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await asyncio.wait_for(client.opened, timeout)
    return client
