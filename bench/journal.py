"""Micro benchmark of the journal on SQLite (not a test).

N asyncio tasks each append ``--writes`` actions one after the other (each
waits for its commit, like a room actor) to a fresh temporary SQLite file,
through the SQLAlchemy/aiosqlite path (``sqlite_inline=False``) and through the
journal's own SQLite connection. Prints per path: writes/s, commits (batches),
writes per commit, the process CPU time per write (every thread:
``time.process_time``), the event loop thread's CPU time per write
(``time.thread_time`` in the loop's thread: what a move costs the loop) and the
mean wait of a write.

``--root DIR`` measures the server code of another checkout instead (say a clone
of an older commit, to compare): its journal's own-connection path is the one
its ``Journal`` offers (``sqlite_inline`` or the older ``sqlite_thread``).

Usage: ``.venv/bin/python bench/journal.py --tasks 1 100 250 --writes 200 --repeat 3``
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _root() -> Path:
    """``--root``'s value (read before the server's modules are imported), else this tree."""
    for i, arg in enumerate(sys.argv):
        if arg == "--root" and i + 1 < len(sys.argv):
            return Path(sys.argv[i + 1]).resolve()
        if arg.startswith("--root="):
            return Path(arg.split("=", 1)[1]).resolve()
    return Path(__file__).resolve().parents[1]


ROOT = _root()
sys.path.insert(0, str(ROOT))

from server.identity import IdentityService  # noqa: E402
from server.rooms.journal import Journal  # noqa: E402
from server.rooms.options import RoomSettings  # noqa: E402
from server.rooms.service import RoomService  # noqa: E402
from server.settings import Settings  # noqa: E402
from server.storage.database import Database  # noqa: E402
from server.storage.gamelog import GameLog  # noqa: E402
from server.storage.migrate import migrate  # noqa: E402

ACTION = {"do": "meld", "tiles": [12, 13, 14, 15], "joker": None}

_PARAMS = inspect.signature(Journal).parameters
OWN = "sqlite_inline" if "sqlite_inline" in _PARAMS else "sqlite_thread"
"""The keyword of this ``Journal``'s own SQLite connection (a thread's, in older code)."""


async def run_once(tasks: int, writes: int, own: bool) -> dict[str, float]:
    """One measurement on a fresh database file."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            database_url="",
            redis_url=None,
            database_schema=None,
            log_format="text",
            log_level="WARNING",
        )
        db = Database(settings)
        try:
            await migrate(settings, db.engine)
            identity, rooms, gamelog = IdentityService(db), RoomService(db, settings), GameLog(db)
            owner, _ = await identity.create_player("Bench")
            room = await rooms.create_room(
                owner, RoomSettings(seats=2, fill_with_bots=True, variant="remi")
            )
            await rooms.start(room.id, owner)
            round_ids = [
                await gamelog.begin_round(room.id, n, "remi", "seed", 0, {})
                for n in range(1, tasks + 1)
            ]
            kwargs: dict[str, Any] = {OWN: own}
            journal = Journal(db, **kwargs)
            journal.start()
            waited = 0.0

            async def actor(round_id: int) -> None:
                nonlocal waited
                for seq in range(1, writes + 1):
                    t = time.perf_counter()
                    await journal.append_action(round_id, seq, seq % 2, ACTION, seq, "player")
                    waited += time.perf_counter() - t

            cpu, loop_cpu, wall = time.process_time(), time.thread_time(), time.perf_counter()
            await asyncio.gather(*(actor(r) for r in round_ids))
            wall = time.perf_counter() - wall
            loop_cpu = time.thread_time() - loop_cpu
            cpu = time.process_time() - cpu
            await journal.stop()
            n = journal.writes
            assert n == tasks * writes, (n, tasks * writes)
            return {
                "writes_per_s": n / wall,
                "batches": journal.batches,
                "per_batch": n / journal.batches,
                "cpu_us_per_write": cpu / n * 1e6,
                "loop_cpu_us_per_write": loop_cpu / n * 1e6,
                "wait_ms": waited / n * 1e3,
            }
        finally:
            await db.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[1, 100, 250])
    parser.add_argument("--writes", type=int, default=200, help="writes per task")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best is shown)")
    parser.add_argument("--root", help="the checkout whose server code is measured")
    parser.add_argument("--own-only", action="store_true", help="skip the SQLAlchemy path")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    out = sys.stdout
    own_name = "inline" if OWN == "sqlite_inline" else "thread"
    out.write(f"root: {ROOT}\n")
    out.write(
        f"{'tasks':>5} {'path':<10} {'writes/s':>9} {'commits':>8} {'w/commit':>8} "
        f"{'cpu us/w':>8} {'loop us/w':>9} {'wait ms':>8}\n"
    )
    for tasks in args.tasks:
        for own in (True,) if args.own_only else (False, True):
            runs = [await run_once(tasks, args.writes, own) for _ in range(args.repeat)]
            best = max(runs, key=lambda r: r["writes_per_s"])
            cpu = min(r["cpu_us_per_write"] for r in runs)
            loop_cpu = min(r["loop_cpu_us_per_write"] for r in runs)
            path = own_name if own else "sqlalchemy"
            out.write(
                f"{tasks:>5} {path:<10} {best['writes_per_s']:>9.0f} {best['batches']:>8.0f} "
                f"{best['per_batch']:>8.1f} {cpu:>8.1f} {loop_cpu:>9.1f} {best['wait_ms']:>8.3f}\n"
            )
            out.flush()


if __name__ == "__main__":
    asyncio.run(main())
