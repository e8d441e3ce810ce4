"""Guest identities: an opaque random token, stored only as its SHA-256.

>>> token = new_token()
>>> len(token) >= 43  # 32 random bytes, URL-safe base64
True
>>> hash_token("abc")
'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
>>> clean_display_name("  Ana   Maria ")
'Ana Maria'
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from server.storage.database import Database
from server.storage.models import Player

log = logging.getLogger(__name__)

TOKEN_BYTES = 32
"""Random bytes in a token (256 bits)."""

DISPLAY_NAME_MAX = 32


def new_token() -> str:
    """A fresh bearer token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_id() -> str:
    """A random public identifier (72 bits, 12 URL-safe characters)."""
    return secrets.token_urlsafe(9)


def hash_token(token: str) -> str:
    """Hex SHA-256 of a token: what the database stores and looks up."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_display_name(name: str) -> str:
    """Normalise a display name (NFC, collapsed spaces); raise ValueError if unusable."""
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not name:
        raise ValueError("display_name must not be blank")
    if len(name) > DISPLAY_NAME_MAX:
        raise ValueError(f"display_name must be at most {DISPLAY_NAME_MAX} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValueError("display_name must not contain control characters")
    return name


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """A player as the rest of the server sees it (never the token or its hash)."""

    id: str
    display_name: str
    created_at: datetime

    @classmethod
    def of(cls, row: Player) -> PlayerInfo:
        return cls(id=row.id, display_name=row.display_name, created_at=row.created_at)


class IdentityService:
    """Creates guest players and resolves tokens to players."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def create_player(self, display_name: str) -> tuple[PlayerInfo, str]:
        """Create a player; returns it and its token (the only time the token exists)."""
        name = clean_display_name(display_name)
        token = new_token()
        row = Player(id=new_id(), display_name=name, token_hash=hash_token(token))
        async with self._db.transaction() as session:
            session.add(row)
        log.info("player_created", extra={"player_id": row.id})
        return PlayerInfo.of(row), token

    async def authenticate(self, token: str) -> PlayerInfo | None:
        """The player owning ``token``, or None."""
        if not token or len(token) > 256:
            return None
        async with self._db.transaction() as session:
            row = await session.scalar(select(Player).where(Player.token_hash == hash_token(token)))
        return PlayerInfo.of(row) if row is not None else None

    async def revoke_all(self, player_id: str) -> str:
        """Replace the player's token: every copy of the old one stops working at once.

        Returns the new token (the only time it exists)."""
        token = new_token()
        async with self._db.transaction() as session:
            await session.execute(
                update(Player).where(Player.id == player_id).values(token_hash=hash_token(token))
            )
        log.info("tokens_revoked", extra={"player_id": player_id})
        return token

    async def get(self, player_id: str) -> PlayerInfo | None:
        """A player by id, or None."""
        async with self._db.transaction() as session:
            row = await session.get(Player, player_id)
        return PlayerInfo.of(row) if row is not None else None
