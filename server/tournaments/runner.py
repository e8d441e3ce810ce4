"""The server task that moves the tournaments on, from what the database says.

Every ``REMI_TOURNAMENT_TICK_SECONDS`` (and when woken: a registration), :meth:`tick`:

1. opens the configured series' tournaments (``REMI_TOURNAMENT_SERIES``: a sit-and-go
   always has one open, a scheduled one opens a day ahead);
2. starts those that are due (a full sit-and-go, a scheduled one at its time): the first
   stage's tables;
3. moves every running tournament on whose stage is over: the next stage's tables, or
   the prizes at the end.

It keeps nothing in memory: each step reads the database and is a transaction made once
(:mod:`server.tournaments.store`), so a restarted server, another server beside it, or a
step retried after a failure goes on from where the tournament is, never starting a
stage twice nor paying a prize twice. The tables are rooms already playing when their
stage's transaction commits; the live side is told then (``room_started``; again at the
next tick if that failed), and a server that stopped before telling it restores them at
its start as every playing room.

``clock`` gives "now" (tests move it instead of waiting for a scheduled time).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, cast

from sqlalchemy import Row, Table, and_, select

from server.rooms.lobby.service import RoomService
from server.settings import Settings, TournamentSeries
from server.storage.database import Database
from server.storage.models import Room, Tournament, TournamentTable, utcnow
from server.tournaments import store
from server.tournaments.service import Tournaments

log = logging.getLogger(__name__)

_TOURNAMENTS = cast(Table, Tournament.__table__)
_TABLES = cast(Table, TournamentTable.__table__)
_ROOMS = cast(Table, Room.__table__)


class RunnerServices(Protocol):
    """What the runner uses of the server's services (:class:`server.services.Services`)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def db(self) -> Database: ...
    @property
    def tournaments(self) -> Tournaments: ...
    @property
    def rooms(self) -> RoomService: ...


def _has_open(spec: TournamentSeries, rows: list[Row[Any]], now: datetime) -> bool:
    """Whether the series has its tournament open already (among ``rows``): any one
    registering for a sit-and-go, the one of its next time for a scheduled one."""
    mine = [r for r in rows if r.series == spec.series and r.status == "registering"]
    if spec.at is None:
        return bool(mine)
    when = store.next_time(spec.at, now)
    return any(r.starts_at == when for r in mine)


class TournamentRunner:
    """The tournaments' task (module doc); :meth:`start` it, :meth:`stop` it."""

    def __init__(self, services: RunnerServices, clock: Callable[[], datetime] = utcnow) -> None:
        self.services = services
        self.clock = clock
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._unannounced: list[str] = []  # tables the live side was not told of yet
        services.tournaments.changed = self.wake

    def start(self) -> None:
        """Start the task on the running loop."""
        if self._task is None:
            self._wake = asyncio.Event()
            self._task = asyncio.create_task(self._loop(), name="tournaments")

    async def stop(self) -> None:
        """Stop the task (a step in flight is rolled back, or committed: either is fine)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    def wake(self) -> None:
        """Look at the tournaments now."""
        self._wake.set()

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away, say: the next tick tries again
                log.exception("tournament_tick_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._wake.wait(), self.services.settings.tournament_tick_seconds
                )
            self._wake.clear()

    async def tick(self) -> None:
        """One look at every tournament (module doc); returns when it is done. Only the
        steps that are due are tried: an idle tick is two reads."""
        settings = self.services.settings
        now = self.clock()
        if self._unannounced:
            retry, self._unannounced = self._unannounced, []
            await self._announce(retry)
        rows = await self._listed()
        for spec in settings.tournament_series:
            if not _has_open(spec, rows, now):
                await self._step("open", store.open_series, spec, settings.tournament_prizes, now)
        for row in rows:
            if store.is_due(row, now):
                await self._step("start", store.start, row.id, now, settings.tournament_min_players)
        for tid in await self._stage_over([r.id for r in rows if r.status == "running"]):
            await self._step("advance", store.advance, tid, now)

    async def _step(self, what: str, fn: Callable[..., object], *args: object) -> None:
        """One change in its transaction, then the tables it made announced; a failure is
        logged and the other tournaments go on (this one at the next tick)."""
        try:
            made = await self.services.tournaments.run(fn, *args)
        except Exception:
            log.exception("tournament_step_failed", extra={"step": what})
            return
        if isinstance(made, list):
            await self._announce([str(r) for r in made])

    async def _listed(self) -> list[Row[Any]]:
        """The tournaments open for registration or running."""
        t = _TOURNAMENTS
        async with self.services.db.engine.connect() as conn:
            rows = await conn.execute(select(t).where(t.c.status.in_(("registering", "running"))))
            return list(rows.all())

    async def _stage_over(self, running: list[str]) -> list[str]:
        """The running tournaments none of whose current stage's tables is being played."""
        if not running:
            return []
        t, tables, rooms = _TOURNAMENTS, _TABLES, _ROOMS
        playing = (
            select(tables.c.tournament_id)
            .join(t, and_(t.c.id == tables.c.tournament_id, t.c.stage == tables.c.stage))
            .join(rooms, rooms.c.id == tables.c.room_id)
            .where(t.c.id.in_(running), rooms.c.status != "finished")
        )
        async with self.services.db.engine.connect() as conn:
            busy = set((await conn.execute(playing)).scalars())
        return [tid for tid in running if tid not in busy]

    async def _announce(self, room_ids: list[str]) -> None:
        """Tell the live side that these tables are playing (they deal their first round)."""
        rooms = self.services.rooms
        for room_id in room_ids:
            try:
                await rooms.events.room_started(await rooms.room_view(room_id))
            except Exception:  # told again at the next tick (and restored at a restart)
                log.exception("tournament_table_not_announced", extra={"room_id": room_id})
                self._unannounced.append(room_id)
