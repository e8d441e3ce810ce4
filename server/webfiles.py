"""The built browser client's files, served gzip-compressed where the build left a
compressed copy beside a file (``web/dist/<name>.gz``, written by ``npm run build``).

A first visit downloads Pyodide for the offline practice (its WebAssembly alone is
9.6 MB, 3.5 MB gzipped): a client that accepts gzip gets the ``.gz`` file with
``Content-Encoding: gzip`` and the original's content type; any other client gets the
file itself. Both carry ``Vary: Accept-Encoding`` so that a cache keeps them apart, and
each has its own validators (ETag, Last-Modified), so a revalidation answers 304 for
either.
"""

from __future__ import annotations

import os
from mimetypes import guess_type

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header admits gzip (RFC 9110 12.5.3: a coding with
    ``q=0`` is refused; ``*`` stands for any coding not named).

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br;q=1.0, gzip;q=0.8")
    (True, True)
    >>> accepts_gzip(""), accepts_gzip("identity"), accepts_gzip("gzip;q=0")
    (False, False, False)
    >>> accepts_gzip("*"), accepts_gzip("*, gzip;q=0")
    (True, False)
    """
    wildcard: bool | None = None
    for item in accept_encoding.lower().split(","):
        coding, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if coding.strip() in ("gzip", "x-gzip"):
            return quality > 0
        if coding.strip() == "*":
            wildcard = quality > 0
    return bool(wildcard)


class CompressedStaticFiles(StaticFiles):
    """:class:`StaticFiles` that answers with a file's ``.gz`` copy when it has one and
    the client accepts gzip."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        compressed = f"{os.fspath(full_path)}.gz"
        if not os.path.isfile(compressed):
            return super().file_response(full_path, stat_result, scope, status_code)
        request_headers = Headers(scope=scope)
        vary = {"vary": "Accept-Encoding"}
        if accepts_gzip(request_headers.get("accept-encoding", "")):
            media_type = guess_type(os.fspath(full_path))[0] or "application/octet-stream"
            response = FileResponse(
                compressed,
                status_code=status_code,
                stat_result=os.stat(compressed),
                media_type=media_type,
                headers={**vary, "content-encoding": "gzip"},
            )
        else:
            response = FileResponse(
                full_path, status_code=status_code, stat_result=stat_result, headers=vary
            )
        if self.is_not_modified(response.headers, request_headers):
            return NotModifiedResponse(response.headers)
        return response
