"""Quick start: one button per variant seats the player at a table.

:meth:`QuickStart.join` (``POST /api/quickstart``), in one transaction:

0. the request carries a ``request_id`` the player sent in the last
   ``REMI_QUICK_START_REQUEST_SECONDS``: the room that request gave, whatever its status
   (a retry after the table filled and started gets that table, not a new room; the
   ``quick_requests`` table keeps it, so it holds across nodes and restarts);
1. the player already sits in a waiting room of this variant and stake: that room (a
   second press changes nothing);
2. else the first public waiting quick start room of this variant and stake with a free
   seat, the oldest first: the player takes its first free seat (a room's
   ``min_balance`` is its stake: 0 means none). Normal rooms are never joined: they
   start when their owner says so, and the owner may have gone;
3. else a new quick start room (kind ``quick``, settled like a normal one,
   docs/economy.md): ``REMI_QUICK_START_SEATS`` seats, ``REMI_QUICK_START_ROUNDS``
   rounds, bots for the seats still empty when it starts, and ``start_at`` =
   now + ``REMI_QUICK_START_WAIT_SECONDS``.

A quick start room whose seats are all taken starts at once; else the live rooms start
it at its ``start_at`` (:meth:`QuickStart.start_due`, every second or so, on any
instance: a start locks the room and checks that it still waits, so it happens once).
``start_at`` is in the database, so a restarted server starts the rooms it missed.

Two players pressing the button at once land at the same table: the transaction holds
a lock named after the variant and stake (:mod:`server.storage.locks`; on SQLite the
writers run one at a time anyway), so the second press finds the room the first one
opened or joined.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from server.accounts.identity import PlayerInfo
from server.economy.ledger import room_kind
from server.errors import Code, ServerError
from server.rooms.lobby.options import RoomSettings, RoundsEnd
from server.rooms.lobby.service import RoomService, RoomView
from server.rules.variants import VARIANTS, get_variant
from server.settings import Settings
from server.storage.database import Database
from server.storage.locks import lock_async
from server.storage.models import QuickRequest, Room, Seat, utcnow

log = logging.getLogger(__name__)

JOINED_KINDS = ("quick",)
"""Kinds of the waiting rooms a quick start may seat a player at: only rooms the server
itself starts (at their ``start_at``, or at once when full). A normal room waits for its
owner, who may have gone: a quick start never seats anyone there."""


def lane(variant: str, stake: int) -> str:
    """The lock name of the quick starts of a variant and stake."""
    return f"quick:{variant}:{stake}"


class QuickStart:
    """Seat a player at a waiting table of a variant and stake, or open one (module doc)."""

    def __init__(self, db: Database, settings: Settings, rooms: RoomService) -> None:
        self._db = db
        self._settings = settings
        self._rooms = rooms

    def room_settings(self, variant: str, stake: int) -> RoomSettings:
        """The settings of a new quick start room of this variant and stake."""
        s = self._settings
        return RoomSettings(
            variant=variant,
            seats=s.quick_start_seats,
            end=RoundsEnd(kind="rounds", rounds=s.quick_start_rounds),
            public=True,
            fill_with_bots=True,
            joker_button=get_variant(variant).family.joker_button,
            kind="quick",
            min_balance=stake or None,
        )

    async def join(
        self, player: PlayerInfo, variant: str, stake: int = 0, request_id: str | None = None
    ) -> RoomView:
        """Seat the player at a table of ``variant`` and ``stake`` (module doc); the same
        ``request_id`` again gives the same room."""
        if variant not in VARIANTS:
            raise ServerError(
                Code.INVALID_REQUEST, f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}"
            )
        rooms = self._rooms
        how, start_now = "again", False
        async with self._db.transaction() as session:
            await lock_async(session, [lane(variant, stake)])
            if request_id is not None:
                known = await self._requested(session, player.id, request_id)
                if known is not None:
                    return await rooms.view_in(session, known, player.id)
            candidates = await self._waiting(session, variant, stake)
            seat_map = await rooms.seats_of(session, [r.id for r in candidates])
            room = next(
                (
                    r
                    for r in candidates
                    if any(s.player_id == player.id for s in seat_map.get(r.id, []))
                ),
                None,
            )
            if room is None:
                room = next((r for r in candidates if _free(seat_map.get(r.id, []))), None)
                if room is not None:
                    how = "joined"
                    await self._sit(session, room, seat_map[room.id], player.id)
                    start_now = room_kind(room.settings) == "quick" and not _free(seat_map[room.id])
                    if start_now:
                        room.start_at = utcnow()
                else:
                    how = "opened"
                    wait = timedelta(seconds=self._settings.quick_start_wait_seconds)
                    room = await rooms.new_room(
                        session, player.id, self.room_settings(variant, stake), utcnow() + wait
                    )
            if request_id is not None:
                session.add(
                    QuickRequest(player_id=player.id, request_id=request_id, room_id=room.id)
                )
            view = await rooms.view_in(session, room, player.id)
        if how == "again":
            return view
        log.info(
            "quick_start",
            extra={"room_id": view.id, "player_id": player.id, "variant": variant, "how": how},
        )
        await rooms.events.room_changed(view)
        if start_now and await rooms.start_due(view.id) is not None:
            return await rooms.get_room(view.id, player.id)
        return view

    async def _requested(
        self, session: AsyncSession, player_id: str, request_id: str
    ) -> Room | None:
        """The room this request of the player gave within the kept time, if any; the
        player's older requests are forgotten here."""
        since = utcnow() - timedelta(seconds=self._settings.quick_start_request_seconds)
        await session.execute(
            delete(QuickRequest).where(
                QuickRequest.player_id == player_id, QuickRequest.created_at < since
            )
        )
        known = await session.get(QuickRequest, (player_id, request_id))
        if known is None:
            return None
        return await session.get(Room, known.room_id)

    async def _waiting(self, session: AsyncSession, variant: str, stake: int) -> list[Room]:
        """The public waiting rooms of the variant and stake a quick start may join, in the
        order it tries them."""
        rows = await session.scalars(
            select(Room)
            .where(
                Room.public.is_(True),
                Room.status == "waiting",
                Room.settings["variant"].as_string() == variant,
            )
            .order_by(Room.created_at, Room.id)
            .with_for_update()
        )
        found = [
            r
            for r in rows
            if room_kind(r.settings) in JOINED_KINDS
            and int(r.settings.get("min_balance") or 0) == stake
        ]
        found.sort(key=lambda r: JOINED_KINDS.index(room_kind(r.settings)))  # stable
        return found

    async def _sit(
        self, session: AsyncSession, room: Room, seats: list[Seat], player_id: str
    ) -> None:
        """The player on the room's first free seat; a dormant quick room wakes up."""
        free = _free(seats)[0]
        await self._rooms.sit_in(session, room, seats, free, player_id)
        if room_kind(room.settings) == "quick" and room.start_at is None:
            room.start_at = utcnow() + timedelta(seconds=self._settings.quick_start_wait_seconds)
        room.version += 1

    async def start_due(self) -> int:
        """Start every waiting room whose ``start_at`` has come; returns how many."""
        started = 0
        for room_id in await self._rooms.due_rooms():
            try:
                if await self._rooms.start_due(room_id) is not None:
                    started += 1
            except ServerError as exc:  # changed meanwhile (say the owner started it)
                log.info("quick_start_skipped", extra={"room_id": room_id, "code": exc.code})
        return started


def _free(seats: list[Seat]) -> list[Seat]:
    """The seats with neither a player nor a bot."""
    return [s for s in seats if s.player_id is None and s.bot_level is None]
