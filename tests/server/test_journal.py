"""The journal (group commit of moves, rack layouts and rounds), on SQLite and PostgreSQL.

Every test runs on both stores through the ``settings`` fixture. :class:`Hold`
keeps the journal's tables locked from another connection, so that a commit stays
in flight while the test queues more writes.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from conftest import PG_URL, base_settings, plain_pg_dsn, unavailable
from pgcluster import PgCluster, cluster_problem
from pgproxy import PgProxy
from sqlalchemy import exc as sa_exc
from sqlalchemy import func, make_url, select

from server.accounts.identity import IdentityService
from server.economy.settlement import RoundFinish
from server.protocol.common import MAX_SEQ
from server.rooms.journal import Journal, JournalStopped
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database, sqlite_path
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate
from server.storage.models import Action, Round, RoundScore

ACTION = {"do": "meld", "tiles": [1, 2, 3], "joker": None, "x": 2.5, "ok": True, "name": "é\u2028"}
RESULT = {"winner": 1, "kind": "closed", "points": [-12, 34], "note": "é", "x": None}


@dataclass
class Env:
    db: Database
    log: GameLog
    room_id: str
    round_id: int


async def _env(db: Database, settings: Settings) -> Env:
    await migrate(settings, db.engine)
    owner, _ = await IdentityService(db).create_player("Owner")
    rooms = RoomService(db, settings)
    room = await rooms.create_room(
        owner, RoomSettings(seats=2, fill_with_bots=True, variant="remi")
    )
    await rooms.start(room.id, owner)
    gamelog = GameLog(db)
    round_id = await gamelog.begin_round(room.id, 1, "remi", "seed", 0, {})
    return Env(db, gamelog, room.id, round_id)


@pytest.fixture
async def env(settings: Settings) -> AsyncIterator[Env]:
    """A database (SQLite file or PostgreSQL schema) with a playing room and its first round."""
    db = Database(settings)
    try:
        yield await _env(db, settings)
    finally:
        await db.dispose()


@pytest.fixture
async def journal(env: Env) -> AsyncIterator[Journal]:
    """A started journal."""
    j = Journal(env.db)
    j.start()
    try:
        yield j
    finally:
        await j.stop()


class Hold:
    """The journal's tables locked against writes from another connection, until released."""

    def __init__(self, raw: sqlite3.Connection | asyncpg.Connection) -> None:
        self._raw: sqlite3.Connection | asyncpg.Connection | None = raw

    @classmethod
    async def take(cls, db: Database) -> Hold:
        settings = db.settings
        if settings.is_sqlite:
            path = sqlite_path(settings.database_url)
            assert path is not None
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("BEGIN IMMEDIATE")
            return cls(conn)
        dsn = PG_URL.replace("postgresql+asyncpg://", "postgresql://", 1)
        pg = await asyncpg.connect(
            dsn, server_settings={"search_path": settings.database_schema or "public"}
        )
        await pg.execute("BEGIN")
        await pg.execute("LOCK TABLE actions, seats, rounds, round_scores IN EXCLUSIVE MODE")
        return cls(pg)

    async def release(self) -> None:
        raw, self._raw = self._raw, None
        if isinstance(raw, sqlite3.Connection):
            raw.execute("COMMIT")
            raw.close()
        elif raw is not None:
            await raw.execute("COMMIT")
            await raw.close()


TakeHold = Callable[[], Awaitable[Hold]]


@pytest.fixture
async def take_hold(env: Env) -> AsyncIterator[TakeHold]:
    """Takes a :class:`Hold` on the env's database; released at the end if the test did not."""
    holds: list[Hold] = []

    async def take() -> Hold:
        holds.append(await Hold.take(env.db))
        return holds[-1]

    yield take
    for h in holds:
        await h.release()


async def _actions(env: Env, round_id: int | None = None) -> list[tuple[Any, ...]]:
    async with env.db.transaction() as session:
        rows = await session.scalars(
            select(Action).where(Action.round_id == (round_id or env.round_id)).order_by(Action.seq)
        )
        return [(a.seq, a.seat, a.action, a.client_seq, a.source) for a in rows]


async def _scores(env: Env) -> int:
    async with env.db.transaction() as session:
        return (await session.scalar(select(func.count()).select_from(RoundScore))) or 0


async def _in_flight(journal: Journal, env: Env, seq: int = 1) -> asyncio.Task[None]:
    """An action whose commit is in flight, waiting for the hold."""
    task = asyncio.create_task(journal.append_action(env.round_id, seq, 0, {"n": seq}, 1, "player"))
    await asyncio.sleep(0.2)
    assert not task.done()
    return task


async def test_rows_read_back_as_written(env: Env, journal: Journal) -> None:
    before = datetime.now(UTC)
    await journal.append_action(env.round_id, 1, 0, ACTION, 7, "player")
    await journal.append_action(env.round_id, 2, 1, {"do": "draw"}, None, "bot")
    await journal.append_action(env.round_id, 3, 0, {"big": 1}, 2**40, "player")
    await journal.append_action(env.round_id, 4, 0, {"big": 2}, MAX_SEQ, "player")
    await journal.append_action(env.round_id, 5, 0, {"big": 3}, 2**63 - 1, "timeout")
    await journal.set_rack(env.room_id, 0, {"round": 1, "layout": [5, None, 9]})
    await journal.set_rack(env.room_id, 1, {"layout": [1]})
    await journal.set_rack(env.room_id, 1, None)

    assert await _actions(env) == [
        (1, 0, ACTION, 7, "player"),
        (2, 1, {"do": "draw"}, None, "bot"),
        (3, 0, {"big": 1}, 2**40, "player"),
        (4, 0, {"big": 2}, MAX_SEQ, "player"),
        (5, 0, {"big": 3}, 2**63 - 1, "timeout"),
    ]
    record = await env.log.load(env.room_id)
    current = record.current_round
    assert current is not None
    for logged in current.actions:
        assert logged.created_at.tzinfo is not None
        assert before - timedelta(seconds=1) <= logged.created_at <= datetime.now(UTC)
    assert [a.client_seq for a in current.actions][2] == 2**40
    assert record.seats[0].rack == {"round": 1, "layout": [5, None, 9]}
    assert record.seats[1].rack is None


async def test_concurrent_writes_share_commits(env: Env, journal: Journal) -> None:
    n = 300
    await asyncio.gather(
        *(
            journal.append_action(env.round_id, s, s % 2, {"n": s}, s, "player")
            for s in range(1, n + 1)
        )
    )
    assert journal.writes == n
    assert journal.commits < n // 10
    assert [a[2] for a in await _actions(env)] == [{"n": s} for s in range(1, n + 1)]


async def test_writes_arriving_during_a_commit_share_the_next(
    env: Env, journal: Journal, take_hold: TakeHold
) -> None:
    hold = await take_hold()
    first = await _in_flight(journal, env)
    started = time.perf_counter()
    await asyncio.sleep(0.05)  # the loop is not blocked while the commit waits
    assert time.perf_counter() - started < 0.5
    rest = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(2, 102)
    ]
    rest.append(asyncio.create_task(journal.set_rack(env.room_id, 1, {"layout": [3]})))
    rest.append(asyncio.create_task(journal.begin_round(env.room_id, 2, "remi", "s2", 1, {})))
    await asyncio.sleep(0.1)
    assert not any(t.done() for t in rest)  # nothing is acknowledged before its commit
    await hold.release()
    await asyncio.gather(first, *rest)
    assert (journal.commits, journal.writes) == (2, 103)
    assert len(await _actions(env)) == 101
    record = await env.log.load(env.room_id)
    assert record.seats[1].rack == {"layout": [3]}
    assert [r.number for r in record.rounds] == [1, 2]
    assert rest[-1].result() == record.rounds[1].id


async def test_a_failing_write_fails_alone(
    env: Env, journal: Journal, caplog: pytest.LogCaptureFixture, take_hold: TakeHold
) -> None:
    await journal.append_action(env.round_id, 1, 0, {"n": 1}, None, "player")
    hold = await take_hold()
    first = await _in_flight(journal, env, 2)
    caplog.set_level(logging.WARNING, logger="server.rooms.journal")
    calls = [
        journal.append_action(env.round_id, 3, 0, {"n": 3}, 3, "player"),
        journal.append_action(env.round_id + 99, 1, 0, {"n": -1}, None, "player"),  # no round
        journal.set_rack(env.room_id, 0, {"layout": [4]}),
        journal.append_action(env.round_id, 1, 0, {"n": -2}, None, "player"),  # seq taken
        journal.append_action(env.round_id, 4, 1, {"n": 4}, None, "bot"),
    ]
    tasks = [asyncio.create_task(c) for c in calls]
    await asyncio.sleep(0.1)
    await hold.release()
    await first
    results = await asyncio.gather(*tasks, return_exceptions=True)

    assert [type(r) for r in results] == [
        type(None),
        sa_exc.IntegrityError,
        type(None),
        sa_exc.IntegrityError,
        type(None),
    ]
    assert "foreign key" in str(results[1]).lower()
    assert "unique" in str(results[3]).lower()
    assert [r.getMessage() for r in caplog.records] == ["journal_batch_failed"]
    assert getattr(caplog.records[0], "size", None) == 5
    assert [(a[0], a[2]) for a in await _actions(env)] == [
        (1, {"n": 1}),
        (2, {"n": 2}),
        (3, {"n": 3}),
        (4, {"n": 4}),
    ]
    assert (await env.log.load(env.room_id)).seats[0].rack == {"layout": [4]}
    # The journal goes on after a failure.
    await journal.append_action(env.round_id, 5, 0, {"n": 5}, None, "player")
    assert len(await _actions(env)) == 5


async def test_a_single_failing_write(env: Env, journal: Journal) -> None:
    with pytest.raises(sa_exc.IntegrityError):
        await journal.append_action(env.round_id + 99, 1, 0, {}, None, "player")
    await journal.append_action(env.round_id, 1, 0, {}, None, "player")
    assert len(await _actions(env)) == 1


async def test_rounds_begin_and_finish(env: Env, journal: Journal) -> None:
    second = await journal.begin_round(env.room_id, 2, "remi", "seed2", 1, {"o": [1]})
    assert isinstance(second, int) and second != env.round_id
    for seq in (1, 2, 3):
        await journal.append_action(second, seq, seq % 2, {"n": seq}, None, "player")
    record = await env.log.load(env.room_id)
    assert record.current_round is not None
    assert (record.current_round.id, record.current_round.options) == (second, {"o": [1]})
    assert [a.seq for a in record.current_round.actions] == [1, 2, 3]
    async with env.db.transaction() as session:  # SQL NULL, as GameLog leaves it
        nulls = await session.scalar(select(func.count()).where(Round.result.is_(None)))
    assert nulls == 2

    await journal.finish_round(RoundFinish(second, RESULT, [5, -5]))
    # A second finish does nothing: the first result and no second set of scores.
    await journal.finish_round(RoundFinish(second, {"other": True}, [100, 100]))
    record = await env.log.load(env.room_id)
    assert record.current_round is None
    assert record.rounds[-1].result == RESULT
    assert record.totals == [5, -5]
    assert await _scores(env) == 2

    with pytest.raises(KeyError) as missing:
        await journal.finish_round(RoundFinish(second + 99, RESULT, [1, 1]))
    assert missing.value.args == (second + 99,)
    with pytest.raises(sa_exc.IntegrityError):
        await journal.begin_round(env.room_id, 2, "remi", "again", 0, {})
    with pytest.raises(sa_exc.IntegrityError):
        await journal.begin_round("no-such-room", 1, "remi", "seed", 0, {})
    # The journal goes on after those failures.
    third = await journal.begin_round(env.room_id, 3, "remi", "seed3", 0, {})
    await journal.append_action(third, 1, 0, {"n": 1}, None, "bot")
    await journal.finish_round(RoundFinish(third, {}, [1, 2]))
    assert (await env.log.load(env.room_id)).totals == [6, -3]


async def test_a_failing_round_write_fails_alone(
    env: Env, journal: Journal, take_hold: TakeHold
) -> None:
    hold = await take_hold()
    first = await _in_flight(journal, env)
    calls = [
        journal.begin_round(env.room_id, 2, "remi", "first", 1, {}),
        journal.begin_round(env.room_id, 2, "remi", "second", 1, {}),  # number taken
        journal.finish_round(RoundFinish(env.round_id, RESULT, [1, 2])),
        journal.finish_round(RoundFinish(env.round_id + 99, RESULT, [1, 2])),  # no such round
        journal.begin_round("no-such-room", 1, "remi", "x", 0, {}),
        journal.begin_round(env.room_id, 3, "remi", "third", 0, {}),
        journal.set_rack(env.room_id, 0, {"layout": [9]}),
    ]
    tasks = [asyncio.create_task(c) for c in calls]
    await asyncio.sleep(0.1)
    await hold.release()
    await first
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert [type(r) for r in results] == [
        int,
        sa_exc.IntegrityError,
        type(None),
        KeyError,
        sa_exc.IntegrityError,
        int,
        type(None),
    ]
    # The ids returned are those of the committed rows (not of the rolled back batch).
    record = await env.log.load(env.room_id)
    assert [(r.number, r.id, r.seed) for r in record.rounds] == [
        (1, env.round_id, "seed"),
        (2, results[0], "first"),
        (3, results[5], "third"),
    ]
    assert record.rounds[0].result == RESULT
    assert record.totals == [1, 2]
    assert record.seats[0].rack == {"layout": [9]}
    third = results[5]
    assert isinstance(third, int)
    await journal.append_action(third, 1, 0, {}, None, "player")
    assert len(await _actions(env, third)) == 1


async def test_stop_commits_what_is_queued(env: Env, take_hold: TakeHold) -> None:
    journal = Journal(env.db)
    journal.start()
    hold = await take_hold()
    writes = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(1, 51)
    ]
    writes.append(asyncio.create_task(journal.begin_round(env.room_id, 2, "remi", "s", 0, {})))
    finish = RoundFinish(env.round_id, RESULT, [1, 1])
    writes.append(asyncio.create_task(journal.finish_round(finish)))
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(journal.stop())
    await asyncio.sleep(0.2)
    assert not stopping.done()  # it waits for the writes, which wait for the hold
    with pytest.raises(JournalStopped, match="stopped"):
        await journal.append_action(env.round_id, 99, 0, {}, None, "player")
    await hold.release()
    await asyncio.wait_for(stopping, 10)
    assert all(w.done() and w.exception() is None for w in writes)
    assert journal.writes == 52
    assert len(await _actions(env)) == 50
    record = await env.log.load(env.room_id)
    assert [r.finished for r in record.rounds] == [True, False]
    assert writes[-2].result() == record.rounds[1].id


async def test_writes_after_stop_fail(env: Env) -> None:
    journal = Journal(env.db)
    journal.start()
    second = await journal.begin_round(env.room_id, 2, "remi", "s2", 1, {})
    await journal.append_action(env.round_id, 1, 0, {"n": 1}, None, "player")
    await journal.stop()
    with pytest.raises(JournalStopped, match="stopped"):
        await journal.append_action(env.round_id, 2, 0, {"n": 2}, None, "player")
    with pytest.raises(JournalStopped):
        await journal.set_rack(env.room_id, 0, {"layout": [1]})
    with pytest.raises(JournalStopped):
        await journal.begin_round(env.room_id, 3, "remi", "s3", 0, {})
    with pytest.raises(JournalStopped):
        await journal.finish_round(RoundFinish(second, RESULT, [1, 2]))
    await journal.stop()  # twice is fine
    record = await env.log.load(env.room_id)
    assert [a[0] for a in await _actions(env)] == [1]
    assert record.seats[0].rack is None
    assert [(r.number, r.finished) for r in record.rounds] == [(1, False), (2, False)]
    journal.start()  # started again, it writes again
    await journal.append_action(env.round_id, 2, 0, {"n": 2}, None, "player")
    await journal.stop()
    assert [a[0] for a in await _actions(env)] == [1, 2]


async def test_stop_does_not_hang_on_a_database_that_does_not_answer(
    env: Env, caplog: pytest.LogCaptureFixture, take_hold: TakeHold
) -> None:
    journal = Journal(env.db, stop_timeout=0.3)
    journal.start()
    hold = await take_hold()  # held far longer than the stop timeout
    writes = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(1, 6)
    ]
    await asyncio.sleep(0.05)
    writers = [t for t in asyncio.all_tasks() if t.get_name().startswith("journal-")]
    assert writers
    started = time.perf_counter()
    await asyncio.wait_for(journal.stop(), 5)
    assert time.perf_counter() - started < 3
    assert "journal_stop_timeout" in [r.getMessage() for r in caplog.records]
    results = await asyncio.wait_for(asyncio.gather(*writes, return_exceptions=True), 1)
    assert all(isinstance(r, JournalStopped) for r in results)  # none acknowledged
    await hold.release()
    # A cancelled writer keeps its connection until the driver call it was in returns
    # (now that the hold is released): let it end before the engine is disposed.
    _, still = await asyncio.wait(writers, timeout=10)
    assert not still
    assert await _actions(env) == []  # the cancelled transaction was rolled back


async def test_an_unstarted_journal_writes_directly(env: Env) -> None:
    journal = Journal(env.db)
    await journal.append_action(env.round_id, 1, 0, ACTION, 3, "timeout")
    await journal.set_rack(env.room_id, 0, {"layout": []})
    second = await journal.begin_round(env.room_id, 2, "remi", "s", 0, {"o": [1]})
    await journal.finish_round(RoundFinish(second, RESULT, [2, 3]))
    with pytest.raises(KeyError):
        await journal.finish_round(RoundFinish(second + 99, RESULT, [2, 3]))
    with pytest.raises(sa_exc.IntegrityError):
        await journal.append_action(env.round_id, 1, 0, ACTION, 3, "timeout")
    await journal.stop()  # never started: nothing to stop, still writes directly
    await journal.append_action(env.round_id, 2, 0, ACTION, 4, "player")
    assert await _actions(env) == [(1, 0, ACTION, 3, "timeout"), (2, 0, ACTION, 4, "player")]
    record = await env.log.load(env.room_id)
    assert record.seats[0].rack == {"layout": []}
    assert [(r.number, r.finished) for r in record.rounds] == [(1, False), (2, True)]
    assert record.totals == [2, 3]
    assert journal.commits == 0  # no writer task made them


async def test_other_writers_share_the_database(env: Env, journal: Journal) -> None:
    async def moves() -> None:
        for s in range(1, 201):
            await journal.append_action(env.round_id, s, 0, {"n": s}, None, "player")

    async def other_writes() -> None:
        for number in range(2, 22):
            await env.log.set_version(env.room_id, number)
            await env.log.mark_alive([env.room_id])

    await asyncio.wait_for(asyncio.gather(moves(), other_writes()), 30)
    assert len(await _actions(env)) == 200
    assert (await env.log.load(env.room_id)).version >= 21


async def test_several_writers(env: Env) -> None:
    journal = Journal(env.db, writers=3, max_batch=7)
    journal.start()
    try:
        await asyncio.gather(
            *(
                journal.append_action(env.round_id, s, 0, {"n": s}, s, "player")
                for s in range(1, 101)
            )
        )
    finally:
        await journal.stop()
    assert journal.writes == 100
    assert journal.commits >= 100 // 7
    assert [a[0] for a in await _actions(env)] == list(range(1, 101))


@pytest.fixture
async def proxied(
    tmp_path: Path, postgres_problem: str | None
) -> AsyncIterator[tuple[Env, PgProxy]]:
    """A PostgreSQL schema reached through a :class:`PgProxy`, with a room and its round."""
    if postgres_problem is not None:
        unavailable("PostgreSQL", postgres_problem)
    url = make_url(PG_URL)
    proxy = PgProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()
    schema = f"t_{secrets.token_hex(6)}"
    through = url.set(port=proxy.port).render_as_string(hide_password=False)
    settings = base_settings(data_dir=tmp_path, database_url=through, database_schema=schema)
    db = Database(settings)
    try:
        yield await _env(db, settings), proxy
    finally:
        await db.dispose()
        await proxy.stop()
        conn = await asyncpg.connect(plain_pg_dsn(), timeout=5)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()


@pytest.mark.postgres
@pytest.mark.parametrize("reached", [True, False], ids=["commit_reached", "commit_lost"])
async def test_a_commit_whose_answer_is_lost_is_resolved_against_the_database(
    proxied: tuple[Env, PgProxy], reached: bool
) -> None:
    """Issue 23 item 1: the connection drops after the COMMIT is sent, before its answer
    (``reached``: PostgreSQL got it and committed; else it never got it and rolled back).
    The write's outcome is found out from the database before anything else: the move
    is answered as committed (its row there once either way), and the room goes on (the
    next seq is free). Before, the move was answered as failed with its row committed,
    and the room jammed on the duplicate seq."""
    env, proxy = proxied
    journal = Journal(env.db)
    journal.start()
    try:
        await journal.append_action(env.round_id, 1, 0, ACTION, 1, "player")
        proxy.cut_at_next_commit(after=reached)
        await asyncio.wait_for(journal.append_action(env.round_id, 2, 1, ACTION, 2, "player"), 30)
        assert proxy.cuts == 1
        await journal.append_action(env.round_id, 3, 0, ACTION, 3, "player")
    finally:
        await journal.stop()
    assert [row[0] for row in await _actions(env)] == [1, 2, 3]


@pytest.mark.postgres
async def test_a_database_that_is_starting_up_is_waited_for(
    proxied: tuple[Env, PgProxy],
) -> None:
    """Issue 23 item 1, the restart after a crash: the commit's answer is lost, then the
    next connections are answered "the database system is starting up" (SQLSTATE 57P03),
    as PostgreSQL answers while it recovers. That is no answer about the write: the
    journal waits for the database, the move is answered as committed, once, and the
    writer goes on. Before, the refusal was taken for the database's verdict and the
    writer task died, leaving every later move of the server without an answer."""
    env, proxy = proxied
    journal = Journal(env.db)
    journal.start()
    try:
        await journal.append_action(env.round_id, 1, 0, ACTION, 1, "player")
        await env.db.engine.dispose()  # a crash leaves no pooled connection usable
        proxy.cut_at_next_commit(after=True)
        proxy.refuse_connections(3)
        await asyncio.wait_for(journal.append_action(env.round_id, 2, 1, ACTION, 2, "player"), 30)
        assert (proxy.cuts, proxy.refused) == (1, 3)
        assert journal.uncertain >= 3  # the three refusals, each waited out
        await asyncio.wait_for(journal.append_action(env.round_id, 3, 0, ACTION, 3, "player"), 30)
    finally:
        await journal.stop()
    assert [row[0] for row in await _actions(env)] == [1, 2, 3]


@pytest.mark.postgres
async def test_writes_go_on_across_an_immediate_stop_of_postgresql(tmp_path: Path) -> None:
    """Issue 23 item 1, the database itself crashing: a private PostgreSQL cluster is
    stopped with ``pg_ctl stop -m immediate`` while moves are being committed, and
    started again a second later. Every move is answered as committed (none as failed,
    none lost), each row is in the database exactly once and in order, and the journal
    did meet writes whose outcome it had to find out again."""
    problem = cluster_problem()
    if problem is not None:
        unavailable("a private PostgreSQL cluster", problem)
    cluster = await asyncio.to_thread(PgCluster.create)
    settings = base_settings(data_dir=tmp_path, database_url=cluster.url)
    db = Database(settings)
    journal = Journal(db)
    try:
        env = await _env(db, settings)
        journal.start()
        answered: list[int] = []

        async def moves() -> None:
            for s in range(1, 121):
                await journal.append_action(env.round_id, s, s % 2, ACTION, s, "player")
                answered.append(s)

        mover = asyncio.create_task(moves())
        while len(answered) < 30:
            await asyncio.sleep(0.01)
        await asyncio.to_thread(cluster.crash)
        down_at = len(answered)
        await asyncio.sleep(1.0)
        assert len(answered) <= down_at + 1  # nothing was answered while it was down
        await asyncio.to_thread(cluster.start)
        await asyncio.wait_for(mover, 60)
        assert answered == list(range(1, 121))
        assert journal.uncertain >= 1
        assert [row[0] for row in await _actions(env)] == list(range(1, 121))
    finally:
        await journal.stop()
        await db.dispose()
        await asyncio.to_thread(cluster.destroy)
