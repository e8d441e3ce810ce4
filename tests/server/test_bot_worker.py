"""A bot never blocks its room.

* The bots' worker starts with the server, before the playing rooms are restored (its
  start-up, seconds on a loaded machine, runs beside the restores, not after the first
  bot's turn).
* The worker process is light to start: the module multiprocessing's ``spawn`` imports
  first in it (the server's CLI) imports neither the web framework nor the database, so
  the worker runs its parent's watch within a moment and dies with its parent.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from wsharness import FAST, running_server

from server.rooms.actor import RoomActor
from server.rooms.botplay import BotRunner
from server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


async def test_the_worker_starts_before_the_rooms_are_restored(settings: Settings) -> None:
    live_settings = {**FAST, "bot_searches": "process", "idle_actor_seconds": 30.0}
    async with running_server(settings, live_settings) as srv:
        _, ana = await srv.player("Ana")
        room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True, turn_seconds=60)
        a = await srv.client(ana, room)
        await a.hello()
        await srv.start(ana, room)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        await a.close()

    order: list[str] = []
    start_bots, start_actor = BotRunner.start, RoomActor.start

    def bots(runner: BotRunner) -> None:
        order.append("bots")
        start_bots(runner)

    def actor(a: RoomActor) -> None:
        order.append(f"room {a.room_id}")
        start_actor(a)

    BotRunner.start = bots  # type: ignore[method-assign]
    RoomActor.start = actor  # type: ignore[method-assign]
    try:
        async with running_server(settings, live_settings) as srv:
            assert order[:2] == ["bots", f"room {room}"], order  # the worker first
            assert room in srv.live.actors
            runner = srv.live.ctx.bots
            assert runner.ready is not None
            worker = await asyncio.wait_for(runner.ready, 60)
            assert worker != os.getpid()
    finally:
        BotRunner.start, RoomActor.start = start_bots, start_actor  # type: ignore[method-assign]


def test_the_cli_module_the_worker_imports_first_is_light() -> None:
    probe = (
        "import json, sys; import server.cli, server.rooms.botplay; "
        "print(json.dumps(sorted(m for m in ('fastapi', 'sqlalchemy', 'uvicorn', "
        "'starlette', 'redis', 'asyncpg') if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    assert json.loads(out) == []
