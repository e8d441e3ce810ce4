"""The live side of the rooms: the set of running room actors.

:class:`LiveRooms` creates a :class:`~server.rooms.actor.RoomActor` when a
connection arrives or the owner starts a match, restores every playing room
at start-up, and listens to the lobby (it is the
:class:`~server.rooms.service.RoomEvents` of the room service).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from typing import TYPE_CHECKING

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from server.rooms.actor import Conn, RoomActor
from server.rooms.journal import Journal

if TYPE_CHECKING:
    from server.metrics import Metrics
    from server.rooms.service import RoomEvents, RoomView
    from server.services import Services
    from server.settings import Settings
    from server.storage.database import Database
    from server.storage.gamelog import GameLog

log = logging.getLogger(__name__)


class LiveConfig(BaseSettings):
    """Pacing of the live rooms (environment prefix ``REMI_``)."""

    model_config = SettingsConfigDict(env_prefix="REMI_", extra="ignore")

    bot_delay_seconds: float = Field(
        default=0.8, ge=0, description="Pause before each move of a bot (0 in tests)."
    )
    round_pause_seconds: float = Field(
        default=5.0, ge=0, description="Pause between a round's end and the next deal."
    )
    turn_time_scale: float = Field(
        default=1.0, gt=0, description="Multiplier of every room's turn time (tests use < 1)."
    )
    idle_actor_seconds: float = Field(
        default=30.0, ge=0, description="A non-playing room with no connection stops after this."
    )
    version_block: int = Field(
        default=1000, ge=32, description="Versions reserved in the database at a time."
    )
    gc_freeze: bool = Field(
        default=True,
        description="After start-up, move every object alive to the garbage collector's "
        "permanent generation (shorter full collections, fewer latency spikes).",
    )
    gc_freeze_interval_seconds: float = Field(
        default=30.0,
        ge=0,
        description="Every so often, freeze what is alive (connections, rooms) so that full "
        "collections only walk young objects; 0 = only once after start-up.",
    )
    gc_full_every: int = Field(
        default=20,
        ge=1,
        description="Every Nth interval, unfreeze and collect everything once instead "
        "(reclaims cyclic garbage among frozen objects).",
    )
    send_queue_limit: int = Field(
        default=512, ge=8, description="Frames queued for a client before it is dropped as slow."
    )


class LiveContext:
    """What an actor needs from the server."""

    def __init__(self, services: Services, config: LiveConfig, rooms: LiveRooms) -> None:
        self.services = services
        self.config = config
        self.journal = Journal(services.db)
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

    def forget(self, actor: RoomActor) -> None:
        self._rooms.forget(actor)


class LiveRooms:
    """Running room actors of this process; also the room service's event sink."""

    def __init__(
        self,
        services: Services,
        config: LiveConfig | None = None,
        forward: RoomEvents | None = None,
    ) -> None:
        self.services = services
        self.ctx = LiveContext(services, config or LiveConfig(), self)
        self.actors: dict[str, RoomActor] = {}
        self._forward = forward
        self._locks: dict[str, asyncio.Lock] = {}
        self._gc_task: asyncio.Task[None] | None = None
        self.started = False

    @property
    def config(self) -> LiveConfig:
        return self.ctx.config

    @config.setter
    def config(self, value: LiveConfig) -> None:
        self.ctx.config = value

    async def start(self) -> None:
        """Start the journal and restore every room whose match is being played."""
        self.ctx.journal.start()
        self.started = True
        try:
            room_ids = await self.services.gamelog.unfinished_rooms()
        except Exception:  # the database is down: serve anyway (/healthz reports it)
            log.exception("room_restore_skipped")
            return
        for room_id in room_ids:
            try:
                await self.actor(room_id)
            except Exception:
                log.exception("room_restore_failed", extra={"room_id": room_id})
        if self.config.gc_freeze:
            gc.collect()
            gc.freeze()
            if self.config.gc_freeze_interval_seconds > 0:
                self._gc_task = asyncio.create_task(self._gc_loop())

    async def _gc_loop(self) -> None:
        """Keep full collections short: long-lived objects go to the permanent generation."""
        n = 0
        while True:
            await asyncio.sleep(self.config.gc_freeze_interval_seconds)
            n += 1
            if n % self.config.gc_full_every == 0:
                gc.unfreeze()
                gc.collect()
            gc.freeze()

    async def stop(self) -> None:
        """Stop every actor, then the journal."""
        if self._gc_task is not None:
            self._gc_task.cancel()
            self._gc_task = None
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
