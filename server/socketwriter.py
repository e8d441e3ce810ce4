"""The room sockets' writes on a thread of their own (``REMI_SOCKET_WRITES``).

Most of what a frame costs the server is the kernel's ``send``: TCP, IP, the device
(and on loopback the receiving side too). Made by the event loop's thread, it is paid
on the one core that also runs every room. With ``socket_writes = "thread"`` (the
default) a room connection's bytes are handed to a native thread instead
(``remi_sockwriter``, server/rooms/sockwriter.c, built with the compiled modules):
the loop's thread copies each frame into a queue, and that thread calls ``send``
without the interpreter lock, on another core. bench/load.py measures the difference
(docs/benchmarks.md).

Each connection gets a :class:`Channel`: its bytes go out in the order they were
written, whatever wrote them (the room's frames, and uvicorn's pings, pongs and close
frames through :class:`ChannelTransport`). A client that reads slowly makes the
channel's ``backlog`` grow; :class:`~server.rooms.conn.DirectConn` closes it past
``send_buffer_bytes``, as it does with the transport's buffer.

Without the compiled build (``REMI_NATIVE=0``, no C compiler), with
``socket_writes = "loop"``, or for a connection whose transport still buffers bytes
when it switches, frames are written by the loop's thread as before;
:attr:`SocketWriter.status` says which (``/healthz``, the ``app_started`` log).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from server import native

log = logging.getLogger(__name__)


class Channel(Protocol):
    """One socket's writes, sent by the writer's thread (``remi_sockwriter.Channel``)."""

    @property
    def backlog(self) -> int:
        """Bytes written and not yet taken by the kernel."""

    @property
    def closed(self) -> bool:
        """True once writes are dropped (closed, aborted, failed, writer stopped)."""

    @property
    def failed(self) -> int:
        """The errno of the send that failed, else 0."""

    def write(self, data: bytes | bytearray | memoryview) -> bool:
        """Queue bytes; False when dropped (the channel ended)."""

    def write_texts(self, limit: int, *texts: str) -> int:
        """Queue each text as one WebSocket text frame: 1; -1 (nothing queued) when more
        than ``limit`` bytes wait already; 0 (dropped) when the channel ended or was
        sealed."""

    def seal(self) -> None:
        """Take no more texts (the close frame was written); bytes still."""

    def close(self) -> None:
        """Send what waits, then close (what is left after the linger is dropped)."""

    def abort(self) -> None:
        """Drop what waits and close now."""


class SocketWriter:
    """The writer thread of one server (created when the first channel is asked for).

    ``mode`` is the ``socket_writes`` setting: ``"thread"`` or ``"loop"``; ``linger``
    bounds how long a closed channel keeps trying to send what a client did not read.
    """

    def __init__(self, mode: str, linger: float = 10.0) -> None:
        if mode not in ("thread", "loop"):
            raise ValueError(f"socket_writes must be 'thread' or 'loop', not {mode!r}")
        self.mode = mode
        self.linger = linger
        self._writer: Any = None

    @property
    def status(self) -> str:
        """``thread``, or ``loop: <why>``."""
        if self.mode == "loop":
            return "loop: socket_writes is loop"
        if native.c_extension("remi_sockwriter") is None:
            return f"loop: the compiled build is {native.status()}"
        return "thread"

    def channel(self, transport: asyncio.Transport) -> Channel | None:
        """A channel writing to ``transport``'s socket, or None: write with the transport
        (no thread here, no socket, or bytes still in the transport's buffer that must
        go out first)."""
        if self.mode != "thread":
            return None
        module = native.c_extension("remi_sockwriter")
        if module is None:
            return None
        sock = transport.get_extra_info("socket")  # (uvloop's transports are duck-typed)
        if sock is None:
            return None
        if transport.is_closing() or transport.get_write_buffer_size():
            return None
        if self._writer is None:
            self._writer = module.Writer(linger=self.linger)
        try:
            channel: Channel = self._writer.channel(sock.fileno())
        except (OSError, RuntimeError) as exc:  # no descriptor left, or stopped
            log.warning("socket_channel_refused", extra={"error": repr(exc)})
            return None
        return channel

    def stats(self) -> dict[str, Any]:
        """Bytes sent and dropped and failed sends since the thread started (empty if
        it did not)."""
        return {} if self._writer is None else dict(self._writer.stats())

    async def stop(self, timeout: float = 2.0) -> None:
        """Send what was written (for at most ``timeout`` seconds), close every channel
        and end the thread; a later :meth:`channel` starts a new one."""
        writer, self._writer = self._writer, None
        if writer is not None:
            await asyncio.to_thread(writer.stop, timeout)


class ChannelTransport(asyncio.Transport):
    """A socket's transport whose writes go through a :class:`Channel`.

    Reading, the protocol and the extra info stay the transport's. ``close`` closes the
    channel (what it holds is sent first) and then the transport; ``abort`` drops both
    at once. The write buffer is the channel's backlog (and whatever the transport
    still holds, nothing once the channel was made).
    """

    __slots__ = ("channel", "inner")

    def __init__(self, transport: asyncio.Transport, channel: Channel) -> None:
        super().__init__()
        self.inner = transport
        self.channel = channel

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.channel.write(data)

    def writelines(self, list_of_data: Any) -> None:
        self.channel.write(b"".join(list_of_data))

    def can_write_eof(self) -> bool:
        return False

    def write_eof(self) -> None:
        raise NotImplementedError("a WebSocket connection ends with its close frame")

    def close(self) -> None:
        self.channel.close()
        self.inner.close()

    def abort(self) -> None:
        self.channel.abort()
        self.inner.abort()

    def is_closing(self) -> bool:
        return self.channel.closed or self.inner.is_closing()

    def get_write_buffer_size(self) -> int:
        return self.channel.backlog + self.inner.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self.inner.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.inner.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.inner.get_extra_info(name, default)

    def is_reading(self) -> bool:
        return self.inner.is_reading()

    def pause_reading(self) -> None:
        self.inner.pause_reading()

    def resume_reading(self) -> None:
        self.inner.resume_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.inner.get_protocol()
