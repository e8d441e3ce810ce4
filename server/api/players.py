"""Guest identity routes: create a player, who am I, move the identity to a browser."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Response, status
from pydantic import BaseModel, Field, field_validator

from server.api.deps import CurrentPlayer, ServicesDep
from server.api.limits import limit_players, limit_sessions
from server.errors import Code, ServerError
from server.identity import DISPLAY_NAME_MAX, PlayerInfo, clean_display_name
from server.ids import ID_MAX, ID_PATTERN, TOKEN_MAX
from server.rooms.service import MatchSummary
from server.settings import Settings

router = APIRouter(prefix="/api", tags=["players"])


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


class SessionIn(BaseModel):
    """A token to turn into this browser's cookie (same player on another device)."""

    token: str = Field(min_length=1, max_length=TOKEN_MAX, pattern=ID_PATTERN)


class MatchHistory(BaseModel):
    """A player's finished matches, newest first."""

    player_id: str
    matches: list[MatchSummary]


def _set_cookie(response: Response, settings: Settings, token: str) -> None:
    response.set_cookie(
        settings.cookie_name,
        token,
        max_age=settings.cookie_max_age_seconds,
        httponly=True,
        secure=settings.cookie_secure,
        samesite=settings.cookie_samesite,
        path="/",
    )


@router.post(
    "/players", status_code=status.HTTP_201_CREATED, dependencies=[Depends(limit_players)]
)
async def create_player(
    body: PlayerCreate, response: Response, services: ServicesDep
) -> PlayerCreated:
    """Create a guest player; the token comes back once and as a cookie."""
    player, token = await services.identity.create_player(body.display_name)
    _set_cookie(response, services.settings, token)
    return PlayerCreated(player=PlayerOut.of(player), token=token)


@router.get("/me")
async def me(player: CurrentPlayer) -> PlayerOut:
    """The authenticated player."""
    return PlayerOut.of(player)


@router.post("/session", dependencies=[Depends(limit_sessions)])
async def open_session(body: SessionIn, response: Response, services: ServicesDep) -> PlayerOut:
    """Set the cookie from a token obtained elsewhere: the same player on this device."""
    player = await services.identity.authenticate(body.token)
    if player is None:
        raise ServerError(Code.INVALID_TOKEN, "the token is not valid")
    services.limits.per_player("session", player.id)
    _set_cookie(response, services.settings, body.token)
    return PlayerOut.of(player)


@router.delete("/session", status_code=status.HTTP_204_NO_CONTENT)
async def close_session(response: Response, services: ServicesDep) -> None:
    """Forget the cookie on this browser (the player and its token stay valid)."""
    response.delete_cookie(
        services.settings.cookie_name,
        path="/",
        httponly=True,
        secure=services.settings.cookie_secure,
        samesite=services.settings.cookie_samesite,
    )


@router.post("/session/revoke-all")
async def revoke_all_sessions(
    player: CurrentPlayer, response: Response, services: ServicesDep
) -> PlayerCreated:
    """Sign out everywhere: the player's token is replaced, so every device holding it
    is signed out; the new token comes back once and as this device's cookie."""
    services.limits.per_player("session", player.id)
    token = await services.identity.revoke_all(player.id)
    _set_cookie(response, services.settings, token)
    return PlayerCreated(player=PlayerOut.of(player), token=token)


@router.get("/players/{player_id}/matches")
async def player_matches(
    player_id: Annotated[str, Path(min_length=1, max_length=ID_MAX, pattern=ID_PATTERN)],
    services: ServicesDep,
) -> MatchHistory:
    """A player's finished matches with totals and winners."""
    matches = await services.rooms.player_matches(player_id)
    return MatchHistory(player_id=player_id, matches=matches)
