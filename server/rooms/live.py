"""The live side of the rooms: the set of running room actors.

:class:`LiveRooms` creates a :class:`~server.rooms.actor.RoomActor` when a
connection arrives or the owner starts a match, restores every playing room
at start-up, and listens to the lobby (it is the
:class:`~server.rooms.service.RoomEvents` of the room service). Its pacing (bot
delay, round pause, turn time scale, ...) is read from the injected
:class:`~server.settings.Settings`, like everything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import TYPE_CHECKING

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
        self.started = False

    @property
    def settings(self) -> Settings:
        """The server's settings: the live rooms' pacing is read from them."""
        return self.services.settings

    async def start(self) -> None:
        """Start the journal and restore every room whose match is being played."""
        self.ctx.journal.start()
        self.started = True
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

    async def stop(self) -> None:
        """Stop every actor, record the time of the stop, then stop the journal."""
        task = self._heartbeat_task
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._heartbeat_task = None
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
                return actor

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
