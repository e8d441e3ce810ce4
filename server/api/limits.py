"""Limits at the HTTP edge: how large a request body may be, how often a client may
create things (the buckets: server/limits.py).

:class:`BodyLimit` is a plain ASGI middleware: a body larger than
``Settings.max_body_bytes`` is refused with 413 (``body_too_large``), by its
``Content-Length`` before any of it is read, and for a chunked body as soon as the
bytes counted so far pass the limit; the rest is never read (the connection closes).

:class:`~server.limits.CreateLimits` counts, per client address and per player, the
requests that create something (``POST /api/players``, ``/api/rooms``,
``/api/session``, ``/api/quickstart``): beyond ``create_limit_per_address`` (or
``..._per_identity``) per ``create_limit_window_seconds`` the request is refused with 429
(``too_many_requests``) and ``Retry-After``. :func:`invite_code_guard` limits wrong
invite codes per address and per player. With Redis the counts are shared by the nodes
(server/limits.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import Depends, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.accounts.identity import PlayerInfo
from server.api.deps import CurrentPlayer, ServicesDep
from server.api.errors import error_response
from server.errors import Code, ServerError

# --- request bodies ----------------------------------------------------------------


class BodyLimit:
    """ASGI middleware: HTTP request bodies of at most ``max_bytes`` (see the module doc).

    Once a streamed body passes the limit, the 413 goes out, the application is told
    the client left (``http.disconnect``) and whatever it answers is dropped.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > limit:
                await self._refuse(scope, receive, send)
                return
        received = 0
        started = False
        refused = False

        async def counted() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    if not started:
                        await self._refuse(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out: the application's answer is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except Exception:
            if not refused:
                raise
            # the application gave up on the body cut short: the 413 has been sent

    def _message(self) -> str:
        return f"the request body is larger than {self.max_bytes} bytes"

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = ServerError(Code.BODY_TOO_LARGE, self._message())
        response = error_response(refusal, headers={"Connection": "close"})
        await response(scope, receive, send)


def client_address(request: Request) -> str:
    """The client's address as the server sees it (behind a proxy: the proxy's, unless
    uvicorn is told to trust its forwarded headers)."""
    return request.client.host if request.client else "unknown"


async def limit_players(request: Request, services: ServicesDep) -> None:
    """Dependency of ``POST /api/players``: per address."""
    await services.limits.per_address("player", client_address(request))


async def limit_rooms(request: Request, services: ServicesDep, player: CurrentPlayer) -> PlayerInfo:
    """Dependency of ``POST /api/rooms``: per address and per player; the player."""
    await services.limits.per_address("room", client_address(request))
    await services.limits.per_player("room", player.id)
    return player


async def limit_quick_start(
    request: Request, services: ServicesDep, player: CurrentPlayer
) -> PlayerInfo:
    """Dependency of ``POST /api/quickstart`` (it may open a room): per address and per
    player, in buckets of its own; the player."""
    await services.limits.per_address("quickstart", client_address(request))
    await services.limits.per_player("quickstart", player.id)
    return player


async def limit_sessions(request: Request, services: ServicesDep) -> None:
    """Dependency of ``POST /api/session`` and ``POST /api/sessions``: per address (the
    handler counts the player's once the token names one)."""
    await services.limits.per_address("session", client_address(request))


WRONG_CODE = (Code.INVITE_NOT_FOUND, Code.ROOM_NOT_FOUND)
"""The answers to a request whose invite code opens nothing."""


@asynccontextmanager
async def invite_code_guard(
    request: Request, services: ServicesDep, player_id: str | None, code: str | None
) -> AsyncIterator[None]:
    """Around a request that carries an invite code (join by code, a seat or a room read
    with one): refused (429) once the address or the player has tried too many wrong
    codes; a wrong code is counted. A request without a code passes untouched."""
    if code is None:
        yield
        return
    address = client_address(request)
    await services.limits.check_codes(address, player_id)
    try:
        yield
    except ServerError as exc:
        if exc.code in WRONG_CODE:
            await services.limits.wrong_code(address, player_id)
        raise


LimitedCreator = Annotated[PlayerInfo, Depends(limit_rooms)]
LimitedQuickStart = Annotated[PlayerInfo, Depends(limit_quick_start)]
"""The authenticated player, once within the room-creation limits."""
