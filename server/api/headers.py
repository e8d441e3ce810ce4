"""Security headers on every HTTP response: what a public site's page is served with.

:class:`SecurityHeaders` is a plain ASGI middleware. Every HTTP response of the app (the
page, its static files, the API, errors) gets:

- ``Content-Security-Policy`` (:func:`page_policy`): scripts, styles, fonts and fetches
  only from the page's own origin (no inline script or style attribute, no ``eval``;
  WebAssembly compiled from the origin's own files, ``'wasm-unsafe-eval'``, for the
  offline practice's Pyodide, and workers and the service worker only from the origin),
  images from it or ``data:`` URLs (the page's icon), the room sockets (``ws:``/``wss:``
  of the same host), no plugins, no ``<base>``, forms only to the origin, and no page
  may frame this one (``frame-ancestors 'none'``: no clickjacking of the table);
- ``X-Frame-Options: DENY``, the same for browsers that predate ``frame-ancestors``;
- ``X-Content-Type-Options: nosniff``: a file is only ever what its type says;
- ``Referrer-Policy: same-origin``: the page's address is never sent to another site.

FastAPI's interactive API pages (``/docs``, ``/redoc``) load Swagger UI and ReDoc from
their CDN with an inline script: they get :data:`DOCS_POLICY` instead, which allows
exactly that and keeps the rest (no framing, no plugins, no ``<base>``). They show no
player's data. WebSocket handshakes are not HTTP responses: they pass through untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_HOST = re.compile(rb"^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")
"""A Host header fit to be written into the policy (a name or an address, a port)."""

_FIXED = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src 'self' https://fonts.gstatic.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The policy of FastAPI's ``/docs`` and ``/redoc`` pages (see the module doc)."""

OTHER_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)
"""The headers besides the policy, the same on every response."""


def page_policy(host: bytes | None) -> str:
    """The Content-Security-Policy of a response to a request for ``host``.

    ``connect-src`` names the room sockets of that host explicitly (``ws://`` and
    ``wss://``: behind a TLS proxy the app may not know which one the page uses), since
    not every browser counts them as ``'self'``. A Host header that is not a plain name
    or address (with a port) is left out: ``'self'`` alone then."""
    sockets = ""
    if host is not None and _HOST.match(host):
        name = host.decode("ascii")
        sockets = f" ws://{name} wss://{name}"
    return f"{_FIXED}; connect-src 'self'{sockets}"


class SecurityHeaders:
    """ASGI middleware: the security headers on every HTTP response (see the module doc).

    ``docs_paths`` are the paths that get :data:`DOCS_POLICY` (the app's ``docs_url``,
    ``redoc_url`` and Swagger's OAuth redirect page). A header the application set itself
    is kept as it is."""

    def __init__(self, app: ASGIApp, docs_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.docs_paths = frozenset(docs_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self.docs_paths:
            policy = DOCS_POLICY
        else:
            host = next((v for k, v in scope["headers"] if k == b"host"), None)
            policy = page_policy(host)
        added = ((b"content-security-policy", policy.encode("ascii")), *OTHER_HEADERS)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((k, v) for k, v in added if k not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
