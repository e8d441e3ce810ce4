"""The identity cookie: set to a device's token, or cleared (one place for its flags)."""

from __future__ import annotations

from fastapi import Request, Response

from server.settings import Settings


def set_cookie(response: Response, settings: Settings, token: str) -> None:
    """Make ``token`` this browser's identity (HttpOnly; Secure and SameSite per settings)."""
    response.set_cookie(
        settings.cookie_name,
        token,
        max_age=settings.cookie_max_age_seconds,
        httponly=True,
        secure=settings.cookie_secure,
        samesite=settings.cookie_samesite,
        path="/",
    )


def clear_cookie(response: Response, settings: Settings) -> None:
    """Forget the identity cookie on this browser."""
    response.delete_cookie(
        settings.cookie_name,
        path="/",
        httponly=True,
        secure=settings.cookie_secure,
        samesite=settings.cookie_samesite,
    )


def device_label(request: Request) -> str | None:
    """What names a new session in its player's list: the browser's User-Agent."""
    return request.headers.get("user-agent")
