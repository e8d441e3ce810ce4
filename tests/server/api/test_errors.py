"""HTTP statuses are chosen at the HTTP edge from the error codes (server/api/errors.py)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.api.errors import STATUS, install_error_handlers, status_of
from server.errors import Code, ServerError
from server.rules.errors import ErrorCode


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
