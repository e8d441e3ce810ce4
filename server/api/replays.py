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

from server.api.deps import OptionalPlayer, ServicesDep
from server.api.rooms import RoomId
from server.errors import Code, ServerError
from server.fairness.rounds import published_round, round_inputs
from server.rules.replays import replay_steps, to_scenario
from server.services import Services
from server.storage.gamelog import RoundRecord

router = APIRouter(prefix="/api/rooms", tags=["replays"])

RoundNumber = Annotated[int, Path(ge=1, le=100_000, description="The round's number, from 1.")]


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
) -> dict[str, Any]:
    """Every step of a finished round (step 0 the deal), each with its event, every hand,
    the stock in order, the atu, the row and the table; the seats' names; the result; the
    deal's commitment and its seed (docs/fairness.md)."""
    record, players, seats = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    deal, options, actions = round_inputs(record, players)
    replay = replay_steps(record.variant, players, deal, options, actions)
    return {
        "room_id": room_id,
        "round": number,
        "seats": seats,
        **replay,
        "commitment": deal.commitment,
        "seed": record.seed,
    }


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
) -> dict[str, Any]:
    """The finished round's published record (docs/fairness.md): variant, seats, first
    seat, options, the commitment sent at the deal, the seed, the deal, the action log and
    the result, with the server's own ``checks`` (commitment, deal, log, result). Save it
    and run `python -m server.cli verify FILE` to check it yourself."""
    record, players, _ = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    return published_round(room_id, record, players)
