"""Request rates at the HTTP edge, counted with the ``limits`` library (moving windows):
per client address and per player for the requests that create something (a player, a
room, a session, a quick start), per address and per username for sign-ins and account
claims, and per address and per player for wrong invite codes (guessing one). The HTTP
edge (server/api/limits.py, server/api/rooms.py) asks them.

With Redis configured (``REMI_REDIS_URL``) the counts live in Redis, shared by every
node: N nodes allow what one allows. Without it they live in the process. If Redis does
not answer, a request is let through (and logged): the limits never take the site down.

>>> import asyncio
>>> from server.settings import Settings
>>> limits = CreateLimits(Settings(create_limit_per_address=2))
>>> async def three() -> list[str]:
...     out = []
...     for _ in range(3):
...         try:
...             await limits.per_address("room", "10.0.0.1")
...             out.append("ok")
...         except Throttled:
...             out.append("429")
...     return out
>>> asyncio.run(three())
['ok', 'ok', '429']
"""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from server.errors import Throttled
from server.settings import Settings

log = logging.getLogger(__name__)


def _per(count: int, window: float) -> RateLimitItem:
    """``count`` requests per ``window`` seconds (a window rounded up to whole seconds)."""
    return RateLimitItemPerSecond(count, max(1, math.ceil(window)))


def storage_for(settings: Settings) -> Storage:
    """Redis (shared by the nodes) when configured, else this process's memory."""
    if settings.redis_url:
        return RedisStorage(
            settings.redis_url,
            implementation="redispy",
            key_prefix="remi-limits",
            wrap_exceptions=True,
        )
    return MemoryStorage()


class CreateLimits:
    """The HTTP rate limits of one app (see the module doc)."""

    def __init__(self, settings: Settings, storage: Storage | None = None) -> None:
        self.storage = storage if storage is not None else storage_for(settings)
        self._limiter = MovingWindowRateLimiter(self.storage)
        window = settings.create_limit_window_seconds
        self.by_address = _per(settings.create_limit_per_address, window)
        self.by_identity = _per(settings.create_limit_per_identity, window)
        login_window = settings.login_limit_window_seconds
        self.login_by_address = _per(settings.login_limit_per_address, login_window)
        self.login_by_username = _per(settings.login_limit_per_username, login_window)
        code_window = settings.code_limit_window_seconds
        self.codes_by_address = _per(settings.code_limit_per_address, code_window)
        self.codes_by_player = _per(settings.code_limit_per_player, code_window)

    async def _take(self, item: RateLimitItem, message: str, *key: str) -> None:
        """Count one request; past the limit raise :class:`~server.errors.Throttled`."""
        try:
            if await self._limiter.hit(item, *key):
                return
            stats = await self._limiter.get_window_stats(item, *key)
        except Exception as exc:  # Redis away: let the request through
            log.warning("rate_limit_unavailable", extra={"error": repr(exc)})
            return
        raise Throttled(message, max(1, math.ceil(stats.reset_time - time.time())))

    async def _check(self, item: RateLimitItem, message: str, *key: str) -> None:
        """Raise :class:`~server.errors.Throttled` if the limit is used up (counts nothing)."""
        try:
            if await self._limiter.test(item, *key):
                return
            stats = await self._limiter.get_window_stats(item, *key)
        except Exception as exc:
            log.warning("rate_limit_unavailable", extra={"error": repr(exc)})
            return
        raise Throttled(message, max(1, math.ceil(stats.reset_time - time.time())))

    async def per_address(self, kind: str, address: str) -> None:
        """Count one ``kind`` request from ``address``."""
        await self._take(
            self.by_address, f"too many {kind} requests from this address", kind, address
        )

    async def per_player(self, kind: str, player_id: str) -> None:
        """Count one ``kind`` request by the player."""
        await self._take(
            self.by_identity, f"too many {kind} requests by this player", kind, player_id
        )

    async def login(self, address: str, username: str | None) -> None:
        """Count one sign-in try (or account claim) from ``address`` with ``username``
        (case-folded)."""
        await self._take(
            self.login_by_address,
            "too many sign-in attempts from this address",
            "login",
            address,
        )
        if username is not None:
            await self._take(
                self.login_by_username,
                "too many sign-in attempts for this username",
                "login-user",
                username.strip().casefold(),
            )

    async def check_codes(self, address: str, player_id: str | None) -> None:
        """Refuse a request with an invite code once this address or player has guessed
        too many wrong ones (counts nothing: :meth:`wrong_code` does)."""
        message = "too many wrong invite codes: wait before trying another"
        await self._check(self.codes_by_address, message, "code", address)
        if player_id is not None:
            await self._check(self.codes_by_player, message, "code-player", player_id)

    async def wrong_code(self, address: str, player_id: str | None) -> None:
        """Count one wrong invite code from this address and player."""
        message = "too many wrong invite codes: wait before trying another"
        await self._take(self.codes_by_address, message, "code", address)
        if player_id is not None:
            await self._take(self.codes_by_player, message, "code-player", player_id)
