"""Fixtures for the server tests.

Every app/storage test runs twice: on SQLite (a file under tmp_path) and on
PostgreSQL (a fresh schema in the ``test`` database, dropped afterwards).
PostgreSQL is at ``REMI_TEST_POSTGRES_URL`` (default
postgresql+asyncpg://postgres@127.0.0.1:5432/test). When it is unreachable the
PostgreSQL variants skip locally and fail when ``CI=true``.

The stores of ``settings`` are already migrated: the migrations run once per store and
test session (per xdist worker) into a template, a SQLite file copied for each test and a
PostgreSQL schema whose ``pg_dump`` is replayed into each test's schema (each test's own
migration when ``pg_dump`` is missing or refuses). ``empty_settings`` gives a store with
nothing in it, for the migrations' own tests (tests/server/storage/test_migrations.py).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from redisproc import RedisProcess, redis_process
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from server.app import create_app
from server.settings import Settings
from server.storage.database import Database, sqlite_path
from server.storage.migrate import migrate
from server.storage.models import Action

PG_URL = os.environ.get(
    "REMI_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
T = TypeVar("T")

REDIS_URL = os.environ.get("REMI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def unavailable(what: str, why: str) -> None:
    message = f"{what} is not reachable: {why}"
    if _in_ci():
        pytest.fail(f"{message} (CI=true: this test is required)")
    pytest.skip(message)


def plain_pg_dsn() -> str:
    return PG_URL.replace("postgresql+asyncpg://", "postgresql://", 1)


async def _pg_probe() -> str | None:
    try:
        conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        return repr(exc)
    await conn.close()
    return None


async def _redis_probe() -> str | None:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        await client.ping()
    except Exception as exc:
        return repr(exc)
    finally:
        await client.aclose()
    return None


@pytest.fixture(scope="session")
def postgres_problem() -> str | None:
    """None when PostgreSQL answers, else why not (probed once per session)."""
    return asyncio.run(_pg_probe())


@pytest.fixture(scope="session")
def redis_problem() -> str | None:
    """None when Redis answers, else why not (probed once per session)."""
    return asyncio.run(_redis_probe())


PG_TEST_LEASE: dict[str, Any] = {"lease_seconds": 30.0}
"""The lease of the PostgreSQL fixtures' settings. PostgreSQL ends a transaction left idle
for half the lease (server/storage/database.py); a test's process shares the machine's
cores with the other workers, and one kept waiting seconds for a core must keep its
transaction. The tests of that timeout, of leases and of fencing set their own lease."""


def base_settings(**overrides: Any) -> Settings:
    """Settings for a test: nothing taken from a developer's REMI_ environment by accident."""
    values: dict[str, Any] = {
        "redis_url": None,
        "database_schema": None,
        "migrate_on_startup": True,
        "cookie_secure": False,
        "log_format": "text",
        # Every app starts its bots' worker at start-up: a thread here (a process for
        # each test's app would cost seconds of CPU each); the tests of the worker
        # process ask for it.
        "bot_searches": "thread",
    }
    values.update(overrides)
    return Settings(**values)


def _run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end on an event loop of its own thread: the session's
    templates are made from inside a test's running loop (``request.getfixturevalue``)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _drop_schema(schema: str) -> None:
    conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def _pg_dump_schema(schema: str) -> str | None:
    """The SQL that recreates ``schema`` with its rows (``pg_dump --inserts``), without
    psql's meta-commands; None when ``pg_dump`` is missing or fails."""
    url = make_url(PG_URL)
    command = [
        "pg_dump", "--schema", schema, "--inserts", "--no-owner", "--no-privileges",
        "--host", url.host or "127.0.0.1", "--port", str(url.port or 5432),
        "--username", url.username or "postgres", url.database or "test",
    ]  # fmt: skip
    env = {**os.environ, **({"PGPASSWORD": url.password} if url.password else {})}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return "\n".join(line for line in done.stdout.splitlines() if not line.startswith("\\"))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per session, copied by each SQLite test."""
    data_dir = tmp_path_factory.mktemp("sqlite-template")
    settings = base_settings(data_dir=data_dir, database_url="")
    _run_apart(migrate(settings))
    path = sqlite_path(settings.database_url)
    assert path is not None and path.is_file()
    return path


@pytest.fixture(scope="session")
def postgres_template(postgres_problem: str | None) -> Iterator[tuple[str, str] | None]:
    """A PostgreSQL schema migrated to head once per session: (its name, the SQL that
    recreates it); None when PostgreSQL is unreachable or ``pg_dump`` cannot dump it."""
    if postgres_problem is not None:
        yield None
        return
    schema = f"template_{secrets.token_hex(8)}"
    settings = base_settings(database_url=PG_URL, database_schema=schema)
    _run_apart(migrate(settings))
    try:
        script = _pg_dump_schema(schema)
        yield None if script is None else (schema, script)
    finally:
        _run_apart(_drop_schema(schema))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def empty_settings(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_problem: str | None
) -> AsyncIterator[Settings]:
    """Settings on an empty SQLite file or an empty PostgreSQL schema (nothing migrated)."""
    if request.param == "sqlite":
        yield base_settings(data_dir=tmp_path, database_url="")
        return
    if postgres_problem is not None:
        unavailable("PostgreSQL", postgres_problem)
    schema = f"t_{secrets.token_hex(6)}"
    yield base_settings(
        data_dir=tmp_path, database_url=PG_URL, database_schema=schema, **PG_TEST_LEASE
    )
    await _drop_schema(schema)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def settings(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_problem: str | None
) -> AsyncIterator[Settings]:
    """Settings on a migrated SQLite file or a migrated, fresh PostgreSQL schema."""
    if request.param == "sqlite":
        sqlite = base_settings(data_dir=tmp_path, database_url="")
        path = sqlite_path(sqlite.database_url)
        assert path is not None
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield sqlite
        return
    if postgres_problem is not None:
        unavailable("PostgreSQL", postgres_problem)
    template = request.getfixturevalue("postgres_template")
    schema = f"t_{secrets.token_hex(6)}"
    settings = base_settings(
        data_dir=tmp_path, database_url=PG_URL, database_schema=schema, **PG_TEST_LEASE
    )
    if template is None:
        await migrate(settings)
    else:
        name, script = template
        conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
        try:
            await conn.execute(script.replace(name, schema))
        finally:
            await conn.close()
    yield settings
    await _drop_schema(schema)


@pytest.fixture
async def redis_url(redis_problem: str | None) -> str:
    """A reachable Redis URL (skips locally, fails in CI, when there is none)."""
    if redis_problem is not None:
        unavailable("Redis", redis_problem)
    return REDIS_URL


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of this test's own on a free port, which it may restart."""
    if shutil.which("redis-server") is None:
        unavailable("redis-server", "not installed")
    with redis_process(tmp_path) as proc:
        yield proc


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    """A started app (lifespan entered: migrations applied)."""
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client talking to the app in-process."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


class Players:
    """Creates players through the API (fixture ``players``)."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def create(self, name: str = "Ana", *, keep_cookie: bool = False) -> tuple[str, str]:
        """Create a player; returns (player id, token). Drops the cookie unless asked."""
        response = await self._client.post("/api/players", json={"display_name": name})
        assert response.status_code == 201, response.text
        body = response.json()
        if not keep_cookie:
            self._client.cookies.clear()
        return body["player"]["id"], body["token"]

    @staticmethod
    def auth(token: str) -> dict[str, str]:
        """The Authorization header for a token."""
        return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def players(client: httpx.AsyncClient) -> Players:
    """Player factory on the test client."""
    return Players(client)


async def played(db: Database, round_id: int, seats: Any, source: str = "player") -> None:
    """Log one move of ``source`` for each of these seats in the round (a player's own
    move by default: a seat whose player made none earns nothing, docs/economy.md)."""
    async with db.transaction() as s:
        last = await s.scalar(select(func.max(Action.seq)).where(Action.round_id == round_id))
        for i, seat in enumerate(seats, start=(last or 0) + 1):
            s.add(Action(round_id=round_id, seq=i, seat=seat, action={"do": "draw"}, source=source))
