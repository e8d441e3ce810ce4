"""Error responses: ``{"detail": <human message>, "code": <stable code>}``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from server.rooms.service import RoomError


class ApiError(Exception):
    """An HTTP error with a stable code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


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


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the same JSON shape."""

    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError | RoomError)
        return JSONResponse({"detail": exc.message, "code": exc.code}, status_code=exc.status)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = validation_errors(exc)
        summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return JSONResponse(
            {"detail": summary or "invalid request", "code": "invalid_request", "errors": errors},
            status_code=422,
        )

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RoomError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation)
