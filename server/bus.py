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
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.backoff import Backoff

log = logging.getLogger(__name__)

SUBSCRIBER_QUEUE = 256  # messages a slow subscriber may lag behind before dropping

RESUBSCRIBED: dict[str, Any] = {"bus": "resubscribed"}
"""What a subscription receives after it lost its connection and subscribed again:
messages published in between are lost, so state built from the messages is refetched."""


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
    """Redis pub/sub: every instance connected to the same Redis hears every message.

    Redis may restart under it. A subscription then reconnects by itself, waiting
    :class:`Backoff` delays between attempts for as long as Redis is away, and once
    subscribed again puts :data:`RESUBSCRIBED` in its queue (what was published
    meanwhile is lost, so a subscriber that keeps state refetches it). A publish on a
    connection Redis closed is sent again once on a fresh connection.
    """

    def __init__(self, redis: Redis, prefix: str = "remi:", backoff: Backoff | None = None) -> None:
        self._redis = redis
        self._prefix = prefix
        self._backoff = backoff or Backoff()

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        data = json.dumps(message)
        try:
            await self._redis.publish(self._prefix + topic, data)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            # The pooled connection was closed under us (Redis restarted): the pool
            # dropped it, so the second try opens a new one; if Redis is still away
            # it raises to the caller.
            log.info("bus_publish_retried", extra={"topic": topic, "error": repr(exc)})
            await self._redis.publish(self._prefix + topic, data)

    @contextlib.asynccontextmanager
    async def subscribe(self, topic: str) -> AsyncIterator[Subscription]:
        sub = Subscription()
        channel = self._prefix + topic
        pubsub: PubSub | None = await self._try_subscribe(channel)  # None: Redis is away

        async def pump() -> None:
            nonlocal pubsub
            attempt = 0
            while True:
                if pubsub is None:
                    await asyncio.sleep(self._backoff.delay(attempt))
                    attempt += 1
                    pubsub = await self._try_subscribe(channel)
                    if pubsub is None:
                        continue
                    log.info("bus_resubscribed", extra={"topic": topic, "attempts": attempt})
                    attempt = 0
                    sub.put(RESUBSCRIBED)
                try:
                    await self._listen(pubsub, sub, topic)
                except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                    log.warning("bus_subscription_lost", extra={"topic": topic, "error": repr(exc)})
                await _close_quietly(pubsub)
                pubsub = None

        task = asyncio.create_task(pump())
        try:
            yield sub
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if pubsub is not None:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.unsubscribe()
                await _close_quietly(pubsub)

    async def _try_subscribe(self, channel: str) -> PubSub | None:
        """A pub/sub connection subscribed to ``channel``, or None if Redis is away."""
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(channel)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            log.warning("bus_subscribe_failed", extra={"channel": channel, "error": repr(exc)})
            await _close_quietly(pubsub)
            return None
        return pubsub

    @staticmethod
    async def _listen(pubsub: PubSub, sub: Subscription, topic: str) -> None:
        async for raw in pubsub.listen():
            try:
                sub.put(json.loads(raw["data"]))
            except (ValueError, TypeError, KeyError):
                log.warning("bus_bad_message", extra={"topic": topic})

    async def close(self) -> None:
        return None


async def _close_quietly(pubsub: PubSub) -> None:
    with contextlib.suppress(RedisError, OSError):
        await pubsub.aclose()


def make_bus(redis: Redis | None) -> Bus:
    """Redis pub/sub when a Redis is configured, else the in-process bus."""
    return RedisBus(redis) if redis is not None else InProcessBus()
