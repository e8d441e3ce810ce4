"""The journal (group commit of moves and rack layouts), above all its SQLite writer thread.

Most tests run on a SQLite file twice: through the writer thread and through the
SQLAlchemy path (``sqlite_thread=False``); the last ones run on SQLite and on
PostgreSQL through the ``settings`` fixture.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import base_settings
from sqlalchemy import exc as sa_exc
from sqlalchemy import select

from server.identity import IdentityService
from server.rooms.journal import Journal, JournalStopped
from server.rooms.options import RoomSettings
from server.rooms.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate
from server.storage.models import Action

ACTION = {"do": "meld", "tiles": [1, 2, 3], "joker": None, "x": 2.5, "ok": True, "name": "é\u2028"}


@dataclass
class Env:
    db: Database
    log: GameLog
    room_id: str
    round_id: int
    path: Path | None


async def _env(settings: Settings) -> Env:
    db = Database(settings)
    await migrate(settings, db.engine)
    identity, rooms = IdentityService(db), RoomService(db, settings)
    owner, _ = await identity.create_player("Owner")
    room = await rooms.create_room(
        owner, RoomSettings(seats=2, fill_with_bots=True, variant="remi")
    )
    await rooms.start(room.id, owner)
    gamelog = GameLog(db)
    round_id = await gamelog.begin_round(room.id, 1, "remi", "seed", 0, {})
    path = settings.data_dir / "remi.sqlite3" if settings.is_sqlite else None
    return Env(db, gamelog, room.id, round_id, path)


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    """A SQLite file with a playing room and its first round."""
    e = await _env(base_settings(data_dir=tmp_path, database_url=""))
    try:
        yield e
    finally:
        await e.db.dispose()


@pytest.fixture
async def any_env(settings: Settings) -> AsyncIterator[Env]:
    """The same on SQLite and on PostgreSQL."""
    e = await _env(settings)
    try:
        yield e
    finally:
        await e.db.dispose()


@pytest.fixture(params=[True, False], ids=["thread", "sqlalchemy"])
async def journal(request: pytest.FixtureRequest, env: Env) -> AsyncIterator[Journal]:
    """A started journal on the SQLite file: the writer thread, or SQLAlchemy."""
    j = Journal(env.db, sqlite_thread=request.param)
    assert j.uses_thread is request.param
    j.start()
    try:
        yield j
    finally:
        await j.stop()


def _journal_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "journal-sqlite"]


class WriteLock:
    """Holds SQLite's write lock from a plain connection, so that writes pile up."""

    def __init__(self, path: Path | None) -> None:
        assert path is not None
        self._conn = sqlite3.connect(path, isolation_level=None)
        self._conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        self._conn.execute("COMMIT")
        self._conn.close()


async def _actions(env: Env) -> list[tuple[int, int, dict[str, object], int | None, str]]:
    record = await env.log.load(env.room_id)
    current = record.current_round
    assert current is not None
    return [(a.seq, a.seat, a.action, a.client_seq, a.source) for a in current.actions]


async def test_thread_is_the_default_for_a_sqlite_file_only(env: Env, tmp_path: Path) -> None:
    assert Journal(env.db).uses_thread
    assert not Journal(env.db, sqlite_thread=False).uses_thread
    memory = Database(base_settings(data_dir=tmp_path, database_url="sqlite+aiosqlite://"))
    try:
        assert not Journal(memory).uses_thread  # a second connection would see another database
        with pytest.raises(ValueError, match="SQLite database file"):
            Journal(memory, sqlite_thread=True)
    finally:
        await memory.dispose()
    pg = Database(
        base_settings(data_dir=tmp_path, database_url="postgresql+asyncpg://u@127.0.0.1:1/x")
    )
    try:
        assert not Journal(pg).uses_thread
    finally:
        await pg.dispose()


async def test_rows_read_back_as_written_through_sqlalchemy(env: Env) -> None:
    thread = Journal(env.db)
    plain = Journal(env.db, sqlite_thread=False)
    thread.start()
    plain.start()
    before = datetime.now(UTC)
    await thread.append_action(env.round_id, 1, 0, ACTION, 7, "player")
    await plain.append_action(env.round_id, 2, 0, ACTION, 7, "player")
    await thread.append_action(env.round_id, 3, 1, {"do": "draw"}, None, "bot")
    await thread.set_rack(env.room_id, 0, {"round": 1, "layout": [5, None, 9]})
    await plain.set_rack(env.room_id, 1, None)
    await thread.stop()
    await plain.stop()

    assert await _actions(env) == [
        (1, 0, ACTION, 7, "player"),
        (2, 0, ACTION, 7, "player"),
        (3, 1, {"do": "draw"}, None, "bot"),
    ]
    async with env.db.transaction() as session:
        stored = (await session.scalars(select(Action).order_by(Action.seq))).all()
    for row in stored:
        assert row.created_at.tzinfo is not None
        assert before - timedelta(seconds=1) <= row.created_at <= datetime.now(UTC)
    record = await env.log.load(env.room_id)
    assert record.seats[0].rack == {"round": 1, "layout": [5, None, 9]}
    assert record.seats[1].rack is None

    # The very same text as SQLAlchemy's own rows: JSON and timestamp format alike.
    assert env.path is not None
    raw = sqlite3.connect(env.path)
    try:
        rows = raw.execute(
            "SELECT seq, action, typeof(action), created_at FROM actions ORDER BY seq"
        ).fetchall()
        racks = raw.execute("SELECT seat, rack FROM seats ORDER BY seat").fetchall()
        mine = raw.execute("SELECT rack FROM seats WHERE seat = 0").fetchone()
    finally:
        raw.close()
    assert rows[0][1:3] == rows[1][1:3]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", r[3]) for r in rows)
    assert racks[1] == (1, "null")  # SQLAlchemy stores a None JSON value as JSON null
    assert mine == ('{"round": 1, "layout": [5, null, 9]}',)


async def test_thread_writes_null_rack_like_sqlalchemy(env: Env) -> None:
    journal = Journal(env.db)
    journal.start()
    await journal.set_rack(env.room_id, 0, {"layout": [1]})
    await journal.set_rack(env.room_id, 0, None)
    await journal.stop()
    assert env.path is not None
    raw = sqlite3.connect(env.path)
    try:
        assert raw.execute("SELECT rack FROM seats WHERE seat = 0").fetchone() == ("null",)
    finally:
        raw.close()
    assert (await env.log.load(env.room_id)).seats[0].rack is None


async def test_concurrent_writes_share_commits(env: Env, journal: Journal) -> None:
    n = 300
    await asyncio.gather(
        *(
            journal.append_action(env.round_id, s, s % 2, {"n": s}, s, "player")
            for s in range(1, n + 1)
        )
    )
    assert journal.writes == n
    assert journal.batches < n // 2
    assert [a[2] for a in await _actions(env)] == [{"n": s} for s in range(1, n + 1)]


async def test_piled_up_writes_are_one_transaction(env: Env, journal: Journal) -> None:
    lock = WriteLock(env.path)
    first = asyncio.create_task(journal.append_action(env.round_id, 1, 0, {"n": 1}, 1, "player"))
    await asyncio.sleep(0.2)  # the writer is now waiting for the lock with the first write
    rest = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(2, 102)
    ]
    rest.append(asyncio.create_task(journal.set_rack(env.room_id, 1, {"layout": [3]})))
    await asyncio.sleep(0.2)
    assert not first.done()
    lock.release()
    await asyncio.gather(first, *rest)
    assert (journal.batches, journal.writes) == (2, 102)
    assert len(await _actions(env)) == 101
    assert (await env.log.load(env.room_id)).seats[1].rack == {"layout": [3]}


async def test_a_failing_write_fails_alone(
    env: Env, journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    await journal.append_action(env.round_id, 1, 0, {"n": 1}, None, "player")
    lock = WriteLock(env.path)
    first = asyncio.create_task(journal.append_action(env.round_id, 2, 0, {"n": 2}, 2, "player"))
    await asyncio.sleep(0.2)
    caplog.set_level(logging.WARNING, logger="server.rooms.journal")
    calls = [
        journal.append_action(env.round_id, 3, 0, {"n": 3}, 3, "player"),
        journal.append_action(env.round_id + 99, 1, 0, {"n": -1}, None, "player"),  # no such round
        journal.set_rack(env.room_id, 0, {"layout": [4]}),
        journal.append_action(env.round_id, 1, 0, {"n": -2}, None, "player"),  # seq taken
        journal.append_action(env.round_id, 4, 1, {"n": 4}, None, "bot"),
    ]
    tasks = [asyncio.create_task(c) for c in calls]
    await asyncio.sleep(0.1)
    lock.release()
    await first
    results = await asyncio.gather(*tasks, return_exceptions=True)

    assert [type(r) for r in results] == [
        type(None),
        sa_exc.IntegrityError,
        type(None),
        sa_exc.IntegrityError,
        type(None),
    ]
    assert "FOREIGN KEY" in str(results[1])
    assert "UNIQUE" in str(results[3])
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


async def test_stop_finishes_pending_writes(env: Env) -> None:
    journal = Journal(env.db)
    journal.start()
    assert len(_journal_threads()) == 1
    lock = WriteLock(env.path)
    writes = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(1, 51)
    ]
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(journal.stop())
    await asyncio.sleep(0.2)
    assert not stopping.done()  # it waits for the writes, which wait for the lock
    lock.release()
    await asyncio.wait_for(stopping, 10)
    assert all(w.done() and w.exception() is None for w in writes)
    assert journal.writes == 50
    assert len(await _actions(env)) == 50
    assert _journal_threads() == []


async def test_stop_with_the_sqlalchemy_path_finishes_pending_writes(env: Env) -> None:
    journal = Journal(env.db, sqlite_thread=False)
    journal.start()
    lock = WriteLock(env.path)
    writes = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(1, 51)
    ]
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(journal.stop())
    await asyncio.sleep(0.2)
    lock.release()
    await asyncio.wait_for(stopping, 10)
    assert all(w.done() and w.exception() is None for w in writes)
    assert len(await _actions(env)) == 50


async def test_the_file_stays_writable_for_the_engine(env: Env, journal: Journal) -> None:
    async def moves() -> None:
        for s in range(1, 201):
            await journal.append_action(env.round_id, s, 0, {"n": s}, None, "player")

    async def engine_writes() -> None:
        for number in range(2, 22):
            await env.log.set_rack(env.room_id, 1, {"n": number})
            await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(moves(), engine_writes()), 30)
    await journal.stop()
    # After stop the writer's connection is closed: nothing of it holds the file.
    second = await env.log.begin_round(env.room_id, 2, "remi", "seed2", 1, {})
    await env.log.append_action(second, 1, 0, {"after": True})
    assert env.path is not None
    raw = sqlite3.connect(env.path, timeout=1)
    try:
        raw.execute("BEGIN EXCLUSIVE")
        raw.execute("COMMIT")
        assert raw.execute("SELECT count(*) FROM actions").fetchone() == (201,)
    finally:
        raw.close()


async def test_an_unstarted_journal_writes_directly(env: Env) -> None:
    journal = Journal(env.db)
    await journal.append_action(env.round_id, 1, 0, ACTION, 3, "timeout")
    await journal.set_rack(env.room_id, 0, {"layout": []})
    assert await _actions(env) == [(1, 0, ACTION, 3, "timeout")]
    assert (await env.log.load(env.room_id)).seats[0].rack == {"layout": []}
    assert _journal_threads() == []
    await journal.stop()  # never started: nothing to stop, still writes directly
    await journal.append_action(env.round_id, 2, 0, ACTION, 4, "player")
    assert len(await _actions(env)) == 2


async def test_a_write_after_stop_fails(any_env: Env) -> None:
    journal = Journal(any_env.db)
    journal.start()
    await journal.append_action(any_env.round_id, 1, 0, {"n": 1}, None, "player")
    await journal.stop()
    with pytest.raises(JournalStopped, match="stopped"):
        await journal.append_action(any_env.round_id, 2, 0, {"n": 2}, None, "player")
    with pytest.raises(JournalStopped):
        await journal.set_rack(any_env.room_id, 0, {"layout": [1]})
    await journal.stop()  # twice is fine
    assert [a[0] for a in await _actions(any_env)] == [1]
    assert (await any_env.log.load(any_env.room_id)).seats[0].rack is None


async def test_batch_with_a_failure_on_every_database(any_env: Env) -> None:
    journal = Journal(any_env.db)
    journal.start()
    try:
        calls = [
            journal.append_action(any_env.round_id, s, 0, {"n": s}, s, "player")
            for s in range(1, 41)
        ]
        calls.append(journal.append_action(any_env.round_id, 7, 0, {"dup": 1}, None, "player"))
        results = await asyncio.gather(*calls, return_exceptions=True)
    finally:
        await journal.stop()
    assert all(r is None for r in results[:40])
    assert isinstance(results[40], sa_exc.IntegrityError)
    assert [a[2] for a in await _actions(any_env)] == [{"n": s} for s in range(1, 41)]


@pytest.mark.parametrize("thread", [True, False], ids=["thread", "sqlalchemy"])
async def test_stop_does_not_hang_on_a_database_that_does_not_answer(
    env: Env, thread: bool, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(env.db, sqlite_thread=thread, stop_timeout=0.3)
    journal.start()
    lock = WriteLock(env.path)  # held far longer than the stop timeout
    writes = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(1, 6)
    ]
    await asyncio.sleep(0.05)
    writers = list(journal._tasks)  # the SQLAlchemy path's writer tasks (none with the thread)
    started = time.perf_counter()
    await asyncio.wait_for(journal.stop(), 5)
    assert time.perf_counter() - started < 3
    assert "journal_stop_timeout" in [r.getMessage() for r in caplog.records]
    with pytest.raises(JournalStopped):
        await journal.append_action(env.round_id, 9, 0, {}, None, "player")
    lock.release()
    results = await asyncio.wait_for(asyncio.gather(*writes, return_exceptions=True), 10)
    # A cancelled writer still owns its connection until the driver call it was in
    # returns (now that the lock is free): let it end before the engine is disposed,
    # or its cleanup would wait forever on a driver thread that is gone.
    _, still = await asyncio.wait(writers, timeout=10) if writers else (set(), set())
    assert not still
    if thread:
        # The thread is left to finish its writes: they are made once the lock is free.
        assert results == [None] * 5
        assert len(await _actions(env)) == 5
        for _ in range(100):
            if not _journal_threads():
                break
            await asyncio.sleep(0.01)
        assert _journal_threads() == []
    else:
        # The writer task is cancelled: its writes fail, none is left waiting.
        assert all(isinstance(r, JournalStopped) for r in results)
        assert await _actions(env) == []
