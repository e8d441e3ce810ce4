"""Opaque page cursors: the sort key of the last row of a page, for keyset pagination
(the next page starts after it, so rows added meanwhile neither repeat nor go missing).

>>> encode(["2026-12-04T10:00:00+00:00", "r1"])
'WyIyMDI2LTEyLTA0VDEwOjAwOjAwKzAwOjAwIiwicjEiXQ'
>>> decode(encode([1.5, "p"]), (float, str))
[1.5, 'p']
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from server.errors import Code, ServerError

CURSOR_MAX = 200
"""Longest cursor accepted."""


def encode(key: list[Any]) -> str:
    """The cursor of a sort key (a JSON list), base64url without padding."""
    raw = json.dumps(key, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str, types: tuple[type, ...]) -> list[Any]:
    """The sort key of a cursor, each part of the given type (an int is a float too);
    ``invalid_request`` when it is not one of this list's cursors."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        key = json.loads(raw)
    except (binascii.Error, ValueError) as exc:
        raise ServerError(Code.INVALID_REQUEST, "the cursor is not valid") from exc
    if not isinstance(key, list) or len(key) != len(types):
        raise ServerError(Code.INVALID_REQUEST, "the cursor is not valid")
    out: list[Any] = []
    for part, kind in zip(key, types, strict=True):
        if kind is float and isinstance(part, int) and not isinstance(part, bool):
            part = float(part)
        if not isinstance(part, kind) or isinstance(part, bool):
            raise ServerError(Code.INVALID_REQUEST, "the cursor is not valid")
        out.append(part)
    return out
