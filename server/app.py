"""FastAPI application factory.

``create_app(settings)`` builds one app around one :class:`~server.services.Services`
container (engine, metrics registry, services) stored on ``app.state.services``
and reached by handlers through :func:`server.api.deps.get_services`. The
lifespan applies the migrations, connects Redis when configured, and closes
everything on shutdown. Several apps can live in one process (tests do).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, WebSocket
from fastapi.middleware.cors import CORSMiddleware
from redis.asyncio import Redis
from starlette.types import Receive, Scope, Send

from server import gcpolicy
from server.api import (
    account,
    health,
    leaderboards,
    lobby_events,
    players,
    quickstart,
    replays,
    rooms,
    sessions,
    tournaments,
    variants,
)
from server.api.errors import install_error_handlers
from server.api.headers import SecurityHeaders
from server.api.limits import BodyLimit
from server.api.lobby_events import LobbyPublisher
from server.api.origin import CookieOriginCheck
from server.bus import RedisBus
from server.rooms.lobby.service import RoomEvents
from server.services import Services, build_services
from server.settings import Settings
from server.storage.migrate import migrate
from server.tournaments.runner import TournamentRunner
from server.webfiles import CompressedStaticFiles
from server.ws import install_live, room_of_path, room_socket

log = logging.getLogger(__name__)


class RemiApp(FastAPI):
    """The FastAPI app, with the room sockets dispatched straight to their handler.

    A room connection lives for the whole game and every frame it receives resumes
    the coroutines of every layer it went through. The ``/ws/rooms/{room_id}``
    handler needs none of the HTTP middleware (CORS does not apply to WebSockets, the
    handler checks the Origin and catches its own errors), so those connections skip
    the middleware stack and the router: less memory per connection, less work per
    frame. The route is registered too (documentation, any other ASGI server path).
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            room_id = room_of_path(scope["path"])
            if room_id is not None:
                scope["app"] = self
                await room_socket(WebSocket(scope, receive, send), room_id)
                return
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    events: RoomEvents | None = None,
    *,
    process_wide: bool = False,
) -> FastAPI:
    """Build the ASGI app; ``settings`` default to the environment (``REMI_*``).

    ``process_wide``: the app is the process's one server (server/cli.py), which may set
    the process's garbage-collector policy (:mod:`server.gcpolicy`, unless the
    ``gc_policy`` setting is off) once start-up has built what lives as long as the
    process, before the rooms are restored. Tests leave it off: their process goes on
    after an app."""
    settings = settings if settings is not None else Settings()
    services = build_services(settings, events)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await _startup(services)
        policy = gcpolicy.apply(process_wide and settings.gc_policy)
        await live.start()  # the room actors: restore every playing room
        runner.start()  # the tournaments: moved on from the database
        services.metrics.gc.watch()
        services.metrics.watch_loop()
        try:
            yield
        finally:
            services.metrics.gc.unwatch()
            await services.metrics.unwatch_loop()
            await runner.stop()
            await live.stop()
            await _shutdown(services)
            gcpolicy.undo(policy)

    app = RemiApp(
        title="Remi online",
        version="0.1.0",
        description="Authoritative multiplayer server for Remi, Remi Etalat and Remi 101.",
        lifespan=lifespan,
    )
    app.state.services = services
    app.add_middleware(  # inside the body limit: a refused request's body is not read
        CookieOriginCheck, cookie_name=settings.cookie_name, allowed=settings.allowed_origins
    )
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(  # outside the body limit: its 413 gets the CORS headers too
        CORSMiddleware,
        allow_origins=settings.allowed_origins,
        allow_credentials=True,
        allow_methods=["GET", "POST", "DELETE"],
        allow_headers=["Authorization", "Content-Type"],
    )
    docs = [app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url]
    # outermost: every answer (the page, static files, the API, a 413, a preflight) has them
    app.add_middleware(SecurityHeaders, docs_paths=[p for p in docs if p])
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(players.router)
    app.include_router(account.router)
    app.include_router(sessions.router)
    app.include_router(rooms.router)
    app.include_router(quickstart.router)
    app.include_router(leaderboards.router)
    app.include_router(replays.router)
    app.include_router(variants.router)
    app.include_router(lobby_events.router)
    app.include_router(tournaments.router)
    # /ws/rooms/{id} and the room actors; lobby changes also go out on the bus
    live = install_live(app, services, LobbyPublisher(services, events))
    runner = app.state.tournaments = TournamentRunner(services)
    _mount_web(app)  # keep last: it answers every path no route above took
    return app


WEB_DIST = Path(__file__).resolve().parent.parent / "web" / "dist"
"""The built browser client (``cd web && npm ci && npm run build``; scripts/run does it)."""


def _mount_web(app: FastAPI) -> None:
    """Serve the browser client at ``/`` when it has been built (gzipped where the build
    left a compressed copy: server/webfiles.py)."""
    if (WEB_DIST / "index.html").is_file():
        app.mount("/", CompressedStaticFiles(directory=WEB_DIST, html=True), name="web")


async def _startup(services: Services) -> None:
    settings = services.settings
    if settings.migrate_on_startup:
        await migrate(settings, services.db.engine)
    if settings.redis_url:
        services.redis = Redis.from_url(settings.redis_url)
        services.bus = RedisBus(services.redis)
    log.info(
        "app_started",
        extra={
            "database": services.db.engine.url.render_as_string(hide_password=True),
            "redis": bool(settings.redis_url),
        },
    )


async def _shutdown(services: Services) -> None:
    if services.redis is not None:
        await services.redis.aclose()
        services.redis = None
    await services.db.dispose()
    log.info("app_stopped")
