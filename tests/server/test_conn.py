"""Conn: frames written at once, in order; a backlog only behind a send that has to wait."""

from __future__ import annotations

import asyncio
from typing import Any

from server.rooms.conn import Conn, DirectConn


class Socket:
    """A fake ASGI socket whose sends wait while ``writable`` is clear (like uvicorn's)."""

    def __init__(self, fail: bool = False) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.sent: list[str] = []
        self.closed: int | None = None
        self.fail = fail

    async def send(self, frame: str) -> None:
        await self.writable.wait()
        if self.fail:
            raise OSError("gone")
        self.sent.append(frame)

    async def close(self, code: int) -> None:
        await self.writable.wait()
        self.closed = code


async def test_sends_complete_at_once_without_a_task() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=8)
    conn.send("a")
    conn.send("b")
    assert sock.sent == ["a", "b"]  # no await needed: written synchronously
    assert conn.flusher is None and conn.backlog is None
    conn.close(1000)
    assert sock.closed == 1000 and conn.closed


async def test_send_frames_keeps_the_order_through_asgi() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=8)
    conn.send_frames("ack", "event")
    sock.writable.clear()
    conn.send_frames("ack2", "event2")  # waits behind the first: backlog, same order
    assert sock.sent == ["ack", "event"]
    sock.writable.set()
    await conn.drained(1)
    assert sock.sent == ["ack", "event", "ack2", "event2"]


async def test_a_waiting_send_keeps_the_order_then_closes() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=8)
    conn.send("a")
    sock.writable.clear()  # the client stops reading
    conn.send("b")
    conn.send("c")
    conn.close(4000)
    conn.send("dropped after close")
    assert sock.sent == ["a"] and conn.flusher is not None
    sock.writable.set()
    await conn.drained(1)
    assert sock.sent == ["a", "b", "c"] and sock.closed == 4000
    assert conn.flusher is None and conn.backlog is None


async def test_a_client_too_slow_is_closed_with_1008() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=3)
    sock.writable.clear()
    for i in range(10):
        conn.send(str(i))
    assert conn.closed and conn.close_code == 1008
    sock.writable.set()
    await conn.drained(1)
    assert sock.sent == ["0", "1", "2", "3"] and sock.closed == 1008


async def test_a_failed_send_marks_the_connection_closed() -> None:
    sock = Socket(fail=True)
    conn = Conn("p", sock.send, sock.close)
    conn.send("a")
    assert conn.closed and conn.close_code == 1006
    conn.send("b")  # ignored
    assert sock.sent == []


def _unframe(data: bytes) -> list[str]:
    """The texts of the unmasked server text frames in ``data`` (RFC 6455 §5.2)."""
    texts = []
    while data:
        assert data[0] == 0x81 and data[1] < 0x80  # final text frame, not masked
        n, start = data[1], 2
        if n == 126:
            n, start = int.from_bytes(data[2:4], "big"), 4
        elif n == 127:
            n, start = int.from_bytes(data[2:10], "big"), 10
        texts.append(data[start : start + n].decode())
        data = data[start + n :]
    return texts


class DirectSocket:
    """A fake RoomWSProtocol and its transport: a buffer that only grows (the client
    reads nothing); ``buffered`` counts the payload bytes."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.writes = 0
        self.closes: list[int] = []
        self.buffered = 0
        self.write_paused = False
        self.close_sent = False
        self.transport = self
        self.gone = False
        self.channel: Any = None  # writes with the transport (no writer thread)

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.gone

    def write(self, data: bytes) -> None:
        self.writes += 1
        for text in _unframe(data):
            self.written.append(text)
            self.buffered += len(text)
        self.write_paused = self.buffered > 100  # the high-water mark

    def write_close(self, code: int) -> None:
        self.closes.append(code)


async def test_direct_conn_sends_frames_together_in_order() -> None:
    sock = DirectSocket()
    conn = DirectConn("p", sock, limit=250)
    conn.send_frames("ack", "event")
    assert sock.written == ["ack", "event"] and sock.writes == 1
    sock.buffered = 300
    sock.write_paused = True
    conn.send_frames("ack2", "event2")  # a client too slow to read: closed, nothing written
    assert sock.written == ["ack", "event"] and conn.closed and sock.closes == [1008]


async def test_direct_conn_writes_at_once_then_closes_a_slow_reader() -> None:
    sock = DirectSocket()
    conn = DirectConn("p", sock, limit=250)
    for i in range(40):
        conn.send("x" * 9 + str(i % 10))
    # Written until the buffer passed the limit (measured once above the high-water mark).
    assert len(sock.written) == 26 and sock.buffered == 260
    assert conn.closed and conn.close_code == 1008 and sock.closes == [1008]
    conn.close(1000)  # already closed: nothing more
    assert sock.closes == [1008]
    await conn.drained(1)  # nothing waits
    assert conn.flusher is None and conn.backlog is None


async def test_direct_conn_on_a_closing_socket_is_marked_gone() -> None:
    sock = DirectSocket()
    conn = DirectConn("p", sock, limit=10_000)
    conn.send("a")
    sock.gone = True
    conn.send("b")
    assert conn.closed and conn.close_code == 1006 and sock.written == ["a"]
    conn.close(1000)
    assert sock.closes == []  # the protocol ends the connection itself


async def test_direct_conn_writes_nothing_after_the_close_frame() -> None:
    sock = DirectSocket()
    conn = DirectConn("p", sock, limit=10_000)
    conn.send("é" * 70)  # 140 bytes of UTF-8: the 16-bit length form
    sock.close_sent = True  # e.g. the keepalive timed out: uvicorn sent its close
    conn.send_frames("a", "b")
    assert sock.written == ["é" * 70] and sock.writes == 1
    assert conn.closed and conn.close_code == 1006


class FakeChannel:
    """A writer thread's channel: records the frames; its backlog as the test sets it,
    checked against the limit as the C channel does; ``ended``/``sealed`` drop them."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, ...]] = []
        self.backlog = 0
        self.ended = False
        self.sealed = False

    def write_texts(self, limit: int, *texts: str) -> int:
        if self.ended or self.sealed:
            return 0
        if self.backlog > limit:
            return -1
        self.frames.append(texts)
        return 1


async def test_direct_conn_hands_frames_to_the_channel_when_there_is_one() -> None:
    sock = DirectSocket()
    channel = sock.channel = FakeChannel()
    conn = DirectConn("p", sock, limit=250)
    conn.send("a")
    conn.send_frames("ack", "event")  # one channel write: one send
    assert channel.frames == [("a",), ("ack", "event")] and sock.writes == 0
    channel.backlog = 251  # the client reads too slowly
    conn.send("b")
    assert channel.frames == [("a",), ("ack", "event")]
    assert conn.closed and conn.close_code == 1008 and sock.closes == [1008]
    conn.send("c")  # closed: nothing more is handed over
    assert channel.frames == [("a",), ("ack", "event")]


async def test_direct_conn_is_gone_when_its_channel_ended_or_was_sealed() -> None:
    sock = DirectSocket()
    channel = sock.channel = FakeChannel()
    conn = DirectConn("p", sock, limit=10_000)
    channel.ended = True  # e.g. the peer went away and a send failed
    conn.send("a")
    assert conn.closed and conn.close_code == 1006 and channel.frames == []
    sock2 = DirectSocket()
    channel2 = sock2.channel = FakeChannel()
    conn2 = DirectConn("p", sock2, limit=10_000)
    channel2.sealed = True  # the socket's close frame was written (close_sent)
    conn2.send_frames("a", "b")
    assert conn2.closed and conn2.close_code == 1006 and channel2.frames == []
