"""The live side of the rooms: the set of running room actors.

:class:`LiveRooms` creates a :class:`~server.rooms.actor.RoomActor` when a
connection arrives or the owner starts a match, restores every playing room
at start-up, and listens to the lobby (it is the
:class:`~server.rooms.service.RoomEvents` of the room service). Its pacing (bot
delay, round pause, turn time scale, ...) is read from the injected
:class:`~server.settings.Settings`, like everything else.

It also closes the sockets of revoked sessions (:meth:`LiveRooms.sessions_revoked`):
on this instance at once, on the others through the bus's ``sessions`` topic.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections import deque
from typing import TYPE_CHECKING, Any

from server.rooms.actor import RoomActor
from server.rooms.botplay import BotRunner
from server.rooms.conn import Conn
from server.rooms.journal import Journal

if TYPE_CHECKING:
    from server.metrics import Metrics
    from server.rooms.service import RoomEvents, RoomView
    from server.services import Services
    from server.settings import Settings
    from server.storage.database import Database
    from server.storage.gamelog import GameLog

log = logging.getLogger(__name__)

SESSIONS_TOPIC = "sessions"
"""The bus topic of revoked sessions: ``{"revoked": [session ids], "from": instance}``."""

RECENT_REVOKED = 4096
"""Revoked session ids remembered, so a socket authenticated just before its session
was revoked, and attached just after, is closed too."""


class LiveContext:
    """What an actor needs from the server."""

    def __init__(self, services: Services, rooms: LiveRooms) -> None:
        self.services = services
        self.journal = Journal(services.db)
        self.bots = BotRunner(services.settings.bot_searches)
        self._rooms = rooms

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def db(self) -> Database:
        return self.services.db

    @property
    def gamelog(self) -> GameLog:
        return self.services.gamelog

    @property
    def metrics(self) -> Metrics:
        return self.services.metrics

    def new_seed(self) -> str:
        """A new round's deal seed: 128 random bits (the browser tests script it by
        replacing ``secrets`` in this module, web/e2e/serve.py)."""
        return secrets.token_hex(16)

    def forget(self, actor: RoomActor) -> None:
        self._rooms.forget(actor)

    def match_over(self, room_id: str) -> None:
        """The actor stored the match result: tell the listeners (off the actor's path)."""
        self._rooms.match_over(room_id)


class LiveRooms:
    """Running room actors of this process; also the room service's event sink."""

    def __init__(self, services: Services, forward: RoomEvents | None = None) -> None:
        self.services = services
        self.ctx = LiveContext(services, self)
        self.actors: dict[str, RoomActor] = {}
        self._forward = forward
        self._locks: dict[str, asyncio.Lock] = {}
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._notices: set[asyncio.Task[None]] = set()
        self._sessions_task: asyncio.Task[None] | None = None
        self._quick_task: asyncio.Task[None] | None = None
        # Not ``secrets``: the browser tests script that module's token_hex (new_seed).
        self._instance = os.urandom(8).hex()
        self._revoked: set[str] = set()
        self._revoked_order: deque[str] = deque()
        self.watching = asyncio.Event()
        """Set once this instance listens to the other instances' revocations."""
        self.started = False

    @property
    def settings(self) -> Settings:
        """The server's settings: the live rooms' pacing is read from them."""
        return self.services.settings

    async def start(self) -> None:
        """Start the journal and restore every room whose match is being played."""
        self.ctx.journal.start()
        self.started = True
        self._sessions_task = asyncio.create_task(self._watch_sessions())
        self._quick_task = asyncio.create_task(self._quick_start_loop())
        try:
            room_ids = await self.services.gamelog.unfinished_rooms()
        except Exception:  # the database is down: serve anyway (/healthz reports it)
            log.exception("room_restore_skipped")
            # Rooms booted later (when their players come) are marked alive from then on.
            self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())
            return
        for room_id in room_ids:
            try:
                await self.actor(room_id)
            except Exception:
                log.exception("room_restore_failed", extra={"room_id": room_id})
        # Only now: every restored room has read the last_alive of the previous run.
        self._heartbeat_task = asyncio.create_task(self._heartbeat_loop())

    def _playing(self) -> list[RoomActor]:
        return [a for a in self.actors.values() if a.status == "playing" and not a.stopped]

    async def heartbeat(self, actors: list[RoomActor] | None = None) -> None:
        """Record that this server is playing its rooms now (``rooms.last_alive``), with
        each room's turn clock (what a restart gives the turn)."""
        playing = self._playing() if actors is None else actors
        clocks = {a.room_id: a.timers.clock(a.loop.time()) for a in playing}
        try:
            await self.services.gamelog.mark_alive(clocks)
        except Exception as exc:  # the database is down: the next beat will do
            log.warning("heartbeat_failed", extra={"error": repr(exc)})

    async def _heartbeat_loop(self) -> None:
        """Every ``heartbeat_seconds``: a restart measures the downtime from the last beat."""
        while True:
            await self.heartbeat()
            await asyncio.sleep(self.settings.heartbeat_seconds)

    async def _quick_start_loop(self) -> None:
        """Start the quick start rooms whose wait is over (server/rooms/quickstart.py):
        every second, or a quarter of the wait when it is shorter."""
        every = max(0.05, min(1.0, self.settings.quick_start_wait_seconds / 4))
        while True:
            try:
                await self.services.quick.start_due()
            except Exception as exc:  # the database is down: the next look will do
                log.warning("quick_start_loop_failed", extra={"error": repr(exc)})
            await asyncio.sleep(every)

    async def stop(self) -> None:
        """Stop every actor, record the time of the stop, then stop the journal."""
        for task in (self._heartbeat_task, self._sessions_task, self._quick_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._heartbeat_task = self._sessions_task = self._quick_task = None
        playing = self._playing() if self.started else []
        actors = list(self.actors.values())
        for actor in actors:
            actor.post("stop")
        for actor in actors:
            if actor.task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(actor.task), 5)
                except (TimeoutError, Exception):
                    actor.task.cancel()
                    with contextlib.suppress(BaseException):
                        await actor.task
        self.actors.clear()
        if self._notices:
            await asyncio.wait(set(self._notices), timeout=5)
        # The last beat: the rooms were played until now (their actors have stopped).
        await self.heartbeat(playing)
        self.ctx.bots.close()
        await self.ctx.journal.stop()
        self.started = False

    def forget(self, actor: RoomActor) -> None:
        if self.actors.get(actor.room_id) is actor:
            del self.actors[actor.room_id]

    async def actor(self, room_id: str) -> RoomActor:
        """The room's running actor, started (and booted) if needed."""
        while True:
            actor = self.actors.get(room_id)
            if actor is None:
                lock = self._locks.setdefault(room_id, asyncio.Lock())
                async with lock:
                    actor = self.actors.get(room_id)
                    if actor is None:
                        actor = RoomActor(room_id, self.ctx)
                        self.actors[room_id] = actor
                        actor.start()
                self._locks.pop(room_id, None)
            await actor.booted.wait()
            if actor.boot_error is not None:
                raise actor.boot_error
            if not actor.stopped:
                return actor

    async def attach(self, room_id: str, conn: Conn) -> RoomActor:
        """The room's actor with ``conn`` registered on it (before its hello)."""
        while True:
            actor = await self.actor(room_id)
            if not actor.stopped:
                actor.conns.append(conn)
                if conn.session_id in self._revoked:
                    actor.post("revoked", frozenset((conn.session_id,)))
                return actor

    # -- revoked sessions -------------------------------------------------------

    async def sessions_revoked(self, session_ids: list[str]) -> None:
        """Close the sockets opened with these sessions' tokens: here at once, on the
        other instances through the bus (best effort: the tokens are refused anyway)."""
        if not session_ids:
            return
        self._close_revoked(session_ids)
        try:
            await self.services.bus.publish(
                SESSIONS_TOPIC, {"revoked": session_ids, "from": self._instance}
            )
        except Exception as exc:  # Redis away: this instance's sockets are closed
            log.warning("sessions_publish_failed", extra={"error": repr(exc)})

    def _close_revoked(self, session_ids: list[str]) -> None:
        for sid in session_ids:
            if sid not in self._revoked:
                self._revoked.add(sid)
                self._revoked_order.append(sid)
        while len(self._revoked_order) > RECENT_REVOKED:
            self._revoked.discard(self._revoked_order.popleft())
        ids = frozenset(session_ids)
        for actor in list(self.actors.values()):
            if not actor.stopped:
                actor.post("revoked", ids)

    async def _watch_sessions(self) -> None:
        """Close the sockets of sessions another instance revoked."""
        try:
            async with self.services.bus.subscribe(SESSIONS_TOPIC) as sub:
                self.watching.set()
                async for message in sub:
                    ids = _revoked_ids(message, self._instance)
                    if ids:
                        self._close_revoked(ids)
        except asyncio.CancelledError:
            raise
        except Exception:  # never let it die silently; revocation still holds in the db
            log.exception("sessions_watch_failed")

    # -- RoomEvents -----------------------------------------------------------

    async def room_changed(self, room: RoomView) -> None:
        actor = self.actors.get(room.id)
        if actor is not None and not actor.stopped:
            actor.post("room_changed", room)
        if self._forward is not None:
            await self._forward.room_changed(room)

    async def room_started(self, room: RoomView) -> None:
        if self.started:
            actor = await self.actor(room.id)
            actor.post("started")
        if self._forward is not None:
            await self._forward.room_started(room)

    async def room_finished(self, room: RoomView) -> None:
        if self._forward is not None:
            await self._forward.room_finished(room)

    def match_over(self, room_id: str) -> None:
        """Announce a finished match as :meth:`room_finished` in a task of its own."""
        task = asyncio.create_task(self._announce_finished(room_id))
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _announce_finished(self, room_id: str) -> None:
        try:
            room = await self.services.rooms.room_view(room_id)
            await self.room_finished(room)
        except Exception as exc:  # a notification must never break a room
            log.warning(
                "room_finished_notice_failed", extra={"room_id": room_id, "error": repr(exc)}
            )


def _revoked_ids(message: dict[str, Any], instance: str) -> list[str]:
    """The session ids of a ``sessions`` message another instance sent (else none).

    >>> _revoked_ids({"revoked": ["a", "b"], "from": "x"}, "y"), _revoked_ids({}, "y")
    (['a', 'b'], [])
    >>> _revoked_ids({"revoked": ["a"], "from": "y"}, "y")
    []
    """
    ids = message.get("revoked")
    if message.get("from") == instance or not isinstance(ids, list):
        return []
    return [i for i in ids if isinstance(i, str)]
