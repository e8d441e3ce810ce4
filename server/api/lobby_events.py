"""Lobby change notifications over the bus, streamed to browsers as Server-Sent Events.

Every instance publishes the public rooms whose seats or status changed (created,
seated, started, finished) on the ``lobby`` topic of the bus (:mod:`server.bus`);
``GET /api/lobby/events`` streams them, so a lobby refreshes when something
changes on any instance instead of polling. A message only names the room and its
status: the client refetches the lobby, whose answer is filtered for it. Private rooms
are never announced. When the bus lost Redis and subscribed again, the stream sends
``{"event": "resync"}``: changes may have been missed, refetch.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from server.api.deps import LiveDep, ServicesDep
from server.bus import RESUBSCRIBED
from server.rooms.lobby.service import RoomEvents, RoomView
from server.services import Services

log = logging.getLogger(__name__)

LOBBY_TOPIC = "lobby"
RESYNC = {"event": "resync"}
KEEPALIVE_SECONDS = 15.0

router = APIRouter(prefix="/api/lobby", tags=["rooms"])


class LobbyPublisher:
    """A :class:`RoomEvents` sink that announces public room changes on the bus."""

    def __init__(self, services: Services, forward: RoomEvents | None = None) -> None:
        self._services = services
        self._forward = forward

    async def _announce(self, room: RoomView, what: str) -> None:
        if room.settings.public:
            try:
                await self._services.bus.publish(
                    LOBBY_TOPIC,
                    {
                        "event": what,
                        "room": room.id,
                        "status": room.status,
                        "free_seats": room.free_seats,
                    },
                )
            except Exception as exc:  # the lobby hint must never break a room change
                log.warning("lobby_publish_failed", extra={"error": repr(exc)})

    async def room_changed(self, room: RoomView) -> None:
        await self._announce(room, "changed")
        if self._forward is not None:
            await self._forward.room_changed(room)

    async def room_started(self, room: RoomView) -> None:
        await self._announce(room, "started")
        if self._forward is not None:
            await self._forward.room_started(room)

    async def room_finished(self, room: RoomView) -> None:
        await self._announce(room, "finished")
        if self._forward is not None:
            await self._forward.room_finished(room)


@router.get(
    "/events",
    summary="Stream lobby changes (Server-Sent Events)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def lobby_events(request: Request, services: ServicesDep, live: LiveDep) -> StreamingResponse:
    """``data: {"event", "room", "status", "free_seats"}`` per change (``event``:
    ``changed``, ``started`` or ``finished``); ``data: {"event": "resync"}`` after the
    bus reconnected to Redis (refetch the lobby); a comment line every 15 s keeps proxies
    from closing the stream. The stream ends when the node begins to stop (the page
    reconnects, to another node), so that it never holds the stop back."""

    async def stream() -> AsyncIterator[str]:
        stopped = asyncio.ensure_future(live.stopping.wait())
        try:
            async with services.bus.subscribe(LOBBY_TOPIC) as sub:
                yield ": lobby events\n\n"
                while not stopped.done() and not await request.is_disconnected():
                    got = asyncio.ensure_future(sub.get())
                    await asyncio.wait(
                        {got, stopped},
                        timeout=KEEPALIVE_SECONDS,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    if not got.done():
                        got.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await got
                        if not stopped.done():
                            yield ": keep-alive\n\n"
                        continue
                    message = got.result()
                    if message == RESUBSCRIBED:
                        message = RESYNC
                    yield f"data: {json.dumps(message)}\n\n"
        finally:
            stopped.cancel()

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
    )
