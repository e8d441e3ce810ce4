"""The journal's SQLite connection written on the event loop (``_LoopWriter``).

One flush per loop iteration, a failing write in a flush, stop, a write lock held
elsewhere (never waited for on the loop), the checkpoint thread keeping the WAL
bounded, and the values it binds (exactly SQLAlchemy's). The behaviour shared with
the SQLAlchemy path is in tests/server/test_journal_sqlite.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from conftest import base_settings
from sqlalchemy import Table, select, update
from sqlalchemy import exc as sa_exc

from server.identity import IdentityService
from server.rooms import journal as journal_module
from server.rooms.journal import Journal, JournalStopped, timestamp_text
from server.rooms.options import RoomSettings
from server.rooms.service import RoomService
from server.storage import models
from server.storage.database import Database, json_dumps
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate
from server.storage.models import Action, Seat

# Non-ASCII text (a line separator too), nested lists, None, floats, an int key.
VALUES: list[Any] = [
    {"do": "meld", "tiles": [[1, 2, 3], [[40, None]], []], "joker": None},
    {"name": "é\u2028ș\U0001f600", "x": 2.5, "tiny": 1e-7, "big": 1e16, "neg": -0.0},
    {"ok": True, "no": False, "none": None, "empty": {}, "deep": {"a": [{"b": [None]}]}},
    {1: "int key", "huge": 2**70},  # orjson refuses the int: the json fallback
    {"lone": "\ud800"},  # orjson refuses the lone surrogate: the json fallback
    None,
    [],
    [None, [None]],
    "text",
    0,
]


@dataclass
class Env:
    db: Database
    log: GameLog
    room_id: str
    round_ids: list[int]
    path: Path


async def _raw(path: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """Rows read with a plain sqlite3 connection: exactly what is stored."""
    raw = sqlite3.connect(path)
    try:
        return raw.execute(sql, params).fetchall()
    finally:
        raw.close()


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    """A SQLite file with a playing room and 20 rounds to write actions into."""
    settings = base_settings(data_dir=tmp_path, database_url="")
    db = Database(settings)
    try:
        await migrate(settings, db.engine)
        owner, _ = await IdentityService(db).create_player("Owner")
        rooms = RoomService(db, settings)
        room = await rooms.create_room(
            owner, RoomSettings(seats=2, fill_with_bots=True, variant="remi")
        )
        await rooms.start(room.id, owner)
        log = GameLog(db)
        round_ids = [await log.begin_round(room.id, n, "remi", "s", 0, {}) for n in range(1, 21)]
        yield Env(db, log, room.id, round_ids, tmp_path / "remi.sqlite3")
    finally:
        await db.dispose()


@pytest.fixture
async def journal(env: Env) -> AsyncIterator[Journal]:
    j = Journal(env.db)
    assert j.uses_inline
    j.start()
    try:
        yield j
    finally:
        await j.stop()


def _trace(journal: Journal) -> list[str]:
    """Every statement the loop writer's connection runs from now on."""
    writer = journal._writer
    assert writer is not None and writer._conn is not None
    statements: list[str] = []
    writer._conn.set_trace_callback(statements.append)
    return statements


def _kinds(statements: list[str]) -> list[str]:
    """The statements' first words, runs of one word as one (executemany runs one per row)."""
    words = [s.split()[0].upper() for s in statements]
    return [w for i, w in enumerate(words) if i == 0 or w != words[i - 1]]


async def test_writes_of_one_loop_iteration_are_one_transaction(env: Env, journal: Journal) -> None:
    await journal.append_action(env.round_ids[0], 1, 0, {"n": 0}, None, "player")  # connects
    statements = _trace(journal)
    batches = journal.batches
    # Every call below submits its write before the first flush runs.
    calls = [
        journal.append_action(r, 1 if i else 2, 0, {"n": i}, i, "player")
        for i, r in enumerate(env.round_ids)
    ]
    calls.append(journal.set_rack(env.room_id, 1, {"layout": [1]}))
    assert await asyncio.gather(*calls) == [None] * 21
    assert journal.batches == batches + 1
    assert _kinds(statements) == ["BEGIN", "INSERT", "UPDATE", "COMMIT"]
    assert sum(s.startswith("INSERT") for s in statements) == 20
    assert (await _raw(env.path, "SELECT count(*) FROM actions"))[0] == (21,)


async def test_a_flush_takes_at_most_max_batch_writes(env: Env) -> None:
    journal = Journal(env.db, max_batch=8)
    journal.start()
    try:
        await asyncio.gather(
            *(journal.append_action(r, 1, 0, {}, None, "player") for r in env.round_ids)
        )
    finally:
        await journal.stop()
    assert (journal.batches, journal.writes) == (3, 20)  # 8 + 8 + 4, one flush each


@pytest.mark.parametrize("interval", [0.0, 0.2])
async def test_writes_soon_after_a_commit_wait_for_the_commit_interval(
    env: Env, interval: float
) -> None:
    journal = Journal(env.db, commit_interval=interval)
    journal.start()
    loop = asyncio.get_running_loop()
    try:
        await journal.append_action(env.round_ids[0], 1, 0, {}, None, "player")
        committed = loop.time()
        batches = journal.batches
        # Three writes in three loop iterations, just after that commit.
        calls = []
        for i in range(3):
            calls.append(
                asyncio.ensure_future(
                    journal.append_action(env.round_ids[1], i + 1, 0, {}, None, "player")
                )
            )
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        await asyncio.gather(*calls)
        waited = loop.time() - committed
        if interval:  # one commit, not before the interval since the last one
            assert journal.batches == batches + 1 and waited >= interval * 0.9
        else:  # a commit per loop iteration, at once
            assert journal.batches == batches + 3 and waited < 0.2
        # Long after the last commit: a write is committed at once.
        await asyncio.sleep(interval)
        started = loop.time()
        await journal.append_action(env.round_ids[2], 1, 0, {}, None, "player")
        assert loop.time() - started < 0.15
    finally:
        await journal.stop()
    assert journal.writes == 5


async def test_a_failing_write_fails_only_its_own_future(
    env: Env, journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    first = env.round_ids[0]
    await journal.append_action(first, 1, 0, {"n": 1}, None, "player")
    statements = _trace(journal)
    caplog.set_level(logging.WARNING, logger="server.rooms.journal")
    calls = [journal.append_action(r, 1, 0, {"r": r}, None, "player") for r in env.round_ids[1:6]]
    calls.insert(2, journal.append_action(first, 1, 1, {"dup": True}, None, "bot"))  # seq taken
    calls.append(journal.begin_round(env.room_id, 99, "remi", "s", 0, {}))
    results = await asyncio.gather(*calls, return_exceptions=True)

    assert [type(r) for r in results] == [type(None)] * 2 + [sa_exc.IntegrityError] + [
        type(None)
    ] * 3 + [int]
    assert "UNIQUE" in str(results[2])
    assert [r.getMessage() for r in caplog.records] == ["journal_batch_failed"]
    assert getattr(caplog.records[0], "size", None) == 7
    # The batch, rolled back, then each write in its own savepoint of one transaction.
    assert _kinds(statements) == [
        "BEGIN",
        "INSERT",
        "ROLLBACK",
        "BEGIN",
        *["SAVEPOINT", "INSERT", "RELEASE"] * 2,
        *["SAVEPOINT", "INSERT", "ROLLBACK", "RELEASE"],
        *["SAVEPOINT", "INSERT", "RELEASE"] * 4,
        "COMMIT",
    ]
    stored = await _raw(env.path, "SELECT round_id, seq, seat FROM actions ORDER BY round_id")
    assert stored == [(first, 1, 0)] + [(r, 1, 0) for r in env.round_ids[1:6]]
    assert (await _raw(env.path, "SELECT id FROM rounds WHERE number = 99")) == [(results[-1],)]
    # It goes on.
    await journal.append_action(first, 2, 1, {}, None, "player")


async def test_stop_finishes_the_writes_submitted_before_it(env: Env) -> None:
    journal = Journal(env.db)
    journal.start()
    writes = [
        asyncio.create_task(journal.append_action(r, 1, 0, {}, None, "player"))
        for r in env.round_ids
    ]
    await asyncio.sleep(0)  # they are submitted; their flush is due at the next iteration
    assert not any(w.done() for w in writes)
    await journal.stop()
    assert all(w.done() and w.exception() is None for w in writes)
    assert (journal.batches, journal.writes) == (1, 20)
    with pytest.raises(JournalStopped):
        await journal.append_action(env.round_ids[0], 2, 0, {}, None, "player")
    assert (await _raw(env.path, "SELECT count(*) FROM actions"))[0] == (20,)


async def test_a_file_that_cannot_be_opened_fails_the_writes(env: Env, tmp_path: Path) -> None:
    journal = Journal(env.db)
    journal.start()
    writer = journal._writer
    assert writer is not None
    path, writer._path = writer._path, tmp_path / "missing" / "remi.sqlite3"
    try:
        results = await asyncio.gather(
            journal.append_action(env.round_ids[0], 1, 0, {}, None, "player"),
            journal.set_rack(env.room_id, 0, {"layout": [1]}),
            return_exceptions=True,
        )
        assert [type(r) for r in results] == [sa_exc.OperationalError] * 2
        assert "unable to open" in str(results[0])
        writer._path = path  # the next flush connects again
        await journal.append_action(env.round_ids[0], 1, 0, {}, None, "player")
    finally:
        await journal.stop()
    assert (await _raw(env.path, "SELECT count(*) FROM actions"))[0] == (1,)


async def test_an_engine_transaction_holding_the_lock_does_not_block_the_loop(
    env: Env, journal: Journal
) -> None:
    # The engine's transaction needs the loop to go on (every statement is an
    # await): a journal waiting for the lock on the loop would hang them both.
    seats = cast(Table, Seat.__table__)
    async with env.db.engine.begin() as conn:
        await conn.execute(
            update(seats).where(seats.c.room_id == env.room_id).values(rack={"engine": 1})
        )
        write = asyncio.create_task(
            journal.append_action(env.round_ids[0], 1, 0, {}, None, "player")
        )
        started = time.perf_counter()
        await asyncio.sleep(0.1)
        assert time.perf_counter() - started < 0.5
        assert not write.done()  # it waits for the lock, off the loop's back
        await conn.execute(
            update(seats).where(seats.c.room_id == env.room_id).values(rack={"engine": 2})
        )
    await asyncio.wait_for(write, 5)
    assert (await env.log.load(env.room_id)).seats[0].rack == {"engine": 2}
    assert (await _raw(env.path, "SELECT count(*) FROM actions"))[0] == (1,)


async def test_a_write_waits_at_most_busy_timeout_for_the_lock(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(env.db, busy_timeout=0.3)
    journal.start()
    gaps: list[float] = []

    async def ticker() -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            gaps.append(time.perf_counter() - t)

    ticking = asyncio.create_task(ticker())
    try:
        lock = sqlite3.connect(env.path, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        started = time.perf_counter()
        early = asyncio.create_task(
            journal.append_action(env.round_ids[0], 1, 0, {}, None, "player")
        )
        await asyncio.sleep(0.2)
        late = asyncio.create_task(
            journal.append_action(env.round_ids[1], 1, 0, {}, None, "player")
        )
        with pytest.raises(sa_exc.OperationalError, match="locked"):
            await early
        assert 0.3 <= time.perf_counter() - started < 1.5
        assert not late.done()  # it has waited less: it goes on waiting
        assert "journal_lock_timeout" in [r.getMessage() for r in caplog.records]
        lock.execute("COMMIT")
        lock.close()
        await asyncio.wait_for(late, 5)
    finally:
        ticking.cancel()
        await journal.stop()
    # The loop ran all along: the 5 ms sleeps were never held up by the lock.
    assert len(gaps) > 50
    assert max(gaps) < 0.1
    assert await _raw(env.path, "SELECT round_id FROM actions") == [(env.round_ids[1],)]


async def _max_wal_frames(env: Env, journal: Journal, seqs: range) -> int:
    """Write ``seqs`` actions into every round, one flush per seq; the WAL's largest size."""
    wal = env.path.with_name(env.path.name + "-wal")
    largest = 0
    for seq in seqs:
        await asyncio.gather(
            *(
                journal.append_action(r, seq, 0, {"seq": seq, "pad": "x" * 60}, None, "player")
                for r in env.round_ids
            )
        )
        largest = max(largest, wal.stat().st_size)
    return (largest - 32) // (4096 + 24)  # the WAL header, then frames of a page each


async def test_checkpoints_keep_the_wal_bounded(env: Env) -> None:
    # Without the checkpoint thread woken (and no autocheckpoint on the loop's
    # connection) the WAL grows with every commit...
    unbounded = Journal(env.db, checkpoint_rows=10**9)
    unbounded.start()
    grown = await _max_wal_frames(env, unbounded, range(1, 301))
    assert unbounded.checkpoints == (0, 0)
    await unbounded.stop()  # ... until the last checkpoint, which truncates it
    wal = env.path.with_name(env.path.name + "-wal")
    assert wal.stat().st_size == 0

    # With it: a passive checkpoint every 100 rows, a restart from 100 frames on, and
    # never more than 1000 rows written since the last restart (the loop waits).
    bounded = Journal(env.db, checkpoint_rows=100, checkpoint_frames=100, wal_limit_rows=1000)
    bounded.start()
    frames = await _max_wal_frames(env, bounded, range(301, 601))
    passive, restarts = bounded.checkpoints
    await bounded.stop()
    assert grown > 1000
    assert frames < grown / 3
    assert passive >= restarts > 0
    assert wal.stat().st_size == 0
    assert (await _raw(env.path, "SELECT count(*) FROM actions"))[0] == (600 * 20,)
    assert (await _raw(env.path, "PRAGMA integrity_check")) == [("ok",)]


async def test_writes_wait_when_a_reader_keeps_the_wal_from_restarting(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    journal = Journal(
        env.db, checkpoint_rows=20, checkpoint_frames=10, wal_limit_rows=100, busy_timeout=0.5
    )
    journal.start()
    reader = sqlite3.connect(env.path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM actions").fetchone()  # a snapshot, kept
        for seq in range(1, 6):  # 100 rows: up to the limit
            await asyncio.gather(
                *(journal.append_action(r, seq, 0, {}, None, "player") for r in env.round_ids)
            )
        started = time.perf_counter()
        with pytest.raises(sa_exc.OperationalError, match="WAL is full"):
            await journal.append_action(env.round_ids[0], 6, 0, {}, None, "player")
        assert time.perf_counter() - started >= 0.5
        assert "journal_wal_full" in [r.getMessage() for r in caplog.records]
        assert journal.checkpoints[1] == 0  # no restart could be made
        reader.execute("COMMIT")
        await asyncio.wait_for(journal.append_action(env.round_ids[0], 6, 0, {}, None, "bot"), 5)
        assert journal.checkpoints[1] > 0
    finally:
        reader.close()
        await journal.stop()
    assert (await _raw(env.path, "SELECT count(*) FROM actions"))[0] == (101,)


# ---------------------------------------------------------------------- bound values


def _processor(table: Any, column: str, db: Database) -> Any:
    dialect = db.engine.dialect
    return table.c[column].type.dialect_impl(dialect).bind_processor(dialect)


async def test_bound_json_is_sqlalchemys(env: Env) -> None:
    journal = Journal(env.db)
    process_action = _processor(Action.__table__, "action", env.db)
    process_rack = _processor(Seat.__table__, "rack", env.db)
    for value in VALUES:
        text = journal._bind_action(value)
        assert text == process_action(value) == process_rack(value) == journal._bind_rack(value)
        assert text == json_dumps(value)
        back = json.loads(text)
        assert back == (json.loads(json.dumps(value)))  # the value read back: json's
    assert journal._bind_rack(None) == "null"  # a None rack is JSON null, as the ORM stores it
    assert journal._bind_action(VALUES[1]) == (
        '{"name":"é\u2028ș\U0001f600","x":2.5,"tiny":1e-7,"big":1e+16,"neg":-0.0}'
    )


async def test_bound_json_falls_back_to_sqlalchemys_processor(env: Env) -> None:
    # An engine with another JSON serializer: the journal binds through its processor.
    env.db.engine.dialect._json_serializer = None  # type: ignore[attr-defined]
    journal = Journal(env.db)
    assert journal._bind_action(VALUES[0]) == json.dumps(VALUES[0])
    assert journal._bind_rack(None) == "null"


def test_timestamp_text_is_sqlalchemys_datetime() -> None:
    # The created_at column's processor: UTCDateTime, then SQLite's DATETIME.
    settings = base_settings(data_dir=Path("/nonexistent"), database_url="sqlite+aiosqlite://")
    db = Database(settings)
    process = _processor(Action.__table__, "created_at", db)
    rng = random.Random(7)
    last = 253_402_300_799  # 9999-12-31 23:59:59
    seconds = [0, 1, 59, 951_782_400, 951_868_799, 1_709_164_800, last]
    seconds += [rng.randrange(last) for _ in range(2000)]
    for s in seconds:
        for ns in (0, 999, 1000, 123_456_789, 999_999_999, rng.randrange(10**9)):
            instant = datetime.fromtimestamp(s, UTC).replace(microsecond=ns // 1000)
            assert timestamp_text(s * 10**9 + ns) == process(instant), (s, ns)
    now = time.time_ns()
    assert journal_module._now_text()[:16] == timestamp_text(now)[:16]


async def test_action_rows_are_the_same_as_gamelogs(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One instant for both clocks: the ORM's default (models.utcnow) and the journal's.
    frozen = datetime(2025, 3, 4, 5, 6, 7, 89, tzinfo=UTC)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:
            return frozen

    monkeypatch.setattr(models, "datetime", Frozen)
    monkeypatch.setattr(journal_module.time, "time_ns", lambda: 1_741_064_767_000_089_999)
    journal = Journal(env.db)
    journal.start()
    actions = [v for v in VALUES if isinstance(v, dict)]
    try:
        for seq, action in enumerate(actions, 1):
            await env.log.append_action(
                env.round_ids[0], seq, 1, action, client_seq=seq, source="bot"
            )
            await journal.append_action(env.round_ids[1], seq, 1, action, seq, "bot")
    finally:
        await journal.stop()
    columns = "seq, seat, action, typeof(action), client_seq, source, created_at"
    rows = {
        r: await _raw(env.path, f"SELECT {columns} FROM actions WHERE round_id = ? ORDER BY seq", r)
        for r in env.round_ids[:2]
    }
    assert rows[env.round_ids[0]] == rows[env.round_ids[1]]
    assert len(rows[env.round_ids[0]]) == len(actions)
    assert rows[env.round_ids[1]][0][-1] == "2025-03-04 05:06:07.000089"
    # ... and read back through the ORM alike.
    async with env.db.transaction() as session:
        stored = (await session.scalars(select(Action).order_by(Action.round_id, Action.seq))).all()
    by_round = {
        r: [
            (a.seq, a.action, a.client_seq, a.source, a.created_at)
            for a in stored
            if a.round_id == r
        ]
        for r in env.round_ids[:2]
    }
    assert by_round[env.round_ids[0]] == by_round[env.round_ids[1]]
    assert by_round[env.round_ids[1]][0][4] == frozen
