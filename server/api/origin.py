"""Cross-site request protection of the cookie: a state-changing request (POST, PUT,
PATCH, DELETE under ``/api/``) that is authenticated by the identity cookie, not by an
``Authorization`` header, must come from an allowed page.

The cookie is ``SameSite`` (lax by default, ``REMI_COOKIE_SAMESITE``), so a browser
leaves it off another site's cross-site requests; besides, the request's ``Origin`` (or,
without one, its ``Referer``'s origin) must be the server's own address or one of
``REMI_ALLOWED_ORIGINS`` (:func:`server.ws.origin_allowed`, the socket's rule), else it
is refused with 403 ``origin_refused`` before any handler runs. A request with neither
header is not a browser's and passes; a bearer token cannot be sent by another site's
page without the page knowing it, so a request that carries one passes too.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from server.api.errors import error_response
from server.errors import Code, ServerError
from server.ws import origin_allowed

log = logging.getLogger(__name__)

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def request_origin(headers: dict[str, str]) -> str | None:
    """The page's origin: ``Origin``, else the scheme and host of ``Referer``.

    >>> request_origin({"referer": "http://a:8000/room/1?x"})
    'http://a:8000'
    >>> request_origin({"origin": "null"}), request_origin({})
    ('null', None)
    """
    origin = headers.get("origin")
    if origin is not None:
        return origin
    referer = headers.get("referer")
    if not referer:
        return None
    parts = urlsplit(referer)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else "null"


class CookieOriginCheck:
    """ASGI middleware: see the module doc."""

    def __init__(self, app: ASGIApp, cookie_name: str, allowed: list[str]) -> None:
        self.app = app
        self.cookie = cookie_name.encode("latin-1") + b"="
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in UNSAFE
            and scope["path"].startswith("/api/")
        ):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            cookies = headers.get("cookie", "").encode("latin-1")
            if "authorization" not in headers and self.cookie in cookies:
                origin = request_origin(headers)
                if origin is not None and not origin_allowed(
                    origin, headers.get("host"), self.allowed
                ):
                    log.info("http_origin_refused", extra={"origin": origin[:200]})
                    refusal = ServerError(
                        Code.ORIGIN_REFUSED,
                        "this request comes from another site's page: refused",
                    )
                    await error_response(refusal)(scope, receive, send)
                    return
        await self.app(scope, receive, send)
