"""Room routes: lobby, create, join by code, take a seat, start, score sheet.

The commands that change a room (join, seat, leave, start) run on the node that plays
the room, whichever node the request reached (:meth:`server.rooms.live.LiveRooms.command`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request, status
from pydantic import BaseModel, Field

from server.api.deps import CurrentPlayer, LiveDep, OptionalPlayer, ServicesDep
from server.api.limits import LimitedCreator, invite_code_guard
from server.ids import CODE_MAX, ID_MAX, ID_PATTERN
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import InviteView, RoomView, ScoreSheet

router = APIRouter(prefix="/api/rooms", tags=["rooms"])

RoomId = Annotated[str, Path(min_length=1, max_length=ID_MAX, pattern=ID_PATTERN)]
CodeQuery = Annotated[
    str | None,
    Query(max_length=CODE_MAX, pattern=ID_PATTERN, description="Invite code of a private room."),
]


class Lobby(BaseModel):
    """Public rooms waiting for players."""

    rooms: list[RoomView]


class JoinByCode(BaseModel):
    """Body of POST /api/rooms/join-by-code."""

    code: str = Field(min_length=1, max_length=CODE_MAX, pattern=ID_PATTERN)


class SeatRequest(BaseModel):
    """Optional body of POST /api/rooms/{id}/seats/{seat}."""

    code: str | None = Field(
        default=None,
        max_length=CODE_MAX,
        pattern=ID_PATTERN,
        description="Invite code, for a private room.",
    )


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_room(
    settings: RoomSettings, player: LimitedCreator, services: ServicesDep
) -> RoomView:
    """Create a room with these settings; the creator owns it and sits on seat 0."""
    return await services.rooms.create_room(player, settings)


@router.get("")
async def lobby(
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 100,
    room_status: Annotated[
        Literal["waiting", "playing"],
        Query(
            alias="status",
            description="``waiting``: rooms looking for players (the default); ``playing``: "
            "tables being played, to watch as a spectator.",
        ),
    ] = "waiting",
) -> Lobby:
    """Public rooms that are waiting for players (or being played), newest first."""
    return Lobby(rooms=await services.rooms.lobby(limit, room_status))


@router.post("/join-by-code")
async def join_by_code(
    request: Request,
    body: JoinByCode,
    player: CurrentPlayer,
    services: ServicesDep,
    live: LiveDep,
) -> RoomView:
    """Join a private room by its invite code (takes the first free seat while waiting).
    Wrong codes are limited per address and player (429 past the limit)."""
    async with invite_code_guard(request, services, player.id, body.code):
        room_id = await services.rooms.room_of_code(body.code)
        return await live.command("join_by_code", room_id, player, code=body.code)


@router.get("/invite/{code}")
async def invite(
    request: Request,
    code: Annotated[str, Path(min_length=1, max_length=CODE_MAX, pattern=ID_PATTERN)],
    services: ServicesDep,
    player: OptionalPlayer,
) -> InviteView:
    """What an invite link opens, for anyone (no sign-in): the room's variant and its
    owner's display name, nothing else; 404 ``invite_not_found`` for a code no room has
    (wrong codes are limited per address and player)."""
    async with invite_code_guard(request, services, player.id if player else None, code):
        return await services.rooms.invite(code)


@router.get("/{room_id}")
async def get_room(
    request: Request,
    room_id: RoomId,
    services: ServicesDep,
    player: OptionalPlayer,
    code: CodeQuery = None,
) -> RoomView:
    """One room (a private one only for its members or with ``?code=``; wrong codes are
    limited per address and player)."""
    player_id = player.id if player else None
    async with invite_code_guard(request, services, player_id, code):
        return await services.rooms.get_room(room_id, player_id, code)


@router.post("/{room_id}/seats/{seat}")
async def take_seat(
    request: Request,
    room_id: RoomId,
    seat: Annotated[int, Path(ge=0, le=3)],
    player: CurrentPlayer,
    services: ServicesDep,
    live: LiveDep,
    body: SeatRequest | None = None,
) -> RoomView:
    """Take a seat (or move to it) while the room is waiting (wrong codes are limited
    per address and player)."""
    code = body.code if body else None
    async with invite_code_guard(request, services, player.id, code):
        return await live.command("take_seat", room_id, player, seat=seat, code=code)


@router.post("/{room_id}/leave")
async def leave(room_id: RoomId, player: CurrentPlayer, live: LiveDep) -> RoomView:
    """Give up one's seat while the room is waiting."""
    return await live.command("leave_seat", room_id, player)


@router.post("/{room_id}/start")
async def start(room_id: RoomId, player: CurrentPlayer, live: LiveDep) -> RoomView:
    """Start the match (owner only); empty seats get bots if the room says so."""
    return await live.command("start", room_id, player)


@router.post("/{room_id}/again")
async def play_again(
    room_id: RoomId, player: LimitedCreator, services: ServicesDep, live: LiveDep
) -> RoomView:
    """Play a finished match again: the first of its players to ask gets a new private
    room with the same settings (a quick start table's: a normal room), owns it and sits
    on seat 0; the others, told by ``next_room`` in the finished room's view, get a seat in
    that room (as by its invite code). 409 ``match_not_over`` while it is played."""
    view, code = await services.rooms.play_again(room_id, player)
    if code is None:
        return view
    return await live.command("join_by_code", view.id, player, code=code)


@router.get("/{room_id}/scores")
async def scores(
    room_id: RoomId, services: ServicesDep, player: OptionalPlayer, code: CodeQuery = None
) -> ScoreSheet:
    """The score sheet: each finished round's additions and the totals."""
    return await services.rooms.score_sheet(room_id, player.id if player else None, code)
