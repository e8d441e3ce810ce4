"""/healthz and /metrics."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from server.app import create_app
from server.services import Services
from server.settings import Settings


async def test_healthz_ok(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "redis": "disabled"}


async def test_healthz_reports_a_dead_database() -> None:
    settings = Settings(
        database_url="postgresql+asyncpg://nobody@127.0.0.1:1/none",
        migrate_on_startup=False,
        redis_url=None,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            response = await c.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error"


@pytest.mark.redis
async def test_healthz_checks_redis(settings: Settings, redis_url: str) -> None:
    app = create_app(settings.model_copy(update={"redis_url": redis_url}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            response = await c.get("/healthz")
    assert response.status_code == 200
    assert response.json()["redis"] == "ok"


async def test_metrics_exposition(client: httpx.AsyncClient, app: FastAPI) -> None:
    created = (await client.post("/api/players", json={"display_name": "A"})).json()
    auth = {"Authorization": f"Bearer {created['token']}"}
    await client.post("/api/rooms", json={}, headers=auth)
    services = app.state.services
    assert isinstance(services, Services)
    services.metrics.move("remi", "player")
    services.metrics.reject("not_your_turn")
    services.metrics.connections.inc()
    services.metrics.action_done(0.003, 0.02)
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'remi_rooms{status="waiting"} 1.0' in text
    assert 'remi_rooms{status="playing"} 0.0' in text
    assert 'remi_moves_total{source="player",variant="remi"} 1.0' in text
    assert "remi_connections 1.0" in text
    assert 'remi_rejected_total{code="not_your_turn"} 1.0' in text
    assert 'remi_action_latency_seconds_count{stage="ack"} 1.0' in text
    assert 'remi_action_latency_seconds_bucket{le="0.0025",stage="ack"} 0.0' in text
    assert 'remi_action_latency_seconds_bucket{le="0.005",stage="ack"} 1.0' in text
    assert 'remi_action_latency_seconds_bucket{le="0.015",stage="broadcast"} 0.0' in text
    assert 'remi_action_latency_seconds_bucket{le="0.025",stage="broadcast"} 1.0' in text
    assert 'remi_action_latency_seconds_bucket{le="+Inf",stage="broadcast"} 1.0' in text
    assert 'remi_action_latency_seconds_sum{stage="broadcast"} 0.02' in text


async def test_apps_have_separate_registries(settings: Settings) -> None:
    a, b = create_app(settings), create_app(settings)
    sa, sb = a.state.services, b.state.services
    assert sa.metrics.registry is not sb.metrics.registry
    sa.metrics.connections.inc()
    assert b"remi_connections 0.0" in sb.metrics.render()[0]


async def test_openapi_lists_the_api(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path in (
        "/api/players",
        "/api/me",
        "/api/rooms",
        "/api/rooms/join-by-code",
        "/api/rooms/{room_id}",
        "/api/rooms/{room_id}/seats/{seat}",
        "/api/rooms/{room_id}/start",
        "/api/rooms/{room_id}/scores",
        "/api/players/{player_id}/matches",
        "/api/players/{player_id}/profile",
        "/api/quickstart",
        "/api/leaderboards/rating/{variant}",
        "/api/leaderboards/balance",
        "/healthz",
    ):
        assert path in paths, path
