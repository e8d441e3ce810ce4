"""Creation rates: token buckets per client address and per player for the requests
that create something (a player, a room, a session), and per address and per username
for sign-ins and account claims; the HTTP edge
(server/api/limits.py) asks them. The buckets live in the process: each server of
several keeps its own.

>>> clock = [0.0]
>>> buckets = KeyedBuckets(2, 10.0, clock=lambda: clock[0])
>>> [buckets.take("a"), buckets.take("a"), buckets.take("a"), buckets.take("b")]
[0, 0, 5, 0]
>>> clock[0] = 5.0
>>> buckets.take("a")
0
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

from server.errors import Throttled
from server.settings import Settings


class KeyedBuckets:
    """A token bucket per key: ``capacity`` requests, refilled at capacity/window a
    second. At most ``max_keys`` buckets are kept (the least recently used go first: a
    key without a bucket has a full one)."""

    def __init__(
        self,
        capacity: int,
        window: float,
        *,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = float(capacity)
        self.rate = capacity / window
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def take(self, key: Hashable) -> int:
        """Take one request for ``key``: 0 if allowed, else the whole seconds until one is."""
        now = self._clock()
        tokens, last = self._buckets.pop(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - last) * self.rate)
        if tokens >= 1.0:
            tokens -= 1.0
            wait = 0
        else:
            wait = max(1, math.ceil((1.0 - tokens) / self.rate))
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return wait


class CreateLimits:
    """The creation limits of one app: a bucket per (kind, address) and per (kind, player)."""

    def __init__(
        self, settings: Settings, clock: Callable[[], float] = time.monotonic
    ) -> None:
        window = settings.create_limit_window_seconds
        self.by_address = KeyedBuckets(settings.create_limit_per_address, window, clock=clock)
        self.by_identity = KeyedBuckets(settings.create_limit_per_identity, window, clock=clock)
        login_window = settings.login_limit_window_seconds
        self.login_by_address = KeyedBuckets(
            settings.login_limit_per_address, login_window, clock=clock
        )
        self.login_by_username = KeyedBuckets(
            settings.login_limit_per_username, login_window, clock=clock
        )

    def per_address(self, kind: str, address: str) -> None:
        """Count one ``kind`` request from ``address``; past the limit raise
        :class:`~server.errors.Throttled`."""
        wait = self.by_address.take((kind, address))
        if wait:
            raise Throttled(f"too many {kind} requests from this address", wait)

    def per_player(self, kind: str, player_id: str) -> None:
        """Count one ``kind`` request by the player; past the limit raise
        :class:`~server.errors.Throttled`."""
        wait = self.by_identity.take((kind, player_id))
        if wait:
            raise Throttled(f"too many {kind} requests by this player", wait)

    def login(self, address: str, username: str | None) -> None:
        """Count one sign-in try (or account claim) from ``address`` with ``username``
        (case-folded): past either limit raise :class:`~server.errors.Throttled`."""
        wait = self.login_by_address.take(address)
        if wait:
            raise Throttled("too many sign-in attempts from this address", wait)
        if username is not None:
            wait = self.login_by_username.take(username.strip().casefold())
            if wait:
                raise Throttled("too many sign-in attempts for this username", wait)
