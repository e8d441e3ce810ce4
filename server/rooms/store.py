"""Small read queries the room actor needs beyond :mod:`server.storage.gamelog`."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select

from server.storage.database import Database
from server.storage.models import Player, RoundScore


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
