"""The bus contract, on the in-process bus and on real Redis pub/sub (required in CI)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redisproc import RedisProcess

from server.bus import (
    RESUBSCRIBED,
    Backoff,
    Bus,
    InProcessBus,
    RedisBus,
    Subscription,
    make_bus,
)

FAST_BACKOFF = Backoff(base=0.05, cap=0.5)

REDIS_URL = os.environ.get("REMI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture(params=["inprocess", "redis"])
async def bus(request: pytest.FixtureRequest, redis_problem: str | None) -> AsyncIterator[Bus]:
    if request.param == "inprocess":
        yield InProcessBus()
        return
    if redis_problem is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Redis is not reachable: {redis_problem} (CI=true: required)")
        pytest.skip(f"Redis is not reachable: {redis_problem}")
    client = Redis.from_url(REDIS_URL)
    try:
        yield RedisBus(client, prefix=f"remi-test-{id(client)}:")
    finally:
        await client.aclose()


async def _next(sub: Subscription) -> dict[str, object]:
    return await asyncio.wait_for(sub.get(), timeout=5)


async def test_every_subscriber_gets_every_message_in_order(bus: Bus) -> None:
    async with bus.subscribe("lobby") as one, bus.subscribe("lobby") as two:
        await asyncio.sleep(0.05)  # Redis: let both subscriptions register
        for n in range(3):
            await bus.publish("lobby", {"n": n})
        assert [(await _next(one))["n"] for _ in range(3)] == [0, 1, 2]
        assert [(await _next(two))["n"] for _ in range(3)] == [0, 1, 2]


async def test_topics_are_separate(bus: Bus) -> None:
    async with bus.subscribe("a") as a, bus.subscribe("b") as b:
        await asyncio.sleep(0.05)
        await bus.publish("b", {"to": "b"})
        await bus.publish("a", {"to": "a"})
        assert await _next(a) == {"to": "a"}
        assert await _next(b) == {"to": "b"}


async def test_unsubscribed_listeners_get_nothing_more(bus: Bus) -> None:
    async with bus.subscribe("t") as sub:
        await asyncio.sleep(0.05)
        await bus.publish("t", {"x": 1})
        assert await _next(sub) == {"x": 1}
    await bus.publish("t", {"x": 2})  # nobody listens: must not raise


async def test_a_slow_subscriber_drops_the_oldest_messages() -> None:
    sub = Subscription(maxsize=2)
    for n in range(5):
        sub.put({"n": n})
    assert sub.dropped == 3
    assert await sub.get() == {"n": 3}
    assert await sub.get() == {"n": 4}


async def test_make_bus_picks_redis_only_when_configured(redis_url: str) -> None:
    assert isinstance(make_bus(None), InProcessBus)
    client = Redis.from_url(redis_url)
    try:
        assert isinstance(make_bus(client), RedisBus)
    finally:
        await client.aclose()


# Redis loss: a redis-server of the test's own (tests/server/redisproc.py), killed and
# started again on the same port; the shared Redis is never touched.


async def _until_resubscribed(sub: Subscription, timeout: float = 10) -> None:
    """Wait for the marker a subscription receives once it is subscribed again."""
    async with asyncio.timeout(timeout):
        while (await sub.get()) != RESUBSCRIBED:
            pass


async def test_a_subscription_survives_a_redis_restart(own_redis: RedisProcess) -> None:
    client = Redis.from_url(own_redis.url)
    bus = RedisBus(client, backoff=FAST_BACKOFF)
    try:
        async with bus.subscribe("lobby") as sub:
            await asyncio.sleep(0.05)
            await bus.publish("lobby", {"n": 1})
            assert await _next(sub) == {"n": 1}
            own_redis.restart()
            await _until_resubscribed(sub)
            await bus.publish("lobby", {"n": 2})
            assert await _next(sub) == {"n": 2}
    finally:
        await client.aclose()


async def test_a_subscription_keeps_retrying_while_redis_is_down(
    own_redis: RedisProcess,
) -> None:
    client = Redis.from_url(own_redis.url)
    bus = RedisBus(client, backoff=FAST_BACKOFF)
    try:
        async with bus.subscribe("lobby") as sub:
            await asyncio.sleep(0.05)
            own_redis.stop()
            await asyncio.sleep(1.0)  # several failed attempts, none of them fatal
            own_redis.start()
            await _until_resubscribed(sub)
            await bus.publish("lobby", {"n": 3})
            assert await _next(sub) == {"n": 3}
    finally:
        await client.aclose()


async def test_the_first_publish_after_a_redis_restart_is_delivered(
    own_redis: RedisProcess,
) -> None:
    publisher = Redis.from_url(own_redis.url)
    listener = Redis.from_url(own_redis.url)
    try:
        await RedisBus(publisher).publish("lobby", {"warm": True})  # a pooled connection
        own_redis.restart()
        async with RedisBus(listener).subscribe("lobby") as sub:
            await asyncio.sleep(0.05)
            await RedisBus(publisher).publish("lobby", {"n": 1})  # on the stale connection
            assert await _next(sub) == {"n": 1}
    finally:
        await publisher.aclose()
        await listener.aclose()


def test_the_reconnect_delays_grow_to_the_cap_with_jitter() -> None:
    backoff = Backoff(base=0.1, cap=2.0)
    for attempt in range(12):
        whole = min(2.0, 0.1 * 2**attempt)
        draws = [backoff.delay(attempt) for _ in range(200)]
        assert all(whole / 2 <= d <= whole for d in draws)
        assert len(set(draws)) > 100  # spread out, not one instant for every instance
    assert backoff.delay(10_000) <= 2.0
