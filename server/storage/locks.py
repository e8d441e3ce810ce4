"""Named locks held until the transaction ends: what serializes the writers that must
not interleave (two quick starts of one variant, two rating updates of one player).

PostgreSQL: a transaction-scoped advisory lock per name (``pg_advisory_xact_lock``), taken
in a fixed order (by key) so that two transactions taking several never deadlock on
them. SQLite: nothing to take: every transaction that writes begins ``IMMEDIATE``
(server/storage/database.py), so writers run one at a time already.

>>> lock_key("quick:remi:0") == lock_key("quick:remi:0"), lock_key("a") != lock_key("b")
(True, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncSession

_LOCK = text("SELECT pg_advisory_xact_lock(:k)")


def lock_key(name: str) -> int:
    """The signed 64-bit advisory lock key of a name."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def _keys(names: Iterable[str]) -> list[int]:
    return sorted({lock_key(n) for n in names})


def lock(conn: Connection, names: Iterable[str]) -> None:
    """Hold these named locks until ``conn``'s transaction ends (module doc)."""
    if conn.dialect.name != "postgresql":
        return
    for key in _keys(names):
        conn.execute(_LOCK, {"k": key})


async def lock_async(session: AsyncSession, names: Iterable[str]) -> None:
    """:func:`lock` for an ``AsyncSession``'s transaction."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for key in _keys(names):
        await session.execute(_LOCK, {"k": key})
