"""Room service: the lobby-side life of a room, shared by the HTTP API and the room actor.

Everything here is one short database transaction; nothing is kept in memory,
so any number of callers (HTTP handlers, the room actor, tests) can use one
:class:`RoomService`. A room moves ``waiting`` → ``playing`` (``start``) →
``finished`` (:meth:`server.storage.gamelog.GameLog.record_match`). Seats can
change only while the room is waiting.

The commands that change a room (seats, start) take the
:class:`~server.storage.leases.Fence` of the node that plays the room: made only while
that node still holds the room's lease, checked in the same transaction, else
:class:`~server.storage.leases.Fenced` (the HTTP routes run them on the room's owner,
:meth:`server.rooms.live.LiveRooms.command`).

Every failure is a :class:`~server.errors.ServerError` carrying a stable
:class:`~server.errors.Code` and a human message; the HTTP edge
(server/api/errors.py) chooses the status.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server import cursors
from server.accounts.identity import PlayerInfo, new_id
from server.economy.arena import arena_terms, take_stakes
from server.economy.ledger import room_kind
from server.errors import Code, ServerError
from server.rooms.lobby.options import ASKED_KINDS, RoomKind, RoomSettings
from server.settings import Settings
from server.storage.database import Database
from server.storage.leases import Fence, check_fence
from server.storage.models import (
    ROOM_STATUSES,
    MatchResult,
    Player,
    Room,
    RoundScore,
    Seat,
    utcnow,
)

log = logging.getLogger(__name__)

INVITE_CODE_BYTES = 12
"""Random bytes in an invite code (96 bits, 16 URL-safe characters)."""


def _not_found(room_id: str) -> ServerError:
    return ServerError(Code.ROOM_NOT_FOUND, f"no room {room_id!r}")


# --- views -------------------------------------------------------------------


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class PlayerRef(_View):
    """A player as others see them."""

    id: str
    display_name: str


class SeatView(_View):
    """Who sits on a seat: a player, a bot (``bot_level``), or nobody."""

    seat: int
    player: PlayerRef | None = None
    bot_level: str | None = None


class RoomView(_View):
    """A room as seen by one viewer (the invite code only for its members)."""

    id: str
    status: str
    version: int
    owner: PlayerRef
    kind: RoomKind = Field(
        description="The room's kind, decided by the server when it was made and never "
        "changed: practice (settles nothing, rates nothing), normal, quick, arena, tournament."
    )
    settings: RoomSettings
    created_at: datetime
    started_at: datetime | None
    seats: list[SeatView]
    free_seats: int
    invite_code: str | None = Field(
        default=None, description="Private rooms, shown to the owner and seated players."
    )
    your_seat: int | None = Field(default=None, description="The viewer's seat, if any.")
    starts_in: float | None = Field(
        default=None,
        description="A waiting quick start room: seconds from this answer until it starts by "
        "itself, bots in its empty seats; null for a room its owner starts.",
    )
    next_room: str | None = Field(
        default=None,
        description='A finished room played again: the id of the room its first "play '
        'again" made (POST /api/rooms/{id}/again), shown to its members only.',
    )


class InviteView(_View):
    """What an invite link opens on before anyone signs in: the room's variant and who
    invites, nothing else."""

    variant: str = Field(description="The room's variant, an id of GET /api/variants.")
    host: str = Field(description="The display name of the room's owner.")


class RoundLine(_View):
    """One finished round on the score sheet: each seat's addition."""

    number: int
    scores: list[int | None]


class ScoreSheet(_View):
    """A room's scores: each round's additions and the totals."""

    room_id: str
    status: str
    seats: list[SeatView]
    rounds: list[RoundLine]
    totals: list[int]
    finished: bool
    winners: list[int] | None = None


class MatchSummary(_View):
    """One finished match in a player's history."""

    room_id: str
    variant: str
    kind: str = Field(description="The room's kind: practice, normal, quick, arena, tournament.")
    public: bool = Field(description="False: a private room (listed only to its players).")
    finished_at: datetime
    rounds_played: int
    seat: int
    seats: list[SeatView]
    totals: list[int]
    winners: list[int]
    won: bool


# --- hooks for the live side -------------------------------------------------


class RoomEvents(Protocol):
    """What the live side (the room actors) is told about lobby changes."""

    async def room_changed(self, room: RoomView) -> None:
        """Seats or settings of a waiting room changed."""

    async def room_started(self, room: RoomView) -> None:
        """The owner started the match: the actor should deal round 1."""

    async def room_finished(self, room: RoomView) -> None:
        """The match ended (end condition met or abandoned); its result is stored."""


class NoRoomEvents:
    """The default :class:`RoomEvents`: nobody listens."""

    async def room_changed(self, room: RoomView) -> None:
        return None

    async def room_started(self, room: RoomView) -> None:
        return None

    async def room_finished(self, room: RoomView) -> None:
        return None


# --- the service -------------------------------------------------------------


class RoomService:
    """Create, list, join, seat and start rooms; read score sheets and histories."""

    def __init__(self, db: Database, settings: Settings, events: RoomEvents | None = None) -> None:
        self._db = db
        self._settings = settings
        self.events: RoomEvents = events if events is not None else NoRoomEvents()

    # -- commands ---------------------------------------------------------

    async def create_room(self, owner: PlayerInfo, settings: RoomSettings) -> RoomView:
        """Create a waiting room; the owner takes seat 0. The kind is the one asked for
        (practice, normal or arena: :data:`ASKED_KINDS`); it never changes afterwards."""
        if settings.kind not in ASKED_KINDS:
            raise ServerError(
                Code.INVALID_REQUEST,
                f"a room of kind {settings.kind!r} is made by the server only; ask for one of "
                f"{', '.join(ASKED_KINDS)}",
            )
        async with self._db.transaction() as session:
            room = await self.new_room(session, owner.id, settings)
            view = await self.view_in(session, room, owner.id)
        log.info(
            "room_created",
            extra={"room_id": room.id, "owner_id": owner.id, "variant": settings.variant},
        )
        await self.events.room_changed(view)  # the lobby hears of a new room at once
        return view

    async def new_room(
        self,
        session: AsyncSession,
        owner_id: str,
        settings: RoomSettings,
        start_at: datetime | None = None,
    ) -> Room:
        """A waiting room in ``session``'s transaction, the owner on seat 0 (after the
        room's ``min_balance`` check); ``start_at``: when it starts by itself."""
        if settings.turn_seconds is None:
            settings = settings.model_copy(
                update={"turn_seconds": self._settings.default_turn_seconds}
            )
        # an arena table's stake and payout table
        settings = settings.model_copy(update=arena_terms(settings, self._settings))
        room = Room(
            id=new_id(),
            invite_code=None if settings.public else secrets.token_urlsafe(INVITE_CODE_BYTES),
            owner_id=owner_id,
            public=settings.public,
            settings=settings.model_dump(mode="json"),
            status="waiting",
            version=1,
            created_at=utcnow(),
            start_at=start_at,
        )
        await self._check_balance(session, room, owner_id)
        session.add(room)
        await session.flush()
        session.add_all(
            Seat(room_id=room.id, seat=i, player_id=owner_id if i == 0 else None)
            for i in range(settings.seats)
        )
        await session.flush()
        return room

    async def take_seat(
        self,
        room_id: str,
        seat: int,
        player: PlayerInfo,
        code: str | None = None,
        fence: Fence | None = None,
    ) -> RoomView:
        """Sit ``player`` on ``seat`` (moving them if already seated)."""
        async with self._db.transaction() as session:
            await check_fence(session, fence)
            room = await self._load_room(session, room_id, for_update=True)
            seats = await self._seats(session, room.id)
            self._check_access(room, player.id, code, seats)
            self._check_waiting(room)
            if not 0 <= seat < len(seats):
                raise ServerError(Code.INVALID_SEAT, f"seat must be between 0 and {len(seats) - 1}")
            target = seats[seat]
            if target.player_id != player.id:
                if target.player_id is not None or target.bot_level is not None:
                    raise ServerError(Code.SEAT_TAKEN, f"seat {seat} is taken")
                await self.sit_in(session, room, seats, target, player.id)
                room.version += 1
            view = await self.view_in(session, room, player.id)
        log.info("seat_taken", extra={"room_id": room_id, "player_id": player.id, "seat": seat})
        await self.events.room_changed(view)
        return view

    async def room_of_code(self, code: str) -> str:
        """The id of the room with this invite code (``invite_not_found`` if none)."""
        async with self._db.transaction() as session:
            room_id = await session.scalar(select(Room.id).where(Room.invite_code == code))
        if room_id is None:
            raise ServerError(Code.INVITE_NOT_FOUND, "no room has this invite code")
        return room_id

    async def invite(self, code: str) -> InviteView:
        """What an invite code opens: its room's variant and owner's name
        (``invite_not_found`` if no room has it)."""
        async with self._db.transaction() as session:
            room = await session.scalar(select(Room).where(Room.invite_code == code))
            if room is None:
                raise ServerError(Code.INVITE_NOT_FOUND, "no room has this invite code")
            owner = await session.get(Player, room.owner_id)
        return InviteView(
            variant=RoomSettings.model_validate(room.settings).variant,
            host=_ref(owner, room.owner_id).display_name,
        )

    async def play_again(self, room_id: str, player: PlayerInfo) -> tuple[RoomView, str | None]:
        """A finished match played again by one of its players. The first to ask makes a
        private room with the same settings (a quick start table's become a normal
        room's), owns it and sits on seat 0; the room remembers it (``next_room``, which
        its other players see). Returns that room's view and, to a later player, the
        new room's invite code to join it with (None to its maker). A room still being
        played: ``match_not_over``; a tournament's table is not played again."""
        async with self._db.transaction() as session:
            room = await self._load_room(session, room_id, for_update=True)
            seats = await self._seats(session, room.id)
            self._check_access(room, player.id, None, seats)
            if not any(s.player_id == player.id for s in seats):
                raise ServerError(Code.NOT_SEATED, "only the match's players play it again")
            if room.status != "finished":
                raise ServerError(Code.MATCH_NOT_OVER, "the match is still being played")
            made = await session.get(Room, room.next_room_id) if room.next_room_id else None
            if made is not None:
                return await self.view_in(session, made, player.id), made.invite_code
            settings = RoomSettings.model_validate(room.settings)
            if settings.kind == "tournament":
                raise ServerError(Code.INVALID_REQUEST, "a tournament's table is not played again")
            kind = "normal" if settings.kind == "quick" else settings.kind
            again = settings.model_copy(update={"public": False, "kind": kind})
            new = await self.new_room(session, player.id, RoomSettings.model_validate(again))
            room.next_room_id = new.id
            view = await self.view_in(session, new, player.id)
        log.info(
            "room_played_again",
            extra={"room_id": new.id, "owner_id": player.id, "after": room_id},
        )
        await self.events.room_changed(view)
        return view, None

    async def join_by_code(
        self, code: str, player: PlayerInfo, fence: Fence | None = None
    ) -> RoomView:
        """Find a private room by invite code; take its first free seat if waiting."""
        async with self._db.transaction() as session:
            await check_fence(session, fence)
            room = await session.scalar(
                select(Room).where(Room.invite_code == code).with_for_update()
            )
            if room is None or (fence is not None and room.id != fence.room_id):
                raise ServerError(Code.INVITE_NOT_FOUND, "no room has this invite code")
            seats = await self._seats(session, room.id)
            changed = False
            if room.status == "waiting" and not any(s.player_id == player.id for s in seats):
                free = [s for s in seats if s.player_id is None and s.bot_level is None]
                if not free:
                    raise ServerError(Code.ROOM_FULL, "every seat of this room is taken")
                await self.sit_in(session, room, seats, free[0], player.id)
                room.version += 1
                changed = True
            view = await self.view_in(session, room, player.id)
        if changed:
            log.info("room_joined", extra={"room_id": room.id, "player_id": player.id})
            await self.events.room_changed(view)
        return view

    async def leave_seat(
        self, room_id: str, player: PlayerInfo, fence: Fence | None = None
    ) -> RoomView:
        """Free the player's seat in a waiting room (a no-op if not seated)."""
        async with self._db.transaction() as session:
            await check_fence(session, fence)
            room = await self._load_room(session, room_id, for_update=True)
            seats = await self._seats(session, room.id)
            mine = [s for s in seats if s.player_id == player.id]
            if mine:
                self._check_waiting(room)
                mine[0].player_id = None
                room.version += 1
            view = await self.view_in(session, room, player.id)
        if mine:
            await self.events.room_changed(view)
        return view

    async def start(self, room_id: str, player: PlayerInfo, fence: Fence | None = None) -> RoomView:
        """Owner only: fill empty seats with bots (if chosen) and start the match."""
        async with self._db.transaction() as session:
            await check_fence(session, fence)
            room = await self._load_room(session, room_id, for_update=True)
            seats = await self._seats(session, room.id)
            self._check_access(room, player.id, None, seats)
            if room.owner_id != player.id:
                raise ServerError(Code.NOT_OWNER, "only the room's owner can start the match")
            self._check_waiting(room)
            bots = self._begin(room, seats)
            await self._take_stakes(session, room, seats)  # an arena table's, or no start
            view = await self.view_in(session, room, player.id)
        log.info("room_started", extra={"room_id": room_id, "bots": bots})
        await self.events.room_started(view)
        return view

    async def start_due(self, room_id: str) -> RoomView | None:
        """Start a waiting room whose ``start_at`` has come (quick start), its empty seats
        filled with bots; None when it is not due or not waiting any more, or when
        nobody sits in it (it then waits, with no ``start_at``, for a player)."""
        async with self._db.transaction() as session:
            room = await self._load_room(session, room_id, for_update=True)
            if room.status != "waiting" or room.start_at is None or room.start_at > utcnow():
                return None
            seats = await self._seats(session, room.id)
            if not any(s.player_id is not None for s in seats):
                room.start_at = None
                return None
            bots = self._begin(room, seats)
            view = await self.view_in(session, room, None)
        log.info("room_started", extra={"room_id": room_id, "bots": bots, "by": "start_at"})
        await self.events.room_started(view)
        return view

    async def owned_waiting(self, older_than: float, limit: int = 500) -> list[tuple[str, str]]:
        """``(room id, owner id)`` of the waiting rooms only their owner can start (the
        kinds a player asks for, :data:`ASKED_KINDS`; never quick start or tournament
        rooms, which the server starts) made more than ``older_than`` seconds ago, the
        oldest first."""
        since = utcnow() - timedelta(seconds=older_than)
        async with self._db.transaction() as session:
            rows = await session.execute(
                select(Room.id, Room.owner_id, Room.settings)
                .where(Room.status == "waiting", Room.created_at <= since)
                .order_by(Room.created_at)
                .limit(limit)
            )
            return [(r.id, r.owner_id) for r in rows if room_kind(r.settings) in ASKED_KINDS]

    async def close_waiting(self, room_id: str) -> RoomView | None:
        """Close a waiting room nobody can start any more (it is then finished, with no
        round played: it leaves the lobby); None when it no longer waits."""
        async with self._db.transaction() as session:
            room = await self._load_room(session, room_id, for_update=True)
            if room.status != "waiting":
                return None
            room.status = "finished"
            room.finished_at = utcnow()
            room.version += 1
            view = await self.view_in(session, room, None)
        log.info("room_closed", extra={"room_id": room_id, "reason": "owner_gone"})
        await self.events.room_finished(view)
        return view

    async def due_rooms(self, limit: int = 100) -> list[str]:
        """Waiting rooms whose ``start_at`` has come, the earliest first."""
        async with self._db.transaction() as session:
            return list(
                await session.scalars(
                    select(Room.id)
                    .where(Room.status == "waiting", Room.start_at <= utcnow())
                    .order_by(Room.start_at)
                    .limit(limit)
                )
            )

    @staticmethod
    async def _take_stakes(session: AsyncSession, room: Room, seats: list[Seat]) -> None:
        """An arena table's stakes into its pot (server/economy/arena.py), in the start's
        transaction: ``insufficient_balance`` (and no start) when one is not covered."""
        settings = RoomSettings.model_validate(room.settings)
        seated = [(s.seat, s.player_id) for s in seats if s.player_id is not None]
        await session.run_sync(
            lambda sync: take_stakes(sync.connection(), room.id, settings, seated)
        )

    @staticmethod
    def _begin(room: Room, seats: list[Seat]) -> int:
        """Fill the empty seats with bots (if the room says so) and mark the room playing;
        returns the bots added."""
        settings = RoomSettings.model_validate(room.settings)
        if not any(s.player_id is not None for s in seats):
            raise ServerError(Code.NO_PLAYERS, "nobody is seated")
        empty = [s for s in seats if s.player_id is None and s.bot_level is None]
        if empty and not settings.fill_with_bots:
            listed = ", ".join(str(s.seat) for s in empty)
            raise ServerError(
                Code.SEATS_EMPTY,
                f"seat(s) {listed} are empty: wait for players or enable fill_with_bots",
            )
        for s in empty:
            s.bot_level = settings.bot_level
        room.status = "playing"
        room.started_at = utcnow()
        room.start_at = None
        room.version += 1
        return len(empty)

    # -- queries ----------------------------------------------------------

    async def get_room(
        self, room_id: str, viewer_id: str | None = None, code: str | None = None
    ) -> RoomView:
        """A room; private rooms only for members or with the invite code."""
        async with self._db.transaction() as session:
            room = await self._load_room(session, room_id)
            seats = await self._seats(session, room.id)
            self._check_access(room, viewer_id, code, seats)
            return await self.view_in(session, room, viewer_id, seats)

    async def room_view(self, room_id: str) -> RoomView:
        """A room as nobody in particular sees it (no invite code): for notifications."""
        async with self._db.transaction() as session:
            room = await self._load_room(session, room_id)
            return await self.view_in(session, room, None)

    async def lobby(self, limit: int = 100, status: str = "waiting") -> list[RoomView]:
        """Public rooms in ``status`` (waiting for players, or playing: to watch), newest
        first. A waiting room with no free seat is not listed: nobody could join it."""
        async with self._db.transaction() as session:
            rooms = list(
                await session.scalars(
                    select(Room)
                    .where(Room.public.is_(True), Room.status == status)
                    .order_by(Room.created_at.desc(), Room.id)
                    .limit(limit)
                )
            )
            seat_map = await self.seats_of(session, [r.id for r in rooms])
            owners = await self._players(session, {r.owner_id for r in rooms})
            views = [
                _room_view(r, seat_map.get(r.id, []), owners, None, show_code=False) for r in rooms
            ]
            return [v for v in views if status != "waiting" or v.free_seats > 0]

    async def player_rooms(self, player_id: str, limit: int = 50) -> list[RoomView]:
        """The rooms not finished where the player holds a seat (practice included),
        those being played first, then the newest: the lobby's "your games"."""
        async with self._db.transaction() as session:
            rooms = list(
                await session.scalars(
                    select(Room)
                    .join(Seat, Seat.room_id == Room.id)
                    .where(Seat.player_id == player_id, Room.status != "finished")
                    .order_by((Room.status == "playing").desc(), Room.created_at.desc(), Room.id)
                    .limit(limit)
                )
            )
            seat_map = await self.seats_of(session, [r.id for r in rooms])
            players = await self._players(
                session,
                {r.owner_id for r in rooms}
                | {s.player_id for ss in seat_map.values() for s in ss if s.player_id},
            )
            return [
                _room_view(r, seat_map.get(r.id, []), players, player_id, show_code=True)
                for r in rooms
            ]

    async def score_sheet(
        self, room_id: str, viewer_id: str | None = None, code: str | None = None
    ) -> ScoreSheet:
        """Totals and each finished round's additions."""
        async with self._db.transaction() as session:
            room = await self._load_room(session, room_id)
            seats = await self._seats(session, room.id)
            self._check_access(room, viewer_id, code, seats)
            players = await self._players(session, {s.player_id for s in seats if s.player_id})
            rows = await session.scalars(
                select(RoundScore)
                .where(RoundScore.room_id == room.id)
                .order_by(RoundScore.round_number, RoundScore.seat)
            )
            n = len(seats)
            lines: dict[int, list[int | None]] = {}
            for row in rows:
                line = lines.setdefault(row.round_number, [None] * n)
                if 0 <= row.seat < n:
                    line[row.seat] = row.score
            result = await session.get(MatchResult, room.id)
        totals = [sum(line[i] or 0 for line in lines.values()) for i in range(n)]
        if result is not None:
            totals = list(result.totals)
        return ScoreSheet(
            room_id=room.id,
            status=room.status,
            seats=[_seat_view(s, players) for s in seats],
            rounds=[RoundLine(number=k, scores=v) for k, v in sorted(lines.items())],
            totals=totals,
            finished=result is not None,
            winners=list(result.winners) if result is not None else None,
        )

    async def player_matches(
        self,
        player_id: str,
        viewer_id: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> tuple[list[MatchSummary], str | None]:
        """A page of the player's finished matches, newest first, and the cursor of the
        next page (None: the last). A private room's match is listed only to its players
        (``viewer_id`` seated in it) and to its owner."""
        query = (
            select(MatchResult, Room, Seat.seat)
            .join(Room, Room.id == MatchResult.room_id)
            .join(Seat, Seat.room_id == Room.id)
            .where(Seat.player_id == player_id)
            .order_by(MatchResult.finished_at.desc(), Room.id)
            .limit(limit + 1)
        )
        if viewer_id is None:
            query = query.where(Room.public.is_(True))
        else:
            member = select(Seat.room_id).where(Seat.player_id == viewer_id)
            query = query.where(
                or_(Room.public.is_(True), Room.owner_id == viewer_id, Room.id.in_(member))
            )
        if cursor is not None:
            when, room_id = cursors.decode(cursor, (str, str))
            try:
                at = datetime.fromisoformat(when)
            except ValueError as exc:
                raise ServerError(Code.INVALID_REQUEST, "the cursor is not valid") from exc
            query = query.where(
                or_(
                    MatchResult.finished_at < at,
                    and_(MatchResult.finished_at == at, Room.id > room_id),
                )
            )
        async with self._db.transaction() as session:
            if await session.get(Player, player_id) is None:
                raise ServerError(Code.PLAYER_NOT_FOUND, f"no player {player_id!r}")
            rows = (await session.execute(query)).all()
            more = len(rows) > limit
            rows = rows[:limit]
            seat_map = await self.seats_of(session, [room.id for _, room, _ in rows])
            players = await self._players(
                session,
                {s.player_id for ss in seat_map.values() for s in ss if s.player_id},
            )
        out = []
        for result, room, seat in rows:
            out.append(
                MatchSummary(
                    room_id=room.id,
                    variant=str(room.settings.get("variant", "")),
                    kind=room_kind(room.settings),
                    public=room.public,
                    finished_at=result.finished_at,
                    rounds_played=result.rounds_played,
                    seat=seat,
                    seats=[_seat_view(s, players) for s in seat_map.get(room.id, [])],
                    totals=list(result.totals),
                    winners=list(result.winners),
                    won=seat in result.winners,
                )
            )
        last = out[-1] if out and more else None
        next_cursor = cursors.encode([last.finished_at.isoformat(), last.room_id]) if last else None
        return out, next_cursor

    async def count_by_status(self) -> dict[str, int]:
        """Number of rooms in each status (every status present, zero included)."""
        async with self._db.transaction() as session:
            rows = (
                await session.execute(select(Room.status, func.count()).group_by(Room.status))
            ).all()
        counts = dict.fromkeys(ROOM_STATUSES, 0)
        counts.update({status: int(n) for status, n in rows})
        return counts

    # -- helpers ----------------------------------------------------------

    @staticmethod
    async def _load_room(session: AsyncSession, room_id: str, for_update: bool = False) -> Room:
        stmt = select(Room).where(Room.id == room_id)
        if for_update:
            stmt = stmt.with_for_update()
        room = await session.scalar(stmt)
        if room is None:
            raise _not_found(room_id)
        return room

    @staticmethod
    async def _seats(session: AsyncSession, room_id: str) -> list[Seat]:
        return list(
            await session.scalars(select(Seat).where(Seat.room_id == room_id).order_by(Seat.seat))
        )

    @staticmethod
    async def seats_of(session: AsyncSession, room_ids: Sequence[str]) -> dict[str, list[Seat]]:
        """The seats of each of these rooms, in seat order, read in the caller's transaction
        (a room without seats is absent)."""
        out: dict[str, list[Seat]] = {}
        if not room_ids:
            return out
        rows = await session.scalars(
            select(Seat).where(Seat.room_id.in_(set(room_ids))).order_by(Seat.room_id, Seat.seat)
        )
        for s in rows:
            out.setdefault(s.room_id, []).append(s)
        return out

    @staticmethod
    async def _players(session: AsyncSession, ids: Iterable[str | None]) -> dict[str, Player]:
        wanted = {i for i in ids if i}
        if not wanted:
            return {}
        rows = await session.scalars(select(Player).where(Player.id.in_(wanted)))
        return {p.id: p for p in rows}

    @classmethod
    async def sit_in(
        cls, session: AsyncSession, room: Room, seats: list[Seat], target: Seat, player_id: str
    ) -> None:
        """Sit the player on ``target``, one of the room's ``seats`` (leaving the seat they
        held, if any), in the caller's transaction: ``balance_too_low`` below the room's
        ``min_balance``, ``seat_taken`` if another player took it meanwhile. The caller
        checks that the room is waiting and the seat free, and bumps the room's version."""
        await cls._check_balance(session, room, player_id)
        await cls._move(session, seats, target, player_id)

    @staticmethod
    async def _move(session: AsyncSession, seats: list[Seat], target: Seat, player_id: str) -> None:
        for s in seats:
            if s.player_id == player_id:
                s.player_id = None
        # Free the old seat first: (room_id, player_id) is unique.
        await session.flush()
        target.player_id = player_id
        try:
            await session.flush()
        except IntegrityError as exc:
            raise ServerError(Code.SEAT_TAKEN, f"seat {target.seat} is taken") from exc

    @staticmethod
    async def _check_balance(session: AsyncSession, room: Room, player_id: str) -> None:
        """A room's ``min_balance``: the player's balance must reach it to sit down."""
        need = (room.settings or {}).get("min_balance")
        if need is None:
            return
        balance = await session.scalar(select(Player.balance).where(Player.id == player_id))
        if (balance or 0) < need:
            raise ServerError(
                Code.BALANCE_TOO_LOW, f"this room needs a balance of {need} to sit down"
            )

    @staticmethod
    def _check_waiting(room: Room) -> None:
        if room.status != "waiting":
            raise ServerError(
                Code.ROOM_NOT_WAITING, f"the room is {room.status}; seats can no longer change"
            )

    @staticmethod
    def _check_access(
        room: Room, viewer_id: str | None, code: str | None, seats: list[Seat]
    ) -> None:
        if room.public or room.invite_code is None:
            return
        if viewer_id is not None and (
            viewer_id == room.owner_id or any(s.player_id == viewer_id for s in seats)
        ):
            return
        if code is not None and secrets.compare_digest(code, room.invite_code):
            return
        # A private room does not admit that it exists.
        raise _not_found(room.id)

    async def view_in(
        self,
        session: AsyncSession,
        room: Room,
        viewer_id: str | None,
        seats: list[Seat] | None = None,
    ) -> RoomView:
        """The room as ``viewer_id`` sees it (None: anyone), read in the caller's transaction;
        ``seats`` if the caller has them already."""
        if seats is None:
            seats = await self._seats(session, room.id)
        players = await self._players(
            session, {room.owner_id} | {s.player_id for s in seats if s.player_id}
        )
        member = viewer_id is not None and (
            viewer_id == room.owner_id or any(s.player_id == viewer_id for s in seats)
        )
        return _room_view(room, seats, players, viewer_id, show_code=member)


def _ref(player: Player | None, player_id: str) -> PlayerRef:
    name = player.display_name if player is not None else "?"
    return PlayerRef(id=player_id, display_name=name)


def _seat_view(seat: Seat, players: dict[str, Player]) -> SeatView:
    return SeatView(
        seat=seat.seat,
        player=_ref(players.get(seat.player_id), seat.player_id) if seat.player_id else None,
        bot_level=seat.bot_level,
    )


def _room_view(
    room: Room,
    seats: list[Seat],
    players: dict[str, Player],
    viewer_id: str | None,
    *,
    show_code: bool,
) -> RoomView:
    your_seat = next((s.seat for s in seats if viewer_id and s.player_id == viewer_id), None)
    settings = RoomSettings.model_validate(room.settings)
    return RoomView(
        id=room.id,
        status=room.status,
        version=room.version,
        owner=_ref(players.get(room.owner_id), room.owner_id),
        kind=settings.kind,
        settings=settings,
        created_at=room.created_at,
        started_at=room.started_at,
        seats=[_seat_view(s, players) for s in seats],
        free_seats=sum(1 for s in seats if s.player_id is None and s.bot_level is None),
        invite_code=room.invite_code if show_code else None,
        your_seat=your_seat,
        starts_in=_starts_in(room),
        next_room=room.next_room_id if show_code else None,
    )


def _starts_in(room: Room) -> float | None:
    """Seconds until a waiting room starts by itself (its ``start_at``), never negative."""
    if room.status != "waiting" or room.start_at is None:
        return None
    at = room.start_at if room.start_at.tzinfo else room.start_at.replace(tzinfo=UTC)
    return round(max(0.0, (at - utcnow()).total_seconds()), 1)
