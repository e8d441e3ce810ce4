"""Bridging: any node accepts any client; the node that plays the room answers it.

A socket that reaches a node (the *client's node*) whose room another node plays (the
*owner*) is bridged to the owner through Redis (:mod:`server.rooms.cluster.links`): the
client's node keeps the socket, checks each frame (size, budget, the protocol) and
forwards the messages; the owner's actor sees a :class:`RemoteConn` like any other
connection, and what it sends that connection goes back to the client's node, which
writes it to the socket. The room commands of the HTTP API reach the owner the same
way (:meth:`Bridges.call`). The envelopes (:mod:`server.rooms.cluster.envelopes`; on the
link, ``t`` names their kind):

* ``m`` client's node → owner: a message of connection ``c`` (``k``: hello, action,
  rack, query, react, leave, next_round, gone; ``m``: the message's JSON) of room
  ``r``, for player ``p`` and session ``s``; ``i`` numbers them per connection.
* ``f`` owner → client's node: a frame for connection ``c`` (``i`` numbers them);
  ``x``: close it with ``code``.
* ``call`` / ``ret``: a room command (``op``, ``a``) run by the owner, and its answer;
  ``notice``: a lobby change made elsewhere (a start by a timer or a tournament).

Each side counts the envelopes of each connection: a gap (a message lost while a
subscription was down) closes the connection with 1012, and the client, reconnecting
with its last version, gets what it missed (a replay or a snapshot). When this node's
link is lost, its bridged sockets are told ``room_unreachable`` (the room is paused for
them; the socket stays open and refuses moves); when it is back they are closed with
1012 and resume (so are those paused because a send failed, at the next heartbeat
once the link is up). Every heartbeat (:meth:`Bridges.check`) closes the bridged
sockets of rooms whose owner changed or died (their clients reconnect, to the new
owner), and drops the remote connections of client nodes that died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import defaultdict
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError
from redis.asyncio import Redis

from server.accounts.identity import PlayerInfo
from server.errors import Code, ServerError
from server.protocol import (
    Hello,
    LeaveMessage,
    NextRoundMessage,
    PingMessage,
    ProtocolError,
    ReactMessage,
    parse_client,
)
from server.rooms.actor import MOVED, ClientMessage, RoomActor, seats_of_view
from server.rooms.cluster.envelopes import (
    Call,
    ConnClose,
    ConnFrame,
    ConnMessage,
    Envelope,
    Notice,
    Return,
    from_wire,
    to_wire,
)
from server.rooms.cluster.links import Links
from server.rooms.cluster.node import Cluster
from server.rooms.conn import Conn
from server.rooms.core.frames import error as error_frame
from server.rooms.core.messages import SeatsChanged, Start
from server.rooms.lobby.service import RoomView


class Node(Protocol):
    """What the bridges need of this node's live rooms (:class:`server.rooms.live.LiveRooms`)."""

    @property
    def cluster(self) -> Cluster: ...
    @property
    def actors(self) -> dict[str, RoomActor]: ...

    def join(self, actor: RoomActor, conn: Conn) -> None: ...

    async def run_here(
        self, op: str, room_id: str, player: PlayerInfo, args: dict[str, Any]
    ) -> RoomView: ...


log = logging.getLogger(__name__)

CALL_SECONDS = 5.0
"""How long a room command waits for the owner's answer."""

UNREACHABLE = (
    "this table is played on another server node and the link to it is down: the game is "
    "paused for you until it returns (you will be reconnected by yourself)"
)
UNREACHABLE_FRAME = error_frame(None, Code.ROOM_UNREACHABLE, UNREACHABLE)

_PARSED = frozenset(("hello", "action", "rack", "query"))


class Moved(Exception):
    """The node asked to run a room command does not play the room (any more)."""


class RemoteConn(Conn):
    """A connection of another node's client, as the owner's actor sees it: what it is
    sent goes back over the link, numbered."""

    __slots__ = ("bridges", "cid", "expect", "node", "out", "room_id")

    def __init__(
        self,
        bridges: Bridges,
        node: str,
        cid: int,
        room_id: str,
        player_id: str,
        session_id: str | None,
    ) -> None:
        super().__init__(player_id, _no_send, _no_close, session_id=session_id)
        self.bridges = bridges
        self.node = node
        self.cid = cid
        self.room_id = room_id
        self.expect = 0  # the next message number from the client's node
        self.out = 0  # the frames sent so far

    def send(self, frame: str) -> None:
        if self.closed:
            return
        self.out += 1
        self.bridges.send(self.node, ConnFrame(self.cid, self.out, frame))

    def close(self, code: int = 1000) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.bridges.send(self.node, ConnClose(self.cid, code))


async def _no_send(frame: str) -> None:  # pragma: no cover - RemoteConn.send replaces it
    return None


async def _no_close(code: int) -> None:  # pragma: no cover - RemoteConn.close replaces it
    return None


class Bridge:
    """This node's sockets of one room that another node plays (the client's side).

    The socket's :class:`~server.ws.Session` posts to it as to a room actor."""

    def __init__(self, bridges: Bridges, room_id: str, node: str, paused: bool) -> None:
        self.bridges = bridges
        self.room_id = room_id
        self.node = node
        self.paused = paused
        self.stopped = False
        self.conns: dict[int, Conn] = {}
        self.sent: dict[int, int] = {}  # messages sent per connection
        self.got: dict[int, int] = {}  # frames received per connection

    def receive(self, conn: Conn, msg: ClientMessage, t0: float | None = None) -> None:
        """Forward ``conn``'s validated message to the owner (while the link is down, a
        move is refused with ``room_unreachable``)."""
        if conn.closed or conn.id not in self.conns:
            return
        if self.paused:
            seq = getattr(msg, "seq", None)
            if seq is not None:
                conn.send(error_frame(seq, Code.ROOM_UNREACHABLE, UNREACHABLE))
            elif isinstance(msg, Hello):
                conn.send(UNREACHABLE_FRAME)
            return
        payload: str | None = None
        if isinstance(msg, ReactMessage):
            payload = msg.reaction
        elif msg.type in _PARSED:
            payload = msg.model_dump_json()
        self.bridges.forward(self, conn, msg.type, payload)

    def gone(self, conn: Conn) -> None:
        """The socket is closed: the owner is told."""
        self.bridges.forget(self, conn)

    def close_all(self, code: int) -> None:
        for conn in list(self.conns.values()):
            conn.close(code)


class Bridges:
    """This node's bridged sockets (client side), remote connections (owner side), and
    room commands in flight, over its :class:`~server.rooms.cluster.links.Links`."""

    def __init__(self, live: Node, redis: Redis) -> None:
        self.live = live
        self.node = live.cluster.node
        self.links = Links(redis, self.node, self)
        self.rooms: dict[str, Bridge] = {}  # client side, by room
        self.by_cid: dict[int, Bridge] = {}  # client side, by local connection id
        self.remote: dict[tuple[str, int], RemoteConn] = {}  # owner side
        self._calls: dict[str, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def client_side(self) -> int:
        """Sockets of this node bridged to another node."""
        return len(self.by_cid)

    @property
    def owner_side(self) -> int:
        """Connections of other nodes' clients to this node's rooms."""
        return len(self.remote)

    async def start(self) -> None:
        await self.links.start()

    async def stop(self) -> None:
        for bridge in list(self.rooms.values()):
            bridge.close_all(MOVED)
        await self.links.stop()
        for task in list(self._tasks):
            task.cancel()

    # ------------------------------------------------------------------ client side

    def attach(self, room_id: str, node: str, conn: Conn) -> Bridge:
        """Bridge ``conn`` (a socket of this node) to ``node``, which plays the room."""
        bridge = self.rooms.get(room_id)
        if bridge is not None and bridge.node != node:
            self._retire(bridge, MOVED)  # its owner is gone: its sockets reconnect
            bridge = None
        if bridge is None:
            bridge = self.rooms[room_id] = Bridge(self, room_id, node, not self.links.up)
        bridge.conns[conn.id] = conn
        bridge.sent[conn.id] = 0
        bridge.got[conn.id] = 0
        self.by_cid[conn.id] = bridge
        log.info(
            "ws_bridged",
            extra={
                "room_id": room_id,
                "conn_id": conn.id,
                "to_node": node,
                "paused": bridge.paused,
            },
        )
        return bridge

    def send(self, node: str, env: Envelope) -> None:
        """Send ``node`` an envelope over this node's link."""
        self.links.send(node, to_wire(env))

    def forward(self, bridge: Bridge, conn: Conn, kind: str, payload: str | None) -> None:
        n = bridge.sent[conn.id] = bridge.sent.get(conn.id, 0) + 1
        self.send(
            bridge.node,
            ConnMessage(
                bridge.room_id,
                self.node,
                conn.id,
                n,
                conn.player_id,
                conn.session_id,
                kind,
                payload,
            ),
        )

    def forget(self, bridge: Bridge, conn: Conn) -> None:
        """The socket is gone: tell the owner, forget it."""
        if bridge.conns.pop(conn.id, None) is None:
            return
        self.by_cid.pop(conn.id, None)
        if not bridge.paused:
            self.forward(bridge, conn, "gone", None)
        bridge.sent.pop(conn.id, None)
        bridge.got.pop(conn.id, None)
        if not bridge.conns and self.rooms.get(bridge.room_id) is bridge:
            del self.rooms[bridge.room_id]

    def _retire(self, bridge: Bridge, code: int) -> None:
        bridge.stopped = True
        if self.rooms.get(bridge.room_id) is bridge:
            del self.rooms[bridge.room_id]
        bridge.close_all(code)

    def _frame(self, env: ConnFrame | ConnClose) -> None:
        bridge = self.by_cid.get(env.conn)
        if bridge is None:
            return
        conn = bridge.conns.get(env.conn)
        if conn is None:
            return
        if isinstance(env, ConnClose):
            conn.close(env.code)
            return
        expected = bridge.got.get(conn.id, 0) + 1
        if env.n != expected:  # a frame was lost: the client resumes
            log.warning("bridge_gap", extra={"room_id": bridge.room_id, "conn_id": conn.id})
            conn.close(MOVED)
            return
        bridge.got[conn.id] = expected
        conn.send(env.frame)

    # ------------------------------------------------------------------ owner side

    async def _message(self, env: ConnMessage) -> None:
        node, cid, kind = env.node, env.conn, env.kind
        key = (node, cid)
        rc = self.remote.get(key)
        if rc is None:
            if kind != "gone":
                await self._open(env)
            return
        rc.expect += 1
        actor = self.live.actors.get(rc.room_id)
        if env.n != rc.expect or actor is None or actor.stopped:
            # A message was lost, or the room is no longer played here: the client resumes.
            self._drop_remote(key, MOVED)
            return
        if kind == "gone":
            del self.remote[key]
            actor.gone(rc)
            return
        self._post(actor, rc, kind, env.message)

    async def _open(self, env: ConnMessage) -> None:
        node, cid = env.node, env.conn
        actor = self.live.actors.get(env.room)
        if (
            actor is None
            or actor.stopped
            or env.kind != "hello"
            or env.n != 1
            or self.live.cluster.draining
        ):
            # Not played here (any more), or the start of the conversation was lost.
            self.send(node, ConnClose(cid, MOVED))
            return
        rc = RemoteConn(self, node, cid, env.room, env.player, env.session)
        rc.expect = 1
        self.remote[(node, cid)] = rc
        await actor.booted.wait()
        if actor.stopped:
            self._drop_remote((node, cid), MOVED)
            return
        self.live.join(actor, rc)
        self._post(actor, rc, env.kind, env.message)

    def _post(self, actor: RoomActor, rc: RemoteConn, kind: str, payload: str | None) -> None:
        """A bridged connection's message, validated again, to the actor (one the client's
        node would not have sent is dropped)."""
        msg: ClientMessage | None = None
        try:
            if kind in _PARSED:
                parsed = parse_client(payload) if isinstance(payload, str) else None
                if not isinstance(parsed, PingMessage) and parsed is not None:
                    msg = parsed if parsed.type == kind else None
            elif kind == "react":
                msg = ReactMessage.model_validate({"type": "react", "reaction": payload})
            elif kind == "leave":
                msg = LeaveMessage(type="leave")
            elif kind == "next_round":
                msg = NextRoundMessage(type="next_round")
        except (ProtocolError, ValidationError):
            return
        if msg is not None:
            actor.receive(rc, msg, time.perf_counter())

    def _drop_remote(self, key: tuple[str, int], code: int) -> None:
        rc = self.remote.pop(key, None)
        if rc is None:
            return
        rc.close(code)
        actor = self.live.actors.get(rc.room_id)
        if actor is not None:
            actor.gone(rc)

    # ------------------------------------------------------------------ room commands

    async def call(
        self, node: str, op: str, room_id: str, player: PlayerInfo, args: dict[str, Any]
    ) -> dict[str, Any]:
        """Run a room command on ``node``: its answer (a room view as JSON); the
        command's :class:`~server.errors.ServerError`; :class:`Moved` if ``node`` does
        not play the room; ``room_unreachable`` if it does not answer."""
        if not self.links.up:
            raise ServerError(Code.ROOM_UNREACHABLE, UNREACHABLE)
        rid = os.urandom(8).hex()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[rid] = future
        self.send(
            node,
            Call(
                rid,
                self.node,
                op,
                room_id,
                args,
                {
                    "id": player.id,
                    "display_name": player.display_name,
                    "created_at": player.created_at.isoformat(),
                },
            ),
        )
        try:
            answer: Return = await asyncio.wait_for(future, CALL_SECONDS)
        except TimeoutError:
            raise ServerError(Code.ROOM_UNREACHABLE, UNREACHABLE) from None
        finally:
            self._calls.pop(rid, None)
        if answer.moved:
            raise Moved(room_id)
        if answer.err is not None:
            code, message = answer.err
            raise ServerError(Code(code), message)
        if answer.ok is None:
            raise ServerError(Code.INTERNAL_ERROR, "the command failed")
        return answer.ok

    def notice(self, node: str, kind: str, room: RoomView) -> None:
        """Tell ``node`` (the room's owner) of a lobby change made here: ``room_changed``
        or ``started`` (best effort: a lost one is told again by its sender's next try)."""
        self.send(node, Notice(kind, room.id, room.model_dump(mode="json")))

    def _notice(self, env: Notice) -> None:
        actor = self.live.actors.get(env.room)
        if actor is None or actor.stopped:
            return
        if env.kind == "started":
            actor.post(Start())
        elif env.kind == "room_changed":
            actor.post(SeatsChanged(seats_of_view(RoomView.model_validate(env.view))))

    async def _serve_call(self, env: Call) -> None:
        answer: Return
        try:
            p = env.player
            player = PlayerInfo(p["id"], p["display_name"], datetime.fromisoformat(p["created_at"]))
            view = await self.live.run_here(env.op, env.room, player, env.args)
            answer = Return(env.id, ok=view.model_dump(mode="json"))
        except Moved:
            answer = Return(env.id, moved=True)
        except ServerError as err:
            answer = Return(env.id, err=(str(err.code), err.message))
        except Exception:
            log.exception("room_command_failed", extra={"room_id": env.room})
            answer = Return(env.id, err=(Code.INTERNAL_ERROR.value, "the command failed"))
        self.send(env.node, answer)

    # ------------------------------------------------------------------ the link

    async def on_envelope(self, envelope: dict[str, Any]) -> None:
        match from_wire(envelope):
            case ConnMessage() as env:
                await self._message(env)
            case ConnFrame() | ConnClose() as env:
                self._frame(env)
            case Call() as env:
                task = asyncio.create_task(self._serve_call(env))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            case Notice() as env:
                self._notice(env)
            case Return() as env:
                future = self._calls.get(env.id)
                if future is not None and not future.done():
                    future.set_result(env)
            case None:
                log.warning("bridge_envelope_dropped", extra={"t": envelope.get("t")})

    def on_lost(self) -> None:
        """This node's link is down: its bridged sockets are told the room is paused."""
        for bridge in self.rooms.values():
            self._pause(bridge)

    @staticmethod
    def _pause(bridge: Bridge) -> None:
        if not bridge.paused:
            bridge.paused = True
            for conn in bridge.conns.values():
                conn.send(UNREACHABLE_FRAME)

    def on_back(self) -> None:
        """Back: whatever was sent meanwhile is lost, so every bridged connection, on
        either side, is closed with 1012 and resumes."""
        for bridge in list(self.rooms.values()):
            self._retire(bridge, MOVED)
        for key in list(self.remote):
            self._drop_remote(key, MOVED)

    def on_send_failed(self, node: str) -> None:
        """What this node sent ``node`` is lost: the sockets bridged to it are paused (they
        resume once the link works again, :meth:`check`); its clients' connections here
        are dropped (they come back with a new ``hello``)."""
        for bridge in list(self.rooms.values()):
            if bridge.node == node:
                self._pause(bridge)
        for key in [k for k in self.remote if k[0] == node]:
            self._drop_remote(key, MOVED)

    # ------------------------------------------------------------------ heartbeat

    async def check(self) -> None:
        """Close the sockets bridged to an owner that is no longer the room's (they
        reconnect, to the new owner); drop the connections of client nodes that died."""
        leases = self.live.cluster.leases
        for bridge in list(self.rooms.values()):
            if bridge.paused and self.links.up:  # the link works again: they resume
                self._retire(bridge, MOVED)
                continue
            owner = await leases.owner(bridge.room_id)
            if owner is None or owner.node != bridge.node or not owner.alive:
                log.info(
                    "bridge_owner_gone", extra={"room_id": bridge.room_id, "to_node": bridge.node}
                )
                self._retire(bridge, MOVED)
        by_node: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for key in self.remote:
            by_node[key[0]].append(key)
        if by_node:
            alive = await leases.alive(by_node)
            for node, keys in by_node.items():
                if node not in alive:
                    for key in keys:
                        with contextlib.suppress(Exception):
                            self._drop_remote(key, MOVED)
