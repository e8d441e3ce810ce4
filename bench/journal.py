"""Benchmark of the journal's group commit on SQLite and PostgreSQL (not a test).

N asyncio tasks (room actors) each append ``--writes`` actions one after the
other, each waiting for its commit like an actor waits before its ack, to a fresh
database: a temporary SQLite file, or a fresh schema of the PostgreSQL database
at ``--pg`` (dropped afterwards). Prints per store and N: commits/s, writes/s,
writes per commit, the mean and p99 wait of a write (submit to commit), and the
process CPU time per write (every thread, aiosqlite's included).

Usage::

    .venv/bin/python bench/journal.py --tasks 1 10 100 --writes 300 --repeat 3
    .venv/bin/python bench/journal.py --stores sqlite --writers 1 2
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.accounts.identity import IdentityService
from server.rooms.journal import Journal
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate

ACTION = {"do": "meld", "tiles": [12, 13, 14, 15], "joker": None}
PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


async def run_once(settings: Settings, tasks: int, writes: int, writers: int) -> dict[str, float]:
    """One measurement on a fresh database."""
    db = Database(settings)
    try:
        await migrate(settings, db.engine)
        owner, _ = await IdentityService(db).create_player("Bench")
        rooms = RoomService(db, settings)
        room = await rooms.create_room(
            owner, RoomSettings(seats=2, fill_with_bots=True, variant="remi")
        )
        await rooms.start(room.id, owner)
        gamelog = GameLog(db)
        round_ids = [
            await gamelog.begin_round(room.id, n, "remi", "seed", 0, {})
            for n in range(1, tasks + 1)
        ]
        journal = Journal(db, writers=writers)
        journal.start()
        waits: list[float] = []

        async def actor(round_id: int) -> None:
            for seq in range(1, writes + 1):
                t = time.perf_counter()
                await journal.append_action(round_id, seq, seq % 2, ACTION, seq, "player")
                waits.append(time.perf_counter() - t)

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(actor(r) for r in round_ids))
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
        await journal.stop()
        n = journal.writes
        assert n == tasks * writes, (n, tasks * writes)
        waits.sort()
        return {
            "commits_per_s": journal.commits / wall,
            "writes_per_s": n / wall,
            "per_commit": n / journal.commits,
            "wait_ms": statistics.fmean(waits) * 1e3,
            "p99_ms": waits[min(len(waits) - 1, int(len(waits) * 0.99))] * 1e3,
            "cpu_us_per_write": cpu / n * 1e6,
        }
    finally:
        await db.dispose()


async def measure(
    store: str, pg_url: str, tasks: int, writes: int, writers: int
) -> dict[str, float]:
    common = {"redis_url": None, "log_format": "text", "log_level": "WARNING"}
    if store == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(data_dir=Path(tmp), database_url="", database_schema=None, **common)
            return await run_once(settings, tasks, writes, writers)
    schema = f"bench_{secrets.token_hex(4)}"
    settings = Settings(database_url=pg_url, database_schema=schema, **common)
    try:
        return await run_once(settings, tasks, writes, writers)
    finally:
        dsn = pg_url.replace("postgresql+asyncpg://", "postgresql://", 1)
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--writes", type=int, default=300, help="writes per task")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best is shown)")
    parser.add_argument("--stores", nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--writers", type=int, nargs="+", default=[1], help="Journal(writers=)")
    parser.add_argument("--pg", default=PG_URL, help="PostgreSQL URL (asyncpg)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    out = sys.stdout
    out.write(
        f"{'store':<8} {'writers':>7} {'tasks':>5} {'commits/s':>9} {'writes/s':>9} "
        f"{'w/commit':>8} {'wait ms':>8} {'p99 ms':>7} {'cpu us/w':>8}\n"
    )
    for store in args.stores:
        for writers in args.writers:
            for tasks in args.tasks:
                runs = [
                    await measure(store, args.pg, tasks, args.writes, writers)
                    for _ in range(args.repeat)
                ]
                best = max(runs, key=lambda r: r["writes_per_s"])
                out.write(
                    f"{store:<8} {writers:>7} {tasks:>5} {best['commits_per_s']:>9.0f} "
                    f"{best['writes_per_s']:>9.0f} {best['per_commit']:>8.1f} "
                    f"{best['wait_ms']:>8.2f} {best['p99_ms']:>7.2f} "
                    f"{best['cpu_us_per_write']:>8.0f}\n"
                )
                out.flush()


if __name__ == "__main__":
    asyncio.run(main())
