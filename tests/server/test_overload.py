"""An overloaded node keeps its own rooms.

A node whose event loop is seconds behind (thousands of tables) must not lose faith in
its own leases while the database takes its heartbeats: its heartbeat runs on a thread
of its own (:meth:`server.rooms.cluster.Cluster.start_beating`). The test holds the event
loop busy (pure Python, the GIL taken back every few milliseconds as by any busy loop)
for longer than the lease, then plays a move: it is acknowledged, not refused.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest
from wsharness import running_server, simple_move, two_player_room

from server.rooms.core.messages import Revoked
from server.settings import Settings

LIVE: dict[str, Any] = {
    "bot_delay_seconds": 0.0,
    "round_pause_seconds": 0.0,
    "idle_actor_seconds": 30.0,
    "lease_seconds": 3.0,
}


def _busy(seconds: float) -> None:
    """Hold the event loop (and, between the interpreter's switches, the GIL)."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1


async def test_a_node_whose_event_loop_is_late_keeps_its_leases(
    settings: Settings, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """As deployed: SQLite with the in-process bus (the embedded default), PostgreSQL with
    Redis (production)."""
    if settings.database_url.startswith("postgresql"):
        settings = settings.model_copy(update={"redis_url": redis_url})
    # The default lease (6 s; a beat every 2 s): a busy loop starves the heartbeat's thread
    # of the interpreter, and on a loaded machine a beat then takes seconds.
    async with running_server(settings, {**LIVE, "lease_seconds": 6.0}) as srv:
        _, a, b, _, _ = await two_player_room(srv)
        cluster = srv.live.cluster
        assert cluster.ttl == 6.0
        beats = cluster.beats
        _busy(3 * cluster.ttl)  # the loop is late by twice the lease
        # The leases are still trusted: the database took the heartbeats meanwhile.
        assert cluster.valid()
        assert cluster.beats > beats
        mover = a if a.my_turn() else b
        assert mover.view is not None
        reply = await mover.act(simple_move(mover.view))
        assert reply["type"] == "ack", reply
        assert "node_leases_lapsed" not in caplog.text
        await a.close()
        await b.close()


async def test_a_refusal_tells_busy_from_a_database_away_with_a_retry_hint(
    settings: Settings,
) -> None:
    """A node whose leases are in doubt while its database answers refuses moves as
    ``busy``; one whose heartbeat the database did not take, as ``database_unavailable``;
    both with a retry hint."""
    async with running_server(settings, {**LIVE, "lease_seconds": 30.0}) as srv:
        _, a, b, _, _ = await two_player_room(srv)
        cluster = srv.live.cluster
        mover = a if a.my_turn() else b
        assert mover.view is not None
        cluster.valid_until = time.monotonic() - 1  # in doubt until the next beat (10 s)
        reply = await mover.act(simple_move(mover.view))
        assert reply["type"] == "error" and reply["code"] == "busy", reply
        assert reply["retry_after_ms"] == 10_000
        cluster.failing = True  # as after a heartbeat the database did not take
        reply = await mover.act(simple_move(mover.view))
        assert reply["code"] == "database_unavailable", reply
        assert reply["retry_after_ms"] > 0
        cluster.failing = False
        cluster.trust(time.monotonic())
        reply = await mover.act(simple_move(mover.view))
        assert reply["type"] == "ack", reply
        await a.close()
        await b.close()


async def test_a_room_dropped_while_paused_stops_at_once(
    settings: Settings, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A node wakes from a pause past its lease: its heartbeat finds the room taken and
    drops it, then trusts its leases again. The paused room must stop there, not resume
    (log ``room_resumed``) and play on until a write is fenced. The node's
    ``remi_rooms_owned`` stays true throughout: the room while its lease is trusted,
    none while in doubt, none once dropped."""
    settings = settings.model_copy(update={"redis_url": redis_url})
    caplog.set_level(logging.INFO, logger="server.rooms.pause")
    async with running_server(settings, {**LIVE, "lease_seconds": 30.0}) as srv:
        live = srv.live
        _, a, b, _, _ = await two_player_room(srv)
        await live.cluster.stop_beating()  # only this test's beats from now on
        [actor] = [x for x in live.actors.values() if not x.stopped]
        assert live.rooms_owned() == 1
        live.cluster.valid_until = time.monotonic() - 1  # paused past the lease
        actor.post(Revoked(frozenset()))  # anything wakes the room: it pauses
        for _ in range(100):
            if "room_paused" in caplog.text:
                break
            await asyncio.sleep(0.05)
        assert "room_paused" in caplog.text
        assert live.rooms_owned() == 0  # in doubt: maybe another node's already
        # The heartbeat thread's first beat after the pause finds the node's row alive
        # (the node's own beat has just renewed it): it must not trust the leases again
        # before that beat has dropped the rooms taken meanwhile (before, the room
        # resumed, then was dropped).
        cluster = live.cluster
        before_pause = time.monotonic() - 2 * cluster.ttl
        cluster._thread_alive = (before_pause, cluster._loop_beats)
        with cluster.own_beat():  # the node's own beat, under way
            cluster.thread_beat(time.monotonic(), alive=True, loop_beats=cluster._loop_beats)
            assert not cluster.valid()
        cluster._thread_alive = (before_pause, cluster._loop_beats - 1)  # it renewed the row
        cluster.thread_beat(time.monotonic(), alive=True, loop_beats=cluster._loop_beats)
        assert not live.cluster.valid() and live.rooms_owned() == 0
        assert "remi_rooms_owned 0.0" in (await srv.http.get("/metrics")).text
        live._drop(actor, "lease_lost")  # what the heartbeat does, then it trusts again
        live.cluster.trust(time.monotonic())
        assert live.rooms_owned() == 0  # trusted again: the dropped room is not counted
        assert actor.task is not None
        await asyncio.wait_for(asyncio.shield(actor.task), 10)
        assert actor.stopped
        assert "room_resumed" not in caplog.text
        await a.close()
        await b.close()
