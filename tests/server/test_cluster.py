"""Several server nodes as separate processes (issue 16, item 5): three uvicorn nodes on
one PostgreSQL and one Redis, on loopback, with the four clients of each room spread
over the nodes and bot matches running.

The cases run in this order on one cluster (module-scoped, one event loop): a kill -9
of an owner mid-turn; a SIGSTOP of an owner past its lease, then SIGCONT; a rolling
restart of all three nodes; Redis stopped for 15 s; every node killed, then two nodes
started at once on the database full of playing rooms. After each one the players
stop, the rooms settle, and :meth:`clusterproc.Cluster.audit` counts, over everything
played so far: acked moves lost, stale-epoch writes committed, rooms played by two
nodes at one instant, duplicate match results, gaps or forks in any client's version
sequence, clients whose final view differs from the view rebuilt from the log. Every
count must be 0, and play must have gone on after the fault.

The nodes use the default lease (``REMI_LEASE_SECONDS`` = 6 s); the Redis is the test's
own (tests/server/redisproc.py), the database a schema of its own on the shared
PostgreSQL, dropped afterwards.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import pytest_asyncio
from clusterproc import Cluster, Node
from conftest import PG_URL, plain_pg_dsn, unavailable
from redisproc import RedisProcess

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.postgres,
    pytest.mark.redis,
]

LEASE = 6.0
"""The default ``REMI_LEASE_SECONDS``: a dead owner's rooms move within it (+ a beat)."""

SETTINGS = {
    "REMI_LOG_FORMAT": "json",
    "REMI_LOG_LEVEL": "INFO",
    "REMI_BOT_SEARCHES": "thread",
    "REMI_BOT_DELAY_SECONDS": "0.05",
    "REMI_ROUND_PAUSE_SECONDS": "0.3",
    "REMI_HEARTBEAT_SECONDS": "2",
    "REMI_RECONNECT_GRACE_SECONDS": "30",
    "REMI_EMPTY_ROOM_GRACE_SECONDS": "300",
    "REMI_IDLE_ACTOR_SECONDS": "120",
    "REMI_RATE_LIMIT_MESSAGES": "100000",
    "REMI_CREATE_LIMIT_PER_ADDRESS": "100000",
    "REMI_CREATE_LIMIT_PER_IDENTITY": "100000",
}


async def _pg_ok() -> str | None:
    try:
        conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        return repr(exc)
    await conn.close()
    return None


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def cluster(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Cluster]:
    problem = await _pg_ok()
    if problem is not None:
        unavailable("PostgreSQL", problem)
    if shutil.which("redis-server") is None:
        unavailable("redis-server", "not installed")
    workdir: Path = tmp_path_factory.mktemp("cluster")
    redis = RedisProcess(workdir)
    await asyncio.to_thread(redis.start)
    schema = f"c_{secrets.token_hex(6)}"
    env = {**SETTINGS, "REMI_DATABASE_URL": PG_URL, "REMI_DATABASE_SCHEMA": schema,
           "REMI_REDIS_URL": redis.url, "REMI_DATA_DIR": str(workdir)}
    nodes = [Node(i, env, workdir) for i in range(3)]
    c = Cluster(nodes, PG_URL, schema)
    c.redis = redis
    try:
        for node in nodes:
            node.start()
        for node in nodes:
            node.wait_ready()
        for _ in range(4):
            await c.add_room(humans=4)
        for _ in range(2):
            await c.add_room(humans=1)  # a bot match: three bot seats
        yield c
    finally:
        await c.stop_players()
        for node in nodes:
            if node.up:
                node.resume()
                node.kill()
        redis.stop()
        conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()


async def _leases(c: Cluster) -> dict[str, tuple[int, str | None]]:
    conn = await asyncpg.connect(plain_pg_dsn(), timeout=5, server_settings={
        "search_path": c.schema})
    try:
        rows = await conn.fetch(
            "SELECT l.room_id, l.epoch, l.node FROM room_leases l "
            "JOIN rooms r ON r.id = l.room_id WHERE r.status = 'playing'"
        )
        return {r["room_id"]: (r["epoch"], r["node"]) for r in rows}
    finally:
        await conn.close()


async def _node_ids(c: Cluster) -> dict[int, str]:
    """Each running node's id (its /livez)."""
    import httpx

    out = {}
    async with httpx.AsyncClient(timeout=5) as http:
        for node in c.nodes:
            if node.up:
                out[node.index] = (await http.get(f"{node.base}/livez")).json()["node"]
    return out


async def _busiest(c: Cluster) -> tuple[Node, str, list[str]]:
    """The node that plays the most rooms: it, its id, its rooms."""
    ids = await _node_ids(c)
    leases = await _leases(c)
    best = max(ids, key=lambda i: sum(1 for _, n in leases.values() if n == ids[i]))
    rooms = [r for r, (_, n) in leases.items() if n == ids[best]]
    assert rooms, f"no node plays a room: {leases}"
    return c.nodes[best], ids[best], rooms


async def _moved(c: Cluster, rooms: list[str], old: str, timeout: float) -> float:
    """Seconds until every one of ``rooms`` is played by another node than ``old``."""
    t0 = time.monotonic()
    while True:
        leases = await _leases(c)
        if all(leases[r][1] not in (None, old) for r in rooms):
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"rooms not taken over in {timeout} s: {leases}")
        await asyncio.sleep(0.1)


async def _settle_and_audit(c: Cluster, case: str) -> dict[str, Any]:
    await c.quiesce()
    audit = await c.audit()
    assert audit.problems() == {}, f"{case}: {audit.problems()}"
    assert audit.acked > 0
    c.resume_play()
    return {"acked": audit.acked}


async def test_kill_9_of_an_owner_mid_turn(cluster: Cluster) -> None:
    c = cluster
    c.resume_play()
    assert await c.play_for(3) > 0
    victim, victim_id, rooms = await _busiest(c)
    victim.kill()
    took = await _moved(c, rooms, victim_id, timeout=20)
    print(f"kill -9: the {len(rooms)} rooms of the killed node moved in {took:.1f} s")
    assert took <= 10, f"the rooms of a killed node moved after {took:.1f} s"
    victim.start()
    await asyncio.to_thread(victim.wait_ready)  # the players play on meanwhile
    assert await c.play_for(4) > 0
    await _settle_and_audit(c, "kill -9")


async def test_sigstop_past_the_lease_then_sigcont(cluster: Cluster) -> None:
    c = cluster
    assert await c.play_for(2) > 0
    victim, victim_id, rooms = await _busiest(c)
    victim.pause()
    try:
        await _moved(c, rooms, victim_id, timeout=LEASE + 10)
        await asyncio.sleep(1)
    finally:
        victim.resume()
    assert await c.play_for(4) > 0
    # The paused node noticed: its leases had lapsed, and each room it had played was
    # dropped (or one of its late writes was refused by the fence).
    records = victim.records()
    events = [r["event"] for r in records if r.get("run") == victim.runs]
    assert "node_leases_lapsed" in events
    gone = {r["room_id"] for r in records if r.get("run") == victim.runs
            and r.get("event") in ("room_dropped", "room_fenced")}
    assert set(rooms) <= gone, (rooms, gone)
    await _settle_and_audit(c, "SIGSTOP past the lease")


async def test_rolling_restart_of_every_node(cluster: Cluster) -> None:
    c = cluster
    assert await c.play_for(2) > 0
    window = time.monotonic()
    for node in c.nodes:
        # A clean stop (uvicorn then re-raises the SIGTERM it handled: -15).
        assert await asyncio.to_thread(node.stop) in (0, -15), node.tail()
        assert "Finished server process" in node.tail(5), node.tail()
        node.start()
        await asyncio.to_thread(node.wait_ready)
        assert await c.play_for(1.5) > 0
    # The longest pause any room's players saw during the restarts.
    longest, where = 0.0, ""
    for room in c.rooms:
        times = sorted(m["_t"] for p in c.players if p.room == room for conv in p.convs
                       for m in conv.frames if m["type"] == "event" and m["_t"] >= window)
        for a, b in itertools.pairwise(times):
            if b - a > longest:
                longest, where = b - a, f"{room} from {a - window:.2f} s"
    print(f"rolling restart: the longest pause of a room was {longest:.2f} s ({where})")
    assert longest < 10, f"a room stood still {longest:.1f} s during the rolling restart"
    await _settle_and_audit(c, "rolling restart")


async def test_redis_stopped_for_15_seconds(cluster: Cluster) -> None:
    c = cluster
    redis: RedisProcess = c.redis
    assert await c.play_for(2) > 0
    marks = {id(p): len(p.errors) for p in c.players}
    redis.stop()
    during = await c.play_for(15)
    await asyncio.to_thread(redis.start)
    # A node that owns its rooms played on (its direct clients' moves were acked) ...
    assert during > 0
    # ... and the bridged clients were told, clearly, that their room was paused.
    told = [p for p in c.players if "room_unreachable" in p.errors[marks[id(p)]:]]
    assert told, "no bridged client was told its room was unreachable"
    await c.until(lambda: all(p.ws is not None for p in c.players), "reconnections", 30)
    assert await c.play_for(4) > 0
    await _settle_and_audit(c, "Redis stopped for 15 s")


async def test_two_nodes_started_at_once_on_a_database_full_of_playing_rooms(
    cluster: Cluster,
) -> None:
    c = cluster
    for _ in range(4):
        await c.add_room(humans=1)
    assert await c.play_for(2) > 0
    for node in c.nodes:
        node.kill()
    await asyncio.sleep(LEASE + 1)  # every lease lapsed: all rooms are free
    starters = c.nodes[:2]
    for node in starters:
        node.start()  # at once
    for node in starters:
        await asyncio.to_thread(node.wait_ready)
    ids = await _node_ids(c)
    leases = await _leases(c)
    assert len(leases) == len(c.rooms)
    # Each playing room was restored by exactly one of them (its claim was won once).
    claims: dict[str, int] = {}
    for node in starters:
        for r in node.records():
            if r.get("run") == node.runs and r.get("event") == "room_claimed":
                claims[r["room_id"]] = claims.get(r["room_id"], 0) + 1
    assert all(n == 1 for n in claims.values()), claims
    await c.until(lambda: all(p.ws is not None for p in c.players), "reconnections", 30)
    leases = await _leases(c)
    assert {n for _, n in leases.values()} <= set(ids.values())
    assert await c.play_for(4) > 0
    await _settle_and_audit(c, "two nodes started at once")
    # The nodes' counters add up: each room is played by one node, each socket is one
    # node's, each bridged connection is counted once on each side.
    metrics = [node.metrics() for node in starters]
    assert sum(m["remi_rooms_owned"] for m in metrics) == len(c.rooms)
    assert sum(m["remi_connections"] for m in metrics) == len(c.players)
    client = sum(m['remi_bridged_connections{side="client"}'] for m in metrics)
    owner = sum(m['remi_bridged_connections{side="owner"}'] for m in metrics)
    assert client == owner
