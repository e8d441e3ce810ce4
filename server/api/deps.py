"""FastAPI dependencies: the service container and the authenticated player."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from server.errors import Code, ServerError
from server.identity import PlayerInfo
from server.services import Services

_bearer = HTTPBearer(auto_error=False, description="The player's token (or the cookie).")


def get_services(request: Request) -> Services:
    """The app's service container."""
    services = request.app.state.services
    assert isinstance(services, Services)
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def optional_player(
    request: Request,
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> PlayerInfo | None:
    """The player authenticated by ``Authorization: Bearer`` or, failing that, the cookie.

    A bearer token that is present but unknown is an error, not an anonymous request.
    """
    if credentials is not None:
        player = await services.identity.authenticate(credentials.credentials)
        if player is None:
            raise ServerError(Code.INVALID_TOKEN, "the bearer token is not valid")
        return player
    token = request.cookies.get(services.settings.cookie_name)
    if token:
        return await services.identity.authenticate(token)
    return None


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
