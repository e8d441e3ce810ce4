"""Session routes: a player's devices, each signed in with a token of its own.

* ``POST /api/session``: make a token this browser's cookie (the same session: how a
  browser whose cookie is gone restores it from the token it kept).
* ``POST /api/sessions``: sign in on this device with a token copied from another one:
  a new session, with a new token, for this device; the copied token keeps working on
  its own device.
* ``GET /api/sessions``: the player's sessions (ids, labels, dates; never a token).
* ``POST /api/session/rotate``: a new token for this device, the old one refused.
* ``POST /api/session/revoke``: sign out on this device (server side; the cookie goes).
* ``DELETE /api/sessions/{id}``: sign out another of the player's devices.
* ``POST /api/session/revoke-all``: sign out everywhere; this device gets a new session.
* ``DELETE /api/session``: forget the cookie only (the token stays valid).

A revoked session's room sockets are closed with ``session_revoked`` (4403), on every
instance (:meth:`server.rooms.live.LiveRooms.sessions_revoked`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request, Response, status
from pydantic import BaseModel, Field

from server.accounts.identity import SessionInfo
from server.api.cookies import clear_cookie, device_label, set_cookie
from server.api.deps import CurrentAuth, ServicesDep
from server.api.limits import limit_sessions
from server.api.players import PlayerCreated, PlayerOut
from server.errors import Code, ServerError
from server.ids import ID_MAX, ID_PATTERN, TOKEN_MAX
from server.rooms.live import LiveRooms

router = APIRouter(prefix="/api", tags=["sessions"])


class SessionIn(BaseModel):
    """A token of the player (from this browser, or copied from another device)."""

    token: str = Field(min_length=1, max_length=TOKEN_MAX, pattern=ID_PATTERN)


class SessionOut(BaseModel):
    """One device the player is signed in on."""

    id: str
    label: str | None = Field(description="The device's browser (its User-Agent), if known.")
    created_at: datetime = Field(description="When the device signed in.")
    issued_at: datetime = Field(description="When its current token was issued (rotation).")
    last_used_at: datetime | None = Field(
        description="When its token was last used (to within REMI_SESSION_TOUCH_SECONDS)."
    )
    current: bool = Field(description="This is the session of the request's token.")

    @classmethod
    def of(cls, s: SessionInfo, current: str) -> SessionOut:
        return cls(
            id=s.id,
            label=s.label,
            created_at=s.created_at,
            issued_at=s.issued_at,
            last_used_at=s.last_used_at,
            current=s.id == current,
        )


class SessionList(BaseModel):
    """The player's sessions, most recently created first."""

    sessions: list[SessionOut]


def _live(request: Request) -> LiveRooms:
    live = request.app.state.live
    assert isinstance(live, LiveRooms)
    return live


SessionId = Annotated[str, Path(min_length=1, max_length=ID_MAX, pattern=ID_PATTERN)]


@router.post("/session", dependencies=[Depends(limit_sessions)])
async def open_session(body: SessionIn, response: Response, services: ServicesDep) -> PlayerOut:
    """Set the cookie from a token of this device (the same session)."""
    player = await services.identity.authenticate(body.token)
    if player is None:
        raise ServerError(Code.INVALID_TOKEN, "the token is not valid")
    await services.limits.per_player("session", player.id)
    set_cookie(response, services.settings, body.token)
    return PlayerOut.of(player)


@router.post(
    "/sessions", status_code=status.HTTP_201_CREATED, dependencies=[Depends(limit_sessions)]
)
async def sign_in(
    body: SessionIn, request: Request, response: Response, services: ServicesDep
) -> PlayerCreated:
    """Sign in on this device with a token from another one: a session of its own; its
    token comes back once and as the cookie."""
    player = await services.identity.authenticate(body.token)
    if player is None:
        raise ServerError(Code.INVALID_TOKEN, "the token is not valid")
    await services.limits.per_player("session", player.id)
    signed = await services.identity.sign_in(body.token, device_label(request))
    if signed is None:  # revoked in between
        raise ServerError(Code.INVALID_TOKEN, "the token is not valid")
    _, token = signed
    set_cookie(response, services.settings, token)
    return PlayerCreated(player=PlayerOut.of(player), token=token)


@router.get("/sessions")
async def list_sessions(auth: CurrentAuth, services: ServicesDep) -> SessionList:
    """The devices the player is signed in on (no token, only ids, labels and dates)."""
    rows = await services.identity.sessions(auth.player.id)
    return SessionList(sessions=[SessionOut.of(s, auth.session_id) for s in rows])


@router.post("/session/rotate")
async def rotate_session(
    auth: CurrentAuth, response: Response, services: ServicesDep
) -> PlayerCreated:
    """A new token for this device; the old one is refused from now on (the device's
    open sockets stay open). 401 ``invalid_token`` when the token was rotated or revoked
    meanwhile (another tab's rotation won: keep the cookie it set)."""
    await services.limits.per_player("session", auth.player.id)
    token = await services.identity.rotate(auth)
    if token is None:
        raise ServerError(Code.INVALID_TOKEN, "the token was rotated or revoked meanwhile")
    set_cookie(response, services.settings, token)
    return PlayerCreated(player=PlayerOut.of(auth.player), token=token)


@router.post("/session/revoke", status_code=status.HTTP_204_NO_CONTENT)
async def revoke_session(
    auth: CurrentAuth, request: Request, response: Response, services: ServicesDep
) -> None:
    """Sign out on this device: its token is refused from now on, its sockets are
    closed, the cookie goes. The player's other devices stay signed in."""
    await services.identity.revoke(auth.player.id, auth.session_id)
    clear_cookie(response, services.settings)
    await _live(request).sessions_revoked([auth.session_id])


@router.delete("/sessions/{session_id}", status_code=status.HTTP_204_NO_CONTENT)
async def revoke_other(
    session_id: SessionId,
    auth: CurrentAuth,
    request: Request,
    response: Response,
    services: ServicesDep,
) -> None:
    """Sign out one of the player's devices (this one too, when it is its id)."""
    if not await services.identity.revoke(auth.player.id, session_id):
        raise ServerError(Code.SESSION_NOT_FOUND, "you have no session with this id")
    if session_id == auth.session_id:
        clear_cookie(response, services.settings)
    await _live(request).sessions_revoked([session_id])


@router.post("/session/revoke-all")
async def revoke_all_sessions(
    auth: CurrentAuth, request: Request, response: Response, services: ServicesDep
) -> PlayerCreated:
    """Sign out everywhere: every token of the player is refused from now on and every
    socket opened with one is closed. This device gets a new session: its token comes
    back once and as the cookie."""
    await services.limits.per_player("session", auth.player.id)
    token, revoked = await services.identity.revoke_all(auth.player.id, device_label(request))
    set_cookie(response, services.settings, token)
    await _live(request).sessions_revoked(revoked)
    return PlayerCreated(player=PlayerOut.of(auth.player), token=token)


@router.delete("/session", status_code=status.HTTP_204_NO_CONTENT)
async def close_session(response: Response, services: ServicesDep) -> None:
    """Forget the cookie on this browser (the player and its token stay valid)."""
    clear_cookie(response, services.settings)
