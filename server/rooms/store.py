"""Small read queries the room actor needs beyond :mod:`server.storage.gamelog`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from server.storage.database import Database
from server.storage.models import Action, Player, Round, RoundScore


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """A player's move as logged: the engine's action and the room version after it
    (the version its ack carried; None on rows logged before migration 0004)."""

    action: dict[str, Any]
    version: int | None


async def player_names(db: Database, ids: Iterable[str | None]) -> dict[str, str]:
    """Display names of the given players."""
    wanted = {i for i in ids if i}
    if not wanted:
        return {}
    async with db.transaction() as session:
        rows = await session.execute(
            select(Player.id, Player.display_name).where(Player.id.in_(wanted))
        )
        return {pid: name for pid, name in rows.all()}


async def round_lines(db: Database, room_id: str, seats: int) -> list[list[int]]:
    """Each finished round's per-seat additions, in round order."""
    async with db.transaction() as session:
        rows = await session.scalars(
            select(RoundScore)
            .where(RoundScore.room_id == room_id)
            .order_by(RoundScore.round_number, RoundScore.seat)
        )
        lines: dict[int, list[int]] = {}
        for row in rows:
            line = lines.setdefault(row.round_number, [0] * seats)
            if 0 <= row.seat < seats:
                line[row.seat] = row.score
    return [lines[k] for k in sorted(lines)]


async def logged_seqs(db: Database, room_id: str) -> dict[int, set[int]]:
    """The client seqs of every player move in the room's log (every round), by seat."""
    async with db.transaction() as session:
        rows = await session.execute(
            select(Action.seat, Action.client_seq)
            .join(Round, Round.id == Action.round_id)
            .where(Round.room_id == room_id, Action.client_seq.is_not(None))
        )
        seqs: dict[int, set[int]] = {}
        for seat, seq in rows.all():
            if seq is not None:
                seqs.setdefault(seat, set()).add(seq)
    return seqs


async def logged_move(db: Database, room_id: str, seat: int, client_seq: int) -> LoggedMove | None:
    """The seat's logged move with this client seq, in any round of the room (the first
    one, should an old log hold two)."""
    async with db.transaction() as session:
        row = (
            await session.execute(
                select(Action.action, Action.version)
                .join(Round, Round.id == Action.round_id)
                .where(
                    Round.room_id == room_id,
                    Action.seat == seat,
                    Action.client_seq == client_seq,
                )
                .order_by(Round.number, Action.seq)
                .limit(1)
            )
        ).first()
    return LoggedMove(row[0], row[1]) if row is not None else None
