"""Error responses: ``{"detail": <human message>, "code": <stable code>}``."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from server.errors import Code, ServerError, Throttled
from server.rules.errors import ErrorCode

log = logging.getLogger(__name__)

DATABASE_RETRY_SECONDS = 1
"""The ``Retry-After`` of a request the database could not serve (busy or away)."""

STATUS: dict[Code | ErrorCode, int] = {
    Code.NOT_AUTHENTICATED: 401,
    Code.INVALID_TOKEN: 401,
    Code.NOT_OWNER: 403,
    Code.NOT_SEATED: 403,
    Code.ORIGIN_REFUSED: 403,
    Code.BAD_CREDENTIALS: 401,
    Code.USERNAME_TAKEN: 409,
    Code.ALREADY_CLAIMED: 409,
    Code.INSUFFICIENT_BALANCE: 409,
    Code.BALANCE_TOO_LOW: 409,
    Code.NO_JOKER_CREDIT: 409,
    Code.ROOM_NOT_FOUND: 404,
    Code.TOURNAMENT_NOT_FOUND: 404,
    Code.REGISTRATION_CLOSED: 409,
    Code.TOURNAMENT_FULL: 409,
    Code.ROUND_NOT_FOUND: 404,
    Code.ROUND_NOT_FINISHED: 409,
    Code.MATCH_NOT_OVER: 409,
    Code.PLAYER_NOT_FOUND: 404,
    Code.SESSION_NOT_FOUND: 404,
    Code.INVITE_NOT_FOUND: 404,
    Code.SEAT_TAKEN: 409,
    Code.ROOM_FULL: 409,
    Code.ROOM_NOT_WAITING: 409,
    Code.NO_PLAYERS: 409,
    Code.SEATS_EMPTY: 409,
    Code.INVALID_SEAT: 422,
    Code.INVALID_REQUEST: 422,
    Code.BAD_MESSAGE: 422,
    Code.BODY_TOO_LARGE: 413,
    Code.RATE_LIMITED: 429,
    Code.TOO_MANY_REQUESTS: 429,
    Code.INTERNAL_ERROR: 503,
    Code.DATABASE_UNAVAILABLE: 503,
    Code.ROOM_UNREACHABLE: 503,
}
"""The HTTP status of each code a request can be refused with; any other is 400."""


def lost_connection(exc: DBAPIError) -> bool:
    """Whether a database error is the connection's, not the statement's: the database
    was not reached or its answer was lost (a refusal such as a broken constraint is an
    :class:`~sqlalchemy.exc.IntegrityError` or another of DB-API's statement errors)."""
    if exc.connection_invalidated or isinstance(exc, OperationalError):
        return True
    return type(exc) in (DBAPIError, InterfaceError)


def status_of(code: Code | ErrorCode) -> int:
    """The HTTP status for ``code``: the only place statuses are chosen."""
    return STATUS.get(code, 400)


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        parts = parts[1:]
    return ".".join(parts) or "body"


def _message(msg: str) -> str:
    return msg.removeprefix("Value error, ")


def validation_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    """Each problem as ``{"field": "settings.seats", "message": "..."}``."""
    out = []
    for err in exc.errors():
        loc = _strip_union_tags(list(err.get("loc", ())))
        out.append({"field": _field(loc), "message": _message(str(err.get("msg", "")))})
    return out


_UNION_TAGS = {"end": ("endless", "rounds", "target")}


def _strip_union_tags(loc: list[Any]) -> list[Any]:
    # A discriminated union puts its tag in the location: ("end", "rounds", "rounds").
    out: list[Any] = []
    skipped = False
    for part in loc:
        if not skipped and out and part in _UNION_TAGS.get(str(out[-1]), ()):
            skipped = True
            continue
        out.append(part)
        skipped = False
    return out


def error_response(exc: ServerError, headers: dict[str, str] | None = None) -> JSONResponse:
    """The response to a refused request: its status, the JSON body, and for a rate
    limit the ``Retry-After`` header."""
    extra = dict(headers or {})
    if isinstance(exc, Throttled):
        extra["Retry-After"] = str(exc.retry_after)
    return JSONResponse(
        {"detail": exc.message, "code": exc.code.value},
        status_code=status_of(exc.code),
        headers=extra or None,
    )


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the same JSON shape."""

    async def on_server_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServerError)
        return error_response(exc)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = validation_errors(exc)
        summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return JSONResponse(
            {
                "detail": summary or "invalid request",
                "code": Code.INVALID_REQUEST.value,
                "errors": errors,
            },
            status_code=status_of(Code.INVALID_REQUEST),
        )

    async def on_database(request: Request, exc: Exception) -> JSONResponse:
        # SQLite still locked by other writers after its busy timeout, PostgreSQL gone or
        # refusing connections, a connection lost in the middle of a transaction (PostgreSQL
        # ends one left idle, server/storage/database.py), the pool out of connections: the
        # client is told to come back, not handed an internal error. A statement the
        # database ran and refused is the server's own fault and stays one.
        if isinstance(exc, DBAPIError) and not lost_connection(exc):
            raise exc
        log.warning(
            "request_database_unavailable",
            extra={"path": request.url.path, "error": type(exc).__name__},
        )
        return error_response(
            ServerError(
                Code.DATABASE_UNAVAILABLE,
                "the database is busy or does not answer: try again in a moment",
            ),
            {"Retry-After": str(DATABASE_RETRY_SECONDS)},
        )

    app.add_exception_handler(ServerError, on_server_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(OperationalError, on_database)
    app.add_exception_handler(DBAPIError, on_database)
    app.add_exception_handler(PoolTimeout, on_database)
