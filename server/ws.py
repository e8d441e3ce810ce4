"""The room WebSocket endpoint: ``/ws/rooms/{room_id}`` (docs/protocol.md).

The handshake checks the Origin against the allowlist and authenticates the
player (cookie or bearer token); the connection remembers the session (device
token) it was opened with, so that revoking it closes the socket
(:mod:`server.rooms.core.room`). Each frame, text or binary, is size-checked and
counted against the connection's message budget before anything else; every text
message is validated by :mod:`server.protocol` and then handed to the room's actor.
Frames to the client go out through :class:`~server.rooms.conn.Conn`, in order;
a client that reads too slowly is closed, so it never stalls the room.

The socket is Starlette's :class:`~starlette.websockets.WebSocket` (plain ASGI
messages), served by uvicorn (server/cli.py); :class:`Session` holds what each
message does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from fastapi import APIRouter, FastAPI, WebSocket
from starlette.websockets import WebSocketState

from server.errors import Code, ServerError
from server.ids import is_code, is_id
from server.protocol import (
    Hello,
    LeaveMessage,
    NextRoundMessage,
    PingMessage,
    ProtocolError,
    ReactMessage,
    parse_client,
)
from server.rooms.actor import MOVED, PONG, ClientMessage, error_frame
from server.rooms.cluster.node import Elsewhere
from server.rooms.conn import Conn
from server.rooms.live import LiveRooms
from server.wsprotocol import PING_EVENT

if TYPE_CHECKING:
    from server.rooms.lobby.service import RoomEvents
    from server.services import Services
    from server.settings import Settings

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
        tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
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


BINARY_REFUSED = "binary frames are not accepted: send each message as a text frame of JSON"
"""The error message that answers a binary frame."""


class Room(Protocol):
    """Where a connection's messages go: the room's actor on this node, or the
    :class:`~server.rooms.cluster.bridge.Bridge` to the node that plays the room."""

    def receive(self, conn: Conn, msg: ClientMessage, t0: float | None = None) -> None: ...
    def gone(self, conn: Conn) -> None: ...


class Session:
    """What a connection's messages do.

    Every frame, text or binary, is size-checked (close 1009 before any parsing) and
    counted against the connection's budget (error ``rate_limited``, close 1008); a
    text frame is then validated and answered (ping) or handed to the room's actor, a
    binary frame is answered with ``bad_message``. Synchronous: it never waits.
    """

    __slots__ = ("actor", "budget", "conn", "max_bytes", "said_hello")

    def __init__(self, conn: Conn, actor: Room, settings: Settings) -> None:
        self.conn = conn
        self.actor = actor
        self.budget = Budget(settings.rate_limit_messages, settings.rate_limit_window_seconds)
        self.max_bytes = settings.max_frame_bytes
        self.said_hello = False

    def _admit(self, size: int) -> bool:
        """A frame of ``size`` bytes may be handled: not too big, within the budget."""
        conn = self.conn
        if size > self.max_bytes:
            conn.close(1009)
            return False
        if not self.budget.take():
            conn.send(error_frame(None, Code.RATE_LIMITED, "too many messages"))
            conn.close(1008)
            return False
        return True

    def text(self, text: str) -> None:
        """Handle one text message."""
        conn = self.conn
        if conn.closed:
            return
        t0 = time.perf_counter()
        # The length in bytes, encoded only when the characters alone do not settle it.
        size = len(text) if len(text) * 4 <= self.max_bytes else len(text.encode())
        if not self._admit(size):
            return
        try:
            msg = parse_client(text)
        except ProtocolError as err:
            conn.send(error_frame(err.seq, err.code, err.message))
            return
        if isinstance(msg, PingMessage):
            conn.send(PONG)
            return
        if isinstance(msg, Hello):
            self.said_hello = True
        elif not self.said_hello and not isinstance(msg, LeaveMessage | NextRoundMessage):
            # A move, a rack, a query or a reaction comes after the connection's hello.
            seq = None if isinstance(msg, ReactMessage) else msg.seq
            conn.send(error_frame(seq, Code.BAD_MESSAGE, "send hello first"))
            return
        self.actor.receive(conn, msg, t0)

    def ping_frame(self) -> None:
        """A WebSocket ping frame (answered by the protocol): counted like any frame."""
        if not self.conn.closed:
            self._admit(0)

    def binary(self, data: bytes) -> None:
        """Handle one binary message: counted like any frame, then refused."""
        conn = self.conn
        if conn.closed:
            return
        if self._admit(len(data)):
            conn.send(error_frame(None, Code.BAD_MESSAGE, BINARY_REFUSED))


ORIGIN_REFUSED = (
    "this page's address is not allowed to open the server's sockets: open the game from "
    "the server's own address, or add the page's origin to REMI_ALLOWED_ORIGINS"
)


def origin_allowed(origin: str | None, host: str | None, allowed: list[str]) -> bool:
    """Whether a socket's handshake comes from an allowed page: no ``Origin`` (not a
    browser), the server's own address (the ``Host`` it was reached at, whatever its
    port), or one of the configured origins (a page served elsewhere). A browser sends
    the page's true origin, so another site's page is refused.

    >>> origin_allowed("http://localhost:8123", "localhost:8123", [])
    True
    >>> origin_allowed("https://evil.example", "localhost:8123", ["http://localhost:8000"])
    False
    >>> origin_allowed("http://localhost:5173", "localhost:8000", ["http://localhost:5173"])
    True
    """
    if origin is None or origin in allowed:
        return True
    if not host:
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


DATABASE_AWAY = "the server cannot reach its database just now: it connects again by itself"
TRY_AGAIN_LATER = 1013
"""The close of a socket whose handshake found the database away (RFC 6455 "try again
later"): the client reconnects with its back-off."""


async def _database_away(websocket: WebSocket, room_id: str, exc: BaseException) -> None:
    """Answer a handshake that needed the database and did not get it: an ``error``
    ``database_unavailable``, then close 1013 (the client tries again)."""
    log.warning("ws_database_unavailable", extra={"room_id": room_id, "error": repr(exc)})
    if websocket.application_state == WebSocketState.CONNECTING:
        await websocket.accept()
    if websocket.application_state == WebSocketState.CONNECTED:
        await websocket.send_text(error_frame(None, Code.DATABASE_UNAVAILABLE, DATABASE_AWAY))
        await websocket.close(code=TRY_AGAIN_LATER)


@router.websocket("/ws/rooms/{room_id}")
async def room_socket(websocket: WebSocket, room_id: str) -> None:
    """One player's (or spectator's) connection to a room."""
    app = websocket.app
    services: Services = app.state.services
    live: LiveRooms = app.state.live
    settings = services.settings
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, websocket.headers.get("host"), settings.allowed_origins):
        # Told in words (the page explains it), before anything else: no token is read.
        log.info("ws_origin_refused", extra={"origin": origin, "room_id": room_id})
        await websocket.accept()
        await websocket.send_text(error_frame(None, Code.ORIGIN_REFUSED, ORIGIN_REFUSED))
        await websocket.close(code=4003)
        return
    token = _token(websocket, settings.cookie_name)
    try:
        async with asyncio.timeout(settings.handshake_seconds):
            authed = await services.identity.resolve(token) if token else None
    except Exception as exc:  # the database is away or does not answer in time
        await _database_away(websocket, room_id, exc)
        return
    await websocket.accept()
    if authed is None:
        await websocket.send_text(
            error_frame(None, Code.NOT_AUTHENTICATED, "send the token as cookie or bearer")
        )
        await websocket.close(code=4401)
        return
    player = authed.player
    code = websocket.query_params.get("code")
    try:
        # A bad id or code (a NUL byte, any character no id has) is no room's.
        if not is_id(room_id) or (code is not None and not is_code(code)):
            raise ServerError(Code.ROOM_NOT_FOUND, "no such room")
        async with asyncio.timeout(settings.handshake_seconds):
            await services.rooms.get_room(room_id, player.id, code)
    except ServerError:
        await websocket.send_text(error_frame(None, Code.ROOM_NOT_FOUND, f"no room {room_id!r}"))
        await websocket.close(code=4404)
        return
    except Exception as exc:
        await _database_away(websocket, room_id, exc)
        return

    async def close(code: int) -> None:
        if websocket.application_state == WebSocketState.CONNECTED:
            await websocket.close(code=code)

    conn = Conn(player.id, websocket.send_text, close, settings.send_queue_limit, authed.session_id)
    try:
        actor: Room = await live.attach(room_id, conn)
    except Elsewhere:  # this node is stopping: the client reconnects, to another one
        await websocket.close(code=MOVED)
        return
    except Exception as exc:  # the room's lease or log could not be read
        await _database_away(websocket, room_id, exc)
        return
    metrics = services.metrics
    metrics.connections.inc()
    log.info("ws_opened", extra={"room_id": room_id, "conn_id": conn.id, "player_id": player.id})
    session = Session(conn, actor, settings)
    try:
        while not conn.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if message.get(PING_EVENT):
                session.ping_frame()
            elif text is None:
                session.binary(message.get("bytes") or b"")
            else:
                session.text(text)
    except Exception as exc:  # a broken connection
        log.debug("ws_receive_failed", extra={"error": repr(exc)})
    finally:
        actor.gone(conn)
        metrics.connections.dec()
        conn.close(conn.close_code or 1000)
        log.info(
            "ws_closed", extra={"room_id": room_id, "conn_id": conn.id, "code": conn.close_code}
        )
        await conn.drained(5)
