"""A room waiting for its bot's decision still answers: the search is a request the
room core makes and its decision an input that comes back later, so hellos, queries and
timers are served meanwhile, and a decision made for a room that has moved on is
dropped (a new one is asked for)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from wsharness import FAST, running_server, simple_move

from server.rooms.botplay import Bot, BotRunner, FallbackBot
from server.rooms.core.clock import Now
from server.rooms.core.config import Pacing, RoomConfig
from server.rooms.core.messages import (
    AppendAction,
    BotDecision,
    BotRequest,
    NewSeed,
    Restored,
    Seat,
)
from server.rooms.core.room import RoomCore, run_now
from server.rules.views import SeatView
from server.settings import Settings


class GatedBots(BotRunner):
    """The server's bot runner, each search held until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__("loop")
        self.gate = asyncio.Event()
        self.asked: list[int] = []
        """The seat of each search asked for."""
        self.new = asyncio.Event()

    async def choose(self, bot: Bot, view: SeatView) -> tuple[dict[str, Any] | None, Bot]:
        self.asked.append(view.seat)
        self.new.set()
        await self.gate.wait()
        return await super().choose(bot, view)

    async def searches(self, n: int, timeout: float = 20.0) -> None:
        """Wait until ``n`` searches have been asked for."""
        end = time.monotonic() + timeout
        while len(self.asked) < n:
            assert time.monotonic() < end, f"{len(self.asked)} searches asked, not {n}"
            self.new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.new.wait(), end - time.monotonic())


async def test_a_room_waiting_for_its_bot_answers_hellos_queries_and_timers(
    settings: Settings,
) -> None:
    live = {**FAST, "reconnect_grace_seconds": 0.3, "bot_searches": "loop"}
    async with running_server(settings, live) as srv:
        bots = GatedBots()
        srv.live.ctx.bots = bots
        _, ana = await srv.player("Ana")
        _, bob = await srv.player("Bob")
        room = await srv.room(
            ana,
            variant="remi",
            seats=3,
            fill_with_bots=True,
            bot_level="easy",
            turn_seconds=60,
            end={"kind": "rounds", "rounds": 1},
        )
        await srv.sit(bob, room, 2)  # the bot takes seat 1, between Ana and Bob
        a = await srv.client(ana, room)
        b = await srv.client(bob, room)
        await a.hello()
        await b.hello()
        await srv.start(ana, room)
        await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
        await a.wait(lambda m: a.my_turn(), since=0)
        while a.my_turn():  # Ana's first turn (the dealer starts in the build phase)
            assert a.view is not None
            assert (await a.act(simple_move(a.view)))["type"] == "ack"
        assert a.view is not None and a.view["turn"] == 1
        await bots.searches(1)  # the bot is searching, and will until the gate opens

        # A new connection is answered.
        again = await srv.client(ana, room)
        snap = await again.hello()
        assert snap["type"] == "snapshot" and snap["view"]["turn"] == 1
        # A query is answered.
        await a.send({"type": "query", "seq": 99, "query": "arrange"})
        await a.wait(lambda m: m["type"] == "query_result" and m["seq"] == 99, timeout=30)
        # A timer fires: Bob's connection drops, and after the reconnect grace he is away.
        await b.close()
        away = await a.wait(
            lambda m: (
                m["type"] == "event"
                and m["event"]["do"] == "presence"
                and m["event"]["seat"] == 2
                and m["event"]["away"]
            )
        )
        # The room moved on (a new version): the bot's decision is asked for again.
        await bots.searches(2)
        assert not [m for m in a.frames if m["type"] == "event" and m["event"].get("seat") == 1], (
            "the bot moved before its search answered"
        )

        bots.gate.set()
        await a.wait(lambda m: a.my_turn(), timeout=30)
        moves = [
            m["event"]["do"]
            for m in a.frames
            if m["type"] == "event"
            and m["version"] > away["version"]
            and m["event"].get("seat") == 1
        ]
        # One draw, one discard: the decision asked before Bob went away was dropped.
        assert moves == ["draw", "discard"], moves
        await a.close()
        await again.close()


def _answer(effect: object) -> object:
    """The records kept nowhere: a move is stored, a seed is a fixed text."""
    if isinstance(effect, AppendAction):
        return "ok"
    if isinstance(effect, NewSeed):
        return "seed"
    return None


def _core() -> RoomCore:
    """A two-bot room whose first round is dealt."""
    core = RoomCore(
        RoomConfig("r", "remi", 2, turn_seconds=60.0, plays_to_the_end=True),
        Pacing(bot_delay=0.0, round_pause=0.0),
    )
    core.tell_time(Now(0.0, 0.0))
    core.restore(Restored("playing", 0, (Seat(0, None, None, "easy"), Seat(1, None, None, "easy"))))
    run_now(core.run_due(), _answer)  # the deal
    core.take()
    return core


def test_a_decision_for_a_room_that_moved_on_is_dropped() -> None:
    core = _core()
    run_now(core.run_due(), _answer)
    asks = [o for o in core.take() if isinstance(o, BotRequest)]
    assert len(asks) == 1
    ask = asks[0]
    # While the decision is awaited nothing more is asked, and nothing is due.
    run_now(core.run_due(), _answer)
    assert not core.did and not core.take()
    assert core.next_wakeup() is None
    # A decision for an older version is dropped: nothing is played.
    before = core.version
    stale = BotDecision(ask.seat, ask.version - 1, ask.bot, {"do": "draw"}, ask.bot)
    run_now(core.handle(stale), _answer)
    assert core.version == before and core.round is not None and not core.round.log
    # The decision for the room as it is plays.
    run_now(core.handle(BotDecision(ask.seat, ask.version, ask.bot, None, FallbackBot())), _answer)
    assert core.round is not None
    assert core.version == before + 1 and len(core.round.log) == 1
    assert isinstance(core.bots[ask.seat], FallbackBot)  # the bot that came back is kept
    # The same decision again (a late duplicate) is dropped too.
    run_now(core.handle(BotDecision(ask.seat, ask.version, ask.bot, None, ask.bot)), _answer)
    assert core.version == before + 1 and len(core.round.log) == 1
