"""The Redis links between nodes (server/rooms/cluster/links.py): what one node sends another
arrives in order, and a send that no node heard (the receiver's subscription is down)
is a failed send, never silence: a hello lost that way once left a bridged client
waiting for ever."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from redis.asyncio import Redis

from server.rooms.cluster.links import Links


class Events:
    """What the links told the node."""

    def __init__(self) -> None:
        self.envelopes: list[dict[str, Any]] = []
        self.failed: list[str] = []
        self.got = asyncio.Event()

    async def on_envelope(self, envelope: dict[str, Any]) -> None:
        self.envelopes.append(envelope)
        self.got.set()

    def on_lost(self) -> None:
        pass

    def on_back(self) -> None:
        pass

    def on_send_failed(self, node: str) -> None:
        self.failed.append(node)
        self.got.set()


@pytest.mark.redis
async def test_envelopes_arrive_in_order_and_an_unheard_send_fails(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    a_events, b_events = Events(), Events()
    a = Links(redis, "a-" + os.urandom(4).hex(), a_events)
    b = Links(redis, "b-" + os.urandom(4).hex(), b_events)
    await a.start()
    await b.start()
    try:
        for i in range(5):
            a.send(b.node, {"i": i})
        for _ in range(50):
            if len(b_events.envelopes) == 5:
                break
            await asyncio.sleep(0.05)
        assert [e["i"] for e in b_events.envelopes] == [0, 1, 2, 3, 4]
        assert a_events.failed == []
        # A node that is not listening (gone, or resubscribing after a Redis restart).
        await b.stop()
        a.send(b.node, {"i": 5})
        await asyncio.wait_for(a_events.got.wait(), 5)
        assert a_events.failed == [b.node]
    finally:
        await a.stop()
        await b.stop()
        await redis.aclose()
