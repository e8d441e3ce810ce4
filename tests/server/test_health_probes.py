"""Health and metrics always answer, and a socket is told when the database is away.

PostgreSQL and Redis are reached through :class:`~pgproxy.PgProxy`, which can turn into a
network that drops every packet (``blackhole``): nothing is refused or reset, nothing
answers. ``/livez``, ``/readyz``, ``/healthz`` and ``/metrics`` must each still answer
(every check of the database or Redis waits at most ``REMI_PROBE_SECONDS``), and a room
socket opened meanwhile gets ``database_unavailable`` and close 1013, not an exception in
its handshake. The HTTP client's timeout is only there so that a hang fails the test
rather than blocking it; the times are printed, never held to a limit.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import httpx
import pytest
from conftest import PG_URL, REDIS_URL, base_settings, plain_pg_dsn, unavailable
from pgproxy import PgProxy
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from wsharness import running_server, simple_move

from server.settings import Settings
from server.storage.database import Database

LIVE = {
    "bot_delay_seconds": 0.0,
    "round_pause_seconds": 0.0,
    "idle_actor_seconds": 30.0,
    "lease_seconds": 2.0,
    "handshake_seconds": 1.0,
}


async def _proxy(url: str, default_port: int) -> tuple[PgProxy, str]:
    """A proxy to the server of ``url``, and ``url`` through it."""
    parts = urlsplit(url)
    proxy = PgProxy(parts.hostname or "127.0.0.1", parts.port or default_port)
    await proxy.start()
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@" if userinfo else ""
    return proxy, parts._replace(netloc=f"{netloc}127.0.0.1:{proxy.port}").geturl()


@pytest.fixture
async def proxied(
    tmp_path: Path, postgres_problem: str | None, redis_problem: str | None
) -> AsyncIterator[tuple[Settings, PgProxy, PgProxy]]:
    """Settings on a fresh PostgreSQL schema and on Redis, each through a proxy."""
    if postgres_problem is not None:
        unavailable("PostgreSQL", postgres_problem)
    if redis_problem is not None:
        unavailable("Redis", redis_problem)
    pg, pg_url = await _proxy(PG_URL, 5432)
    redis, redis_url = await _proxy(REDIS_URL, 6379)
    schema = f"t_{secrets.token_hex(6)}"
    settings = base_settings(
        data_dir=tmp_path, database_url=pg_url, database_schema=schema, redis_url=redis_url
    )
    try:
        yield settings, pg, redis
    finally:
        for proxy in (pg, redis):
            proxy.restore()
            await proxy.stop()
        conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()


async def _timed_get(http: httpx.AsyncClient, path: str) -> tuple[httpx.Response, float]:
    t0 = time.monotonic()
    response = await http.get(path)
    return response, time.monotonic() - t0


@pytest.mark.postgres
@pytest.mark.redis
async def test_health_metrics_and_sockets_answer_while_postgresql_and_redis_drop_packets(
    proxied: tuple[Settings, PgProxy, PgProxy],
) -> None:
    settings, pg, redis = proxied
    async with running_server(settings, LIVE) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(ana, variant="remi", seats=2)
        async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
            assert (await http.get("/readyz")).status_code == 200
            assert (await http.get("/healthz")).status_code == 200

            pg.blackhole()
            redis.blackhole()
            took: dict[str, float] = {}
            for path in ("/livez", "/readyz", "/healthz", "/metrics", "/readyz", "/healthz"):
                response, seconds = await _timed_get(http, path)
                took[path] = max(took.get(path, 0.0), seconds)
                expected = 200 if path in ("/livez", "/metrics") else 503
                assert response.status_code == expected, (path, response.text)
                if path == "/healthz":
                    body = response.json()
                    assert body["database"] == "error" and body["redis"] == "error", body
                if path == "/readyz":
                    assert response.json()["database"] == "error"
                if path == "/metrics":
                    assert "remi_" in response.text
            print(f"\nanswers while blackholed (s): {took}")

            # A socket opened now: a clear error and "try again later", no exception.
            client = await srv.client(ana, room)
            assert client.closed is not None
            code, _ = await asyncio.wait_for(client.closed, 30)
            assert code == 1013
            errors = [f for f in client.frames if f["type"] == "error"]
            assert [e["code"] for e in errors] == ["database_unavailable"], client.frames

            pg.restore()
            redis.restore()
            for _ in range(100):
                if (await http.get("/healthz")).status_code == 200:
                    break
                await asyncio.sleep(0.1)
            assert (await http.get("/healthz")).status_code == 200
        again = await srv.client(ana, room)
        snapshot = await again.hello()
        assert snapshot["type"] == "snapshot"
        await again.close()


@pytest.mark.postgres
async def test_a_connection_asyncpg_calls_busy_is_thrown_away(
    tmp_path: Path, postgres_problem: str | None
) -> None:
    """A statement on a connection whose earlier statement is still awaited (its caller
    was cancelled or paused at the wrong moment) fails with asyncpg's "another operation
    is in progress"; that connection counts as lost (invalidated, never handed out
    again) and the next ping gets a fresh one."""
    if postgres_problem is not None:
        unavailable("PostgreSQL", postgres_problem)
    db = Database(base_settings(data_dir=tmp_path, database_url=PG_URL))
    try:
        async with db.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            pending = asyncio.create_task(driver.execute("SELECT pg_sleep(0.5)"))
            await asyncio.sleep(0.05)
            with pytest.raises(DBAPIError) as failed:
                await conn.execute(text("SELECT 1"))
            assert "another operation is in progress" in str(failed.value)
            assert failed.value.connection_invalidated
            with pytest.raises(Exception):  # noqa: B017 - it was terminated under it
                await pending
        await db.ping()
    finally:
        await db.dispose()


@pytest.mark.postgres
@pytest.mark.redis
async def test_a_node_cut_off_from_postgresql_hands_its_sockets_to_another(
    proxied: tuple[Settings, PgProxy, PgProxy],
) -> None:
    """Two nodes on one database and one Redis; the first reaches PostgreSQL through the
    proxy, the second directly. The first plays a room; one player's socket is on it,
    the other's on the second node, bridged. When the first loses PostgreSQL (its packets
    dropped), the second adopts the room once the lease lapses, and the first, its
    heartbeat failed for a lease, closes its sockets with 1012: the player reconnects, to
    the second node, and plays on. (Without the hand-off the first node's socket stays
    open on a room paused for good.)"""
    cut, pg, _ = proxied
    direct = cut.model_copy(update={"database_url": PG_URL})
    async with running_server(direct, LIVE) as two, running_server(cut, LIVE) as one:
        _, ana = await one.player("Ana")
        _, bob = await one.player("Bob")
        room = await one.room(ana, variant="remi", seats=2, turn_seconds=120)
        await one.sit(bob, room, 1)  # the first node claims the room
        assert room in one.live.actors and room not in two.live.actors
        a = await one.client(ana, room)
        b = await two.client(bob, room)  # bridged to the first node
        await a.hello()
        await b.hello()
        await one.start(ana, room)
        for c in (a, b):
            await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        pg.blackhole()
        assert a.closed is not None
        code, _ = await asyncio.wait_for(a.closed, 60)
        assert code == 1012  # handed off: the client reconnects, to a node that plays on
        again = await two.client(ana, room)
        await again.hello()
        mover = again if again.my_turn() else None
        if mover is None:
            b2 = await two.client(bob, room)
            await b2.hello()
            mover = b2
        assert mover.view is not None and mover.my_turn()
        assert (await mover.act(simple_move(mover.view)))["type"] == "ack"
        pg.restore()
