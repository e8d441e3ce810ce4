"""The journal (group commit of moves and rack layouts), above all its SQLite connection.

Most tests run on a SQLite file twice: through the journal's own connection,
written on the event loop, and through the SQLAlchemy path (``sqlite_inline=False``);
the last ones run on SQLite and on PostgreSQL through the ``settings`` fixture.
tests/server/test_journal_inline.py has the loop writer's own tests (one flush per
loop iteration, the write lock, checkpoints, the bound values).
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
from server.storage import models
from server.storage.database import Database, json_dumps
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


@pytest.fixture(params=[True, False], ids=["inline", "sqlalchemy"])
async def journal(request: pytest.FixtureRequest, env: Env) -> AsyncIterator[Journal]:
    """A started journal on the SQLite file: its own connection on the loop, or SQLAlchemy."""
    j = Journal(env.db, sqlite_inline=request.param)
    assert j.uses_inline is request.param
    j.start()
    try:
        yield j
    finally:
        await j.stop()


def _journal_threads() -> list[threading.Thread]:
    """The loop writer's checkpoint threads still running."""
    return [t for t in threading.enumerate() if t.name == "journal-checkpoint"]


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


async def test_inline_is_the_default_for_a_sqlite_file_only(env: Env, tmp_path: Path) -> None:
    assert Journal(env.db).uses_inline
    assert not Journal(env.db, sqlite_inline=False).uses_inline
    memory = Database(base_settings(data_dir=tmp_path, database_url="sqlite+aiosqlite://"))
    try:
        assert not Journal(memory).uses_inline  # a second connection would see another database
        with pytest.raises(ValueError, match="SQLite database file"):
            Journal(memory, sqlite_inline=True)
    finally:
        await memory.dispose()
    pg = Database(
        base_settings(data_dir=tmp_path, database_url="postgresql+asyncpg://u@127.0.0.1:1/x")
    )
    try:
        assert not Journal(pg).uses_inline
    finally:
        await pg.dispose()


async def test_rows_read_back_as_written_through_sqlalchemy(env: Env) -> None:
    inline = Journal(env.db)
    plain = Journal(env.db, sqlite_inline=False)
    inline.start()
    plain.start()
    before = datetime.now(UTC)
    await inline.append_action(env.round_id, 1, 0, ACTION, 7, "player")
    await plain.append_action(env.round_id, 2, 0, ACTION, 7, "player")
    await inline.append_action(env.round_id, 3, 1, {"do": "draw"}, None, "bot")
    await inline.set_rack(env.room_id, 0, {"round": 1, "layout": [5, None, 9]})
    await plain.set_rack(env.room_id, 1, None)
    await inline.stop()
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
    # The engine's serializer (compact orjson), for the journal's rows as for the ORM's.
    assert mine == ('{"round":1,"layout":[5,null,9]}',)
    assert rows[0][1:3] == (json_dumps(ACTION), "text")


async def test_inline_writes_null_rack_like_sqlalchemy(env: Env) -> None:
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
    # On the loop, the writes submitted while the flush waits for the lock join it;
    # the SQLAlchemy writer task is in the first transaction: the rest make the next.
    assert (journal.batches, journal.writes) == (1 if journal.uses_inline else 2, 102)
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
    # On the loop the first write waits for the lock in the same batch as the rest.
    assert getattr(caplog.records[0], "size", None) == (6 if journal.uses_inline else 5)
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
    journal = Journal(env.db, sqlite_inline=False)
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


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "sqlalchemy"])
async def test_stop_does_not_hang_on_a_database_that_does_not_answer(
    env: Env, inline: bool, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(env.db, sqlite_inline=inline, stop_timeout=0.3)
    journal.start()
    lock = WriteLock(env.path)  # held far longer than the stop timeout
    writes = [
        asyncio.create_task(journal.append_action(env.round_id, s, 0, {"n": s}, s, "player"))
        for s in range(1, 6)
    ]
    await asyncio.sleep(0.05)
    writers = list(journal._tasks)  # the SQLAlchemy path's writer tasks (none on the loop)
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
    if inline:
        # The writes waiting for the lock fail, and were not made (a flush never
        # spans an await); the checkpoint thread ends too (its last checkpoint waits
        # at most 1 s for the lock).
        assert all(isinstance(r, JournalStopped) for r in results)
        assert "before the write was made" in str(results[0])
        assert await _actions(env) == []
        for _ in range(300):
            if not _journal_threads():
                break
            await asyncio.sleep(0.01)
        assert _journal_threads() == []
    else:
        # The writer task is cancelled: its writes fail, none is left waiting.
        assert all(isinstance(r, JournalStopped) for r in results)
        assert await _actions(env) == []


# ---------------------------------------------------------------------- rounds

RESULT = {"winner": 1, "kind": "closed", "points": [-12, 34.5], "note": "é\u2028", "x": None}


def _raw(env: Env, sql: str, *params: object) -> list[tuple[object, ...]]:
    """Rows read with a plain sqlite3 connection: exactly what is stored."""
    assert env.path is not None
    raw = sqlite3.connect(env.path)
    try:
        return raw.execute(sql, params).fetchall()
    finally:
        raw.close()


def _stored_rounds(env: Env) -> dict[int, dict[str, object]]:
    """Every column of every round, with its SQLite storage class, by number."""
    columns = [r[1] for r in _raw(env, "PRAGMA table_info(rounds)")]
    assert {"id", "options", "finished", "result", "created_at", "finished_at"} <= set(columns)
    select_ = ", ".join(f"{c}, typeof({c})" for c in columns)
    rounds = {}
    for row in _raw(env, f"SELECT {select_} FROM rounds"):
        values = {c: (row[2 * i], row[2 * i + 1]) for i, c in enumerate(columns)}
        rounds[_int(values["number"][0])] = values
    return rounds


def _int(value: object) -> int:
    assert isinstance(value, int)
    return value


def _stored_scores(env: Env) -> list[tuple[object, ...]]:
    return _raw(
        env,
        "SELECT room_id, round_number, seat, score, typeof(score) FROM round_scores"
        " ORDER BY round_number, seat",
    )


async def test_round_rows_are_the_same_as_gamelogs(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One frozen instant for utcnow (the ORM's created_at default, finished_at),
    # with no microseconds: the text must still carry ".000000" like SQLAlchemy's.
    frozen = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:
            return frozen

    monkeypatch.setattr(models, "datetime", Frozen)
    inline = Journal(env.db)
    plain = Journal(env.db, sqlite_inline=False)
    inline.start()
    plain.start()
    try:
        ids = {
            2: await env.log.begin_round(env.room_id, 2, "remi", "s2", 1, ACTION),
            3: await inline.begin_round(env.room_id, 3, "remi", "s2", 1, ACTION),
            4: await plain.begin_round(env.room_id, 4, "remi", "s2", 1, ACTION),
            5: await inline.begin_round(env.room_id, 5, "remi_etalat", "x", 0, {}),
            6: await env.log.begin_round(env.room_id, 6, "remi_etalat", "x", 0, {}),
        }
        unfinished = _stored_rounds(env)
        await env.log.finish_round(ids[2], RESULT, [10, -3])
        await inline.finish_round(ids[3], RESULT, [10, -3])
        await plain.finish_round(ids[4], RESULT, [10, -3])
    finally:
        await inline.stop()
        await plain.stop()

    stored = _stored_rounds(env)
    for number, round_id in ids.items():
        assert stored[number]["id"] == (round_id, "integer")

    def same(row: dict[str, object]) -> dict[str, object]:
        return {c: v for c, v in row.items() if c not in ("id", "number")}

    # Unfinished rounds, as begun: SQL NULL result and finished_at, finished 0.
    assert same(unfinished[5]) == same(unfinished[6])
    assert unfinished[5]["result"] == (None, "null")
    assert unfinished[5]["finished_at"] == (None, "null")
    assert unfinished[5]["finished"] == (0, "integer")
    assert same(unfinished[2]) == same(unfinished[3]) == same(unfinished[4])
    # Finished rounds.
    assert same(stored[2]) == same(stored[3]) == same(stored[4])
    assert stored[3]["finished"] == (1, "integer")
    assert stored[3]["created_at"] == ("2025-03-04 05:06:07.000000", "text")
    assert stored[3]["finished_at"] == ("2025-03-04 05:06:07.000000", "text")
    assert stored[3]["options"] == unfinished[3]["options"]
    assert stored[3]["result"] == (json_dumps(RESULT), "text")
    scores = _stored_scores(env)
    assert [s[1:] for s in scores] == [
        (1 + n // 2, n % 2, [10, -3][n % 2], "integer") for n in range(2, 8)
    ]
    assert {s[0] for s in scores} == {env.room_id}
    # ... and read back through the ORM alike.
    record = await env.log.load(env.room_id)
    by_number = {r.number: r for r in record.rounds}
    assert by_number[3].options == ACTION
    assert by_number[3].result == RESULT
    assert by_number[3].finished and not by_number[5].finished
    assert by_number[3].created_at == frozen


async def test_rounds_begin_and_finish(env: Env, journal: Journal) -> None:
    second = await journal.begin_round(env.room_id, 2, "remi", "seed2", 1, {"o": 1})
    assert second != env.round_id
    for seq in (1, 2, 3):
        await journal.append_action(second, seq, seq % 2, {"n": seq}, None, "player")
    await journal.set_rack(env.room_id, 0, {"layout": [1]})
    record = await env.log.load(env.room_id)
    assert record.current_round is not None
    assert record.current_round.id == second
    assert [a.seq for a in record.current_round.actions] == [1, 2, 3]

    await journal.finish_round(second, RESULT, [5, -5])
    # A second finish does nothing: the first result and no second set of scores.
    await journal.finish_round(second, {"other": True}, [100, 100])
    record = await env.log.load(env.room_id)
    assert record.current_round is None
    assert record.rounds[-1].result == RESULT
    assert record.totals == [5, -5]
    assert len(_stored_scores(env)) == 2

    with pytest.raises(KeyError) as missing:
        await journal.finish_round(second + 99, RESULT, [1, 1])
    assert missing.value.args == (second + 99,)
    with pytest.raises(sa_exc.IntegrityError, match="UNIQUE"):
        await journal.begin_round(env.room_id, 2, "remi", "again", 0, {})
    with pytest.raises(sa_exc.IntegrityError, match="FOREIGN KEY"):
        await journal.begin_round("no-such-room", 1, "remi", "seed", 0, {})
    # The journal goes on after those failures.
    third = await journal.begin_round(env.room_id, 3, "remi", "seed3", 0, {})
    await journal.append_action(third, 1, 0, {"n": 1}, None, "bot")
    await journal.finish_round(third, {}, [1, 2])
    assert (await env.log.load(env.room_id)).totals == [6, -3]


async def test_round_writes_share_the_batch_in_submission_order(env: Env) -> None:
    journal = Journal(env.db)
    journal.start()
    try:
        lock = WriteLock(env.path)
        first = asyncio.create_task(journal.append_action(env.round_id, 1, 0, {}, None, "player"))
        await asyncio.sleep(0.2)  # the writer is now waiting for the lock with the first write
        calls = [
            journal.begin_round(env.room_id, 2, "remi", "s2", 1, {"n": 2}),
            journal.append_action(env.round_id, 2, 1, {"n": 2}, None, "bot"),
            journal.set_rack(env.room_id, 1, {"layout": [2]}),
            journal.finish_round(env.round_id, RESULT, [3, 4]),
            journal.begin_round(env.room_id, 3, "remi", "s3", 0, {"n": 3}),
            journal.finish_round(env.round_id, {"late": True}, [50, 60]),  # finished: nothing
            journal.set_rack(env.room_id, 1, {"layout": [3]}),
        ]
        tasks = [asyncio.create_task(c) for c in calls]
        await asyncio.sleep(0.2)
        assert not first.done()
        lock.release()
        await first
        results = await asyncio.gather(*tasks)
        # The writes submitted while the first waits for the lock join its batch.
        assert (journal.batches, journal.writes) == (1, 8)
        second, third = results[0], results[4]
        assert [r for i, r in enumerate(results) if i not in (0, 4)] == [None] * 5
        assert (second, third) == (env.round_id + 1, env.round_id + 2)
        # The ids are the rows' and the next writes use them.
        await journal.append_action(second, 1, 0, {"in": 2}, None, "player")
        await journal.append_action(third, 1, 0, {"in": 3}, None, "player")
    finally:
        await journal.stop()
    rows = _raw(env, "SELECT number, id, seed, result FROM rounds ORDER BY number")
    assert rows == [
        (1, env.round_id, "seed", _raw(env, "SELECT result FROM rounds WHERE number = 1")[0][0]),
        (2, second, "s2", None),
        (3, third, "s3", None),
    ]
    record = await env.log.load(env.room_id)
    assert record.rounds[0].result == RESULT
    assert record.totals == [3, 4]
    assert record.seats[1].rack == {"layout": [3]}  # the last of the two, as submitted
    assert _raw(env, "SELECT round_id, seq FROM actions ORDER BY round_id, seq") == [
        (env.round_id, 1),
        (env.round_id, 2),
        (second, 1),
        (third, 1),
    ]


async def test_a_failing_round_write_fails_alone(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(env.db)
    journal.start()
    try:
        lock = WriteLock(env.path)
        first = asyncio.create_task(journal.append_action(env.round_id, 1, 0, {}, None, "player"))
        await asyncio.sleep(0.2)
        caplog.set_level(logging.WARNING, logger="server.rooms.journal")
        calls = [
            journal.begin_round(env.room_id, 2, "remi", "first", 1, {}),
            journal.begin_round(env.room_id, 2, "remi", "second", 1, {}),  # number taken
            journal.finish_round(env.round_id, RESULT, [1, 2]),
            journal.finish_round(env.round_id + 99, RESULT, [1, 2]),  # no such round
            journal.append_action(env.round_id, 2, 0, {"n": 2}, None, "player"),
            journal.finish_round(env.round_id, {"again": 1}, [7, 7]),  # finished: nothing
            journal.begin_round("no-such-room", 1, "remi", "x", 0, {}),
            journal.begin_round(env.room_id, 3, "remi", "third", 0, {}),
            journal.set_rack(env.room_id, 0, {"layout": [9]}),
        ]
        tasks = [asyncio.create_task(c) for c in calls]
        await asyncio.sleep(0.1)
        lock.release()
        await first
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert [type(r) for r in results] == [
            int,
            sa_exc.IntegrityError,
            type(None),
            KeyError,
            type(None),
            type(None),
            sa_exc.IntegrityError,
            int,
            type(None),
        ]
        assert "UNIQUE" in str(results[1])
        assert "FOREIGN KEY" in str(results[6])
        assert [r.getMessage() for r in caplog.records] == ["journal_batch_failed"]
        assert getattr(caplog.records[0], "size", None) == 10  # with the first write
        # The ids returned are those of the committed rows (not of the rolled back batch).
        assert _raw(env, "SELECT number, id, seed FROM rounds WHERE number > 1 ORDER BY 1") == [
            (2, results[0], "first"),
            (3, results[7], "third"),
        ]
        await journal.append_action(_int(results[7]), 1, 0, {}, None, "player")
    finally:
        await journal.stop()
    record = await env.log.load(env.room_id)
    assert record.rounds[0].result == RESULT
    assert record.totals == [1, 2]
    assert len(_stored_scores(env)) == 2
    assert record.seats[0].rack == {"layout": [9]}
    assert _raw(env, "SELECT round_id, seq FROM actions ORDER BY round_id, seq") == [
        (env.round_id, 1),
        (env.round_id, 2),
        (results[7], 1),
    ]


async def test_stop_finishes_pending_round_writes(env: Env) -> None:
    journal = Journal(env.db)
    journal.start()
    lock = WriteLock(env.path)
    begin = asyncio.create_task(journal.begin_round(env.room_id, 2, "remi", "s", 0, {}))
    finish = asyncio.create_task(journal.finish_round(env.round_id, RESULT, [1, 1]))
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(journal.stop())
    await asyncio.sleep(0.2)
    assert not stopping.done()
    lock.release()
    await asyncio.wait_for(stopping, 10)
    assert await begin == env.round_id + 1
    assert await finish is None
    record = await env.log.load(env.room_id)
    assert [r.finished for r in record.rounds] == [True, False]
    assert _journal_threads() == []


async def test_an_unstarted_journal_writes_rounds_directly(env: Env) -> None:
    journal = Journal(env.db)
    second = await journal.begin_round(env.room_id, 2, "remi", "s", 0, {"o": [1]})
    await journal.finish_round(second, RESULT, [2, 3])
    await journal.finish_round(second, RESULT, [2, 3])
    with pytest.raises(KeyError):
        await journal.finish_round(second + 99, RESULT, [2, 3])
    assert _journal_threads() == []
    await journal.stop()  # never started: nothing to stop, still writes directly
    third = await journal.begin_round(env.room_id, 3, "remi", "s", 0, {})
    record = await env.log.load(env.room_id)
    assert [(r.id, r.options, r.finished) for r in record.rounds[1:]] == [
        (second, {"o": [1]}, True),
        (third, {}, False),
    ]
    assert record.totals == [2, 3]


async def test_round_writes_on_every_database(any_env: Env) -> None:
    journal = Journal(any_env.db)
    assert journal.uses_inline is any_env.db.settings.is_sqlite
    journal.start()
    try:
        await journal.append_action(any_env.round_id, 1, 0, {"n": 1}, None, "player")
        await journal.finish_round(any_env.round_id, RESULT, [4, -4])
        await journal.finish_round(any_env.round_id, RESULT, [4, -4])
        second = await journal.begin_round(any_env.room_id, 2, "remi", "s2", 1, ACTION)
        await journal.append_action(second, 1, 1, {"n": 1}, 5, "player")
        with pytest.raises(KeyError):
            await journal.finish_round(second + 99, RESULT, [0, 0])
        with pytest.raises(sa_exc.IntegrityError):
            await journal.begin_round(any_env.room_id, 2, "remi", "dup", 1, {})
    finally:
        await journal.stop()
    record = await any_env.log.load(any_env.room_id)
    assert [(r.number, r.finished, r.result) for r in record.rounds] == [
        (1, True, RESULT),
        (2, False, None),
    ]
    assert record.rounds[1].options == ACTION
    assert record.totals == [4, -4]
    assert record.current_round is not None
    assert [a.seq for a in record.current_round.actions] == [1]


async def test_round_writes_after_stop_fail(any_env: Env) -> None:
    journal = Journal(any_env.db)
    journal.start()
    second = await journal.begin_round(any_env.room_id, 2, "remi", "s2", 1, {})
    await journal.stop()
    with pytest.raises(JournalStopped, match="stopped"):
        await journal.begin_round(any_env.room_id, 3, "remi", "s3", 0, {})
    with pytest.raises(JournalStopped, match="stopped"):
        await journal.finish_round(second, RESULT, [1, 2])
    record = await any_env.log.load(any_env.room_id)
    assert [(r.number, r.finished) for r in record.rounds] == [(1, False), (2, False)]
    assert record.totals == [0, 0]
