"""Leaderboards: the players by rating in a variant, and by balance.

Both are keyset-paginated (:mod:`server.cursors`): a page's ``next_cursor`` is the sort
key of its last row, and each row has its place (1 for the first), counted for the
page's first row and then one by one. Equal ratings or balances are ordered by player id.

* By rating (:mod:`server.economy.ratings`): ``rating`` = mu − 3·sigma, the players with at
  least ``REMI_LEADERBOARD_MIN_MATCHES`` rated matches in the variant.
* By balance ("cont", :mod:`server.economy.ledger`): the players who have played at least one
  settled round (a guest who never played is not listed).

A player appears under their display name and id; usernames (sign-in names) are never
shown.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import and_, exists, func, or_, select

from server.cursors import decode, encode
from server.settings import Settings
from server.storage.database import Database
from server.storage.models import LedgerEntry, Player, Rating


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class RatingRow(_View):
    """A player on a variant's rating leaderboard."""

    place: int
    player_id: str
    display_name: str
    rating: float
    mu: float
    sigma: float
    matches: int


class RatingBoard(_View):
    """A page of a variant's rating leaderboard; ``next_cursor`` asks for the next one."""

    variant: str
    rows: list[RatingRow]
    next_cursor: str | None


class BalanceRow(_View):
    """A player on the balance leaderboard."""

    place: int
    player_id: str
    display_name: str
    balance: int


class BalanceBoard(_View):
    """A page of the balance leaderboard; ``next_cursor`` asks for the next one."""

    rows: list[BalanceRow]
    next_cursor: str | None


def _below(score: Any, key: Any, at_score: Any, at_key: Any) -> Any:
    """The rows after (``at_score``, ``at_key``) in a board's order (score high to low,
    then key): what the next page starts from."""
    return or_(score < at_score, and_(score == at_score, key > at_key))


def _above(score: Any, key: Any, at_score: Any, at_key: Any) -> Any:
    """The rows before (``at_score``, ``at_key``) in a board's order: counted for the
    first place of a page."""
    return or_(score > at_score, and_(score == at_score, key < at_key))


class Leaderboards:
    """The leaderboards' pages (module doc)."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._settings = settings

    async def rating(self, variant: str, cursor: str | None, limit: int) -> RatingBoard:
        """A page of the players by rating in ``variant``, best first."""
        listed = and_(
            Rating.variant == variant,
            Rating.matches >= self._settings.leaderboard_min_matches,
        )
        query = (
            select(Rating, Player.display_name)
            .join(Player, Player.id == Rating.player_id)
            .where(listed)
            .order_by(Rating.rating.desc(), Rating.player_id)
            .limit(limit + 1)
        )
        after: Any = None
        if cursor is not None:
            rating, player_id = decode(cursor, (float, str))
            after = _below(Rating.rating, Rating.player_id, rating, player_id)
            query = query.where(after)
        async with self._db.transaction() as session:
            rows = (await session.execute(query)).all()
            first = 1
            if rows and after is not None:
                head = rows[0][0]
                first += (
                    await session.scalar(
                        select(func.count())
                        .select_from(Rating)
                        .where(
                            listed,
                            _above(Rating.rating, Rating.player_id, head.rating, head.player_id),
                        )
                    )
                    or 0
                )
        more = len(rows) > limit
        rows = rows[:limit]
        out = [
            RatingRow(
                place=first + i,
                player_id=r.player_id,
                display_name=name,
                rating=r.rating,
                mu=r.mu,
                sigma=r.sigma,
                matches=r.matches,
            )
            for i, (r, name) in enumerate(rows)
        ]
        last = out[-1] if out and more else None
        return RatingBoard(
            variant=variant,
            rows=out,
            next_cursor=encode([last.rating, last.player_id]) if last else None,
        )

    async def balance(self, cursor: str | None, limit: int) -> BalanceBoard:
        """A page of the players by balance, highest first."""
        played = exists().where(LedgerEntry.player_id == Player.id, LedgerEntry.reason == "round")
        query = (
            select(Player.id, Player.display_name, Player.balance)
            .where(played)
            .order_by(Player.balance.desc(), Player.id)
            .limit(limit + 1)
        )
        after: Any = None
        if cursor is not None:
            balance, player_id = decode(cursor, (int, str))
            after = _below(Player.balance, Player.id, balance, player_id)
            query = query.where(after)
        async with self._db.transaction() as session:
            rows = (await session.execute(query)).all()
            first = 1
            if rows and after is not None:
                head = rows[0]
                first += (
                    await session.scalar(
                        select(func.count())
                        .select_from(Player)
                        .where(played, _above(Player.balance, Player.id, head.balance, head.id))
                    )
                    or 0
                )
        more = len(rows) > limit
        rows = rows[:limit]
        out = [
            BalanceRow(
                place=first + i, player_id=r.id, display_name=r.display_name, balance=r.balance
            )
            for i, r in enumerate(rows)
        ]
        last = out[-1] if out and more else None
        return BalanceBoard(
            rows=out, next_cursor=encode([last.balance, last.player_id]) if last else None
        )
