"""Any node accepts any request, with two servers in this
process on one database and one Redis.

A client whose socket reaches the node that does not play its room is bridged to the
owner through Redis; the room commands of the HTTP API (seat, start, leave, join) run
on the owner whichever node they reach; a room nobody plays is claimed by the node
that first needs it. A node that stops hands its rooms over: the other node takes them
at once and the clients resume with their last version. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from wsharness import Client, Server, play_until, running_server, simple_move

from server.settings import Settings

pytestmark = pytest.mark.redis

LIVE: dict[str, Any] = {
    "bot_delay_seconds": 0.0,
    "round_pause_seconds": 0.0,
    "idle_actor_seconds": 30.0,
    "lease_seconds": 2.0,
}


def _cluster(settings: Settings, redis_url: str) -> Settings:
    return settings.model_copy(update={"redis_url": redis_url})


async def _owner(room: str, *servers: Server) -> Server:
    owners = [s for s in servers if room in s.live.actors]
    assert len(owners) == 1, f"{len(owners)} nodes play the room"
    return owners[0]


async def _turns(c: Client, moves: int) -> int:
    """Play ``moves`` of this client's moves (waiting for its turns); acks received."""
    acks = 0
    while acks < moves:
        if not c.my_turn():
            await c.wait(lambda m: m["type"] in ("event", "snapshot") and c.my_turn(), timeout=20)
        assert c.view is not None
        reply = await c.act(simple_move(c.view))
        assert reply["type"] == "ack", reply
        acks += 1
    return acks


async def test_a_client_on_the_other_node_is_bridged_to_the_owner(
    settings: Settings, redis_url: str
) -> None:
    cluster = _cluster(settings, redis_url)
    async with running_server(cluster, LIVE) as one, running_server(cluster, LIVE) as two:
        _, ana = await one.player("Ana")
        _, bob = await one.player("Bob")
        room = await one.room(ana, variant="remi", seats=2, turn_seconds=120)
        # The first command that needs the room is Bob's seat, sent to the second node:
        # it claims the room. Every later command, on either node, runs there.
        await two.sit(bob, room, 1)
        assert await _owner(room, one, two) is two
        a = await one.client(ana, room)  # bridged to the owner
        b = await two.client(bob, room)
        await a.hello()
        await b.hello()
        assert one.live.bridges is not None and one.live.bridges.client_side == 1
        assert two.live.bridges is not None and two.live.bridges.owner_side == 1
        await one.start(ana, room)  # an HTTP command sent to the node that does not own it
        for c in (a, b):
            await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        assert await _owner(room, one, two) is two
        await asyncio.gather(_turns(a, 3), _turns(b, 3))
        # Both saw the same events, in the same order, at the same versions.
        seen = [
            [(m["version"], m["event"]["do"]) for m in c.frames if m["type"] == "event"]
            for c in (a, b)
        ]
        assert seen[0] == seen[1]
        assert a.view is not None and b.view is not None
        assert a.view["turn"] == b.view["turn"] and a.version == b.version
        # A refused move over the bridge gets its error, seq and all.
        wrong = await (a if not a.my_turn() else b).act({"do": "draw"})
        assert wrong["type"] == "error" and wrong["code"] == "not_your_turn"
        await a.close()
        await b.close()


async def test_a_stopping_node_hands_its_rooms_over(settings: Settings, redis_url: str) -> None:
    cluster = _cluster(settings, redis_url)
    async with running_server(cluster, LIVE) as one:
        _, ana = await one.player("Ana")
        _, bob = await one.player("Bob")
        room = await one.room(ana, variant="remi", seats=2, turn_seconds=120)
        async with running_server(cluster, LIVE) as two:
            await two.sit(bob, room, 1)  # the second node plays the room
            a = await one.client(ana, room)
            b = await two.client(bob, room)
            await a.hello()
            await b.hello()
            await one.start(ana, room)
            for c in (a, b):
                await c.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
            await asyncio.gather(_turns(a, 2), _turns(b, 2))
            before = a.version
        # The owner stopped: its rooms were released and the bridged socket closed with
        # 1012; the first node takes the room at once (the hand-over's message).
        assert a.closed is not None and b.closed is not None
        assert (await asyncio.wait_for(a.closed, 10))[0] == 1012
        assert (await asyncio.wait_for(b.closed, 10))[0] == 1012
        for _ in range(100):
            if room in one.live.actors:
                break
            await asyncio.sleep(0.05)
        assert room in one.live.actors
        a2 = await one.client(ana, room)
        b2 = await one.client(bob, room)
        first = await a2.hello(before)
        assert first["type"] in ("snapshot", "event")
        await b2.hello(b.version)
        assert a2.version is not None and before is not None and a2.version > before
        await asyncio.gather(_turns(a2, 2), _turns(b2, 2))
        await a2.close()
        await b2.close()


async def test_the_match_goes_on_with_every_client_bridged(
    settings: Settings, redis_url: str
) -> None:
    """Both players on the node that does not play the room: the whole round is played
    over the bridge, the bots' moves included."""
    cluster = _cluster(settings, redis_url)
    async with running_server(cluster, LIVE) as one, running_server(cluster, LIVE) as two:
        _, ana = await two.player("Ana")
        room = await two.room(
            ana,
            variant="remi",
            seats=3,
            fill_with_bots=True,
            turn_seconds=120,
            end={"kind": "rounds", "rounds": 1},
        )
        await two.start(ana, room)  # the second node claims and plays it
        assert await _owner(room, one, two) is two
        a = await one.client(ana, room)
        await a.hello()
        await play_until(a, lambda: a.status == "finished", timeout=120)
        scores = await one.scores(room)
        assert scores["finished"] and len(scores["rounds"]) == 1
        await a.close()
