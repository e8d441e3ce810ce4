"""The message bus: in-process by default, Redis pub/sub in production.

What one server instance announces (a lobby change, a room that started or
ended) reaches every subscriber, on this instance with :class:`InProcessBus`,
on every instance sharing a Redis with :class:`RedisBus`. Messages are JSON
objects; a subscriber that falls behind loses the oldest messages rather than
slowing the publisher (lobby updates are hints to refetch, never state).

>>> import asyncio
>>> async def demo() -> dict:
...     bus = InProcessBus()
...     async with bus.subscribe("lobby") as sub:
...         await bus.publish("lobby", {"room": "r1", "status": "waiting"})
...         return await sub.get()
>>> asyncio.run(demo())
{'room': 'r1', 'status': 'waiting'}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol

from redis.asyncio import Redis

log = logging.getLogger(__name__)

SUBSCRIBER_QUEUE = 256  # messages a slow subscriber may lag behind before dropping


class Subscription:
    """Messages of one topic for one subscriber, in publication order."""

    def __init__(self, maxsize: int = SUBSCRIBER_QUEUE) -> None:
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize)
        self.dropped = 0

    def put(self, message: dict[str, Any]) -> None:
        if self._queue.full():
            self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(message)

    async def get(self) -> dict[str, Any]:
        return await self._queue.get()

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self._queue.get()


class Bus(Protocol):
    async def publish(self, topic: str, message: dict[str, Any]) -> None: ...

    def subscribe(self, topic: str) -> contextlib.AbstractAsyncContextManager[Subscription]: ...

    async def close(self) -> None: ...


class InProcessBus:
    """Subscribers in this process only: the embedded default."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscription]] = {}

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        for sub in list(self._subs.get(topic, ())):
            sub.put(message)

    @contextlib.asynccontextmanager
    async def subscribe(self, topic: str) -> AsyncIterator[Subscription]:
        sub = Subscription()
        self._subs.setdefault(topic, set()).add(sub)
        try:
            yield sub
        finally:
            self._subs[topic].discard(sub)

    async def close(self) -> None:
        self._subs.clear()


class RedisBus:
    """Redis pub/sub: every instance connected to the same Redis hears every message."""

    def __init__(self, redis: Redis, prefix: str = "remi:") -> None:
        self._redis = redis
        self._prefix = prefix

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        await self._redis.publish(self._prefix + topic, json.dumps(message))

    @contextlib.asynccontextmanager
    async def subscribe(self, topic: str) -> AsyncIterator[Subscription]:
        sub = Subscription()
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self._prefix + topic)

        async def pump() -> None:
            async for raw in pubsub.listen():
                try:
                    sub.put(json.loads(raw["data"]))
                except (ValueError, TypeError, KeyError):
                    log.warning("bus_bad_message", extra={"topic": topic})

        task = asyncio.create_task(pump())
        try:
            yield sub
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await pubsub.unsubscribe()
            await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        return None


def make_bus(redis: Redis | None) -> Bus:
    """Redis pub/sub when a Redis is configured, else the in-process bus."""
    return RedisBus(redis) if redis is not None else InProcessBus()
