"""Keeps invite codes and tokens out of the logs.

uvicorn logs every request's path with its query string, on ``uvicorn.access`` for HTTP
and on ``uvicorn.error`` for WebSocket handshakes, so ``?code=<invite code>`` (and a
``?token=`` a client might send) would be written out. :class:`RedactSecrets` is a
logging filter that replaces the values of those query parameters, wherever they appear
in a record's message or arguments; :func:`server.logs.configure_logging` puts it on the
one handler every logger writes through.

>>> redact_query('GET /api/rooms/r1?code=Ab3_x-9&x=1 HTTP/1.1')
'GET /api/rooms/r1?code=[redacted]&x=1 HTTP/1.1'
>>> redact_query("/ws/rooms/r1?x=1&token=abc&Code=def")
'/ws/rooms/r1?x=1&token=[redacted]&Code=[redacted]'
>>> redact_query("/api/rooms?encode=keep")
'/api/rooms?encode=keep'
"""

from __future__ import annotations

import logging
import re

SECRET_PARAMS = ("code", "token")
"""Query parameters whose values never reach a log line."""

REDACTED = "[redacted]"

_NAMES = "|".join(SECRET_PARAMS)
_SECRET_QUERY = re.compile(rf"(?P<key>[?&;](?:{_NAMES})=)[^&;#\s\"']*", re.IGNORECASE)


def redact_query(text: str) -> str:
    """``text`` with the value of every ``code=`` and ``token=`` query parameter replaced."""
    return _SECRET_QUERY.sub(lambda m: m.group("key") + REDACTED, text)


class RedactSecrets(logging.Filter):
    """A filter that redacts secret query values in a record (it never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact_query(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact_query(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact_query(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        return True
