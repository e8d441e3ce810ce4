"""FastAPI dependencies: the service container and the authenticated player (and its
session: the device's token)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from server.accounts.identity import Authed, PlayerInfo
from server.errors import Code, ServerError
from server.rooms.live import LiveRooms
from server.services import Services

_bearer = HTTPBearer(auto_error=False, description="The player's token (or the cookie).")


def get_services(request: Request) -> Services:
    """The app's service container."""
    services = request.app.state.services
    assert isinstance(services, Services)
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_live(request: Request) -> LiveRooms:
    """The app's live rooms (the room commands run on the node that plays the room)."""
    live = request.app.state.live
    assert isinstance(live, LiveRooms)
    return live


LiveDep = Annotated[LiveRooms, Depends(get_live)]


async def optional_auth(
    request: Request,
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Authed | None:
    """The player and session authenticated by ``Authorization: Bearer`` or, failing
    that, the cookie.

    A bearer token that is present but unknown is an error, not an anonymous request.
    """
    if credentials is not None:
        authed = await services.identity.resolve(credentials.credentials)
        if authed is None:
            raise ServerError(Code.INVALID_TOKEN, "the bearer token is not valid")
        return authed
    token = request.cookies.get(services.settings.cookie_name)
    if token:
        return await services.identity.resolve(token)
    return None


async def optional_player(
    authed: Annotated[Authed | None, Depends(optional_auth)],
) -> PlayerInfo | None:
    """The authenticated player, or None."""
    return authed.player if authed is not None else None


async def current_auth(
    authed: Annotated[Authed | None, Depends(optional_auth)],
) -> Authed:
    """The authenticated player and session; 401 without a valid token."""
    if authed is None:
        raise ServerError(
            Code.NOT_AUTHENTICATED,
            "create a player with POST /api/players, then send its token "
            "(cookie or Authorization: Bearer)",
        )
    return authed


async def current_player(
    player: Annotated[PlayerInfo | None, Depends(optional_player)],
) -> PlayerInfo:
    """The authenticated player; 401 without a valid token."""
    if player is None:
        raise ServerError(
            Code.NOT_AUTHENTICATED,
            "create a player with POST /api/players, then send its token "
            "(cookie or Authorization: Bearer)",
        )
    return player


OptionalPlayer = Annotated[PlayerInfo | None, Depends(optional_player)]
CurrentPlayer = Annotated[PlayerInfo, Depends(current_player)]
CurrentAuth = Annotated[Authed, Depends(current_auth)]
