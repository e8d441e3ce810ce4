"""Several server nodes as separate processes: three uvicorn nodes on
one PostgreSQL and one Redis, on loopback, with the four clients of each room spread
over the nodes and bot matches running (one of them ends after two rounds).

The cases run in this order on one cluster (module-scoped, one event loop): a kill -9
of an owner mid-turn; a SIGSTOP of an owner past its lease, then SIGCONT, with a move
waiting in its socket for a room nobody played meanwhile (its late write must be
refused); a rolling restart of all three nodes; Redis stopped for 15 s; every node
killed, then two nodes started at once on the database full of playing rooms. After
each one the players stop, the rooms settle, and :meth:`clusterproc.Cluster.audit`
counts, over everything played so far: acked moves lost; writes committed under a
room's epoch after a later epoch was granted (from the database: the rows' epochs,
transactions and times against the leases' history); gaps or forks in a room's log;
rooms played by two nodes at one instant (from the nodes' logs); match results that
disagree with the log or with what the players saw; gaps or forks in any client's
version sequence; clients whose final view differs from the view rebuilt from the log.
Every count must be 0, and play must have gone on after the fault.

The nodes use the default lease (``REMI_LEASE_SECONDS`` = 6 s); the Redis is the test's
own (tests/server/redisproc.py), the database a schema of its own on the shared
PostgreSQL, dropped afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
import pytest_asyncio
from clusterproc import Audit, Cluster, Conversation, Node, Player
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
    env = {
        **SETTINGS,
        "REMI_DATABASE_URL": PG_URL,
        "REMI_DATABASE_SCHEMA": schema,
        "REMI_REDIS_URL": redis.url,
        "REMI_DATA_DIR": str(workdir),
    }
    nodes = [Node(i, env, workdir) for i in range(3)]
    c = Cluster(nodes, PG_URL, schema)
    c.redis = redis
    try:
        for node in nodes:
            node.start()
        for node in nodes:
            node.wait_ready()
        c.watch_leases()
        for _ in range(4):
            await c.add_room(humans=4)
        await c.add_room(humans=1)  # a bot match: three bot seats
        await c.add_room(humans=1, rounds=2)  # one that ends (its result is audited)
        yield c
    finally:
        await c.unwatch_leases()
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
    conn = await asyncpg.connect(
        plain_pg_dsn(), timeout=5, server_settings={"search_path": c.schema}
    )
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


async def _pin(c: Cluster, players: list[Player], node: Node) -> None:
    """Keep these players' sockets on ``node``: those elsewhere reconnect there and wait
    for the snapshot their hello asks for (a hello with the room's own version would be
    answered with nothing, and a player waits for a frame before it plays)."""
    moved = [p for p in players if p.convs[-1].node != node.index]
    for p in players:
        p.via = node
    for p in moved:
        assert p.ws is not None
        p.version = None
        await p.ws.close()
    try:
        await c.until(
            lambda: all(
                p.ws is not None
                and p.convs[-1].node == node.index
                and any(m["type"] == "snapshot" for m in p.convs[-1].frames)
                for p in moved
            ),
            f"sockets moved to node {node.index}",
            30,
        )
    except AssertionError as exc:
        state = [
            (
                p.ws is not None,
                len(p.convs),
                p.convs[-1].node,
                len(p.convs[-1].frames),
                p.convs[-1].close_code,
            )
            for p in moved
        ]
        room = players[0].room
        history = sorted(
            (
                r.get("ts", ""),
                n.index,
                r.get("run"),
                r.get("event"),
                r.get("conn_id"),
                r.get("error"),
            )
            for n in c.nodes
            for r in n.records()
            if r.get("room_id") == room or r.get("level") in ("warning", "error")
        )
        lines = "\n".join(map(str, history[-60:]))
        raise AssertionError(f"{exc}: {state}\n{lines}") from None


def _bridged_sockets(c: Cluster) -> dict[int, float]:
    """Each running node's sockets bridged to another node (its /metrics)."""
    key = 'remi_bridged_connections{side="client"}'
    return {n.index: n.metrics().get(key, 0.0) for n in c.nodes if n.up}


async def _held_by(c: Cluster, node_id: str) -> list[str]:
    """The playing rooms whose lease ``node_id`` holds now."""
    return [r for r, (_, n) in (await _leases(c)).items() if n == node_id]


async def _busiest(c: Cluster) -> tuple[Node, str, list[str]]:
    """The node that plays the most rooms: it, its id, its rooms."""
    ids = await _node_ids(c)
    leases = await _leases(c)
    best = max(ids, key=lambda i: sum(1 for _, n in leases.values() if n == ids[i]))
    rooms = await _held_by(c, ids[best])
    assert rooms, f"no node plays a room: {leases}"
    return c.nodes[best], ids[best], rooms


async def _blocking(c: Cluster) -> str:
    """What holds locks or waits for one in the database (why a claim may not go on)."""
    conn = await c.connect()
    try:
        rows = await conn.fetch(
            "SELECT pid, state, wait_event_type, round(extract(epoch FROM now() - state_change)) "
            "AS for_s, left(query, 100) AS query FROM pg_stat_activity "
            "WHERE datname = current_database() AND (state LIKE 'idle in transaction%' "
            "OR wait_event_type = 'Lock')"
        )
        return "sessions in a transaction or waiting for a lock: " + repr([tuple(r) for r in rows])
    finally:
        await conn.close()


async def _moved(c: Cluster, rooms: list[str], old: str, timeout: float) -> float:
    """Seconds until every one of ``rooms`` (still playing) is played by another node than
    ``old``."""
    t0 = time.monotonic()
    while True:
        leases = await _leases(c)
        if all(r not in leases or leases[r][1] not in (None, old) for r in rooms):
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise AssertionError(
                f"rooms not taken over in {timeout} s: {leases}; {await _blocking(c)}"
            )
        await asyncio.sleep(0.1)


async def _settle_and_audit(c: Cluster, case: str) -> Audit:
    await c.quiesce()
    audit = await c.audit()
    assert audit.problems() == {}, f"{case}: {audit.problems()}"
    assert audit.acked > 0
    c.resume_play()
    return audit


async def test_kill_9_of_an_owner_mid_turn(cluster: Cluster) -> None:
    c = cluster
    c.resume_play()
    assert await c.play_for(3) > 0
    victim, victim_id, rooms = await _busiest(c)
    victim.kill()
    # The time is reported (docs/reliability.md has the figures seen), not held to a
    # wall-clock limit on a shared machine; 30 s only ends a takeover that never comes.
    took = await _moved(c, rooms, victim_id, timeout=30)
    print(f"kill -9: the {len(rooms)} rooms of the killed node moved in {took:.1f} s")
    victim.start()
    await asyncio.to_thread(victim.wait_ready)  # the players play on meanwhile
    assert await c.play_for(4) > 0
    await _settle_and_audit(c, "kill -9")


async def _frozen_at_a_turn(c: Cluster, room: str) -> Player | None:
    """Stop the room's players and let it settle; the player whose turn it is (None if
    the round is over): nothing moves in the room until that player does (the bots wait
    for a human's turn; the turn's clock is 120 s)."""
    await c.quiesce(rooms=[room])
    return next((p for p in c.players if p.room == room and p.my_turn()), None)


async def _a_move_to_hold(c: Cluster, victim: Node, rooms: list[str]) -> Player:
    """One of ``rooms`` (the victim's) stopped at a player's turn, that player's socket
    on the victim: the player whose move the paused victim will get (see the case)."""
    mover = None
    for room in sorted(rooms, key=lambda r: -sum(p.room == r for p in c.players)):
        mover = await _frozen_at_a_turn(c, room)
        if mover is not None:
            break
        c.resume_play([room])
    assert mover is not None, f"no room of the node waits for a player's move: {rooms}"
    mover.via = victim
    if mover.convs[-1].node != victim.index:
        assert mover.ws is not None
        mover.version = None  # its hello asks for a snapshot: once there, it is attached
        await mover.ws.close()  # it reconnects, to the victim
        await c.until(
            lambda: (
                mover.convs[-1].node == victim.index
                and any(m["type"] == "snapshot" for m in mover.convs[-1].frames)
            ),
            "the player's socket on the node",
            15,
        )
        await c.quiesce(rooms=[mover.room])
    assert mover.my_turn(), mover.view
    return mover


@contextlib.asynccontextmanager
async def _heartbeat_held(c: Cluster, node_id: str) -> AsyncIterator[None]:
    """The node's row of ``cluster_nodes`` locked by the test meanwhile: the node's next
    heartbeat (an UPDATE of that row) waits for the block's end, as a resumed node's
    first heartbeat may be slow. What the node does meanwhile it does without having
    heard from the database since it was paused."""
    conn = await c.connect()
    tr = conn.transaction()
    await tr.start()
    try:
        found = await conn.fetchval(
            "SELECT id FROM cluster_nodes WHERE id = $1 FOR UPDATE", node_id
        )
        assert found == node_id, f"no row of node {node_id}"
        yield
    finally:
        await tr.rollback()
        await conn.close()


async def test_sigstop_past_the_lease_then_sigcont(cluster: Cluster) -> None:
    """The paused owner certainly has a move to play when it resumes: one of its rooms
    is stopped at a player's turn, that player's socket on the owner; once the room
    has moved, nothing is played in it (no seq of its log taken by the new owner), the
    player sends its move (the kernel keeps it in the paused owner's socket), and the
    owner is resumed with its first heartbeat held back. It acts on that move with its
    old epoch unless its pause guard (its leases untrusted until a heartbeat) or the
    database's fence refuses it; the database must show no write made under the old
    epoch after the room's new epoch was granted, and a log without gap or fork."""
    c = cluster
    assert await c.play_for(2) > 0
    victim, victim_id, rooms = await _busiest(c)
    mover = await _a_move_to_hold(c, victim, rooms)
    room, conv = mover.room, mover.convs[-1]
    victim.pause()
    try:
        # Its playing rooms as the pause left them: a write in flight has landed after
        # a moment, and no other node may claim them before its lease lapses. (The
        # two-round match may have ended since _busiest: its room, no longer playing, stays
        # the paused node's and is not dropped.)
        await asyncio.sleep(0.2)
        rooms = await _held_by(c, victim_id)
        await _moved(c, rooms, victim_id, timeout=LEASE + 10)
        await asyncio.sleep(1)  # the new owner has restored the room from the log
        async with _heartbeat_held(c, victim_id):
            before = set(mover.sent)
            mover.playing = True
            mover._turn.set()
            await c.until(lambda: set(mover.sent) > before, "the held move sent", 10)
            mover.playing = False
            (seq,) = set(mover.sent) - before
            assert conv.close_code is None, f"the socket closed during the pause: {conv.close_code}"
            victim.resume()
            await c.until(
                lambda: seq in mover.acks or seq in mover.refused or conv.close_code is not None,
                "the resumed node's answer to the held move",
                15,
            )
    finally:
        victim.resume()
        mover.via = None
    print(
        f"SIGSTOP: the held move {mover.sent[seq]} of room {room} was "
        + (
            f"acked at version {mover.acks[seq]}"
            if seq in mover.acks
            else f"refused ({mover.refused[seq]})"
            if seq in mover.refused
            else f"dropped (the socket closed with {conv.close_code})"
        )
    )
    # From the database: no write under the old epoch after the new one was granted.
    audit = await c.log_audit()
    assert audit.problems() == {}, (
        f"the paused node wrote room {room}'s held move {mover.sent[seq]} under its old "
        f"epoch: {audit.problems()}"
    )
    assert seq not in mover.acks, (
        f"the paused node acked move {seq} of room {room} after the room moved"
    )
    # Refused by the pause guard, or the room dropped when a write was fenced (1012).
    assert seq in mover.refused or conv.close_code == 1012, (
        f"the held move did not reach the paused node's room: closed {conv.close_code}"
    )
    c.resume_play()
    assert await c.play_for(4) > 0
    # The paused node noticed: its leases had lapsed, and each room it had played was
    # dropped (or one of its late writes was refused by the fence).
    records = victim.records()
    events = [r["event"] for r in records if r.get("run") == victim.runs]
    assert "node_leases_lapsed" in events
    gone = {
        r["room_id"]
        for r in records
        if r.get("run") == victim.runs and r.get("event") in ("room_dropped", "room_fenced")
    }
    assert set(rooms) <= gone, "rooms the resumed node neither dropped nor was fenced in: " + (
        repr(
            {
                r: [
                    (x.get("event"), x.get("reason"))
                    for x in records
                    if x.get("run") == victim.runs and x.get("room_id") == r
                ]
                for r in set(rooms) - gone
            }
        )
    )
    await _settle_and_audit(c, "SIGSTOP past the lease")


FREEZE = 30.0
"""How long the node carrying other nodes' sockets is frozen (SIGSTOP)."""


def _match_over(p: Player) -> bool:
    return any(
        m["type"] == "event" and m["event"].get("do") == "match_over"
        for conv in p.convs
        for m in conv.frames
    )


def _after(p: Player, t: float) -> Conversation | None:
    """The player's first connection opened after ``t`` that brought the room (a
    snapshot, or the events since the version the player held)."""
    return next(
        (
            conv
            for conv in p.convs
            if conv.frames
            and conv.frames[0]["_t"] >= t
            and any(m["type"] in ("snapshot", "event") for m in conv.frames)
        ),
        None,
    )


def _longest_pause(c: Cluster, room: str, t0: float, t1: float) -> float:
    """The longest time in [t0, t1] during which no player of ``room`` got a new version
    (until its match ended, if it did meanwhile)."""
    first: dict[int, float] = {}
    for p in c.players:
        if p.room != room:
            continue
        for conv in p.convs:
            for m in conv.frames:
                if m["type"] == "event" and t0 <= m["_t"] <= t1:
                    v = m["version"]
                    first[v] = min(first.get(v, m["_t"]), m["_t"])
                    if m["event"].get("do") == "match_over":
                        t1 = min(t1, m["_t"])
    times = [t0, *sorted(t for t in first.values() if t <= t1), t1]
    return max(b - a for a, b in itertools.pairwise(times))


async def _leased_to(c: Cluster, node_id: str) -> int:
    """How many rooms' leases (playing or not: a finished room's actor lives on a while)
    name ``node_id``."""
    conn = await c.connect()
    try:
        return int(await conn.fetchval("SELECT count(*) FROM room_leases WHERE node = $1", node_id))
    finally:
        await conn.close()


async def _owned_is_true(c: Cluster, node: Node, node_id: str) -> tuple[float, int]:
    """The node's ``remi_rooms_owned`` and then the rooms whose lease it holds."""
    owned = (await asyncio.to_thread(node.metrics)).get("remi_rooms_owned", -1.0)
    return owned, await _leased_to(c, node_id)


async def _two_owners(c: Cluster) -> None:
    """Make at least two nodes play rooms. The earlier faults can leave every room on one
    node (each took the rooms of the node it outlived); that node is then stopped cleanly
    and started again: it hands its rooms over, and the other nodes claim them where their
    players' sockets reconnect."""
    for _ in range(3):
        ids = await _node_ids(c)
        owners = {n for _, n in (await _leases(c)).values() if n is not None}
        if len(owners) != 1:
            return
        node = next(c.nodes[i] for i, n in ids.items() if n in owners)
        assert await asyncio.to_thread(node.stop) in (0, -15), node.tail()
        assert await c.play_for(3) > 0
        node.start()
        await asyncio.to_thread(node.wait_ready)
        assert await c.play_for(2) > 0
    raise AssertionError(f"every room is still played by one node: {await _leases(c)}")


async def test_sigstop_of_a_node_carrying_sockets_of_rooms_it_does_not_own(
    cluster: Cluster,
) -> None:
    """The busiest node carries sockets of the rooms the other nodes play (each room's
    players are spread over the nodes); it is frozen (SIGSTOP) for 30 s. The players
    ping as the browser does and leave a socket silent for 6 s: each of those players
    must be on a live node again, and have played a move there (or seen its match end),
    while the victim is still frozen; the victim's own rooms move once its lease
    lapses. The takeover time and each room's longest pause are printed
    (docs/operations.md has the figures), not held to a wall-clock limit. After SIGCONT
    the victim's ``remi_rooms_owned`` never counts a room whose lease another node took,
    and every node's figure comes to the leases it holds."""
    c = cluster
    c.resume_play()
    assert await c.play_for(2) > 0
    await _two_owners(c)
    # Each room's players are spread over the nodes: the victim is the busiest node that
    # carries sockets of rooms the other nodes play (where the sockets land is chance).
    ids = await _node_ids(c)
    leases = await _leases(c)

    def owned(i: int) -> list[str]:
        return sorted(r for r, (_, n) in leases.items() if n == ids[i])

    def carried_by(i: int) -> list[Player]:
        others = {r for r, (_, n) in leases.items() if n not in (None, ids[i])}
        return [
            p
            for p in c.players
            if p.room in others and p.ws is not None and p.convs[-1].node == c.nodes[i].index
        ]

    candidates = [i for i in ids if owned(i) and carried_by(i)]
    assert candidates, f"no node plays a room and carries another node's socket: {leases}"
    best = max(candidates, key=lambda i: len(owned(i)))
    victim, victim_id, own, carried = c.nodes[best], ids[best], owned(best), carried_by(best)
    for p in c.players:
        p.heartbeat = True
    assert await c.play_for(2) > 0
    base = {id(p): p.version or 0 for p in carried}
    load = os.getloadavg()
    t_stop = time.monotonic()
    victim.pause()
    moving = asyncio.create_task(_moved(c, own, victim_id, FREEZE))
    try:

        def back(p: Player) -> bool:
            conv = _after(p, t_stop)
            return (
                conv is not None
                and conv.node != victim.index
                and (any(v > base[id(p)] for v in p.acks.values()) or _match_over(p))
            )

        try:
            await c.until(
                lambda: all(back(p) for p in carried),
                "the carried players on a live node, playing, while the victim is frozen",
                FREEZE - 1,
            )
        except AssertionError as exc:
            state = {
                p.room: (
                    p.left_silent,
                    base[id(p)],
                    sorted(p.acks.values())[-3:],
                    [
                        (
                            conv.node,
                            len(conv.frames),
                            conv.close_code,
                            conv.frames[0]["_t"] - t_stop,
                        )
                        for conv in p.convs
                        if conv.frames and conv.frames[-1]["_t"] >= t_stop - 5
                    ],
                )
                for p in carried
                if not back(p)
            }
            raise AssertionError(f"{exc}: victim {victim.index}: {state}") from None
        moved_at = [_after(p, t_stop).frames[0]["_t"] - t_stop for p in carried]  # type: ignore[union-attr]
        took = await moving  # from the SIGSTOP until the last of its rooms moved
        assert victim.up and time.monotonic() - t_stop < FREEZE
        await asyncio.sleep(max(0.0, FREEZE - (time.monotonic() - t_stop)))  # the fault
    finally:
        victim.resume()
        moving.cancel()
    t_cont = time.monotonic()
    # Right after the wake, and until its leases settle, the figure is never the rooms
    # it lost: 0 while its leases are in doubt, then the rooms it still holds.
    first, held = await _owned_is_true(c, victim, victim_id)
    assert first <= held, f"the woken node counts {first} rooms, holds {held}"
    ids = await _node_ids(c)

    async def figures() -> list[tuple[float, int]]:
        return [await _owned_is_true(c, node, ids[node.index]) for node in c.nodes]

    end = time.monotonic() + 30
    while True:
        now = await figures()
        if all(owned == held for owned, held in now):
            break
        assert time.monotonic() < end, f"rooms_owned and the leases held, by node: {now}"
        await asyncio.sleep(0.5)

    pauses = {r: _longest_pause(c, r, t_stop, t_cont) for r in c.rooms if r in leases}
    left = [p.left_silent for p in carried]
    print(
        f"\nSIGSTOP {FREEZE:.0f} s of a node carrying {len(carried)} sockets of "
        f"{len({p.room for p in carried})} rooms it does not own "
        f"(load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}): each such player "
        f"on a live node after {', '.join(f'{t:.1f}' for t in sorted(moved_at))} s "
        f"(sockets left silent: {left}); the node's own {len(own)} rooms moved in {took:.1f} s"
    )
    for r in sorted(pauses):
        kind = (
            "owned by the frozen node"
            if r in own
            else "a socket on the frozen node"
            if r in {p.room for p in carried}
            else "no socket on the frozen node"
        )
        ended = any(_match_over(p) for p in c.players if p.room == r)
        over = ", its match over" if ended else ""
        print(f"  room {r} ({kind}{over}): longest pause {pauses[r]:.1f} s")
    for p in c.players:
        p.heartbeat = False
    await _settle_and_audit(c, "SIGSTOP of a node carrying others' sockets")


async def test_rolling_restart_of_every_node(cluster: Cluster) -> None:
    c = cluster
    assert await c.play_for(2) > 0
    window = time.monotonic()
    for node in c.nodes:
        node_id = (await _node_ids(c))[node.index]
        held = {r for r, (_, n) in (await _leases(c)).items() if n == node_id}
        # A clean stop (uvicorn then re-raises the SIGTERM it handled: -15).
        assert await asyncio.to_thread(node.stop) in (0, -15), node.tail()
        assert "Finished server process" in node.tail(5), node.tail()
        # A hand-over, not a lease left to lapse: the stopped run released every room it
        # held, and no lease of the cluster still names it.
        released = {
            r["room_id"]
            for r in node.records()
            if r.get("run") == node.runs and r.get("event") == "room_released"
        }
        assert held <= released, (held, released)
        assert all(n != node_id for _, n in (await _leases(c)).values())
        node.start()
        await asyncio.to_thread(node.wait_ready)
        assert await c.play_for(1.5) > 0
    # The longest pause any room's players saw during the restarts.
    longest, where = 0.0, ""
    for room in c.rooms:
        times = sorted(
            m["_t"]
            for p in c.players
            if p.room == room
            for conv in p.convs
            for m in conv.frames
            if m["type"] == "event" and m["_t"] >= window
        )
        for a, b in itertools.pairwise(times):
            if b - a > longest:
                longest, where = b - a, f"{room} from {a - window:.2f} s"
    # Reported, not asserted: a wall-clock limit fails on a loaded machine (a hand-over is
    # checked above by what the nodes did; docs/reliability.md has the figures seen).
    print(f"rolling restart: the longest pause of a room was {longest:.2f} s ({where})")
    await _settle_and_audit(c, "rolling restart")


async def test_redis_stopped_for_15_seconds(cluster: Cluster) -> None:
    c = cluster
    redis: RedisProcess = c.redis
    assert await c.play_for(2) > 0
    # By construction, not by chance: one room's players all on its owner (it must play
    # on), one player of another room on another node (bridged: it must be told).
    ids = await _node_ids(c)
    leases = await _leases(c)
    by_id = {v: c.nodes[k] for k, v in ids.items()}
    human = [
        r
        for r in c.rooms
        if r in leases and leases[r][1] in by_id and sum(p.room == r for p in c.players) >= 2
    ]
    assert len(human) >= 2, (c.rooms, leases)
    direct_room, bridged_room = human[0], human[1]
    owner = by_id[leases[direct_room][1]]
    await _pin(c, [p for p in c.players if p.room == direct_room], owner)
    elsewhere = next(n for n in c.nodes if n.up and n is not by_id[leases[bridged_room][1]])
    pinned = [next(p for p in c.players if p.room == bridged_room)]
    await _pin(c, pinned, elsewhere)
    assert await c.play_for(1) > 0
    bridged = await asyncio.to_thread(_bridged_sockets, c)
    assert sum(bridged.values()) > 0, f"no socket is bridged to test: {bridged}"
    marks = {id(p): len(p.errors) for p in c.players}
    acked = {id(p): len(p.acks) for p in c.players}
    redis.stop()
    during = await c.play_for(15)
    await asyncio.to_thread(redis.start)
    # A node that owns its rooms played on (its direct clients' moves were acked) ...
    assert during > 0
    assert any(len(p.acks) > acked[id(p)] for p in c.players if p.room == direct_room)
    # ... and the bridged clients were told, clearly, that their room was paused.
    told = [p for p in c.players if "room_unreachable" in p.errors[marks[id(p)] :]]
    links = [
        (n.index, r.get("event"), r.get("error"))
        for n in c.nodes
        for r in n.records()
        if r.get("run") == n.runs and str(r.get("event")).startswith("link_")
    ]
    assert told, f"no bridged client was told its room was unreachable: {bridged}, {links}"
    assert pinned[0] in told, (pinned[0].errors, links)
    for p in c.players:
        p.via = None
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
    # Each playing room was restored by exactly one of them (its claim was won once).
    claims: dict[str, int] = {}
    for node in starters:
        for r in node.records():
            if r.get("run") == node.runs and r.get("event") == "room_claimed":
                claims[r["room_id"]] = claims.get(r["room_id"], 0) + 1
    assert set(leases) <= set(claims), (leases, claims)
    assert all(n == 1 for n in claims.values()), claims
    await c.until(lambda: all(p.ws is not None for p in c.players), "reconnections", 30)
    leases = await _leases(c)
    assert {n for _, n in leases.values()} <= set(ids.values())
    assert await c.play_for(4) > 0
    audit = await _settle_and_audit(c, "two nodes started at once")
    assert audit.results > 0, "no match ended: the audit of the results saw none"
    # The nodes' counters add up: each room is played by one node, each socket is one
    # node's, each bridged connection is counted once on each side.
    metrics = [node.metrics() for node in starters]
    assert sum(m["remi_rooms_owned"] for m in metrics) == len(c.rooms)
    assert sum(m["remi_connections"] for m in metrics) == len(c.players)
    client = sum(m['remi_bridged_connections{side="client"}'] for m in metrics)
    owner = sum(m['remi_bridged_connections{side="owner"}'] for m in metrics)
    assert client == owner
