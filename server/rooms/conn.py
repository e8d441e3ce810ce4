"""One WebSocket connection as the room actor sees it: a player and a way to its socket.

The actor sends a frame by calling :meth:`Conn.send`, which writes it at once: the
ASGI ``send`` of a WebSocket message completes without suspending while the
socket can take more (uvicorn only waits when the transport paused writing), so
the coroutine is stepped right here instead of being handed to a writer task.
No task, no queue and no event-loop round trip per frame, and nothing per idle
connection beyond this object.

When a send does have to wait (a client that reads slowly), that send is
finished by a task and the frames sent meanwhile wait in a backlog, in order;
more than ``limit`` waiting frames close the connection with 1008. The order
of the frames is always the order of the calls.

:class:`DirectConn` is the same connection on uvicorn's protocol in direct mode
(:mod:`server.wsdirect`): a frame is one ``transport.write``, or, when the server
writes on a thread of its own (:mod:`server.socketwriter`), one copy into the
socket's channel; nothing is ever waited for. The transport (or the channel)
buffers what the client does not read yet; past a byte limit the client is closed
with 1008 instead, so a slow reader never stalls the room nor grows the server's
memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

log = logging.getLogger(__name__)

SendText = Callable[[str], Coroutine[Any, Any, None]]
"""Sends one text frame (e.g. ``WebSocket.send_text``)."""

CloseSocket = Callable[[int], Coroutine[Any, Any, None]]
"""Closes the socket with a close code."""


class SocketChannel(Protocol):
    """What :class:`DirectConn` needs of a :class:`server.socketwriter.Channel`."""

    def write_texts(self, limit: int, *texts: str) -> int:
        """Queue each text as one text frame, in order: 1; -1 (nothing queued) past
        ``limit`` bytes waiting; 0 when dropped (the channel ended, or the socket's
        close frame was written: the socket sealed it)."""


class DirectSocket(Protocol):
    """What :class:`DirectConn` needs of :class:`server.wsdirect.RoomWSProtocol`."""

    @property
    def channel(self) -> SocketChannel | None:
        """The writer thread's channel that frames go to (None: the transport), set
        before the connection is handed to a :class:`DirectConn`."""

    @property
    def write_paused(self) -> bool:
        """True while the transport's buffer is above its high-water mark."""

    @property
    def close_sent(self) -> bool:
        """True once the server's close frame was written: no frame may follow it."""

    @property
    def transport(self) -> asyncio.WriteTransport:
        """The socket's transport: frames are written to it, its buffer size is read."""

    def write_close(self, code: int) -> None:
        """Start the closing handshake with ``code``."""


_pack_short = struct.Struct("!BB").pack
_pack_medium = struct.Struct("!BBH").pack
_pack_long = struct.Struct("!BBQ").pack


def text_frame(text: str) -> bytes:
    """One unmasked, final text frame (what a server sends, RFC 6455 §5.2).

    >>> text_frame("hi")
    b'\\x81\\x02hi'
    >>> text_frame("x" * 200)[:4], len(text_frame("x" * 200))
    (b'\\x81~\\x00\\xc8', 204)
    >>> text_frame("x" * 70000)[:10], len(text_frame("x" * 70000))
    (b'\\x81\\x7f\\x00\\x00\\x00\\x00\\x00\\x01\\x11p', 70010)
    """
    data = text.encode()
    n = len(data)
    if n < 126:
        return _pack_short(0x81, n) + data
    if n < 0x10000:
        return _pack_medium(0x81, 126, n) + data
    return _pack_long(0x81, 127, n) + data


async def _finish(coro: Coroutine[Any, Any, Any], yielded: Any) -> None:
    """Drive ``coro``, which already ran up to its first suspension (``yielded``)."""
    while True:
        if yielded is None:  # a bare yield (asyncio.sleep(0))
            await asyncio.sleep(0)
        else:  # the future it waits for; it reads the outcome itself when resumed
            with contextlib.suppress(BaseException):
                await yielded
        try:
            yielded = coro.send(None)
        except StopIteration:
            return


class Conn:
    """A connection of a room: its player, seat flags and outgoing frames."""

    __slots__ = (
        "_close",
        "_send",
        "backlog",
        "close_code",
        "closed",
        "flusher",
        "left",
        "limit",
        "player_id",
        "ready",
        "seat",
    )

    def __init__(
        self,
        player_id: str,
        send: SendText,
        close: CloseSocket,
        limit: int = 256,
    ) -> None:
        self.player_id = player_id
        self.seat: int | None = None
        self.ready = False
        self.left = False
        self.closed = False
        self.close_code: int | None = None
        self.limit = limit
        self._send = send
        self._close = close
        self.backlog: deque[str] | None = None
        """Frames waiting behind a send that had to wait (None: no send is waiting)."""
        self.flusher: asyncio.Task[None] | None = None

    def send(self, frame: str) -> None:
        """Send a frame now, or after the frames already waiting; a client too slow to
        read is disconnected."""
        if self.closed:
            return
        backlog = self.backlog
        if backlog is not None:
            if len(backlog) >= self.limit:
                self.close(1008)
                return
            backlog.append(frame)
            return
        self._start(self._send(frame), closing=False)

    def send_frames(self, *frames: str) -> None:
        """Send several frames in this order (a direct socket writes them at once)."""
        for frame in frames:
            self.send(frame)

    def close(self, code: int = 1000) -> None:
        """Send what is waiting, then close with ``code``."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        if self.backlog is None:
            self._start(self._close(code), closing=True)
        # else: the flusher closes once the backlog is sent

    async def drained(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until nothing is waiting to be sent."""
        flusher = self.flusher
        if flusher is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(flusher), timeout)
        except (TimeoutError, Exception):
            flusher.cancel()

    def _start(self, coro: Coroutine[Any, Any, Any], closing: bool) -> None:
        try:
            yielded = coro.send(None)
        except StopIteration:
            return
        except Exception as exc:  # the client went away
            self._gone(exc)
            return
        self.backlog = deque()
        self.flusher = asyncio.get_running_loop().create_task(
            self._flush(coro, yielded, closing)
        )

    async def _flush(self, coro: Coroutine[Any, Any, Any], yielded: Any, closing: bool) -> None:
        try:
            await _finish(coro, yielded)
            backlog = self.backlog
            while backlog:
                await self._send(backlog.popleft())
            if self.closed and not closing:
                await self._close(self.close_code or 1000)
        except Exception as exc:
            self._gone(exc)
        finally:
            self.backlog = None
            self.flusher = None

    def _gone(self, exc: BaseException) -> None:
        log.debug("ws_send_failed", extra={"error": repr(exc)})
        self.closed = True
        if self.close_code is None:
            self.close_code = 1006


class DirectConn(Conn):
    """A :class:`Conn` that writes each frame straight to the transport.

    ``limit`` is in bytes here: when the transport's buffer (what the client has not
    read yet) is above it, the next frame closes the connection with 1008 instead of
    being buffered. The buffer is only measured while the transport reports it above
    its high-water mark (64 KiB by default), so the limit is at least that. With the
    socket's channel (``socket.channel``, read once here), the frames are framed and
    sent by the writer thread, and the limit applies to the channel's backlog, checked
    by the channel as it takes the frames.
    """

    __slots__ = ("channel", "socket")

    def __init__(self, player_id: str, socket: DirectSocket, limit: int) -> None:
        # Conn's writer state (_send, _close, backlog, flusher) has no use here.
        self.player_id = player_id
        self.seat = None
        self.ready = False
        self.left = False
        self.closed = False
        self.close_code = None
        self.limit = limit
        self.backlog = None
        self.flusher = None
        self.socket = socket
        self.channel: SocketChannel | None = socket.channel

    def send(self, frame: str) -> None:
        """Write a frame now; a client too slow to read is disconnected."""
        if self.closed:
            return
        channel = self.channel
        if channel is not None:
            self._put(channel.write_texts(self.limit, frame))
        elif self._writable():
            self._write(text_frame(frame))

    def send_frames(self, *frames: str) -> None:
        """Write several frames with one ``transport.write`` or channel write (one system
        call)."""
        if self.closed:
            return
        channel = self.channel
        if channel is not None:
            self._put(channel.write_texts(self.limit, *frames))
        elif self._writable():
            self._write(b"".join([text_frame(frame) for frame in frames]))

    def _put(self, taken: int) -> None:
        """What the channel said of frames handed to it (framed by the writer thread):
        past the limit, the client is closed (1008); dropped (the channel ended, or the
        socket's close frame was written and sealed it), this is gone."""
        if taken < 0:
            self.close(1008)
        elif taken == 0:
            self._gone(ConnectionError("the connection is closing"))

    def _write(self, data: bytes) -> None:
        """One ``transport.write`` of whole frames; a closing socket marks this gone.

        Frames written by ``websockets`` for uvicorn (pings, pongs, the close) are
        flushed as soon as they are made, so the order on the wire holds; nothing may
        follow the server's close frame.
        """
        socket = self.socket
        transport = socket.transport
        if socket.close_sent or transport.is_closing():
            self._gone(ConnectionError("the connection is closing"))
            return
        try:
            transport.write(data)
        except Exception as exc:  # the client went away
            self._gone(exc)

    def _writable(self) -> bool:
        """Keeping up (the transport's buffer); a client past ``limit`` unread bytes is
        closed (1008)."""
        socket = self.socket
        if socket.write_paused and socket.transport.get_write_buffer_size() > self.limit:
            self.close(1008)
            return False
        return True

    def close(self, code: int = 1000) -> None:
        """Close with ``code`` (after the frames already written)."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.socket.write_close(code)

    async def drained(self, timeout: float) -> None:
        """Nothing waits here: every frame is in the transport already."""
