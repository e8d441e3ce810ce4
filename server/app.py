"""FastAPI application factory (placeholder until the game server lands)."""

from __future__ import annotations

from fastapi import FastAPI


def create_app() -> FastAPI:
    """Build the ASGI app."""
    app = FastAPI(title="Remi online")

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
