"""The room WebSocket endpoint: ``/ws/rooms/{room_id}`` (docs/protocol.md).

The handshake checks the Origin against the allowlist and authenticates the
player (cookie or bearer token). Each frame is size-checked and counted
against the connection's message budget before it is parsed; every message
is validated by :mod:`server.protocol` and then handed to the room's actor.
Frames to the client are written at once by :class:`~server.rooms.conn.Conn`
(no writer task per connection); a client that reads too slowly gets a bounded
backlog, then is closed, so it never stalls the room.

Under uvicorn with :class:`server.wsdirect.RoomWSProtocol` the messages skip ASGI
after the handshake (see :mod:`server.wsdirect`); :class:`Session` holds the
per-message logic both ways share.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI, WebSocket
from starlette.websockets import WebSocketState

from server.protocol import (
    ActionMessage,
    Hello,
    LeaveMessage,
    PingMessage,
    ProtocolError,
    QueryMessage,
    RackMessage,
    parse_client,
)
from server.rooms.actor import PONG, error_frame
from server.rooms.conn import Conn, DirectConn
from server.rooms.live import LiveRooms
from server.rooms.service import RoomError
from server.wsdirect import DIRECT

if TYPE_CHECKING:
    from server.rooms.actor import RoomActor
    from server.rooms.service import RoomEvents
    from server.services import Services
    from server.settings import Settings
    from server.wsdirect import RoomWSProtocol

log = logging.getLogger(__name__)

router = APIRouter()


ROOM_PATH = "/ws/rooms/"


def room_of_path(path: str) -> str | None:
    """The room id of a ``/ws/rooms/{room_id}`` path (what the route matches), else None.

    >>> room_of_path("/ws/rooms/Xc2v9Lq0"), room_of_path("/ws/rooms/"), room_of_path("/ws/x/y")
    ('Xc2v9Lq0', None, None)
    """
    if not path.startswith(ROOM_PATH):
        return None
    room_id = path[len(ROOM_PATH) :]
    return room_id if room_id and "/" not in room_id else None


def install_live(app: FastAPI, services: Services, events: RoomEvents | None = None) -> LiveRooms:
    """Create the live rooms for ``app``, make them the room service's event sink, add the route."""
    live = LiveRooms(services, forward=events)
    services.rooms.events = live
    app.state.live = live
    app.include_router(router)
    return live


class Budget:
    """A token bucket: ``capacity`` messages, refilled at capacity/window per second."""

    __slots__ = ("capacity", "last", "rate", "tokens")

    def __init__(self, capacity: int, window: float) -> None:
        self.capacity = float(capacity)
        self.rate = capacity / window
        self.tokens = float(capacity)
        self.last = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        tokens = self.tokens + (now - self.last) * self.rate
        if tokens > self.capacity:  # min(), without the builtin's call
            tokens = self.capacity
        self.last = now
        if tokens < 1.0:
            self.tokens = tokens
            return False
        self.tokens = tokens - 1.0
        return True


def _token(websocket: WebSocket, cookie_name: str) -> str | None:
    auth = websocket.headers.get("authorization")
    if auth:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    return websocket.cookies.get(cookie_name)


class Session:
    """What a connection's messages do, whichever way they arrive (ASGI or direct).

    Each message is size-checked (close 1009 before any parsing), counted against the
    connection's budget (error ``rate_limited``, close 1008), validated, then answered
    (ping) or handed to the room's actor. Synchronous: it never waits.
    """

    __slots__ = ("actor", "budget", "conn", "max_bytes", "said_hello")

    def __init__(self, conn: Conn, actor: RoomActor, settings: Settings) -> None:
        self.conn = conn
        self.actor = actor
        self.budget = Budget(settings.rate_limit_messages, settings.rate_limit_window_seconds)
        self.max_bytes = settings.max_frame_bytes
        self.said_hello = False

    def text(self, text: str) -> None:
        """Handle one text message."""
        conn = self.conn
        if conn.closed:
            return
        t0 = time.perf_counter()
        max_bytes = self.max_bytes
        if len(text) > max_bytes or (len(text) * 4 > max_bytes and len(text.encode()) > max_bytes):
            conn.close(1009)
            return
        if not self.budget.take():
            conn.send(error_frame(None, "rate_limited", "too many messages"))
            conn.close(1008)
            return
        try:
            msg = parse_client(text)
        except ProtocolError as err:
            conn.send(error_frame(err.seq, err.code, err.message))
            return
        # parse_client gives exactly these classes: ``type(msg) is`` is one pointer
        # comparison, where isinstance with a pydantic model goes through ABCMeta.
        if type(msg) is ActionMessage:
            if self.said_hello:
                self.actor.post("action", conn, msg, t0)
            else:
                conn.send(error_frame(msg.seq, "bad_message", "send hello first"))
        elif type(msg) is PingMessage:
            conn.send(PONG)
        elif type(msg) is Hello:
            self.said_hello = True
            self.actor.post("hello", conn, msg)
        elif type(msg) is RackMessage or type(msg) is QueryMessage:
            if self.said_hello:
                self.actor.post("rack" if type(msg) is RackMessage else "query", conn, msg)
            else:
                conn.send(error_frame(msg.seq, "bad_message", "send hello first"))
        elif type(msg) is LeaveMessage:
            self.actor.post("leave", conn)

    def binary(self, data: bytes) -> None:
        """Handle one binary message: refused (too big: close 1009)."""
        conn = self.conn
        if conn.closed:
            return
        if len(data) > self.max_bytes:
            conn.close(1009)
            return
        conn.send(error_frame(None, "bad_message", "send text frames (JSON)"))


def _slow_client_bytes(settings: Settings) -> int:
    """The write buffer that closes a direct connection as too slow (``send_buffer_bytes``,
    1 MiB by default: hundreds of events)."""
    return settings.send_buffer_bytes


@router.websocket("/ws/rooms/{room_id}")
async def room_socket(websocket: WebSocket, room_id: str) -> None:
    """One player's (or spectator's) connection to a room.

    Under uvicorn with :class:`~server.wsdirect.RoomWSProtocol` (the scope has the
    ``remi.direct`` extension), once the connection is accepted and attached to its
    room the messages are handled straight from the protocol
    (:meth:`~server.wsdirect.RoomWSProtocol.go_direct`) and frames are written
    straight to the transport (:class:`~server.rooms.conn.DirectConn`); this
    coroutine only waits for the end. Elsewhere it runs an ASGI receive loop.
    """
    app = websocket.app
    services: Services = app.state.services
    live: LiveRooms = app.state.live
    settings = services.settings
    origin = websocket.headers.get("origin")
    if origin is not None and origin not in settings.allowed_origins:
        log.info("ws_origin_refused", extra={"origin": origin, "room_id": room_id})
        await websocket.close(code=1008)
        return
    token = _token(websocket, settings.cookie_name)
    player = await services.identity.authenticate(token) if token else None
    await websocket.accept()
    if player is None:
        await websocket.send_text(
            error_frame(None, "not_authenticated", "send the token as cookie or bearer")
        )
        await websocket.close(code=4401)
        return
    try:
        await services.rooms.get_room(room_id, player.id, websocket.query_params.get("code"))
    except RoomError:
        await websocket.send_text(error_frame(None, "room_not_found", f"no room {room_id!r}"))
        await websocket.close(code=4404)
        return
    direct: RoomWSProtocol | None = (websocket.scope.get("extensions") or {}).get(DIRECT)
    conn: Conn
    if direct is not None:
        direct.use_writer(live.socket_writer)  # sends on its thread (server/socketwriter.py)
        conn = DirectConn(player.id, direct, _slow_client_bytes(settings))
    else:

        async def close(code: int) -> None:
            if websocket.application_state == WebSocketState.CONNECTED:
                await websocket.close(code=code)

        conn = Conn(player.id, websocket.send_text, close, settings.send_queue_limit)
    actor = await live.attach(room_id, conn)
    metrics = services.metrics
    metrics.connections.inc()
    session = Session(conn, actor, settings)
    try:
        if direct is not None:
            ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            direct.go_direct(session.text, session.binary, partial(_end, ended))
            await ended
        else:
            await _receive_loop(websocket, conn, session)
    except Exception as exc:  # a broken connection
        log.debug("ws_receive_failed", extra={"error": repr(exc)})
    finally:
        actor.post("gone", conn)
        metrics.connections.dec()
        conn.close(conn.close_code or 1000)
        await conn.drained(5)


def _end(ended: asyncio.Future[int], code: int) -> None:
    if not ended.done():
        ended.set_result(code)


async def _receive_loop(websocket: WebSocket, conn: Conn, session: Session) -> None:
    """The ASGI way: receive each message, hand it to the session, until closed."""
    while not conn.closed:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            session.binary(message.get("bytes") or b"")
        else:
            session.text(text)
