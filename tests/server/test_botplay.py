"""Bots as the room actor runs them: the bots' thread keeps the event loop free."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from wsharness import FAST, play_until, running_server

from server.rooms.botplay import Bot, BotThread, FallbackBot
from server.rules import new_round, view_for
from server.rules.views import SeatView
from server.settings import Settings


class SlowBot:
    """Searches for ``seconds`` (the GIL released, as a long search lets the loop run
    every switch interval), then answers as the fallback bot; notes its thread."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.threads: list[str] = []

    def act(self, view: SeatView) -> dict[str, Any]:
        self.threads.append(threading.current_thread().name)
        time.sleep(self.seconds)
        return FallbackBot().act(view)


class BrokenBot:
    def act(self, view: SeatView) -> dict[str, Any]:
        raise RuntimeError("no move")


async def _ticks_during(bots: BotThread, bot: Bot) -> tuple[int, dict[str, Any] | None]:
    """How many 10 ms ticks another task of the loop made while ``bot`` searched."""
    view = view_for(new_round("remi", players=2, seed=1), 0)
    ticks = 0
    searching = True

    async def ticker() -> None:
        nonlocal ticks
        while searching:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)  # the ticker is waiting on its first sleep
    choice = await bots.choose(bot, view)
    searching = False
    await task
    return ticks, choice


async def test_a_search_in_the_bots_thread_leaves_the_loop_free() -> None:
    bots, bot = BotThread(), SlowBot(0.3)
    try:
        ticks, choice = await _ticks_during(bots, bot)
    finally:
        bots.close()
    assert choice is not None and choice["do"] == "discard"
    assert bot.threads[0].startswith("remi-bots")
    assert ticks >= 10  # 30 possible: the loop went on while the bot searched


async def test_an_inline_search_holds_the_loop() -> None:
    bot = SlowBot(0.3)
    ticks, choice = await _ticks_during(BotThread(inline=True), bot)
    assert choice is not None and bot.threads == [threading.current_thread().name]
    assert ticks <= 1  # nothing else ran during the search


async def test_a_failing_bot_gives_no_choice() -> None:
    bots = BotThread()
    view = view_for(new_round("remi", players=2, seed=1), 0)
    try:
        assert await bots.choose(BrokenBot(), view) is None
        bots.close()
        # A closed thread starts again at the next search.
        assert (await bots.choose(FallbackBot(), view) or {}).get("do") == "discard"
    finally:
        bots.close()


class RecordingBots(BotThread):
    """The server's bot thread, noting where each bot's search ran."""

    def __init__(self, inline: bool) -> None:
        super().__init__(inline)
        self.threads: list[str] = []

    async def choose(self, bot: Bot, view: SeatView) -> dict[str, Any] | None:
        recorder = self

        class Noting:
            def act(self, v: SeatView) -> dict[str, Any]:
                recorder.threads.append(threading.current_thread().name)
                return bot.act(v)

        return await super().choose(Noting(), view)


async def _bot_threads_of_a_round(settings: Settings, in_thread: bool) -> list[str]:
    async with running_server(settings, {**FAST, "bots_in_thread": in_thread}) as srv:
        recording = RecordingBots(inline=not in_thread)
        srv.live.ctx.bots = recording
        _, ana = await srv.player("Ana")
        room = await srv.room(
            ana,
            variant="remi",
            seats=2,
            fill_with_bots=True,
            bot_level="normal",
            end={"kind": "rounds", "rounds": 1},
            turn_seconds=15,
        )
        a = await srv.client(ana, room)
        await a.hello()
        await srv.start(ana, room)
        await play_until(a, lambda: a.status == "finished")
        await a.close()
        return recording.threads


async def test_the_room_bots_search_in_their_thread(settings: Settings) -> None:
    threads = await _bot_threads_of_a_round(settings, in_thread=True)
    assert threads and all(name.startswith("remi-bots") for name in threads)


async def test_the_room_bots_search_on_the_loop_when_told(settings: Settings) -> None:
    threads = await _bot_threads_of_a_round(settings, in_thread=False)
    assert threads and set(threads) == {threading.current_thread().name}
