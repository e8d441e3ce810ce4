"""The engine's SQLite connections: WAL, ``synchronous=NORMAL``, foreign keys, BEGIN IMMEDIATE."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

from conftest import base_settings
from sqlalchemy import text

from server.settings import Settings
from server.storage.database import Database


async def test_sqlite_connections_use_wal_without_a_sync_per_commit(tmp_path: Path) -> None:
    db = Database(base_settings(data_dir=tmp_path, database_url=""))
    try:
        async with db.engine.connect() as conn:
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar()
            synchronous = (await conn.execute(text("PRAGMA synchronous"))).scalar()
            foreign_keys = (await conn.execute(text("PRAGMA foreign_keys"))).scalar()
        assert (mode, synchronous, foreign_keys) == ("wal", 1, 1)  # 1: NORMAL; 1: on
    finally:
        await db.dispose()


async def test_sqlite_transactions_take_the_write_lock_at_begin(tmp_path: Path) -> None:
    db = Database(base_settings(data_dir=tmp_path, database_url=""))
    try:
        async with db.engine.begin() as conn:
            await conn.execute(text("SELECT 1"))  # a read only: the lock is taken already
            other = sqlite3.connect(tmp_path / "remi.sqlite3", timeout=0)
            try:
                try:
                    other.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    refused = str(exc)
                else:
                    other.execute("ROLLBACK")
                    refused = ""
            finally:
                other.close()
        assert "locked" in refused
    finally:
        await db.dispose()


async def test_a_failed_statement_never_shows_its_parameters(settings: Settings) -> None:
    """A statement's parameters hold a round's seed, secret until the round is over
    (docs/fairness.md): an error's text (logged by the journal) names none of them."""
    from sqlalchemy.exc import DBAPIError

    seed = "0123456789abcdef0123456789abcdef"
    db = Database(settings)
    try:
        async with db.engine.connect() as conn:
            try:
                await conn.execute(
                    text("INSERT INTO no_such_table (seed) VALUES (:seed)"), {"seed": seed}
                )
            except DBAPIError as exc:
                told = f"{exc} {exc!r}"
            else:
                raise AssertionError("the insert did not fail")
        assert "no_such_table" in told and seed not in told
        assert "hidden" in told
    finally:
        await db.dispose()


SLOW_QUERY = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000000) "
    "SELECT count(*) FROM n"
)
"""A statement SQLite takes about a second over: a task is cancelled while it runs."""


async def test_a_query_cancelled_twice_leaves_no_task_behind(tmp_path: Path) -> None:
    """A request cancelled in the middle of a statement, then cancelled again while the
    connection is being closed (a server stopping, ``asyncio.run`` cancelling every task
    at its end): no closing task is left waiting for ever. With aiosqlite 0.22 such a task
    waited for a worker thread that had already stopped, and the event loop's end hung on
    it (pyproject.toml pins aiosqlite below 0.22)."""
    db = Database(base_settings(data_dir=tmp_path, database_url=""))
    before = asyncio.all_tasks()

    async def request() -> None:
        async with db.engine.connect() as conn:
            await conn.execute(text(SLOW_QUERY))

    task = asyncio.create_task(request())
    await asyncio.sleep(0.3)  # the statement runs
    task.cancel()
    await asyncio.sleep(0.05)  # the connection is being closed
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 30)
    await db.dispose()
    # The closing task may wait for the statement to end (SQLite's thread runs it to its
    # end), on a busy machine for several seconds; never for ever.
    left = asyncio.all_tasks() - before - {asyncio.current_task()}
    if left:
        _, pending = await asyncio.wait(left, timeout=60)
        assert not pending, f"tasks left waiting: {pending}"
