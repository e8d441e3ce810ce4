"""Structured logging on the standard library.

Log with a short event name as the message and the details as ``extra``::

    log.info("room_created", extra={"room_id": room.id, "variant": "remi"})

:func:`configure_logging` (called by the CLI, never on import) installs one
handler on the root logger that writes either one JSON object per line or
``key=value`` text, with the values of ``code`` and ``token`` query parameters
redacted (:mod:`server.logsecrets`).

>>> import logging
>>> record = logging.LogRecord("remi", logging.INFO, __file__, 1, "seat_taken", None, None)
>>> record.room_id = "r1"
>>> record.seat = 2
>>> KeyValueFormatter().format(record).split(" ", 1)[1]
'level=info logger=remi event=seat_taken room_id=r1 seat=2'
>>> json.loads(JsonFormatter().format(record))["room_id"]
'r1'
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from server.logsecrets import RedactSecrets
from server.settings import Settings

# Attributes every LogRecord has; anything else was passed through ``extra``.
_STANDARD_ATTRS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys()
    | {"message", "asctime", "color_message"}  # uvicorn's ANSI-coloured copy of the message
)


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD_ATTRS}


def _timestamp(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, event and the extras."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        out.update(_extras(record))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def _kv(value: Any) -> str:
    text = str(value)
    if text == "" or any(c in text for c in ' "=\n'):
        return json.dumps(text, ensure_ascii=False)
    return text


class KeyValueFormatter(logging.Formatter):
    """``ts level=... logger=... event=... key=value ...`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [
            _timestamp(record),
            f"level={record.levelname.lower()}",
            f"logger={record.name}",
            f"event={_kv(record.getMessage())}",
        ]
        parts.extend(f"{k}={_kv(v)}" for k, v in _extras(record).items())
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure_logging(settings: Settings) -> None:
    """Send every log record to stderr in the configured format and level."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if settings.log_format == "json" else KeyValueFormatter())
    handler.addFilter(RedactSecrets())  # no ?code= or ?token= value from any logger
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    # uvicorn installs no handlers of its own when started with log_config=None;
    # make its loggers propagate to ours.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
