"""A finished round, told again: its replay (every step, all hands revealed), its
scenario file (../shared/SCENARIOS.md), which the scenario runner replays to the same
result, and its published record with the seed (docs/fairness.md), which anyone can check
against the commitment given at the deal. A public room's rounds are anyone's to watch; a
private room's only its players'. Nothing of a round being played is shown: its hands, its
stock and its seed are still hidden."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import Response
from pydantic import BaseModel, Field

from server.api.deps import OptionalPlayer, ServicesDep
from server.api.rooms import RoomId
from server.errors import Code, ServerError
from server.fairness.rounds import published_round, round_inputs
from server.rules.replays import replay_steps, to_scenario
from server.rules.variants import SeatScore
from server.services import Services
from server.storage.gamelog import RoundRecord

router = APIRouter(prefix="/api/rooms", tags=["replays"])

RoundNumber = Annotated[int, Path(ge=1, le=100_000, description="The round's number, from 1.")]


class RoundSeat(BaseModel):
    """A seat of the room: its player's name, or its bot's level."""

    seat: int
    name: str | None
    bot_level: str | None


class ReplayMeld(BaseModel):
    """A table meld as every seat sees it (§D)."""

    kind: str = Field(description="set, run or double")
    tiles: list[int]
    owners: list[int] = Field(description="Per position: the seat that laid the tile.")
    low: int | None
    suit: int | None
    stands_for: list[list[int] | None] = Field(
        description="Per position: null for a natural tile; for a joker, the faces that "
        "may buy it back."
    )


class RoundResultOut(BaseModel):
    """A finished round: why it ended (``out`` or ``stock``), who went out, each seat's
    total and how it was made."""

    reason: str
    out: int | None
    scores: list[int]
    closing: str | None = None
    breakdown: list[SeatScore] = Field(default_factory=list)


class RoundOptionsOut(BaseModel):
    """The round's options (the deal's joker credits included, B.9)."""

    row_depth: int | None = None
    short_game: bool = False
    joker_button: bool = False
    joker_credits: list[int] | None = None


class ReplayStep(BaseModel):
    """One step of a replay: the event that made it (null: the deal) and the whole table
    after it, every hand and the stock (top first) included."""

    event: dict[str, Any] | None
    hands: list[list[int]]
    stock: list[int]
    atu: int | None
    atu_taken_by: int | None
    row: list[int]
    row_by: list[int | None]
    table: list[ReplayMeld]
    consumed: list[int]
    turn: int
    phase: str
    opened: list[bool]


class RoundReplay(BaseModel):
    """A finished round told again, step 0 the deal."""

    room_id: str
    round: int
    seats: list[RoundSeat]
    variant: str
    players: int
    first: int
    options: RoundOptionsOut
    steps: list[ReplayStep]
    result: RoundResultOut | None
    commitment: str | None
    seed: str


class DealOut(BaseModel):
    """The deal the seed makes: each hand, the atu, the stock in order."""

    first: int
    hands: list[list[int]]
    atu: int | None
    stock: list[int]


class FairCheck(BaseModel):
    """One of the server's checks of a published round (commitment, deal, log, result)."""

    name: str
    ok: bool
    detail: str


class PublishedRound(BaseModel):
    """A finished round's published record (docs/fairness.md): what
    ``python -m server.cli verify FILE`` checks, with the server's own ``checks``."""

    scheme: str | None
    room_id: str
    round: int
    variant: str
    players: int
    first: int
    options: RoundOptionsOut
    commitment: str | None
    seed: str
    deal: DealOut
    actions: list[tuple[int, dict[str, Any]]] = Field(
        description="The action log: each entry a seat and its action (RULES.md A.18/B.14)."
    )
    result: RoundResultOut | None
    checks: list[FairCheck]


async def _finished_round(
    services: Services, room_id: str, number: int, viewer: str | None
) -> tuple[RoundRecord, int, list[dict[str, Any]]]:
    """The round, the room's seat count and seats, once the viewer may see the room."""
    room = await services.rooms.get_room(room_id, viewer)  # a private room: members only
    record = await services.gamelog.round_log(room_id, number)
    if record is None:
        raise ServerError(Code.ROUND_NOT_FOUND, f"room {room_id} has no round {number}")
    if not record.finished:
        raise ServerError(Code.ROUND_NOT_FINISHED, f"round {number} is still being played")
    seats = [
        {
            "seat": s.seat,
            "name": s.player.display_name if s.player else None,
            "bot_level": s.bot_level,
        }
        for s in room.seats
    ]
    return record, len(room.seats), seats


@router.get("/{room_id}/rounds/{number}/replay")
async def round_replay(
    room_id: RoomId, number: RoundNumber, services: ServicesDep, player: OptionalPlayer
) -> RoundReplay:
    """Every step of a finished round (step 0 the deal), each with its event, every hand,
    the stock in order, the atu, the row and the table; the seats' names; the result; the
    deal's commitment and its seed (docs/fairness.md)."""
    record, players, seats = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    deal, options, actions = round_inputs(record, players)
    replay = replay_steps(record.variant, players, deal, options, actions)
    return RoundReplay.model_validate(
        {
            "room_id": room_id,
            "round": number,
            "seats": seats,
            **replay,
            "commitment": deal.commitment,
            "seed": record.seed,
        }
    )


@router.get("/{room_id}/rounds/{number}/scenario")
async def round_scenario(
    room_id: RoomId, number: RoundNumber, services: ServicesDep, player: OptionalPlayer
) -> Response:
    """The finished round as a scenario file (a download): `python -m server.rules.scenario
    FILE` replays it to the same result."""
    record, players, _ = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    deal, options, actions = round_inputs(record, players)
    name = f"room {room_id}, round {number} ({record.variant})"
    data = to_scenario(record.variant, players, deal, options, actions, name)
    return Response(
        content=json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="remi-{room_id}-round-{number}.json"'
        },
    )


@router.get("/{room_id}/rounds/{number}/verify")
async def round_verify(
    room_id: RoomId, number: RoundNumber, services: ServicesDep, player: OptionalPlayer
) -> PublishedRound:
    """The finished round's published record (docs/fairness.md): variant, seats, first
    seat, options, the commitment sent at the deal, the seed, the deal, the action log and
    the result, with the server's own ``checks`` (commitment, deal, log, result). Save it
    and run `python -m server.cli verify FILE` to check it yourself."""
    record, players, _ = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    return PublishedRound.model_validate(published_round(room_id, record, players))
