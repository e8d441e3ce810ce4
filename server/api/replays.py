"""A finished round, told again: its replay (every step, all hands revealed) and its
scenario file (../shared/SCENARIOS.md), which the scenario runner replays to the same
result. A public room's rounds are anyone's to watch; a private room's only its players'.
Nothing of a round being played is shown: its hands and stock are still hidden."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import Response

from server.api.deps import OptionalPlayer, ServicesDep
from server.api.rooms import RoomId
from server.errors import Code, ServerError
from server.rules import Deal, RoundOptions, get_variant
from server.rules.replays import replay_steps, to_scenario
from server.rules.state import deal_tiles
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
        {"seat": s.seat, "name": s.player.display_name if s.player else None,
         "bot_level": s.bot_level}
        for s in room.seats
    ]
    return record, len(room.seats), seats


def _deal(record: RoundRecord, players: int, options: RoundOptions) -> Deal:
    stored = record.options.get("deal")
    if stored:
        return Deal.from_dict(stored)
    return deal_tiles(get_variant(record.variant), players, record.seed, record.first_seat,
                      options)


def _inputs(record: RoundRecord, players: int) -> tuple[Deal, RoundOptions, list[Any]]:
    options = RoundOptions.from_dict(record.options)
    return _deal(record, players, options), options, [(a.seat, a.action) for a in record.actions]


@router.get("/{room_id}/rounds/{number}/replay")
async def round_replay(
    room_id: RoomId, number: RoundNumber, services: ServicesDep, player: OptionalPlayer
) -> dict[str, Any]:
    """Every step of a finished round (step 0 the deal), each with its event, every hand,
    the stock in order, the atu, the row and the table; the seats' names; the result."""
    record, players, seats = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    deal, options, actions = _inputs(record, players)
    replay = replay_steps(record.variant, players, deal, options, actions)
    return {"room_id": room_id, "round": number, "seats": seats, **replay}


@router.get("/{room_id}/rounds/{number}/scenario")
async def round_scenario(
    room_id: RoomId, number: RoundNumber, services: ServicesDep, player: OptionalPlayer
) -> Response:
    """The finished round as a scenario file (a download): `python -m server.rules.scenario
    FILE` replays it to the same result."""
    record, players, _ = await _finished_round(
        services, room_id, number, player.id if player else None
    )
    deal, options, actions = _inputs(record, players)
    name = f"room {room_id}, round {number} ({record.variant})"
    data = to_scenario(record.variant, players, deal, options, actions, name)
    return Response(
        content=json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="remi-{room_id}-round-{number}.json"'
        },
    )
