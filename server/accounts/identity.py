"""Guest identities and their sessions: one opaque random token per device, stored only
as its SHA-256 (table ``player_sessions``).

A player signs in on a device with a token of its own: the player's creation, a sign-in
with a token copied from another device (:meth:`IdentityService.sign_in`) or "sign out
everywhere" issues one. A device's token can be rotated (a new token, the old one
refused from then on) and revoked; every token of a player can be revoked at once.

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
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from server.economy.ledger import Economy
from server.storage.database import Database
from server.storage.models import Player, PlayerSession, moved_token_marker, utcnow

log = logging.getLogger(__name__)

TOKEN_BYTES = 32
"""Random bytes in a token (256 bits)."""

DISPLAY_NAME_MAX = 32

LABEL_MAX = 120
"""Longest session label kept (the User-Agent is cut to it)."""


def new_token() -> str:
    """A fresh bearer token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_id() -> str:
    """A random public identifier (72 bits, 12 URL-safe characters)."""
    return secrets.token_urlsafe(9)


def hash_token(token: str) -> str:
    """Hex SHA-256 of a token: what the database stores and looks up."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_label(label: str | None) -> str | None:
    """A session label fit to store and show: printable, collapsed, at most LABEL_MAX.

    >>> clean_label("  Mozilla/5.0 \\x00(X11)  "), clean_label("   "), clean_label(None)
    ('Mozilla/5.0 (X11)', None, None)
    """
    if label is None:
        return None
    kept = "".join(c for c in label if not unicodedata.category(c).startswith("C"))
    text = " ".join(kept.split())[:LABEL_MAX]
    return text or None


def clean_display_name(name: str) -> str:
    """Normalise a display name (NFC, collapsed spaces); raise ValueError if unusable.
    The line and paragraph separators (U+2028, U+2029) are refused like control
    characters, not collapsed into spaces (they break lines in logs and pages).

    >>> clean_display_name("  Ana   Maria ")
    'Ana Maria'
    >>> clean_display_name("Ana\u2028Maria")
    Traceback (most recent call last):
    ...
    ValueError: display_name must not contain control characters
    """
    if any(unicodedata.category(c) in ("Zl", "Zp") for c in name):
        raise ValueError("display_name must not contain control characters")
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


@dataclass(frozen=True, slots=True)
class Authed:
    """What a token proved: the player, the session (device) it belongs to, and the
    hash of the token itself (what a rotation replaces)."""

    player: PlayerInfo
    session_id: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A session as its player sees it: never the token or its hash."""

    id: str
    label: str | None
    created_at: datetime
    issued_at: datetime
    last_used_at: datetime | None

    @classmethod
    def of(cls, row: PlayerSession) -> SessionInfo:
        return cls(
            id=row.id,
            label=row.label,
            created_at=row.created_at,
            issued_at=row.issued_at,
            last_used_at=row.last_used_at,
        )


class IdentityService:
    """Creates guest players, resolves tokens to players and their sessions, rotates
    and revokes the tokens."""

    def __init__(
        self, db: Database, touch_seconds: float = 300.0, economy: Economy | None = None
    ) -> None:
        self._db = db
        self._touch = timedelta(seconds=touch_seconds)
        self._economy = economy

    @staticmethod
    def _new_session(player_id: str, label: str | None) -> tuple[PlayerSession, str]:
        token = new_token()
        row = PlayerSession(
            id=new_id(),
            player_id=player_id,
            token_hash=hash_token(token),
            label=clean_label(label),
            last_used_at=utcnow(),
        )
        return row, token

    async def create_player(
        self, display_name: str, label: str | None = None
    ) -> tuple[PlayerInfo, str]:
        """Create a player and its first session; returns the player and the session's
        token (the only time the token exists)."""
        name = clean_display_name(display_name)
        player_id = new_id()
        row = Player(id=player_id, display_name=name, token_hash=moved_token_marker(player_id))
        session_row, token = self._new_session(player_id, label)
        async with self._db.transaction() as session:
            session.add(row)
            await session.flush()
            session.add(session_row)
            economy = self._economy
            if economy is not None:  # the starting balance, in the creation's transaction
                await session.run_sync(lambda s: economy.starting_grant(s.connection(), player_id))
        log.info("player_created", extra={"player_id": row.id, "session_id": session_row.id})
        return PlayerInfo.of(row), token

    async def resolve(self, token: str) -> Authed | None:
        """The player and session owning ``token``, or None. Records the use (at most
        every ``touch_seconds``)."""
        if not token or len(token) > 256:
            return None
        digest = hash_token(token)
        async with self._db.transaction() as session:
            found = (
                await session.execute(
                    select(PlayerSession, Player)
                    .join(Player, Player.id == PlayerSession.player_id)
                    .where(PlayerSession.token_hash == digest)
                )
            ).first()
            if found is None:
                return None
            row, player = found
            now = utcnow()
            if row.last_used_at is None or now - row.last_used_at >= self._touch:
                await session.execute(
                    update(PlayerSession).where(PlayerSession.id == row.id).values(last_used_at=now)
                )
            return Authed(PlayerInfo.of(player), row.id, digest)

    async def authenticate(self, token: str) -> PlayerInfo | None:
        """The player owning ``token``, or None."""
        authed = await self.resolve(token)
        return authed.player if authed is not None else None

    async def sign_in(self, token: str, label: str | None = None) -> tuple[PlayerInfo, str] | None:
        """A new session (this device's) for the player owning ``token``, which keeps
        working on its own device: the player and the new token, or None."""
        authed = await self.resolve(token)
        if authed is None:
            return None
        row, new = self._new_session(authed.player.id, label)
        async with self._db.transaction() as session:
            session.add(row)
        log.info("session_created", extra={"player_id": authed.player.id, "session_id": row.id})
        return authed.player, new

    async def open_session(self, player_id: str, label: str | None = None) -> str:
        """A new session of the player for this device (a sign-in with a password): its
        token, the only time it exists."""
        row, token = self._new_session(player_id, label)
        async with self._db.transaction() as session:
            session.add(row)
        log.info("session_created", extra={"player_id": player_id, "session_id": row.id})
        return token

    async def revoke_others(self, player_id: str, keep: str) -> list[str]:
        """Sign out every session of the player but ``keep`` (a password change): the
        revoked sessions' ids."""
        async with self._db.transaction() as session:
            ids = list(
                await session.scalars(
                    select(PlayerSession.id).where(
                        PlayerSession.player_id == player_id, PlayerSession.id != keep
                    )
                )
            )
            await session.execute(
                delete(PlayerSession).where(
                    PlayerSession.player_id == player_id, PlayerSession.id != keep
                )
            )
        log.info("sessions_revoked", extra={"player_id": player_id, "sessions": len(ids)})
        return ids

    async def rotate(self, authed: Authed) -> str | None:
        """Replace the session's token in one statement: the old one is refused from
        then on. None when the token was rotated or revoked meanwhile (a concurrent
        rotation won: the caller keeps the token that one returned)."""
        token = new_token()
        async with self._db.transaction() as session:
            result = await session.execute(
                update(PlayerSession)
                .where(
                    PlayerSession.id == authed.session_id,
                    PlayerSession.token_hash == authed.token_hash,
                )
                .values(token_hash=hash_token(token), issued_at=utcnow())
            )
        if getattr(result, "rowcount", 0) != 1:
            return None
        log.info(
            "token_rotated",
            extra={"player_id": authed.player.id, "session_id": authed.session_id},
        )
        return token

    async def revoke(self, player_id: str, session_id: str) -> bool:
        """Sign one of the player's sessions out: its token is refused from then on.
        False when the player has no such session."""
        async with self._db.transaction() as session:
            result = await session.execute(
                delete(PlayerSession).where(
                    PlayerSession.id == session_id, PlayerSession.player_id == player_id
                )
            )
        done = getattr(result, "rowcount", 0) == 1
        if done:
            log.info("session_revoked", extra={"player_id": player_id, "session_id": session_id})
        return done

    async def revoke_all(self, player_id: str, label: str | None = None) -> tuple[str, list[str]]:
        """Sign every session of the player out and open a new one for this device, in
        one transaction: the new token (the only time it exists) and the revoked
        sessions' ids."""
        row, token = self._new_session(player_id, label)
        async with self._db.transaction() as session:
            ids = list(
                await session.scalars(
                    select(PlayerSession.id).where(PlayerSession.player_id == player_id)
                )
            )
            await session.execute(delete(PlayerSession).where(PlayerSession.player_id == player_id))
            session.add(row)
        log.info("tokens_revoked", extra={"player_id": player_id, "sessions": len(ids)})
        return token, ids

    async def sessions(self, player_id: str) -> list[SessionInfo]:
        """The player's sessions, most recently created first."""
        async with self._db.transaction() as session:
            rows = await session.scalars(
                select(PlayerSession)
                .where(PlayerSession.player_id == player_id)
                .order_by(PlayerSession.created_at.desc(), PlayerSession.id)
            )
            return [SessionInfo.of(r) for r in rows]

    async def get(self, player_id: str) -> PlayerInfo | None:
        """A player by id, or None."""
        async with self._db.transaction() as session:
            row = await session.get(Player, player_id)
        return PlayerInfo.of(row) if row is not None else None
