"""Conn (server/rooms/conn.py): frames in call order, a sender task only while frames
wait, a client too slow to read closed with 1008."""

from __future__ import annotations

import asyncio

from server.rooms.conn import Conn


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


async def test_frames_go_out_in_call_order_and_no_task_stays() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=8)
    assert conn.sender is None and conn.waiting is None  # idle: nothing but the object
    conn.send("a")
    conn.send_frames("ack", "event")
    conn.send("b")
    assert conn.sender is not None and sock.sent == []  # the caller never waits
    await conn.drained(1)
    assert sock.sent == ["a", "ack", "event", "b"]
    assert conn.sender is None and conn.waiting is None  # idle again
    conn.send("c")
    await conn.drained(1)
    assert sock.sent == ["a", "ack", "event", "b", "c"] and sock.closed is None


async def test_frames_sent_while_one_waits_keep_the_order() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=8)
    sock.writable.clear()  # the client stops reading for a while
    conn.send_frames("ack", "event")
    await asyncio.sleep(0)  # the sender waits on the first frame
    conn.send_frames("ack2", "event2")
    assert sock.sent == []
    sock.writable.set()
    await conn.drained(1)
    assert sock.sent == ["ack", "event", "ack2", "event2"]


async def test_close_comes_after_the_waiting_frames_and_ends_the_sends() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=8)
    sock.writable.clear()
    conn.send("a")
    conn.send("b")
    conn.close(4000)
    conn.send("dropped after close")
    conn.close(1000)  # already closing: the first code stays
    assert conn.closed and conn.close_code == 4000
    sock.writable.set()
    await conn.drained(1)
    assert sock.sent == ["a", "b"] and sock.closed == 4000
    assert conn.sender is None and conn.waiting is None


async def test_close_of_an_idle_connection() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close)
    conn.close(4001)
    await conn.drained(1)
    assert sock.closed == 4001 and sock.sent == []


async def test_a_client_too_slow_is_closed_with_1008() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=3)
    sock.writable.clear()  # nothing is read
    conn.send("0")
    await asyncio.sleep(0)  # "0" is being sent: it no longer waits
    for i in range(1, 4):
        conn.send(str(i))
    assert not conn.closed  # three frames waiting: the limit, not more
    conn.send("4")
    assert conn.closed and conn.close_code == 1008
    conn.send("5")  # closed: nothing more is taken
    sock.writable.set()
    await conn.drained(1)
    # The frame in flight completes; the waiting ones are dropped; then the close.
    assert sock.sent == ["0"] and sock.closed == 1008


async def test_a_reader_that_never_reads_is_stopped_by_drained() -> None:
    sock = Socket()
    conn = Conn("p", sock.send, sock.close, limit=3)
    sock.writable.clear()
    conn.send("a")
    conn.close(1000)
    await conn.drained(0.05)  # the socket's own end (keepalive timeout) would come later
    await asyncio.sleep(0)
    assert conn.sender is None and sock.sent == [] and sock.closed is None


async def test_a_failed_send_marks_the_connection_closed() -> None:
    sock = Socket(fail=True)
    conn = Conn("p", sock.send, sock.close)
    conn.send("a")
    await conn.drained(1)
    assert conn.closed and conn.close_code == 1006
    conn.send("b")  # ignored
    assert sock.sent == [] and conn.sender is None
