"""Leaderboards: the players by rating in a variant, and by balance;
keyset-paginated by ``cursor`` (server/economy/leaderboards.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from server.api.deps import ServicesDep
from server.cursors import CURSOR_MAX
from server.economy.leaderboards import BalanceBoard, RatingBoard
from server.errors import Code, ServerError
from server.rules.variants import VARIANTS

router = APIRouter(prefix="/api/leaderboards", tags=["leaderboards"])

Cursor = Annotated[
    str | None,
    Query(max_length=CURSOR_MAX, description="The previous page's next_cursor."),
]
Limit = Annotated[int, Query(ge=1, le=100)]


@router.get("/rating/{variant}")
async def rating_board(
    variant: Annotated[str, Path(max_length=32)],
    services: ServicesDep,
    cursor: Cursor = None,
    limit: Limit = 20,
) -> RatingBoard:
    """The players by rating (mu − 3·sigma) in a variant, best first: those with at least
    ``REMI_LEADERBOARD_MIN_MATCHES`` rated matches in it."""
    if variant not in VARIANTS:
        raise ServerError(
            Code.INVALID_REQUEST, f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}"
        )
    return await services.leaderboards.rating(variant, cursor, limit)


@router.get("/balance")
async def balance_board(
    services: ServicesDep, cursor: Cursor = None, limit: Limit = 20
) -> BalanceBoard:
    """The players by balance, highest first: those who have played a settled round."""
    return await services.leaderboards.balance(cursor, limit)
