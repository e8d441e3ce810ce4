"""One owner per room: room leases with fencing epochs.

A stale owner's writes (moves, rounds, rack layouts, versions, the match result, seats)
are refused by the database itself; a claim bumps the epoch; a live node's lease cannot
be taken, a dead node's can. Two servers on one database without Redis (each owns every
room) never both write a room: the later one's claim fences the earlier one, which drops
the room and closes its sockets with 1012. All on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import base_settings
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from websockets.exceptions import ConnectionClosed
from wsharness import Client, running_server, simple_move

from server.accounts.identity import IdentityService, PlayerInfo
from server.economy.settlement import MatchFinish, RoundFinish
from server.rooms.journal import Journal
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.storage.leases import Fenced, Leases, Owner, stale_rooms
from server.storage.migrate import migrate
from server.storage.models import Action, MatchResult, Room, Round


@dataclass
class Env:
    db: Database
    rooms: RoomService
    log: GameLog
    owner: PlayerInfo
    room_id: str
    leases: list[Leases] = field(default_factory=list)
    """The nodes a test made (:func:`_nodes`): their heartbeat connections go back at the end."""


@pytest.fixture
async def env(settings: Settings) -> AsyncIterator[Env]:
    db = Database(settings)
    await migrate(settings, db.engine)
    owner, _ = await IdentityService(db).create_player("Owner")
    rooms = RoomService(db, settings)
    room = await rooms.create_room(owner, RoomSettings(seats=2, fill_with_bots=True))
    env = Env(db, rooms, GameLog(db), owner, room.id)
    try:
        yield env
    finally:
        for leases in env.leases:
            await leases.close()
        await db.dispose()


async def _nodes(env: Env, ttl: float = 30.0) -> tuple[Leases, Leases]:
    a = Leases(env.db, "node-a", "A", ttl)
    b = Leases(env.db, "node-b", "B", ttl)
    env.leases += [a, b]
    await a.register()
    await b.register()
    return a, b


async def test_a_stale_owners_writes_are_refused_by_the_database(env: Env) -> None:
    a, b = await _nodes(env)
    journal = Journal(env.db)
    journal.start()
    try:
        assert await a.claim(env.room_id) == 1
        # A live node's lease is not taken.
        assert await b.claim(env.room_id) == Owner("node-a", 1, True)
        old = a.fence(env.room_id, 1)
        await env.rooms.start(env.room_id, env.owner, fence=old)
        round_id = await journal.begin_round(env.room_id, 1, "remi", "s1", 0, {}, old)
        await journal.append_action(round_id, 1, 0, {"do": "draw"}, 1, "player", 5, None, old)

        assert await b.claim(env.room_id, force=True) == 2  # a new owner: the epoch grows
        new = b.fence(env.room_id, 2)
        stale_writes = [
            journal.append_action(round_id, 2, 0, {"do": "draw"}, 2, "player", 6, None, old),
            journal.set_rack(env.room_id, 0, {"round": 1, "layout": []}, old),
            journal.finish_round(RoundFinish(round_id, {"winner": 0}, [0, 0]), old),
            journal.begin_round(env.room_id, 2, "remi", "s2", 1, {}, old),
            env.log.set_version(env.room_id, 5000, old),
            env.log.record_match(MatchFinish(env.room_id, [1, 2], [0], 1), old),
            env.rooms.leave_seat(env.room_id, env.owner, fence=old),
        ]
        for write in stale_writes:
            with pytest.raises(Fenced):
                await write
        assert journal.fenced == 4
        await journal.append_action(round_id, 2, 1, {"do": "draw"}, None, "bot", 7, None, new)
    finally:
        await journal.stop()
    async with env.db.transaction() as session:
        actions = (
            await session.execute(
                select(Action.seq, Action.epoch)
                .where(Action.round_id == round_id)
                .order_by(Action.seq)
            )
        ).all()
        rounds = (await session.execute(select(Round.number, Round.epoch))).all()
        room = await session.get(Room, env.room_id)
        results = (await session.execute(select(MatchResult))).all()
    assert [tuple(r) for r in actions] == [(1, 1), (2, 2)]
    assert [tuple(r) for r in rounds] == [(1, 1)]
    assert room is not None and room.version < 5000 and room.status == "playing"
    assert results == []


async def test_a_fenced_write_leaves_the_rest_of_its_batch_committed(env: Env) -> None:
    other = await env.rooms.create_room(env.owner, RoomSettings(seats=2, fill_with_bots=True))
    a, b = await _nodes(env)
    await a.claim(env.room_id)
    await a.claim(other.id)
    await b.claim(other.id, force=True)
    journal = Journal(env.db)
    journal.start()
    try:
        mine = a.fence(env.room_id, 1)
        lost = a.fence(other.id, 1)
        r1 = await journal.begin_round(env.room_id, 1, "remi", "s", 0, {}, mine)
        r2 = await journal.begin_round(other.id, 1, "remi", "s", 0, {}, b.fence(other.id, 2))
        commits = journal.commits
        outcomes = await asyncio.gather(
            journal.append_action(r1, 1, 0, {"do": "draw"}, 1, "player", 2, None, mine),
            journal.append_action(r2, 1, 0, {"do": "draw"}, 1, "player", 2, None, lost),
            return_exceptions=True,
        )
        assert outcomes[0] is None and isinstance(outcomes[1], Fenced)
        assert journal.commits == commits + 1  # one transaction for both
    finally:
        await journal.stop()
    async with env.db.transaction() as session:
        rows = (await session.execute(select(Action.round_id))).scalars().all()
    assert rows == [r1]


async def test_a_dead_nodes_room_is_claimed_and_a_released_one_at_once(env: Env) -> None:
    a, b = await _nodes(env, ttl=1.0)
    assert await a.claim(env.room_id) == 1
    await env.rooms.start(env.room_id, env.owner)
    await b.beat()
    assert isinstance(await b.claim(env.room_id), Owner)
    assert await b.orphans() == []
    await asyncio.sleep(1.3)  # a stops beating: its lease lapses
    await b.beat()
    assert await b.orphans() == [env.room_id]
    assert await b.claim(env.room_id) == 2
    await a.beat()  # back, but the room is no longer its own
    assert await a.held() == {}
    assert await b.held() == {env.room_id: 2}
    assert await a.owner(env.room_id) == Owner("node-b", 2, True)
    await b.release([b.fence(env.room_id, 2)])
    assert await a.owner(env.room_id) == Owner(None, 2, False)
    assert await a.claim(env.room_id) == 3
    with pytest.raises(KeyError):
        await a.claim("no-such-room")


@pytest.mark.parametrize(  # PostgreSQL only: on SQLite a write holds the database, briefly
    "settings", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
async def test_a_node_paused_in_a_write_loses_its_rooms_all_the_same(
    env: Env, settings: Settings
) -> None:
    """A node paused (SIGSTOP, a long GC pause) in the middle of a write keeps its
    transaction open, and with it the share lock the fence took on the room's lease row; a
    claim waits for that lock, so the room stayed with the paused node past its lease
    (tests/server/test_cluster.py saw it). PostgreSQL now ends a transaction left idle for
    half the lease (server/storage/database.py): once the lease has lapsed the claim goes
    on, and the paused node's write fails when it resumes."""
    a, b = await _nodes(env, ttl=1.0)
    assert await a.claim(env.room_id) == 1
    paused = Database(settings.model_copy(update={"lease_seconds": 2.0}))  # idle: 1 s
    conn = await paused.engine.connect()
    try:
        await conn.begin()
        # The fence's check, first thing in the write's transaction; then the node stops.
        assert await conn.run_sync(stale_rooms, [a.fence(env.room_id, 1)]) == set()
        await asyncio.sleep(1.3)  # its lease lapses
        await b.beat()
        try:
            claimed = await asyncio.wait_for(b.claim(env.room_id), 15)
        except TimeoutError:
            pytest.fail("the claim still waits for the paused node's transaction after 15 s")
        assert claimed == 2
        with pytest.raises(DBAPIError):  # the node resumes: its transaction is gone
            await conn.commit()
    finally:
        with contextlib.suppress(Exception):
            await conn.close()
        await paused.dispose()
        await a.close()
        await b.close()


async def _play_one_move(c: Client) -> dict[str, object]:
    assert c.view is not None
    return await c.act(simple_move(c.view))


async def test_two_servers_on_one_database_never_both_write_a_room(
    settings: Settings, tmp_path: Path
) -> None:
    """The issue's first finding: two servers without Redis on one database each ran an
    actor for the same room. The second one's claim now fences the first: its next write
    is refused, it drops the room and closes the socket with 1012; the client,
    reconnected to the second, plays on from the log."""
    live = {"bot_delay_seconds": 0.0, "round_pause_seconds": 0.0, "idle_actor_seconds": 30.0}
    async with running_server(settings, live) as one:
        _, ana = await one.player("Ana")
        room = await one.room(ana, variant="remi", seats=2, fill_with_bots=True, turn_seconds=120)
        a = await one.client(ana, room)
        await a.hello()
        await one.start(ana, room)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        if not a.my_turn():
            await a.wait(lambda m: m["type"] == "event" and a.my_turn(), timeout=20)
        assert (await _play_one_move(a))["type"] == "ack"
        first = one.live.actors[room].fence
        assert first is not None
        async with running_server(settings, live) as two:
            # Started on the same database: it restores the playing room (it owns every room).
            second = two.live.actors[room].fence
            assert second is not None and second.epoch == first.epoch + 1
            # The first server's next write is fenced (or its heartbeat saw the room taken,
            # whichever comes first): no ack, the socket closes with 1012.
            assert a.view is not None
            a.seq += 1
            with contextlib.suppress(ConnectionClosed):
                await a.send(
                    {
                        "type": "action",
                        "seq": a.seq,
                        "base_version": a.version,
                        "action": simple_move(a.view),
                    }
                )
            assert a.closed is not None
            assert (await asyncio.wait_for(a.closed, 10))[0] == 1012
            assert room not in one.live.actors
            b = await two.client(ana, room)
            await b.hello(a.version)
            if not b.my_turn():
                await b.wait(lambda m: m["type"] == "event" and b.my_turn(), timeout=20)
            assert (await _play_one_move(b))["type"] == "ack"
            await b.close()
    db = Database(
        base_settings(
            database_url=settings.database_url,
            database_schema=settings.database_schema,
            data_dir=tmp_path,
        )
    )
    try:
        async with db.transaction() as session:
            epochs = (
                (
                    await session.execute(
                        select(Action.epoch)
                        .join(Round, Round.id == Action.round_id)
                        .where(Round.room_id == room)
                        .order_by(Round.number, Action.seq)
                    )
                )
                .scalars()
                .all()
            )
    finally:
        await db.dispose()
    assert epochs == sorted(epochs) and epochs[-1] == second.epoch
