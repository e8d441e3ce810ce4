"""What an id, an invite code or a token may look like where it comes in.

Room and player ids, invite codes and tokens are all URL-safe base64
(``secrets.token_urlsafe``), so the edges (HTTP paths, queries and bodies, the
room socket's path and ``?code=``) accept only those characters and a bounded
length: a NUL byte (which PostgreSQL refuses in text), a non-ASCII letter or an
over-long string never reaches the database or a comparison.

>>> is_id("Xc2v9Lq0_-"), is_id("a\\x00b"), is_id(""), is_id("x" * 65)
(True, False, False, False)
>>> is_code("été"), is_code("abc\\n")
(False, False)
"""

from __future__ import annotations

import re

ID_CHARS = "[A-Za-z0-9_-]"
"""The characters of every id, invite code and token (URL-safe base64)."""

ID_PATTERN = f"^{ID_CHARS}+$"
"""The pattern of the HTTP parameters and fields (pydantic's regex: ``$`` is the end)."""

ID_MAX = 64
"""Longest room or player id accepted (ours have 12 characters)."""

CODE_MAX = 64
"""Longest invite code accepted (ours have 16 characters)."""

TOKEN_MAX = 256
"""Longest token accepted (ours have 43 characters)."""

_ID = re.compile(f"{ID_CHARS}+")


def _fits(text: str, longest: int) -> bool:
    return 0 < len(text) <= longest and _ID.fullmatch(text) is not None


def is_id(text: str) -> bool:
    """``text`` may be a room or player id."""
    return _fits(text, ID_MAX)


def is_code(text: str) -> bool:
    """``text`` may be an invite code."""
    return _fits(text, CODE_MAX)
