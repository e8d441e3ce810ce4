"""server/socketwriter.py and its native thread (server/rooms/sockwriter.c).

The extension is tested on socket pairs: what the peer reads is exactly what was
written, in order, whatever the kernel took at once and whatever waited in the
channel. Both suites run these tests: the compiled one through
``native.c_extension``, the plain Python one by loading the same build directly
(the extension has no Python source to fall back to).
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from server import native
from server.rooms.conn import text_frame
from server.socketwriter import ChannelTransport, SocketWriter


def _load() -> ModuleType:
    module = native.c_extension("remi_sockwriter")
    if module is not None:
        return module
    path = native.extension_path("remi_sockwriter")
    assert path.is_file(), f"no {path}: run scripts/build_native.py"
    spec = importlib.util.spec_from_file_location("remi_sockwriter", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sockwriter = _load()
LIMIT = 1 << 30  # write_texts' backlog limit, where a test does not look at it


@pytest.fixture
def writer() -> Iterator[Any]:
    w = sockwriter.Writer(linger=5.0)
    yield w
    w.stop(0)


def pair(sndbuf: int | None = None) -> tuple[socket.socket, socket.socket]:
    """A connected pair: the writer's side (non-blocking, as uvloop's) and the peer."""
    a, b = socket.socketpair()
    if sndbuf is not None:
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, sndbuf)
    a.setblocking(False)
    b.settimeout(5)
    return a, b


def stalled(writer: Any, data: bytes) -> tuple[Any, socket.socket]:
    """A channel (its caller's descriptor closed) with ``data`` written to a peer that
    has not read yet, so that some of it waits in the channel; and the peer."""
    a, b = pair(sndbuf=4096)
    channel = writer.channel(a.fileno())
    a.close()  # the caller's descriptor: the channel has its own
    assert channel.write(data)
    until(lambda: channel.backlog > 0)
    return channel, b


def read_all(sock: socket.socket, size: int) -> bytes:
    """Read exactly ``size`` bytes (fails on an early end or after the timeout)."""
    chunks = []
    got = 0
    while got < size:
        data = sock.recv(min(1 << 20, size - got))
        assert data, f"the stream ended after {got} of {size} bytes"
        chunks.append(data)
        got += len(data)
    return b"".join(chunks)


def read_to_end(sock: socket.socket) -> bytes:
    chunks = []
    while data := sock.recv(1 << 20):
        chunks.append(data)
    return b"".join(chunks)


def until(check: Callable[[], object], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "condition not met in time"
        time.sleep(0.005)


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_bytes_and_text_frames_arrive_in_order(writer: Any) -> None:
    a, b = pair()
    channel = writer.channel(a.fileno())
    texts = ["hi", "é" * 70, "x" * 70_000, ""]
    assert channel.write(b"raw ") is True
    assert channel.write_texts(LIMIT, *texts) == 1
    assert channel.write(memoryview(b"end")) is True
    expected = b"raw " + b"".join(text_frame(t) for t in texts) + b"end"
    assert read_all(b, len(expected)) == expected
    until(lambda: channel.backlog == 0)
    assert channel.failed == 0 and not channel.closed
    a.close()
    b.close()


def test_a_slow_reader_gets_a_backlog_then_everything_in_order(writer: Any) -> None:
    a, b = pair(sndbuf=4096)
    channel = writer.channel(a.fileno())
    blocks = [bytes([i % 251]) * 65536 for i in range(40)]  # 2.5 MiB, nobody reads
    for block in blocks:
        assert channel.write(block)
    until(lambda: channel.backlog > 1 << 20)  # far more than the kernel holds
    assert read_all(b, 65536 * 40) == b"".join(blocks)
    until(lambda: channel.backlog == 0)
    stats = writer.stats()
    assert stats["sent_bytes"] == 65536 * 40 and stats["dropped_bytes"] == 0
    a.close()
    b.close()


def test_close_sends_what_waits_then_ends_the_stream(writer: Any) -> None:
    data = os.urandom(1 << 20)
    channel, b = stalled(writer, data)
    channel.close()
    assert channel.closed and channel.write(b"late") is False
    assert read_to_end(b) == data  # everything, then the end of the stream
    b.close()


def test_abort_drops_what_waits(writer: Any) -> None:
    channel, b = stalled(writer, b"z" * (1 << 20))
    channel.abort()
    got = read_to_end(b)
    assert 0 < len(got) < 1 << 20 and set(got) == {ord("z")}
    until(lambda: channel.backlog == 0)
    assert writer.stats()["dropped_bytes"] == (1 << 20) - len(got)
    b.close()


def test_a_closed_channel_to_a_reader_that_never_reads_is_dropped_after_linger() -> None:
    w = sockwriter.Writer(linger=0.2)
    try:
        channel, b = stalled(w, b"q" * (1 << 20))
        channel.close()
        until(lambda: channel.backlog == 0)  # not sent: dropped at the linger's end
        assert w.stats()["dropped_bytes"] > 0
        got = read_to_end(b)  # what the kernel had taken, then the end
        assert len(got) < 1 << 20
        b.close()
    finally:
        w.stop(0)


def test_a_peer_gone_fails_the_channel(writer: Any) -> None:
    a, b = pair()
    channel = writer.channel(a.fileno())
    b.close()
    until(lambda: channel.write(b"x") is False)
    assert channel.failed in (32, 104)  # EPIPE or ECONNRESET
    assert channel.closed and writer.stats()["failures"] == 1
    a.close()


def test_stop_sends_what_was_written_then_refuses_more(writer: Any) -> None:
    a, b = pair(sndbuf=4096)
    channel = writer.channel(a.fileno())
    a.close()
    data = os.urandom(300_000)
    assert channel.write(data)

    def read_later(out: list[bytes]) -> None:
        time.sleep(0.1)
        out.append(read_to_end(b))

    out: list[bytes] = []
    reader = threading.Thread(target=read_later, args=(out,))
    reader.start()
    writer.stop(5.0)  # waits until sent (the reader reads meanwhile)
    reader.join()
    assert out == [data]
    assert channel.closed and channel.write(b"late") is False
    assert writer.stats()["running"] is False
    c, d = pair()
    with pytest.raises(RuntimeError, match="stopped"):
        writer.channel(c.fileno())
    for s in (b, c, d):
        s.close()


def test_stop_right_after_writes_never_hangs() -> None:
    """stop() can come while the thread is between a batch and its sleep: it must see
    the stop before sleeping (it was once left waiting for a wake-up never sent)."""
    a, b = pair()
    for i in range(300):
        w = sockwriter.Writer(linger=60.0)
        channel = w.channel(a.fileno())
        for _ in range(i % 4):
            channel.write_texts(LIMIT, "x")
        stopper = threading.Thread(target=w.stop, args=(0,))
        stopper.start()
        stopper.join(10)  # a hang detector: a stop takes microseconds
        assert not stopper.is_alive(), f"stop() hung at round {i}"
        del channel
    a.close()
    b.close()


def test_texts_past_the_limit_are_refused_whole_and_the_stream_stays_whole(
    writer: Any,
) -> None:
    """write_texts takes nothing (-1) while more than ``limit`` bytes wait: a slow reader
    is told, and what was taken before still arrives complete and in order."""
    a, b = pair(sndbuf=4096)
    channel = writer.channel(a.fileno())
    taken: list[str] = []
    for i in range(200):
        text = f"{i}:" + "x" * 16_000
        answer = channel.write_texts(100_000, text, "after")
        if answer == -1:
            break
        assert answer == 1
        taken += [text, "after"]
    else:
        raise AssertionError("200 frames of 16 KB never passed a 100 KB backlog")
    assert channel.backlog > 100_000 and not channel.closed
    assert channel.write(b"bytes are not limited") is True
    expected = b"".join(text_frame(t) for t in taken) + b"bytes are not limited"
    assert read_all(b, len(expected)) == expected
    until(lambda: channel.backlog == 0)
    assert channel.write_texts(0, "again") == 1  # nothing waits: taken, even at 0
    assert read_all(b, 7) == text_frame("again")
    a.close()
    b.close()


def test_a_sealed_channel_takes_bytes_but_no_more_texts(writer: Any) -> None:
    """seal(): the socket's close frame was written; room frames may not follow it."""
    a, b = pair()
    channel = writer.channel(a.fileno())
    assert channel.write_texts(LIMIT, "before") == 1
    close_frame = b"\x88\x02\x03\xe8"
    assert channel.write(close_frame) is True
    channel.seal()
    assert channel.write_texts(LIMIT, "after") == 0
    assert channel.write(b"!") is True  # websockets' own bytes still go out
    expected = text_frame("before") + close_frame + b"!"
    assert read_all(b, len(expected)) == expected
    channel.close()
    assert channel.write_texts(LIMIT, "closed") == 0
    a.close()
    assert read_to_end(b) == b""
    b.close()


def test_a_forgotten_channel_closes_its_descriptor(writer: Any) -> None:
    a, b = pair()
    before = open_fds()
    channel = writer.channel(a.fileno())
    assert open_fds() == before + 1  # the channel's own descriptor
    assert channel.write(b"bye")
    del channel
    until(lambda: open_fds() == before)
    a.close()
    assert read_to_end(b) == b"bye"
    b.close()


def test_many_channels_keep_each_their_own_order(writer: Any) -> None:
    pairs = [pair() for _ in range(40)]
    channels = [writer.channel(a.fileno()) for a, _ in pairs]
    for i in range(200):
        for n, channel in enumerate(channels):
            assert channel.write_texts(LIMIT, f"{n}:{i}") == 1
    for n, (a, b) in enumerate(pairs):
        expected = b"".join(text_frame(f"{n}:{i}") for i in range(200))
        assert read_all(b, len(expected)) == expected
        a.close()
        b.close()


def test_bad_arguments_are_refused(writer: Any) -> None:
    a, b = pair()
    channel = writer.channel(a.fileno())
    with pytest.raises(TypeError):
        channel.write_texts(LIMIT, b"bytes")
    with pytest.raises(TypeError):
        channel.write_texts()  # no limit
    with pytest.raises(TypeError):
        channel.write_texts("x", "y")  # the limit is a number
    with pytest.raises(OverflowError):
        channel.write_texts(-1, "x")
    with pytest.raises(TypeError):
        channel.write("text")
    with pytest.raises(ValueError):
        sockwriter.Writer(linger=-1)
    with pytest.raises(OSError):
        writer.channel(10_000)  # no such descriptor
    assert channel.write_texts(LIMIT, *[str(i) for i in range(10)]) == 1  # more than 4
    expected = b"".join(text_frame(str(i)) for i in range(10))
    assert read_all(b, len(expected)) == expected
    a.close()
    b.close()


# ------------------------------------------------------------------ the Python side


class FakeTransport:
    def __init__(self, sock: socket.socket | None, buffered: int = 0) -> None:
        self.sock = sock
        self.buffered = buffered
        self.calls: list[str] = []

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.sock if name == "socket" else default

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        self.calls.append("close")

    def abort(self) -> None:
        self.calls.append("abort")

    def pause_reading(self) -> None:
        self.calls.append("pause_reading")


def test_socket_writer_status_and_channels() -> None:
    built = native.status() == "on"
    thread = SocketWriter("thread")
    off = f"loop: the compiled build is {native.status()}"
    assert thread.status == ("thread" if built else off)
    assert SocketWriter("loop").status == "loop: socket_writes is loop"
    with pytest.raises(ValueError):
        SocketWriter("fast")
    a, b = pair()
    assert SocketWriter("loop").channel(FakeTransport(a)) is None  # type: ignore[arg-type]
    # No socket, or bytes still buffered that must go first: the transport writes.
    assert thread.channel(FakeTransport(None)) is None  # type: ignore[arg-type]
    assert thread.channel(FakeTransport(a, buffered=10)) is None  # type: ignore[arg-type]
    channel = thread.channel(FakeTransport(a))  # type: ignore[arg-type]
    assert (channel is not None) == built
    if channel is not None:
        assert channel.write_texts(LIMIT, "hello") == 1
        assert read_all(b, 7) == text_frame("hello")
        until(lambda: thread.stats()["sent_bytes"] == 7)  # counted once send() returned
    asyncio.run(thread.stop())
    assert thread.stats() == {}
    a.close()
    b.close()


def test_channel_transport_writes_to_the_channel_and_closes_both(writer: Any) -> None:
    a, b = pair()
    inner = FakeTransport(a)
    transport = ChannelTransport(inner, writer.channel(a.fileno()))  # type: ignore[arg-type]
    transport.write(b"one ")
    transport.writelines([b"two ", b"three"])
    assert read_all(b, 13) == b"one two three"
    assert transport.get_extra_info("socket") is a
    assert transport.get_write_buffer_size() == 0 and not transport.is_closing()
    assert not transport.can_write_eof()
    transport.pause_reading()
    transport.close()
    assert transport.is_closing() and inner.calls == ["pause_reading", "close"]
    a.close()
    assert read_to_end(b) == b""  # the channel's descriptor was closed too
    b.close()
