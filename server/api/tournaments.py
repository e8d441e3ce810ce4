"""Arena and tournament routes (docs/tournaments.md).

* ``GET /api/arena``: the stakes an Arena table may choose and how its pot is shared.
* ``GET /api/tournaments``: the tournaments open for registration and being played
  (``?status=finished``: the last ones over).
* ``GET /api/tournaments/{id}``: one tournament, its entries and each stage's standings.
* ``POST /api/tournaments/{id}/register`` / ``withdraw``: an entry, its fee taken from
  the balance or given back (while registering).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from server.api.deps import CurrentPlayer, OptionalPlayer, ServicesDep
from server.economy.arena import payout_table
from server.ids import ID_MAX, ID_PATTERN
from server.tournaments.service import TournamentDetail, TournamentSummary

router = APIRouter(tags=["tournaments"])

TournamentId = Annotated[str, Path(min_length=1, max_length=ID_MAX, pattern=ID_PATTERN)]


class ArenaInfo(BaseModel):
    """What an Arena table may stake and how its pot is shared."""

    stakes: list[int] = Field(description="The stakes a table may choose (REMI_ARENA_STAKES).")
    payouts: dict[str, list[int]] = Field(
        description="Per number of seats: per cent of the pot for the 1st, 2nd, ... place."
    )


class TournamentList(BaseModel):
    """Tournaments, the soonest to start first."""

    tournaments: list[TournamentSummary]


@router.get("/api/arena")
async def arena(services: ServicesDep) -> ArenaInfo:
    """The Arena's stakes and payout tables."""
    s = services.settings
    return ArenaInfo(
        stakes=list(s.arena_stakes), payouts={str(n): payout_table(s, n) for n in (2, 3, 4)}
    )


@router.get("/api/tournaments")
async def tournaments(
    services: ServicesDep,
    player: OptionalPlayer,
    status: Annotated[
        Literal["open", "finished"],
        Query(
            description="``open``: registering or being played (the default); "
            "``finished``: over or cancelled."
        ),
    ] = "open",
) -> TournamentList:
    """Tournaments open for registration and being played (or those over)."""
    statuses = ("registering", "running") if status == "open" else ("finished", "cancelled")
    found = await services.tournaments.listing(statuses, player.id if player else None)
    return TournamentList(tournaments=found)


@router.get("/api/tournaments/{tournament_id}")
async def tournament(
    tournament_id: TournamentId, services: ServicesDep, player: OptionalPlayer
) -> TournamentDetail:
    """One tournament: its entries, its stages' tables and their standings (live)."""
    return await services.tournaments.detail(tournament_id, player.id if player else None)


@router.post("/api/tournaments/{tournament_id}/register")
async def register(
    tournament_id: TournamentId, player: CurrentPlayer, services: ServicesDep
) -> TournamentSummary:
    """Register for the tournament, the entry fee taken from the balance (409
    ``insufficient_balance``, ``tournament_full``, ``registration_closed``); registered
    already: nothing changes."""
    return await services.tournaments.register(tournament_id, player)


@router.post("/api/tournaments/{tournament_id}/withdraw")
async def withdraw(
    tournament_id: TournamentId, player: CurrentPlayer, services: ServicesDep
) -> TournamentSummary:
    """Withdraw before the start: the fee comes back (409 ``registration_closed`` after)."""
    return await services.tournaments.withdraw(tournament_id, player)
