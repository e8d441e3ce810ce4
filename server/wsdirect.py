"""Room sockets without the ASGI round trip per frame: uvicorn's protocol, direct mode.

Through ASGI, every frame a client sends is put in an :class:`asyncio.Queue` (uvicorn
pauses reading the socket until the app took it, then resumes it: two epoll calls), and
the handler coroutine is resumed to get it; every frame sent builds an ASGI message that
goes through Starlette and uvicorn's ``send`` coroutine. A room connection does that for
the whole game.

:class:`RoomWSProtocol` is uvicorn's sans-io WebSocket protocol
(:class:`~uvicorn.protocols.websockets.websockets_sansio_impl.WebSocketsSansIOProtocol`)
with a second mode. The handshake, the keepalive pings, the close handshake and the
size limit (``ws_max_size``) stay uvicorn's. What changes, once the handler switches
with :meth:`RoomWSProtocol.go_direct` after ``websocket.accept()``:

* every complete message is handed to the handler's callback at once, synchronously,
  from ``data_received`` (no queue, no pause/resume of reading, no coroutine resumed);
  the messages that were queued before the switch (a ``hello`` sent right after the 101)
  are delivered first, in order;
* the common client frames (whole masked text messages up to ``ws_max_size``, pings,
  pongs) are parsed by this class (:meth:`RoomWSProtocol._receive_fast`: a header
  check, the C unmasking of ``websockets``, a decode) instead of ``websockets``'
  generator-based sans-io parser, which still gets every other frame (close, binary,
  fragments, a frame too big or malformed) and so answers them exactly as before. The
  switch is made only when that parser is between two frames: it gave back frames of
  as many wire bytes as it was given since the handshake;
* a disconnect of any kind (close frame, connection lost, parser error, keepalive
  timeout, server shutdown, or the server's own close) calls ``on_closed(code)`` exactly
  once: uvicorn reports each one as a ``websocket.disconnect`` message in its queue,
  which this class takes out and reports instead;
* the room's frames are framed and written to the transport by
  :class:`~server.rooms.conn.DirectConn` (one ``transport.write`` per frame or group
  of frames, checking :attr:`RoomWSProtocol.close_sent` first); frames written by
  ``websockets`` (pings, pongs, close) are always flushed by uvicorn as soon as they
  are made, so the order on the wire holds;
* :meth:`RoomWSProtocol.write_close` is uvicorn's ``websocket.close``: a close frame,
  then the peer's answer or a close timer;
* with :meth:`RoomWSProtocol.use_writer`, every later write of the connection (the
  room's frames and uvicorn's alike) goes to a :class:`~server.socketwriter.Channel`,
  sent by the writer's thread (:mod:`server.socketwriter`): the protocol's
  ``transport`` becomes a :class:`~server.socketwriter.ChannelTransport`.

The handler coroutine stays suspended on a future until ``on_closed``; it needs no
task of its own (uvicorn's task for the ASGI app is the only one, as before). Any other
ASGI server, Starlette's ``TestClient``, or uvicorn with another ``ws`` implementation
have no ``remi.direct`` scope extension: :mod:`server.ws` then uses plain ASGI.

The write buffer is not bounded by this class: :class:`~server.rooms.conn.DirectConn`
checks the transport's buffer when uvicorn's ``pause_writing`` said it is above the
high-water mark (:attr:`RoomWSProtocol.write_paused`) and closes a client too slow to
read.

:func:`uvicorn_options` gives the uvicorn options of the app (CLI, tests, benchmark).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets without its C extension
    from websockets.utils import apply_mask

from server.socketwriter import ChannelTransport

if TYPE_CHECKING:
    import asyncio

    from server.settings import Settings
    from server.socketwriter import Channel, SocketWriter

log = logging.getLogger(__name__)

DIRECT = "remi.direct"
"""The ASGI scope extension (``scope["extensions"][DIRECT]``) holding the protocol."""

OnText = Callable[[str], None]
OnBytes = Callable[[bytes], None]
OnClosed = Callable[[int], None]


def wire_size(payload: int) -> int:
    """Bytes on the wire of a client frame (always masked) carrying ``payload`` bytes,
    with its length in the shortest form (RFC 6455 §5.2).

    >>> wire_size(0), wire_size(125), wire_size(126), wire_size(70000)
    (6, 131, 134, 70014)
    """
    if payload < 126:
        return payload + 6
    if payload < 0x10000:
        return payload + 8
    return payload + 14


def _drop(_: Any) -> None:
    """The callback after the connection ended: later messages are ignored."""


class RoomWSProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-io WebSocket protocol, with a direct mode for room sockets.

    Use it as uvicorn's ``ws`` (see :func:`uvicorn_options`). Until :meth:`go_direct`
    it behaves exactly as its base class.
    """

    # Class defaults: nothing per connection until a handler switches.
    on_text: OnText | None = None
    """The direct mode's message callback (None: plain ASGI)."""
    on_bytes: OnBytes | None = None
    on_closed: OnClosed | None = None
    write_paused = False
    """True while the transport's buffer is above its high-water mark."""
    fast = False
    """Frames are parsed by :meth:`_receive_fast`, not by ``websockets``' parser."""
    _fed = 0
    """Bytes given to ``websockets``' parser since the handshake."""
    _parsed = 0
    """Wire bytes of the frames it gave back since the handshake (equal to ``_fed``:
    it is between two frames and holds nothing)."""
    _partial = b""
    """The start of a frame not complete yet (fast mode)."""
    channel: Channel | None = None
    """Where the connection's bytes are written once :meth:`use_writer` made one."""
    _close_sent = False

    @property
    def close_sent(self) -> bool:
        """True once the server's close frame was written (uvicorn's flag): no frame may
        follow it, so setting it also seals the channel against room frames."""
        return self._close_sent

    @close_sent.setter
    def close_sent(self, value: bool) -> None:
        self._close_sent = value
        if value and self.channel is not None:
            self.channel.seal()

    # ------------------------------------------------------------------ the switch

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        # A 101 built the scope (and scheduled the app's task, which runs later);
        # a refused handshake did not, and has no app to tell.
        scope = getattr(self, "scope", None)
        if scope is not None:
            extensions = scope.get("extensions")
            if extensions is not None:
                extensions[DIRECT] = self

    def use_writer(self, writer: SocketWriter | None) -> None:
        """Write everything from now on through a channel of ``writer``'s thread, when it
        gives one (see :meth:`server.socketwriter.SocketWriter.channel`); else keep
        writing with the transport."""
        if (
            writer is None
            or self.channel is not None
            or self.close_sent
            or self.transport.is_closing()
        ):
            return
        channel = writer.channel(self.transport)
        if channel is not None:
            self.channel = channel
            self.transport = ChannelTransport(self.transport, channel)

    def go_direct(self, on_text: OnText, on_bytes: OnBytes, on_closed: OnClosed) -> None:
        """Hand every later message to these callbacks instead of the ASGI ``receive``.

        Call it after ``websocket.accept()``. Messages already queued are delivered
        first, in order (a disconnect among them calls ``on_closed`` at once); then
        reading resumes if uvicorn had paused it for the queue.
        """
        self.on_text = on_text
        self.on_bytes = on_bytes
        self.on_closed = on_closed
        self._pump()
        if self.read_paused and self.on_closed is not None:
            self.read_paused = False
            self.transport.resume_reading()
        self._maybe_fast()

    def _maybe_fast(self) -> None:
        """Parse the next frames here when ``websockets``' parser holds nothing.

        Its parser is between frames exactly when it gave back frames of as many wire
        bytes as it was given since the handshake (a client sends nothing before the
        101, RFC 6455 §4.1). A client that did, or that encodes a length in a longer
        form than needed, never balances the count and simply stays on that parser.
        """
        if (
            self.on_closed is not None
            and self._fed == self._parsed
            and self.handshake_complete
            and not self.close_sent
            and self.conn.parser_exc is None
        ):
            self.fast = True

    def _pump(self) -> None:
        """Deliver what uvicorn queued (messages, then a disconnect) to the callbacks."""
        queue = self.queue
        while not queue.empty():
            message = queue.get_nowait()
            if message["type"] == "websocket.receive":
                text = message.get("text")
                if text is not None:
                    self._deliver(text)
                else:
                    self._deliver_bytes(message.get("bytes") or b"")
            elif message["type"] == "websocket.disconnect":
                self._finish(message.get("code", 1005))

    def _deliver(self, text: str) -> None:
        on_text = self.on_text
        assert on_text is not None
        try:
            on_text(text)
        except Exception as exc:  # the handler failed: end this connection, not the server
            log.warning("ws_direct_handler_failed", extra={"error": repr(exc)})
            self._finish(1011)

    def _deliver_bytes(self, data: bytes) -> None:
        on_bytes = self.on_bytes
        assert on_bytes is not None
        try:
            on_bytes(data)
        except Exception as exc:
            log.warning("ws_direct_handler_failed", extra={"error": repr(exc)})
            self._finish(1011)

    def _finish(self, code: int) -> None:
        """Report the end of the connection (once); later messages are dropped."""
        on_closed = self.on_closed
        if on_closed is None:
            return
        self.on_closed = None
        self.on_text = _drop
        self.on_bytes = _drop
        on_closed(code)

    # ------------------------------------------------------------------ receiving

    def data_received(self, data: bytes) -> None:
        if self.fast:
            self._receive_fast(data)
            return
        if self.handshake_complete:
            self._fed += len(data)
        super().data_received(data)
        if self.on_text is not None:
            self._maybe_fast()

    def handle_events(self) -> None:
        # uvicorn's dispatch, counting the frames' wire bytes once the handshake is done.
        counting = self.handshake_complete
        for event in self.conn.events_received():
            if isinstance(event, Frame):
                if counting:
                    self._parsed += wire_size(len(event.data))
                opcode = event.opcode
                if opcode is Opcode.TEXT:
                    self.handle_text(event)
                elif opcode is Opcode.CONT:
                    self.handle_cont(event)
                elif opcode is Opcode.BINARY:
                    self.handle_bytes(event)
                elif opcode is Opcode.PING:
                    self.handle_ping()
                elif opcode is Opcode.PONG:
                    self.handle_pong(event)
                elif opcode is Opcode.CLOSE:
                    self.handle_close(event)
            elif isinstance(event, Request):
                self.handle_connect(event)

    def _receive_fast(self, data: bytes) -> None:
        """Parse the common frames here: whole masked text frames up to ``ws_max_size``,
        pings and pongs. Anything else (close, binary, fragments, a frame too big or
        malformed) and everything after it go to ``websockets``' parser, which was left
        between two frames, so it handles them exactly as before (close codes 1002,
        1009...); fast mode resumes when it is between frames again."""
        if self._partial:
            data = self._partial + data
            self._partial = b""
        n = len(data)
        pos = 0
        max_size = self.conn.max_message_size or 0
        while pos < n:
            if self.close_sent or self.on_closed is None:
                break  # past our close, or ended: websockets' parser takes the rest
            if n - pos < 6:
                self._partial = data[pos:]
                return
            b0 = data[pos]
            length = data[pos + 1] ^ 0x80  # the mask bit set (a client's frame) -> length
            if length < 126:
                head = pos + 6
            elif length == 126:
                if n - pos < 8:
                    self._partial = data[pos:]
                    return
                length = (data[pos + 2] << 8) | data[pos + 3]
                head = pos + 8
                if length < 126:
                    break  # not the shortest form: websockets' parser decides
            else:
                break  # unmasked, or a 64-bit length: websockets' parser
            if b0 == 0x81:  # a whole text message
                if length > max_size:
                    break
            elif not (b0 == 0x89 or b0 == 0x8A) or length > 125:
                break
            end = head + length
            if end > n:
                self._partial = data[pos:]
                return
            payload = apply_mask(data[head:end], data[head - 4 : head])
            pos = end
            if b0 == 0x81:
                try:
                    text = payload.decode()
                except UnicodeDecodeError:
                    self.conn.send_close(1007)
                    self.handle_parser_exception()
                    return
                self._deliver(text)
            elif b0 == 0x89:
                self.conn.send_pong(payload)
                self.transport.write(b"".join(self.conn.data_to_send()))
            else:
                self.handle_pong(Frame(Opcode.PONG, payload))
        if pos < n:
            self.fast = False
            self._fed += n - pos
            super().data_received(data[pos:])
            self._maybe_fast()

    def handle_text(self, event: Frame) -> None:
        on_text = self.on_text
        if on_text is None or not event.fin:
            super().handle_text(event)
            return
        if self.close_sent:  # past our close: discard, as uvicorn does
            return
        try:
            text = str(event.data, "utf-8")
        except UnicodeDecodeError:
            self.conn.send_close(1007)
            self.handle_parser_exception()
            return
        self._deliver(text)

    def send_receive_event_to_app(self) -> None:
        # Fragmented messages and binary frames (rare) come here.
        if self.on_text is None:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return
        if self.curr_msg_data_type == "text":
            try:
                text = str(data, "utf-8")
            except UnicodeDecodeError:
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
            self._deliver(text)
        else:
            self._deliver_bytes(bytes(data))

    # Every way a connection ends queues a websocket.disconnect: report it.

    def handle_close(self, event: Frame) -> None:
        super().handle_close(event)
        if self.on_closed is not None:
            self._pump()

    def handle_parser_exception(self) -> None:
        super().handle_parser_exception()
        if self.on_closed is not None:
            self._pump()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.channel is not None:  # its descriptor is closed once it sent what waits
            self.channel.close()
        if self.on_closed is not None:
            self._pump()

    def shutdown(self) -> None:
        super().shutdown()
        if self.on_closed is not None:
            self._pump()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()  # closes the transport: connection_lost follows
        if self.on_closed is not None:
            self._finish(1011)

    def on_task_complete(self, task: asyncio.Task[None]) -> None:
        super().on_task_complete(task)
        extensions = self.scope.get("extensions")
        if extensions is not None:  # no reference cycle scope <-> protocol left behind
            extensions.pop(DIRECT, None)

    # ------------------------------------------------------------------ sending

    def pause_writing(self) -> None:
        self.write_paused = True
        super().pause_writing()

    def resume_writing(self) -> None:
        self.write_paused = False
        super().resume_writing()

    def write_close(self, code: int) -> None:
        """Start the closing handshake with ``code`` (as uvicorn's ``websocket.close``).

        The transport closes when the peer answers, or after ``close_timeout``
        seconds; after that long a peer that does not read is cut off (its unsent
        frames dropped) instead of being waited for. Reports the end (``on_closed``)
        if not done yet.
        """
        if not self.close_sent and not self.transport.is_closing():
            try:
                self.conn.send_close(code, "")
            except InvalidState:  # the peer's close came first: it is being answered
                pass
            else:
                self.transport.write(b"".join(self.conn.data_to_send()))
                self.close_sent = True
                if self.read_paused:
                    self.read_paused = False
                    self.transport.resume_reading()
                self.close_timer = self.loop.call_later(self.close_timeout, self._close_expired)
        self._finish(code)

    def _close_expired(self) -> None:
        self.close_timer = None
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        else:
            self.transport.close()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for this app: the WebSocket protocol and its limits.

    >>> from server.settings import Settings
    >>> opts = uvicorn_options(Settings(max_frame_bytes=4096))
    >>> opts["ws"] is RoomWSProtocol, opts["ws_max_size"], opts["ws_per_message_deflate"]
    (True, 4096, False)
    """
    return {
        "ws": RoomWSProtocol,
        "ws_max_size": settings.max_frame_bytes,
        "ws_per_message_deflate": False,
    }
