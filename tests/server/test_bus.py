"""The bus contract, on the in-process bus and on real Redis pub/sub (required in CI)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.bus import Bus, InProcessBus, RedisBus, Subscription, make_bus

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
