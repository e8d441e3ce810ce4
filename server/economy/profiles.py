"""A player's profile: their ratings and rating history, and their
figures per variant: matches, wins, rounds, average round score, and the rates of the
rounds where they opened and where they went out.

The figures count the rooms whose kind is rated (:data:`server.economy.ratings.RATED_KINDS`:
not practice), whoever played the seat (a bot for the player while away included, as
for the balance). A match counts once finished; a round once finished. Openings and
going out count the rounds whose result told them (every round since migration 0007,
and the older ones whose stored result did).

Private rooms: the figures are sums and say nothing of a room; the rating history's
``room_id`` is shown only to the players of the match (null for anyone else).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import and_, case, func, select

from server.economy.ratings import RATED_KINDS, ordinal
from server.errors import Code, ServerError
from server.storage.database import Database
from server.storage.models import MatchResult, Player, Rating, RatingChange, Room, RoundScore, Seat

HISTORY_LIMIT = 100
"""Rating changes a profile carries (the newest)."""


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class VariantFigures(_View):
    """A player's figures in one variant."""

    variant: str
    rating: float | None
    """mu − 3·sigma; null before the first rated match."""
    mu: float | None
    sigma: float | None
    rated_matches: int
    matches: int
    wins: int
    rounds: int
    average_round_score: float | None
    opening_rate: float | None
    """Rounds where the player opened (going out counts) / rounds where that is known."""
    going_out_rate: float | None
    """Rounds the player went out / rounds where that is known."""


class RatingPoint(_View):
    """The player's rating after one rated match."""

    variant: str
    room_id: str | None
    """Null for a private match the viewer did not play."""
    rank: int
    rating: float
    rating_before: float
    created_at: datetime


class Profile(_View):
    """A player's public profile."""

    player_id: str
    display_name: str
    created_at: datetime
    balance: int
    variants: list[VariantFigures]
    history: list[RatingPoint]
    """The newest rating changes first (at most ``HISTORY_LIMIT``)."""


def _count_true(column: Any) -> Any:
    """SQL: how many rows have ``column`` true."""
    return func.coalesce(func.sum(case((column.is_(True), 1), else_=0)), 0)


def _rated(settings_kind: object) -> bool:
    kind = settings_kind if isinstance(settings_kind, str) else "normal"
    return kind in RATED_KINDS


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class Profiles:
    """Reads a player's profile (module doc)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def profile(self, player_id: str, viewer_id: str | None) -> Profile:
        """The profile of ``player_id`` as ``viewer_id`` (None: anyone) sees it."""
        variant_of = Room.settings["variant"].as_string()
        kind_of = Room.settings["kind"].as_string()
        async with self._db.transaction() as session:
            player = await session.get(Player, player_id)
            if player is None:
                raise ServerError(Code.PLAYER_NOT_FOUND, f"no player {player_id!r}")
            ratings = list(
                await session.scalars(select(Rating).where(Rating.player_id == player_id))
            )
            rounds = (
                await session.execute(
                    select(
                        variant_of,
                        kind_of,
                        func.count(),
                        func.coalesce(func.sum(RoundScore.score), 0),
                        func.count(RoundScore.opened),
                        _count_true(RoundScore.opened),
                        func.count(RoundScore.went_out),
                        _count_true(RoundScore.went_out),
                    )
                    .select_from(RoundScore)
                    .join(
                        Seat,
                        and_(Seat.room_id == RoundScore.room_id, Seat.seat == RoundScore.seat),
                    )
                    .join(Room, Room.id == RoundScore.room_id)
                    .where(Seat.player_id == player_id)
                    .group_by(variant_of, kind_of)
                )
            ).all()
            matches = (
                await session.execute(
                    select(variant_of, kind_of, MatchResult.winners, Seat.seat)
                    .select_from(MatchResult)
                    .join(Room, Room.id == MatchResult.room_id)
                    .join(Seat, Seat.room_id == MatchResult.room_id)
                    .where(Seat.player_id == player_id, MatchResult.rounds_played > 0)
                )
            ).all()
            changes = (
                await session.execute(
                    select(RatingChange, Room.public)
                    .join(Room, Room.id == RatingChange.room_id)
                    .where(RatingChange.player_id == player_id)
                    .order_by(RatingChange.id.desc())
                    .limit(HISTORY_LIMIT)
                )
            ).all()
            member_of: set[str] = set()
            if viewer_id is not None:
                private = [c.room_id for c, public in changes if not public]
                if private:
                    member_of = set(
                        await session.scalars(
                            select(Seat.room_id).where(
                                Seat.player_id == viewer_id, Seat.room_id.in_(private)
                            )
                        )
                    )
        figures = _figures(ratings, [tuple(r) for r in rounds], [tuple(r) for r in matches])
        history = [
            RatingPoint(
                variant=c.variant,
                room_id=c.room_id if public or c.room_id in member_of else None,
                rank=c.rank,
                rating=c.rating,
                rating_before=ordinal(c.mu_before, c.sigma_before),
                created_at=c.created_at,
            )
            for c, public in changes
        ]
        return Profile(
            player_id=player.id,
            display_name=player.display_name,
            created_at=player.created_at,
            balance=player.balance,
            variants=figures,
            history=history,
        )


def _figures(
    ratings: Sequence[Rating], rounds: Sequence[tuple[Any, ...]], matches: Sequence[tuple[Any, ...]]
) -> list[VariantFigures]:
    """Each variant's figures from the rating rows, the per-room-kind round sums and the
    finished matches (module doc)."""
    acc: dict[str, dict[str, int]] = {}

    def bucket(variant: str) -> dict[str, int]:
        return acc.setdefault(
            variant,
            dict.fromkeys(
                ("matches", "wins", "rounds", "score", "op_known", "opened", "out_known", "out"),
                0,
            ),
        )

    for variant, kind, n, score, op_known, opened, out_known, out in rounds:
        if variant and _rated(kind):
            b = bucket(variant)
            for key, value in (
                ("rounds", n),
                ("score", score),
                ("op_known", op_known),
                ("opened", opened),
                ("out_known", out_known),
                ("out", out),
            ):
                b[key] += int(value)
    for variant, kind, winners, seat in matches:
        if variant and _rated(kind):
            b = bucket(variant)
            b["matches"] += 1
            b["wins"] += int(seat in (winners or []))
    by_variant = {r.variant: r for r in ratings}
    for variant in by_variant:
        bucket(variant)
    out_rows = []
    for variant in sorted(acc):
        b, r = acc[variant], by_variant.get(variant)
        out_rows.append(
            VariantFigures(
                variant=variant,
                rating=r.rating if r else None,
                mu=r.mu if r else None,
                sigma=r.sigma if r else None,
                rated_matches=r.matches if r else 0,
                matches=b["matches"],
                wins=b["wins"],
                rounds=b["rounds"],
                average_round_score=b["score"] / b["rounds"] if b["rounds"] else None,
                opening_rate=_rate(b["opened"], b["op_known"]),
                going_out_rate=_rate(b["out"], b["out_known"]),
            )
        )
    return out_rows
