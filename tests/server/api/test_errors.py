"""HTTP statuses are chosen at the HTTP edge from the error codes (server/api/errors.py)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import httpx
import pytest
from conftest import base_settings
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.api.errors import STATUS, install_error_handlers, status_of
from server.app import create_app
from server.errors import Code, ServerError
from server.rules.errors import ErrorCode
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
