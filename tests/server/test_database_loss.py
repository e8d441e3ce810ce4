"""Losing PostgreSQL under a playing room: moves are refused with a
clear error, nothing acknowledged is lost, play resumes when it returns; liveness and
readiness are told apart (a node whose database is away is alive, not ready; a node
whose Redis is away is both).

The database is a private cluster (tests/server/pgcluster.py) stopped with ``pg_ctl
stop -m immediate``; the shared PostgreSQL is never touched.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from conftest import base_settings, unavailable
from pgcluster import PgCluster, cluster_problem
from redisproc import RedisProcess
from sqlalchemy import select
from wsharness import running_server, simple_move, two_player_room

from server.settings import Settings
from server.storage.database import Database
from server.storage.models import Action

LIVE = {
    "bot_delay_seconds": 0.0,
    "round_pause_seconds": 0.0,
    "idle_actor_seconds": 30.0,
    "lease_seconds": 2.0,
}


@pytest.mark.postgres
async def test_moves_are_refused_while_postgresql_is_away_and_nothing_acked_is_lost(
    tmp_path: Path,
) -> None:
    problem = cluster_problem()
    if problem is not None:
        unavailable("a private PostgreSQL cluster", problem)
    cluster = await asyncio.to_thread(PgCluster.create)
    settings = base_settings(data_dir=tmp_path, database_url=cluster.url)
    try:
        async with running_server(settings, LIVE) as srv:
            _, a, b, _, _ = await two_player_room(srv)
            acked = []
            first = a if a.my_turn() else b
            assert first.view is not None
            reply = await first.act(simple_move(first.view))
            assert reply["type"] == "ack"
            acked.append(reply["version"])
            mover = a if a.my_turn() else b
            other = b if mover is a else a

            await asyncio.to_thread(cluster.crash)
            assert mover.view is not None
            # The move in flight when the database went away waits for it (its outcome
            # is known only once it answers) ...
            mover.seq += 1
            stalled_seq = mover.seq
            await mover.send(
                {
                    "type": "action",
                    "seq": stalled_seq,
                    "base_version": mover.version,
                    "action": simple_move(mover.view),
                }
            )
            await asyncio.sleep(0.5)
            # ... and every other move is refused at once, with a clear error.
            refused = await mover.act({"do": "draw"})
            assert refused["type"] == "error" and refused["code"] == "database_unavailable"
            assert "not played" in refused["message"]
            await asyncio.sleep(2.5)  # past the lease: the node's rooms are paused
            refused = await other.act({"do": "draw"})
            assert refused["code"] == "database_unavailable"
            async with httpx.AsyncClient(base_url=srv.base, timeout=10) as http:
                assert (await http.get("/livez")).status_code == 200
                ready = await http.get("/readyz")
                assert ready.status_code == 503 and ready.json()["database"] == "error"
                assert ready.json()["leases"] == "lapsed"

                await asyncio.to_thread(cluster.start)
                # The stalled move is acknowledged once the database answers.
                answer = await mover.wait(
                    lambda m: m["type"] in ("ack", "error") and m.get("seq") == stalled_seq,
                    timeout=30,
                )
                assert answer["type"] == "ack", answer
                acked.append(answer["version"])
                for _ in range(100):
                    if (await http.get("/readyz")).status_code == 200:
                        break
                    await asyncio.sleep(0.1)
                ready = await http.get("/readyz")
                assert ready.status_code == 200, ready.json()
                assert ready.json()["leases"] == "trusted" and ready.json()["writes"] == "ok"
            # Play goes on: a ready node takes moves at once.
            for _ in range(2):
                c = a if a.my_turn() else b
                assert c.my_turn() and c.view is not None
                reply = await c.act(simple_move(c.view))
                assert reply["type"] == "ack", reply
                acked.append(reply["version"])
            await a.close()
            await b.close()
        db = Database(settings)
        try:
            async with db.transaction() as session:
                versions = set((await session.scalars(select(Action.version))).all())
        finally:
            await db.dispose()
        assert set(acked) <= versions
    finally:
        await asyncio.to_thread(cluster.destroy)


@pytest.mark.redis
async def test_a_node_whose_redis_is_away_is_alive_and_ready(
    settings: Settings, tmp_path: Path
) -> None:
    proc = RedisProcess(tmp_path)
    await asyncio.to_thread(proc.start)
    try:
        cluster = settings.model_copy(update={"redis_url": proc.url})
        async with (
            running_server(cluster, LIVE) as srv,
            httpx.AsyncClient(base_url=srv.base, timeout=10) as http,
        ):
            ready = await http.get("/readyz")
            assert ready.status_code == 200 and ready.json()["redis"] == "ok"
            await asyncio.to_thread(proc.stop)
            for _ in range(50):
                ready = await http.get("/readyz")
                if ready.json()["redis"] == "error":
                    break
                await asyncio.sleep(0.1)
            assert ready.status_code == 200 and ready.json()["redis"] == "error"
            assert (await http.get("/livez")).status_code == 200
            # The full check still says what is wrong.
            assert (await http.get("/healthz")).status_code == 503
            # A room is still played on this node.
            _, a, b, _, _ = await two_player_room(srv)
            c = a if a.my_turn() else b
            assert c.view is not None
            assert (await c.act(simple_move(c.view)))["type"] == "ack"
            await a.close()
            await b.close()
    finally:
        await asyncio.to_thread(proc.stop)
