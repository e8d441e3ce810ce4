"""HTTP statuses are chosen at the HTTP edge from the error codes (server/api/errors.py)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import base_settings
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from server.api.errors import STATUS, install_error_handlers, lost_connection, status_of
from server.app import create_app
from server.errors import Code, ServerError
from server.rooms.lobby.service import RoomService
from server.rules.errors import ErrorCode
from server.settings import Settings
from server.storage import database
from server.storage.database import sqlite_path


def test_every_http_code_has_its_status_and_socket_codes_fall_back_to_400() -> None:
    http_codes = {
        Code.NOT_AUTHENTICATED: 401,
        Code.INVALID_TOKEN: 401,
        Code.NOT_OWNER: 403,
        Code.ROOM_NOT_FOUND: 404,
        Code.SEAT_TAKEN: 409,
        Code.ROOM_NOT_WAITING: 409,
        Code.INVALID_SEAT: 422,
        Code.INVALID_REQUEST: 422,
        Code.BODY_TOO_LARGE: 413,
        Code.TOO_MANY_REQUESTS: 429,
    }
    for code, status in http_codes.items():
        assert status_of(code) == status, code
    assert status_of(ErrorCode.BAD_ACTION) == 400
    assert set(STATUS) <= set(Code)


def test_a_server_error_raised_in_a_handler_becomes_its_status_and_json_body() -> None:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/taken")
    async def taken() -> None:
        raise ServerError(Code.SEAT_TAKEN, "seat 1 is taken")

    response = TestClient(app).get("/taken")
    assert response.status_code == 409
    assert response.json() == {"detail": "seat 1 is taken", "code": "seat_taken"}


async def test_a_write_the_database_cannot_take_is_a_503_to_retry_and_loses_nothing(
    tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite locked by another writer past its busy timeout (an overload): the request
    gets ``database_unavailable`` with ``Retry-After``, not an internal error, and the
    same request succeeds once the lock is gone."""
    settings = base_settings(data_dir=tmp_path, database_url="")
    path = sqlite_path(settings.database_url)
    assert path is not None
    shutil.copyfile(sqlite_template, path)
    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT", 1.0)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            # Another writer (its own thread: the app's event loop keeps running).
            lock = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
            try:
                await asyncio.to_thread(lock.execute, "BEGIN EXCLUSIVE")
                refused = await client.post("/api/players", json={"display_name": "Ana"})
                assert refused.status_code == 503, refused.text
                assert refused.json()["code"] == "database_unavailable"
                assert refused.headers["Retry-After"] == "1"
                lock.execute("COMMIT")
            finally:
                lock.close()
            made = await client.post("/api/players", json={"display_name": "Ana"})
            assert made.status_code == 201, made.text
            me = await client.get(
                "/api/me", headers={"Authorization": f"Bearer {made.json()['token']}"}
            )
            assert me.status_code == 200 and me.json()["display_name"] == "Ana", me.text


@pytest.mark.parametrize(  # PostgreSQL only: SQLite ends no transaction left idle
    "settings", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
async def test_a_transaction_ended_by_postgresql_while_the_server_stalled_is_a_503(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL ends a transaction left idle for half the lease (server/storage/
    database.py). A server stalled that long in the middle of a request (a process
    starved of CPU, a long pause) then loses the connection at its next statement: the
    request gets ``database_unavailable`` with ``Retry-After``, not an internal error,
    nothing of it is stored, and the next request is served on a fresh connection."""
    settings = settings.model_copy(update={"lease_seconds": 1.0})  # idle: 500 ms
    view_in = RoomService.view_in
    stalls = [0.8]

    async def stalled(self: RoomService, *args: Any, **kwargs: Any) -> Any:
        if stalls:
            await asyncio.sleep(stalls.pop())  # inside create_room's transaction
        return await view_in(self, *args, **kwargs)

    monkeypatch.setattr(RoomService, "view_in", stalled)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            token = (await client.post("/api/players", json={"display_name": "Ana"})).json()
            bearer = {"Authorization": f"Bearer {token['token']}"}
            refused = await client.post("/api/rooms", json={"seats": 2}, headers=bearer)
            assert refused.status_code == 503, refused.text
            assert refused.json()["code"] == "database_unavailable"
            assert refused.headers["Retry-After"] == "1"
            assert stalls == []
            made = await client.post("/api/rooms", json={"seats": 2}, headers=bearer)
            assert made.status_code == 201, made.text
            mine = await client.get("/api/rooms", params={"limit": 200}, headers=bearer)
            assert mine.status_code == 200


def test_a_statement_the_database_refused_is_not_called_a_lost_connection() -> None:
    refused = IntegrityError("INSERT", {}, Exception("duplicate key"))
    assert not lost_connection(refused)
    lost = DBAPIError("COMMIT", {}, Exception("closed"), connection_invalidated=True)
    assert lost_connection(lost)
    assert lost_connection(OperationalError("SELECT 1", {}, Exception("refused")))
