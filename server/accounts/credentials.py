"""Accounts: a guest player claims a username and a password, then signs in with them on
any device (a new session of the same player: its seats, history and balance are the
player's, so they carry over).

Passwords are hashed with Argon2id (argon2-cffi's defaults), off the event loop (a hash
takes tens of milliseconds of CPU). Only the hash is stored; a password is never logged
nor sent back. A sign-in with an unknown username still verifies a hash, so that its
answer takes as long as a wrong password's and tells nothing of which was wrong.

>>> clean_username("  Ana.Maria ")
'ana.maria'
>>> clean_username("a b")
Traceback (most recent call last):
...
ValueError: a username has 3 to 32 letters, digits, dots, dashes or underscores
"""

from __future__ import annotations

import asyncio
import logging
import re
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from server.accounts.identity import PlayerInfo
from server.errors import Code, ServerError
from server.storage.database import Database
from server.storage.models import Player

log = logging.getLogger(__name__)

USERNAME_RE = re.compile(r"^[a-z0-9_.\-]{3,32}$")
PASSWORD_MIN = 8
PASSWORD_MAX = 256


def clean_username(name: str) -> str:
    """A username as stored and compared: NFKC, case-folded, trimmed; ValueError if
    it is not 3 to 32 of ``a-z 0-9 . - _``."""
    key = unicodedata.normalize("NFKC", name).strip().casefold()
    if not USERNAME_RE.match(key):
        raise ValueError("a username has 3 to 32 letters, digits, dots, dashes or underscores")
    return key


def check_password(password: str) -> str:
    """A password fit to hash; ValueError if too short or too long."""
    if len(password) < PASSWORD_MIN:
        raise ValueError(f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise ValueError(f"a password has at most {PASSWORD_MAX} characters")
    return password


class Accounts:
    """Claims, sign-ins and password changes (the sessions: server/accounts/identity.py)."""

    def __init__(self, db: Database, hasher: PasswordHasher | None = None) -> None:
        self._db = db
        self._hasher = hasher or PasswordHasher()
        self._dummy: str | None = None

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hasher.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        def verify() -> bool:
            try:
                return self._hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False

        return await asyncio.to_thread(verify)

    async def username_of(self, player_id: str) -> str | None:
        """The player's username, None for a guest."""
        async with self._db.transaction() as session:
            return await session.scalar(select(Player.username).where(Player.id == player_id))

    async def claim(self, player: PlayerInfo, username: str, password: str) -> str:
        """Give the guest ``player`` a username and a password: the username.
        ``already_claimed`` if it has one, ``username_taken`` if another player has it."""
        key = clean_username(username)
        digest = await self._hash(check_password(password))
        try:
            async with self._db.transaction() as session:
                row = await session.get(Player, player.id, with_for_update=True)
                if row is None:
                    raise ServerError(Code.PLAYER_NOT_FOUND, "no such player")
                if row.username is not None:
                    raise ServerError(Code.ALREADY_CLAIMED, "this player has an account already")
                taken = await session.scalar(select(Player.id).where(Player.username == key))
                if taken is not None:
                    raise ServerError(Code.USERNAME_TAKEN, "this username is taken")
                row.username = key
                row.password_hash = digest
        except IntegrityError:  # the same username claimed concurrently
            raise ServerError(Code.USERNAME_TAKEN, "this username is taken") from None
        log.info("account_claimed", extra={"player_id": player.id})
        return key

    async def check(self, username: str, password: str) -> PlayerInfo:
        """The player whose username and password these are; ``bad_credentials`` else
        (the same answer, after the same work, whichever of the two is wrong)."""
        try:
            key = clean_username(username)
        except ValueError:
            key = None
        row = None
        if key is not None:
            async with self._db.transaction() as session:
                row = await session.scalar(select(Player).where(Player.username == key))
        if row is None or row.password_hash is None:
            if self._dummy is None:
                self._dummy = await self._hash("not a password of anyone")
            await self._verify(self._dummy, password)
            raise ServerError(Code.BAD_CREDENTIALS, "wrong username or password")
        if not await self._verify(row.password_hash, password):
            log.info("sign_in_refused", extra={"player_id": row.id})
            raise ServerError(Code.BAD_CREDENTIALS, "wrong username or password")
        if self._hasher.check_needs_rehash(row.password_hash):
            await self._store(row.id, await self._hash(password))
        return PlayerInfo.of(row)

    async def change_password(self, player_id: str, old: str, new: str) -> None:
        """Replace the password, once the old one is given; ``bad_credentials`` else."""
        async with self._db.transaction() as session:
            stored = await session.scalar(
                select(Player.password_hash).where(Player.id == player_id)
            )
        if stored is None:
            raise ServerError(Code.INVALID_REQUEST, "a guest has no password: claim an account")
        if not await self._verify(stored, old):
            raise ServerError(Code.BAD_CREDENTIALS, "the current password is wrong")
        await self._store(player_id, await self._hash(check_password(new)))
        log.info("password_changed", extra={"player_id": player_id})

    async def _store(self, player_id: str, digest: str) -> None:
        async with self._db.transaction() as session:
            await session.execute(
                update(Player).where(Player.id == player_id).values(password_hash=digest)
            )
