"""Durable game log for the room actor: rounds, the append-only action log, scores.

The room actor makes these writes in the order things happen, awaiting each before
it acknowledges or broadcasts anything (the round, action and rack writes through
:class:`server.rooms.journal.Journal`, which group-commits the same rows):

1. :meth:`GameLog.begin_round` when it deals (stores the seed and options);
2. :meth:`GameLog.append_action` for every accepted action (``seq`` counts
   from 1 in the round; the unique key (round_id, seq) refuses a second
   writer of the same slot with :class:`DuplicateAction`);
3. the round's finish with the engine's result and per-seat additions, in one
   transaction (:func:`store_round_finish`);
4. :meth:`GameLog.record_match` when the end condition is met: exactly once
   per room (the primary key on ``match_results.room_id``), and the room
   becomes ``finished`` (:func:`store_match_result`).

Storage imports no domain module. What else a finish does in its transaction (a round's
settlement into the balances, the match's ratings, an Arena table's pot) is the domain's:
it composes a :data:`Work` of storage's statements and its own
(:mod:`server.economy.settlement`), which storage runs as one transaction.

On start-up :meth:`GameLog.unfinished_rooms` and :meth:`GameLog.load` give
everything needed to rebuild each live room by replaying its current round;
:meth:`GameLog.mark_alive` (periodically and at shutdown) records until when the
rooms were being played and each turn's clock then, so that a restarted turn has the
time it had left when the server was last seen alive (the downtime is not charged).

The writes of a live room take the :class:`~server.storage.leases.Fence` of the node
that plays it: made only while that node still holds the room's lease, else
:class:`~server.storage.leases.Fenced` (a heartbeat skips the rooms no longer held).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server.storage.database import Database
from server.storage.leases import Fence, Fenced, check_fence, stale_rooms
from server.storage.models import (
    Action,
    MatchResult,
    Room,
    Round,
    RoundScore,
    Seat,
    seat_facts,
    utcnow,
)

_ROOMS = cast(Table, Room.__table__)
_RESULTS = cast(Table, MatchResult.__table__)
_ROUNDS = cast(Table, Round.__table__)
_SCORES = cast(Table, RoundScore.__table__)
_INSERT_SCORE = insert(_SCORES)
_MARK_ALIVE = (
    update(_ROOMS)
    .where(_ROOMS.c.id == bindparam("b_id"), _ROOMS.c.status == "playing")
    .values(
        last_alive=bindparam("last_alive"),
        turn_left=bindparam("turn_left"),
        turn_since=bindparam("turn_since"),
    )
)


Work = Callable[[Connection], None]
"""A unit of work: the synchronous statements of one transaction. The domain composes it
from storage's statements (:func:`store_round_finish`, :func:`store_match_result`) and its
own (:mod:`server.economy.settlement`); storage runs it in one transaction
(:meth:`GameLog.record_match`, :class:`server.rooms.journal.Journal`'s group commit). A
unit that storage may run again after an unknown outcome (the journal's) changes nothing
the second time."""


class DuplicateAction(Exception):
    """The (round, seq) slot is already in the log."""


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One entry of a round's action log."""

    seq: int
    seat: int
    action: dict[str, Any]
    client_seq: int | None
    source: str
    created_at: datetime
    version: int | None = None
    """The room version after the action (its ack's); None on rows logged before 0004."""


@dataclass(frozen=True, slots=True)
class TurnClock:
    """A running turn's clock as a heartbeat saw it: the seconds it had ``left`` and
    when it was (re)started (``since``: its start, a player's return, a restart)."""

    left: float
    since: datetime


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A round as stored; ``actions`` only for the round being replayed."""

    id: int
    number: int
    variant: str
    seed: str
    first_seat: int
    options: dict[str, Any]
    finished: bool
    result: dict[str, Any] | None
    created_at: datetime
    actions: list[LoggedAction] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat as stored."""

    seat: int
    player_id: str | None
    bot_level: str | None
    rack: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """Everything needed to bring a playing room back to life."""

    id: str
    status: str
    version: int
    owner_id: str
    settings: dict[str, Any]
    seats: list[SeatRecord]
    rounds: list[RoundRecord]
    """Every round, oldest first; the last one carries its actions if unfinished."""
    totals: list[int]
    """Sum of the finished rounds' scores, per seat."""
    last_alive: datetime | None = None
    """When the server playing the room was last known alive (None: never recorded)."""
    clock: TurnClock | None = None
    """The turn's clock at ``last_alive`` (None: no turn running, or not recorded)."""

    @property
    def current_round(self) -> RoundRecord | None:
        """The unfinished round, if any."""
        if self.rounds and not self.rounds[-1].finished:
            return self.rounds[-1]
        return None


@dataclass(frozen=True, slots=True)
class FinishedRound:
    """The round a :func:`store_round_finish` just finished."""

    room_id: str
    number: int


def store_round_finish(
    conn: Connection, round_id: int, result: dict[str, Any], scores: Sequence[int]
) -> FinishedRound | None:
    """Mark the round finished with its result and store each seat's score; the round
    if this finished it, None if it was finished already (nothing written), ``KeyError``
    if there is no such round. The round's row is locked first, so of two finishes at
    once only one finds it unfinished."""
    found = conn.execute(
        select(_ROUNDS.c.room_id, _ROUNDS.c.number, _ROUNDS.c.finished)
        .where(_ROUNDS.c.id == round_id)
        .with_for_update()
    ).first()
    if found is None:
        raise KeyError(round_id)
    room_id, number, finished = found
    if finished:
        return None
    conn.execute(
        update(_ROUNDS)
        .where(_ROUNDS.c.id == round_id)
        .values(finished=True, result=result, finished_at=utcnow())
    )
    if scores:
        rows = [
            {
                "room_id": room_id,
                "round_number": number,
                "seat": seat,
                "score": score,
                **seat_facts(result, seat),
            }
            for seat, score in enumerate(scores)
        ]
        conn.execute(_INSERT_SCORE, rows)
    return FinishedRound(room_id, number)


def store_match_result(
    conn: Connection,
    room_id: str,
    totals: Sequence[int],
    winners: Sequence[int],
    rounds_played: int,
) -> None:
    """Store the match's result and finish the room; ``IntegrityError`` if the room's
    result is stored already (the primary key on ``match_results.room_id``)."""
    conn.execute(
        insert(_RESULTS).values(
            room_id=room_id,
            totals=list(totals),
            winners=list(winners),
            rounds_played=rounds_played,
            finished_at=utcnow(),
        )
    )
    conn.execute(
        update(_ROOMS)
        .where(_ROOMS.c.id == room_id)
        .values(status="finished", finished_at=utcnow(), version=_ROOMS.c.version + 1)
    )


def _run_fenced(conn: Connection, work: Work, fence: Fence | None) -> None:
    if fence is not None and stale_rooms(conn, [fence]):
        raise Fenced(f"room {fence.room_id}: epoch {fence.epoch} is no longer this node's")
    work(conn)


class GameLog:
    """Durable writes of the live game; see the module docstring for the order."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def begin_round(
        self,
        room_id: str,
        number: int,
        variant: str,
        seed: str,
        first_seat: int,
        options: dict[str, Any],
    ) -> int:
        """Store a new round; returns its id."""
        row = Round(
            room_id=room_id,
            number=number,
            variant=variant,
            seed=seed,
            first_seat=first_seat,
            options=options,
            finished=False,
        )
        async with self._db.transaction() as session:
            session.add(row)
        return row.id

    async def append_action(
        self,
        round_id: int,
        seq: int,
        seat: int,
        action: dict[str, Any],
        *,
        client_seq: int | None = None,
        source: str = "player",
        version: int | None = None,
    ) -> None:
        """Append one accepted action; committed when this returns."""
        try:
            async with self._db.transaction() as session:
                session.add(
                    Action(
                        round_id=round_id,
                        seq=seq,
                        seat=seat,
                        action=action,
                        client_seq=client_seq,
                        source=source,
                        version=version,
                    )
                )
        except IntegrityError as exc:
            raise DuplicateAction(f"round {round_id} already has action {seq}") from exc

    async def finish_round(
        self, round_id: int, result: dict[str, Any], scores: Sequence[int]
    ) -> None:
        """Mark the round finished with its result and store each seat's addition
        (:func:`store_round_finish`, nothing more: a room's finish goes through the
        journal with the domain's settlement)."""
        async with self._db.engine.begin() as conn:
            await conn.run_sync(store_round_finish, round_id, result, scores)

    async def record_match(self, work: Work, fence: Fence | None = None) -> bool:
        """Run the unit of work that ends a match in one transaction (the fence checked
        first): the domain's :class:`server.economy.settlement.MatchFinish`, which stores
        the result (:func:`store_match_result`), rates the match and pays an Arena
        table's pot; False if the result was stored already.

        The primary key on ``match_results.room_id`` makes this exactly-once even when
        two writers race (tests/server/storage/test_gamelog.py): the second one's insert
        fails and its whole transaction is rolled back. The room must exist.
        """
        try:
            async with self._db.engine.begin() as conn:
                await conn.run_sync(_run_fenced, work, fence)
        except IntegrityError:
            return False
        return True

    async def set_rack(self, room_id: str, seat: int, rack: dict[str, Any] | None) -> None:
        """Persist a seat's rack layout."""
        async with self._db.transaction() as session:
            await session.execute(
                update(Seat).where(Seat.room_id == room_id, Seat.seat == seat).values(rack=rack)
            )

    async def set_version(self, room_id: str, version: int, fence: Fence | None = None) -> None:
        """Raise the room's stored version to ``version`` (never lowers it)."""
        async with self._db.transaction() as session:
            await check_fence(session, fence)
            await session.execute(
                update(Room)
                .where(Room.id == room_id, Room.version < version)
                .values(version=version)
            )

    async def mark_alive(
        self,
        rooms: Sequence[str] | Mapping[str, TurnClock | None],
        when: datetime | None = None,
        fences: Sequence[Fence] = (),
    ) -> None:
        """Record that the server playing these rooms is alive (``rooms.last_alive``) and,
        for each room, its turn's clock now (``turn_left``, ``turn_since``; a bare list of
        ids: none known, cleared). A room of ``fences`` whose lease is no longer the
        fence's is left alone (its new owner writes its clock)."""
        clocks = dict(rooms) if isinstance(rooms, Mapping) else dict.fromkeys(rooms)
        if not clocks:
            return
        if fences:
            async with self._db.transaction() as session:
                conn = await session.connection()
                stale = await conn.run_sync(stale_rooms, fences)
                for room_id in stale:
                    clocks.pop(room_id, None)
                await self._mark(session, clocks, when)
            return
        async with self._db.transaction() as session:
            await self._mark(session, clocks, when)

    @staticmethod
    async def _mark(
        session: AsyncSession, clocks: dict[str, TurnClock | None], when: datetime | None
    ) -> None:
        if not clocks:
            return
        now = when or utcnow()
        rows = [
            {
                "b_id": room_id,
                "last_alive": now,
                "turn_left": clock.left if clock is not None else None,
                "turn_since": clock.since if clock is not None else None,
            }
            for room_id, clock in clocks.items()
        ]
        await session.execute(_MARK_ALIVE, rows)

    async def unfinished_rooms(self) -> list[str]:
        """Ids of rooms whose match is being played."""
        async with self._db.transaction() as session:
            rows = await session.scalars(
                select(Room.id).where(Room.status == "playing").order_by(Room.created_at)
            )
            return list(rows)

    async def round_log(self, room_id: str, number: int) -> RoundRecord | None:
        """One round of a room with its whole action log (a replay, a download), or None."""
        async with self._db.transaction() as session:
            r = await session.scalar(
                select(Round).where(Round.room_id == room_id, Round.number == number)
            )
            if r is None:
                return None
            rows = await session.scalars(
                select(Action).where(Action.round_id == r.id).order_by(Action.seq)
            )
            actions = [
                LoggedAction(
                    seq=a.seq,
                    seat=a.seat,
                    action=a.action,
                    client_seq=a.client_seq,
                    source=a.source,
                    created_at=a.created_at,
                )
                for a in rows
            ]
        return RoundRecord(
            id=r.id,
            number=r.number,
            variant=r.variant,
            seed=r.seed,
            first_seat=r.first_seat,
            options=r.options,
            finished=r.finished,
            result=r.result,
            created_at=r.created_at,
            actions=actions,
        )

    async def load(self, room_id: str) -> RoomRecord:
        """A room with its seats, rounds, totals and the current round's actions."""
        async with self._db.transaction() as session:
            room = await session.get(Room, room_id)
            if room is None:
                raise KeyError(room_id)
            seats = list(
                await session.scalars(
                    select(Seat).where(Seat.room_id == room_id).order_by(Seat.seat)
                )
            )
            rounds = list(
                await session.scalars(
                    select(Round).where(Round.room_id == room_id).order_by(Round.number)
                )
            )
            scores = list(
                await session.scalars(select(RoundScore).where(RoundScore.room_id == room_id))
            )
            actions: list[Action] = []
            if rounds and not rounds[-1].finished:
                actions = list(
                    await session.scalars(
                        select(Action).where(Action.round_id == rounds[-1].id).order_by(Action.seq)
                    )
                )
        totals = [0] * len(seats)
        for sc in scores:
            if 0 <= sc.seat < len(totals):
                totals[sc.seat] += sc.score
        records = [
            RoundRecord(
                id=r.id,
                number=r.number,
                variant=r.variant,
                seed=r.seed,
                first_seat=r.first_seat,
                options=r.options,
                finished=r.finished,
                result=r.result,
                created_at=r.created_at,
            )
            for r in rounds
        ]
        if actions:
            last = records[-1]
            records[-1] = RoundRecord(
                id=last.id,
                number=last.number,
                variant=last.variant,
                seed=last.seed,
                first_seat=last.first_seat,
                options=last.options,
                finished=last.finished,
                result=last.result,
                created_at=last.created_at,
                actions=[
                    LoggedAction(
                        seq=a.seq,
                        seat=a.seat,
                        action=a.action,
                        client_seq=a.client_seq,
                        source=a.source,
                        created_at=a.created_at,
                        version=a.version,
                    )
                    for a in actions
                ],
            )
        return RoomRecord(
            id=room.id,
            status=room.status,
            version=room.version,
            owner_id=room.owner_id,
            settings=room.settings,
            seats=[
                SeatRecord(seat=s.seat, player_id=s.player_id, bot_level=s.bot_level, rack=s.rack)
                for s in seats
            ],
            rounds=records,
            totals=totals,
            last_alive=room.last_alive,
            clock=(
                TurnClock(room.turn_left, room.turn_since)
                if room.turn_left is not None and room.turn_since is not None
                else None
            ),
        )
