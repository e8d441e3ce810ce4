"""Bots as the room actor runs them: searches away from the event loop."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any

import pytest
from wsharness import FAST, play_until, running_server

from server.rooms.botplay import Bot, BotRunner, FallbackBot
from server.rules import new_round, view_for
from server.rules.views import SeatView
from server.settings import Settings


class SlowBot:
    """Searches for ``seconds`` of CPU, then answers as the fallback bot; notes the
    process and thread it ran in (a worker process sends the bot back: its notes too)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.where: list[tuple[int, str]] = []
        self.searches = 0

    def act(self, view: SeatView) -> dict[str, Any]:
        self.where.append((os.getpid(), threading.current_thread().name))
        self.searches += 1
        end = time.process_time() + self.seconds
        while time.process_time() < end:
            pass
        return FallbackBot().act(view)


class BrokenBot:
    def act(self, view: SeatView) -> dict[str, Any]:
        raise RuntimeError("no move")


async def _ticks_during(bots: BotRunner, bot: Bot) -> tuple[int, dict[str, Any] | None, Bot]:
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
    choice, searched = await bots.choose(bot, view)
    searching = False
    await task
    return ticks, choice, searched


async def test_a_search_in_the_worker_process_leaves_the_loop_free() -> None:
    bots, bot = BotRunner("process"), SlowBot(0.3)
    try:
        await bots.choose(bot, view_for(new_round("remi", players=2, seed=1), 0))  # start it
        ticks, choice, searched = await _ticks_during(bots, bot)
    finally:
        bots.close()
    assert choice is not None and choice["do"] == "discard"
    assert bot.where == [] and bot.searches == 0  # the copies searched, not this one
    assert isinstance(searched, SlowBot) and searched.searches == 1
    assert searched.where[0][0] != os.getpid()
    # ~30 possible; 1 is the tick after the search (see the loop case): the loop ran on.
    assert ticks >= 3


async def test_a_search_in_the_bots_thread_shares_the_interpreter() -> None:
    bots, bot = BotRunner("thread"), SlowBot(0.3)
    try:
        ticks, choice, searched = await _ticks_during(bots, bot)
    finally:
        bots.close()
    assert choice is not None and searched is bot and bot.searches == 1
    assert bot.where[0] == (os.getpid(), bot.where[0][1])
    assert bot.where[0][1].startswith("remi-bots")
    assert ticks >= 3  # the loop gets the interpreter back every switch interval


async def test_a_search_on_the_loop_holds_it() -> None:
    bot = SlowBot(0.3)
    ticks, choice, searched = await _ticks_during(BotRunner("loop"), bot)
    assert choice is not None and searched is bot
    assert bot.where == [(os.getpid(), threading.current_thread().name)]
    assert ticks == 1  # only the tick after the search: nothing ran during it


async def test_a_failing_bot_gives_no_choice() -> None:
    view = view_for(new_round("remi", players=2, seed=1), 0)
    for where in ("process", "thread", "loop"):
        bots = BotRunner(where)
        try:
            choice, _ = await bots.choose(BrokenBot(), view)
            assert choice is None
            bots.close()
            # A closed runner starts its worker again at the next search.
            choice, _ = await bots.choose(FallbackBot(), view)
            assert choice is not None and choice["do"] == "discard"
        finally:
            bots.close()


async def test_a_lost_worker_process_is_replaced() -> None:
    bots = BotRunner("process")
    view = view_for(new_round("remi", players=2, seed=1), 0)
    try:
        choice, _ = await bots.choose(Exiting(), view)  # kills its worker process
        assert choice is not None and choice["do"] == "discard"  # searched on the loop
        choice, searched = await bots.choose(SlowBot(0), view)  # a new worker
        assert choice is not None and isinstance(searched, SlowBot)
        assert searched.where[0][0] != os.getpid()
    finally:
        bots.close()


async def test_a_bot_that_cannot_be_pickled_searches_on_the_loop() -> None:
    bots = BotRunner("process")
    bot = SlowBot(0)
    bot.hook = lambda: None  # type: ignore[attr-defined]  # pickle refuses a lambda
    try:
        choice, searched = await bots.choose(bot, view_for(new_round("remi", 2, seed=1), 0))
    finally:
        bots.close()
    assert choice is not None and searched is bot
    assert bot.where == [(os.getpid(), threading.current_thread().name)]


class Exiting:
    """In a worker process, ends it; on the loop, answers as the fallback bot."""

    def __init__(self) -> None:
        self.pid = os.getpid()

    def act(self, view: SeatView) -> dict[str, Any]:
        if os.getpid() != self.pid:
            os._exit(3)
        return FallbackBot().act(view)


def test_an_unknown_place_is_refused() -> None:
    with pytest.raises(ValueError, match="process, thread, loop"):
        BotRunner("gpu")


class RecordingBots(BotRunner):
    """The server's bot runner, noting the process and thread of each bot's search."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.seen: list[tuple[int, str]] = []

    async def choose(self, bot: Bot, view: SeatView) -> tuple[dict[str, Any] | None, Bot]:
        choice, searched = await super().choose(Noting(bot), view)
        assert isinstance(searched, Noting)
        self.seen += searched.where
        return choice, searched.bot


class Noting:
    """A bot that notes where it searched, then asks ``bot``."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.where: list[tuple[int, str]] = []

    def act(self, view: SeatView) -> dict[str, Any]:
        self.where.append((os.getpid(), threading.current_thread().name))
        return self.bot.act(view)


async def _bot_searches_of_a_round(settings: Settings, where: str) -> list[tuple[int, str]]:
    async with running_server(settings, {**FAST, "bot_searches": where}) as srv:
        assert srv.live.ctx.bots.where == where  # from the settings
        recording = RecordingBots(where)
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
        return recording.seen


async def test_the_room_bots_search_in_the_worker_process(settings: Settings) -> None:
    where = await _bot_searches_of_a_round(settings, "process")
    assert where and {pid for pid, _ in where} != {os.getpid()}
    assert os.getpid() not in {pid for pid, _ in where}
    assert len({pid for pid, _ in where}) == 1  # one worker for the whole round


async def test_the_room_bots_search_on_the_loop_when_told(settings: Settings) -> None:
    where = await _bot_searches_of_a_round(settings, "loop")
    assert where and set(where) == {(os.getpid(), threading.current_thread().name)}
