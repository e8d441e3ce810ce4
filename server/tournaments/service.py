"""The tournaments as the HTTP API shows and changes them: the open and running ones,
one tournament with its stages' live standings, registering and withdrawing.

Reads are one short transaction each; the changes are :mod:`server.tournaments.store`'s,
each in a transaction of its own (:meth:`Tournaments.run`). After a registration the
runner is woken (:attr:`Tournaments.changed`): a sit-and-go that is full starts at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Connection, select
from sqlalchemy.exc import IntegrityError

from server.accounts.identity import PlayerInfo
from server.economy.payouts import split
from server.errors import Code, ServerError
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import PlayerRef
from server.settings import Settings
from server.storage.database import Database
from server.storage.models import (
    MatchResult,
    Player,
    Room,
    RoundScore,
    Seat,
    Tournament,
    TournamentEntry,
    TournamentStage,
    TournamentTable,
    utcnow,
)
from server.tournaments import store
from server.tournaments.plan import places, stage_sizes

log = logging.getLogger(__name__)

R = TypeVar("R")


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class TournamentSummary(_View):
    """A tournament as the lobby lists it."""

    id: str
    kind: str
    """``sitngo`` (starts once ``players`` have registered) or ``scheduled`` (at
    ``starts_at`` with whoever registered, at most ``players``)."""
    status: str
    """``registering``, ``running``, ``finished`` or ``cancelled``."""
    variant: str
    table_seats: int
    rounds: int
    """Rounds each table plays."""
    turn_seconds: int | None
    players: int
    registered: int
    fee: int
    pool: int
    """The entry fees (so far, while registering)."""
    prizes: list[int]
    """Per cent of the pool for the 1st, 2nd, ... place at the final table."""
    prize_amounts: list[int]
    """What each place wins with the pool as it is (no ties)."""
    stage: int
    stages: int
    """Stages planned (for the players registered, or for a full tournament)."""
    starts_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    you: bool
    """The viewer is registered."""


class TableSeatView(_View):
    """A seat of a tournament table with its standing."""

    seat: int
    player: PlayerRef | None
    bot_level: str | None
    total: int
    place: int
    advanced: bool | None = None
    """After a stage that is not the final: whether the seat's player went on."""
    prize: int | None = None


class TableView(_View):
    """A table of a stage: its room (to watch or play), its standings."""

    number: int
    room_id: str
    status: str
    rounds_played: int
    seats: list[TableSeatView]


class StageView(_View):
    """A stage and its tables."""

    number: int
    final: bool
    advance: int
    started_at: datetime
    finished_at: datetime | None
    tables: list[TableView]


class EntryView(_View):
    """A registered player and, at the end, their place and prize."""

    player: PlayerRef
    place: int | None
    prize: int | None
    out_stage: int | None


class TournamentDetail(TournamentSummary):
    """A tournament with its entries and each stage's live standings."""

    entries: list[EntryView]
    stage_list: list[StageView]


def _summary(t: Any, you: bool) -> dict[str, Any]:
    room = RoomSettings.model_validate(t.settings)
    pool = t.pool if t.status != "registering" else t.fee * t.registered
    seats = room.seats
    planned = t.registered if t.status != "registering" else max(t.registered, t.players)
    rounds = room.end.rounds if room.end.kind == "rounds" else 0
    return {
        "id": t.id,
        "kind": t.kind,
        "status": t.status,
        "variant": room.variant,
        "table_seats": seats,
        "rounds": rounds,
        "turn_seconds": room.turn_seconds,
        "players": t.players,
        "registered": t.registered,
        "fee": t.fee,
        "pool": pool,
        "prizes": list(t.prizes),
        "prize_amounts": split(pool, t.prizes, list(range(seats, 0, -1)))[: len(t.prizes)],
        "stage": t.stage,
        "stages": len(stage_sizes(max(1, planned), seats)),
        "starts_at": t.starts_at,
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "you": you,
    }


class Tournaments:
    """The tournaments' reads and requests (module doc)."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._settings = settings
        self.changed: Callable[[], None] = lambda: None
        """Called after a registration: the runner looks at the tournaments again."""

    async def run(self, fn: Callable[..., R], *args: Any) -> R | None:
        """``fn(conn, *args)`` in a transaction of its own; None when a concurrent
        transaction made the same change first (a unique key refused this one)."""
        try:
            async with self._db.engine.begin() as conn:
                return await conn.run_sync(fn, *args)
        except IntegrityError:
            return None

    async def register(self, tournament_id: str, player: PlayerInfo) -> TournamentSummary:
        """Register the player (their fee taken); registered already: as it is."""
        await self.run(store.register, tournament_id, player.id, utcnow())
        self.changed()
        return await self.summary(tournament_id, player.id)

    async def withdraw(self, tournament_id: str, player: PlayerInfo) -> TournamentSummary:
        """Withdraw the player's entry (the fee given back) while registering."""
        await self.run(store.withdraw, tournament_id, player.id)
        return await self.summary(tournament_id, player.id)

    async def summary(self, tournament_id: str, viewer_id: str | None) -> TournamentSummary:
        """One tournament as the lobby lists it."""
        async with self._db.engine.connect() as conn:
            return await conn.run_sync(_one_summary, tournament_id, viewer_id)

    async def listing(
        self, statuses: Sequence[str], viewer_id: str | None, limit: int = 50
    ) -> list[TournamentSummary]:
        """The tournaments in ``statuses``: those open for registration first, the
        sit-and-gos (smallest first), then by start time."""
        async with self._db.engine.connect() as conn:
            return await conn.run_sync(_listing, list(statuses), viewer_id, limit)

    async def detail(self, tournament_id: str, viewer_id: str | None) -> TournamentDetail:
        """One tournament with its entries and every stage's standings (live)."""
        async with self._db.engine.connect() as conn:
            return await conn.run_sync(_detail, tournament_id, viewer_id)


_T = Tournament.__table__


def _entry_of(conn: Connection, tournament_ids: list[str], viewer_id: str | None) -> set[str]:
    if viewer_id is None or not tournament_ids:
        return set()
    rows = conn.execute(
        select(TournamentEntry.tournament_id).where(
            TournamentEntry.tournament_id.in_(tournament_ids),
            TournamentEntry.player_id == viewer_id,
            TournamentEntry.status == "registered",
        )
    )
    return {r[0] for r in rows}


def _one_summary(conn: Connection, tournament_id: str, viewer_id: str | None) -> TournamentSummary:
    t = conn.execute(select(_T).where(_T.c.id == tournament_id)).first()
    if t is None:
        raise ServerError(Code.TOURNAMENT_NOT_FOUND, f"no tournament {tournament_id!r}")
    mine = _entry_of(conn, [t.id], viewer_id)
    return TournamentSummary(**_summary(t, t.id in mine))


def _listing(
    conn: Connection, statuses: list[str], viewer_id: str | None, limit: int
) -> list[TournamentSummary]:
    rows = conn.execute(
        select(_T)
        .where(_T.c.status.in_(statuses))
        .order_by(  # open for registration first; sit-and-gos, then by start time
            (_T.c.status != "registering"),
            _T.c.starts_at.is_(None).desc(),
            _T.c.starts_at,
            _T.c.players,
            _T.c.created_at.desc(),
            _T.c.id,
        )
        .limit(limit)
    ).all()
    mine = _entry_of(conn, [t.id for t in rows], viewer_id)
    return [TournamentSummary(**_summary(t, t.id in mine)) for t in rows]


def _detail(conn: Connection, tournament_id: str, viewer_id: str | None) -> TournamentDetail:
    t = conn.execute(select(_T).where(_T.c.id == tournament_id)).first()
    if t is None:
        raise ServerError(Code.TOURNAMENT_NOT_FOUND, f"no tournament {tournament_id!r}")
    entries = conn.execute(
        select(TournamentEntry.__table__)
        .where(
            TournamentEntry.tournament_id == tournament_id,
            TournamentEntry.status == "registered",
        )
        .order_by(
            TournamentEntry.place.is_(None),
            TournamentEntry.place,
            TournamentEntry.registered_at,
            TournamentEntry.player_id,
        )
    ).all()
    stages = conn.execute(
        select(TournamentStage.__table__)
        .where(TournamentStage.tournament_id == tournament_id)
        .order_by(TournamentStage.number)
    ).all()
    tables = conn.execute(
        select(TournamentTable.stage, TournamentTable.number, Room.id, Room.status)
        .join(Room, Room.id == TournamentTable.room_id)
        .where(TournamentTable.tournament_id == tournament_id)
        .order_by(TournamentTable.stage, TournamentTable.number)
    ).all()
    room_ids = [r[2] for r in tables]
    seats = conn.execute(
        select(Seat.room_id, Seat.seat, Seat.player_id, Seat.bot_level)
        .where(Seat.room_id.in_(room_ids))
        .order_by(Seat.room_id, Seat.seat)
    ).all()
    scores = conn.execute(
        select(
            RoundScore.room_id, RoundScore.round_number, RoundScore.seat, RoundScore.score
        ).where(RoundScore.room_id.in_(room_ids))
    ).all()
    results = dict(
        conn.execute(
            select(MatchResult.room_id, MatchResult.totals).where(MatchResult.room_id.in_(room_ids))
        ).all()
    )
    player_ids = {e.player_id for e in entries} | {s.player_id for s in seats if s.player_id}
    names = dict(
        conn.execute(select(Player.id, Player.display_name).where(Player.id.in_(player_ids))).all()
    )
    mine = viewer_id is not None and any(e.player_id == viewer_id for e in entries)
    out_stage = {e.player_id: e.out_stage for e in entries}
    prize = {e.player_id: e.prize for e in entries}

    def ref(pid: str) -> PlayerRef:
        return PlayerRef(id=pid, display_name=names.get(pid, "?"))

    seat_map: dict[str, list[Any]] = {}
    for s in seats:
        seat_map.setdefault(s.room_id, []).append(s)
    totals: dict[str, dict[int, int]] = {}
    rounds: dict[str, set[int]] = {}
    for room_id, number, seat, score in scores:
        totals.setdefault(room_id, {})
        totals[room_id][seat] = totals[room_id].get(seat, 0) + score
        rounds.setdefault(room_id, set()).add(number)
    final_stage = {st.number for st in stages if st.final}
    by_stage: dict[int, list[TableView]] = {}
    for stage, number, room_id, status in tables:
        room_seats = seat_map.get(room_id, [])
        sums = (
            list(results[room_id])
            if room_id in results
            else [totals.get(room_id, {}).get(s.seat, 0) for s in room_seats]
        )
        place = places(sums, [True] * len(sums))
        done = status == "finished"
        views = []
        for s in room_seats:
            advanced = None
            if done and stage not in final_stage:
                advanced = s.player_id is not None and out_stage.get(s.player_id) != stage
            views.append(
                TableSeatView(
                    seat=s.seat,
                    player=ref(s.player_id) if s.player_id else None,
                    bot_level=s.bot_level,
                    total=sums[s.seat] if s.seat < len(sums) else 0,
                    place=place[s.seat] or 0,
                    advanced=advanced,
                    prize=prize.get(s.player_id) if stage in final_stage and s.player_id else None,
                )
            )
        by_stage.setdefault(stage, []).append(
            TableView(
                number=number,
                room_id=room_id,
                status=status,
                rounds_played=len(rounds.get(room_id, ())),
                seats=views,
            )
        )
    return TournamentDetail(
        **_summary(t, mine),
        entries=[
            EntryView(player=ref(e.player_id), place=e.place, prize=e.prize, out_stage=e.out_stage)
            for e in entries
        ],
        stage_list=[
            StageView(
                number=st.number,
                final=st.final,
                advance=st.advance,
                started_at=st.started_at,
                finished_at=st.finished_at,
                tables=by_stage.get(st.number, []),
            )
            for st in stages
        ],
    )
