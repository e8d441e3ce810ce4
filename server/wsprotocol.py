"""The server's WebSocket protocol: uvicorn's sans-I/O one with three changes.

* A ping frame is answered as before and also handed to the application as an ASGI
  ``websocket.receive`` event carrying ``"remi.ping": True``, so the room socket counts it
  against the connection's message budget (server/ws.py) like any other message.
* A text message that is not UTF-8 closes with 1007 and is logged at info, without a
  traceback: any client can send one, so it is not an error of the server.
* After a protocol failure (a message too big, even sent in fragments: 1009; 1007) the
  close frame is sent and the rest of what the client is still sending is read and
  dropped until it closes (at most :data:`LINGER_SECONDS`): closing a socket with unread
  data resets it, and the reset can destroy the close frame on its way (the client then
  sees 1006 instead of the code).

uvicorn takes the class as its ``ws`` option (server/cli.py ``uvicorn_options``).
"""

from __future__ import annotations

import logging
from asyncio import TimerHandle
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = logging.getLogger("server.ws")

LINGER_SECONDS = 2.0
"""How long a failed connection keeps reading (and dropping) before it is closed."""

PING_EVENT = "remi.ping"
"""The key of the ASGI receive event that stands for a ping frame."""


class RoomSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol: pings counted, bad UTF-8 quiet, a failure's
    close frame delivered."""

    _failed = False
    _linger: TimerHandle | None = None

    def data_received(self, data: bytes) -> None:
        if self._failed:
            return  # the close frame is sent: what the client still sends is dropped
        super().data_received(data)

    def handle_ping(self) -> None:
        super().handle_ping()
        if not self.close_sent:
            event: Any = {"type": "websocket.receive", "text": None, PING_EVENT: True}
            self.queue.put_nowait(event)

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                log.info("ws_invalid_utf8", extra={"client": self.client})
                self.conn.send_close(1007, "invalid UTF-8")
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def handle_parser_exception(self) -> None:
        assert self.conn.close_sent is not None
        sent = self.conn.close_sent
        self.queue.put_nowait(
            {"type": "websocket.disconnect", "code": sent.code, "reason": sent.reason}
        )
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self._failed = True
        self._linger = self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def eof_received(self) -> None:
        if self._failed:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._linger is not None:
            self._linger.cancel()
        super().connection_lost(exc)
