"""Guest identity routes: create a player, who am I, my rooms, a player's matches (the sessions'
routes, signing in and out, are in :mod:`server.api.sessions`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from pydantic import BaseModel, Field, field_validator

from server.accounts.identity import DISPLAY_NAME_MAX, PlayerInfo, clean_display_name
from server.api.cookies import device_label, set_cookie
from server.api.deps import CurrentPlayer, OptionalPlayer, ServicesDep
from server.api.limits import limit_players
from server.cursors import CURSOR_MAX
from server.economy.profiles import Profile
from server.ids import ID_MAX, ID_PATTERN
from server.rooms.lobby.service import MatchSummary, RoomView

router = APIRouter(prefix="/api", tags=["players"])

PlayerId = Annotated[str, Path(min_length=1, max_length=ID_MAX, pattern=ID_PATTERN)]


class PlayerCreate(BaseModel):
    """Request body of POST /api/players."""

    display_name: str = Field(min_length=1, max_length=4 * DISPLAY_NAME_MAX)

    @field_validator("display_name")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean_display_name(value)


class PlayerOut(BaseModel):
    """A player (public fields only)."""

    id: str
    display_name: str
    created_at: datetime

    @classmethod
    def of(cls, p: PlayerInfo) -> PlayerOut:
        return cls(id=p.id, display_name=p.display_name, created_at=p.created_at)


class PlayerCreated(BaseModel):
    """The new player and its token: shown this once, keep it."""

    player: PlayerOut
    token: str = Field(description="Bearer token; also set as an HttpOnly cookie.")


class MatchHistory(BaseModel):
    """A page of a player's finished matches, newest first; ``next_cursor`` asks for the
    next page (null: this is the last)."""

    player_id: str
    matches: list[MatchSummary]
    next_cursor: str | None


@router.post("/players", status_code=status.HTTP_201_CREATED, dependencies=[Depends(limit_players)])
async def create_player(
    body: PlayerCreate, request: Request, response: Response, services: ServicesDep
) -> PlayerCreated:
    """Create a guest player and its first session (this device's): the token comes back
    once and as a cookie."""
    player, token = await services.identity.create_player(body.display_name, device_label(request))
    set_cookie(response, services.settings, token)
    return PlayerCreated(player=PlayerOut.of(player), token=token)


@router.get("/me")
async def me(player: CurrentPlayer) -> PlayerOut:
    """The authenticated player."""
    return PlayerOut.of(player)


class Identity(BaseModel):
    """Who a request's token names: the player, or null."""

    player: PlayerOut | None


@router.get("/whoami")
async def whoami(player: OptionalPlayer) -> Identity:
    """The authenticated player, or ``{"player": null}`` without a valid token: a page's
    first visit has no identity yet, which is not an error (``GET /api/me`` answers 401)."""
    return Identity(player=PlayerOut.of(player) if player is not None else None)


class YourRooms(BaseModel):
    """The rooms where the authenticated player holds a seat and that are not finished."""

    rooms: list[RoomView]


@router.get("/players/me/rooms")
async def my_rooms(player: CurrentPlayer, services: ServicesDep) -> YourRooms:
    """Every room not finished where this player holds a seat (practice games included),
    those being played first: the lobby's "your games", one tap back to the seat."""
    return YourRooms(rooms=await services.rooms.player_rooms(player.id))


@router.get("/players/{player_id}/matches")
async def player_matches(
    player_id: PlayerId,
    services: ServicesDep,
    viewer: OptionalPlayer,
    cursor: Annotated[str | None, Query(max_length=CURSOR_MAX)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> MatchHistory:
    """A page of a player's finished matches with totals and winners, newest first. A
    private room's match is listed only to its players (and owner): to anyone else, and
    without a token, it is not there."""
    matches, next_cursor = await services.rooms.player_matches(
        player_id, viewer.id if viewer else None, cursor, limit
    )
    return MatchHistory(player_id=player_id, matches=matches, next_cursor=next_cursor)


@router.get("/players/{player_id}/profile")
async def player_profile(
    player_id: PlayerId, services: ServicesDep, viewer: OptionalPlayer
) -> Profile:
    """A player's profile: ratings and their history, and per variant the matches, wins,
    rounds, average round score, opening and going-out rates (docs/economy.md)."""
    return await services.profiles.profile(player_id, viewer.id if viewer else None)
