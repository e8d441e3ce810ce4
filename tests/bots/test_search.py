"""The hard level's search: sampled worlds match the view, work is counted, not timed."""

from __future__ import annotations

import random
import time

import pytest

from server.bots import HARD, HARD_TIME_LIMIT, HARD_VALUE, make_bot
from server.bots.hard import HardBot
from server.bots.rollout import gated, sample_world
from server.rules.state import new_round
from server.rules.views import view_for


def _late_round(variant: str, players: int, seed: str, stock: int):  # type: ignore[no-untyped-def]
    state = new_round(variant, players, seed)
    bots = [make_bot("normal", seed=f"{seed}/{i}") for i in range(players)]
    while not state.over and state.stock_count > stock:
        s = state.turn
        state.apply(s, bots[s].act(view_for(state, s)))
    return state


def test_sampled_world_shows_the_same_view() -> None:
    for variant, stock in (("remi45", 56), ("remi101", 30)):
        state = _late_round(variant, 3, f"w/{variant}", stock)
        assert not state.over
        seat = state.turn
        view = view_for(state, seat)
        rng = random.Random(1)
        for _ in range(5):
            world = sample_world(view, set(), rng)
            assert view_for(world, seat).to_dict() == view.to_dict()
            assert len(world.stock) == state.stock_count
            where = world.tile_locations()
            assert sorted(where) == sorted(state.tile_locations())  # every tile once


def test_search_is_deterministic_and_budgeted() -> None:
    """The end of a 101 round played twice by hard bots gives the same actions; a caller's
    cap (a clock outside tests, a count here) is asked between samples and cuts them."""
    logs = []
    for _ in range(2):
        state = _late_round("remi101", 4, "budget", HARD.rollout_stock + 4)
        bots = [HardBot(HARD, seed=f"b/{i}") for i in range(4)]
        while not state.over:
            s = state.turn
            state.apply(s, bots[s].act(view_for(state, s)))
        logs.append(state.log)
        assert sum(b.searches for b in bots) > 0
        assert all(b.errors == [] and b.fallbacks == 0 for b in bots)
    assert logs[0] == logs[1]
    calls: list[int] = []

    def stop() -> bool:
        calls.append(1)
        return True

    state = _late_round("remi101", 4, "budget", HARD.rollout_stock + 4)
    bots = [HardBot(HARD, seed=f"b/{i}", stop=stop) for i in range(4)]
    while not state.over:
        s = state.turn
        state.apply(s, bots[s].act(view_for(state, s)))
    searches = sum(b.searches for b in bots)
    assert searches > 0 and len(calls) == searches  # one sample each, then the cap


def test_the_gate_keeps_the_policys_choice_unless_another_is_surely_better() -> None:
    # Better by 10 on every sampled deal: chosen.
    assert gated([[0.0, 5.0, -3.0, 2.0], [10.0, 15.0, 7.0, 12.0]], 1.0) == 1
    # Better on average, but by less than a standard error of the differences: kept.
    assert gated([[0.0, 0.0, 0.0, 0.0], [40.0, -35.0, 30.0, -25.0]], 1.0) == 0
    # Worse: kept.
    assert gated([[5.0, 5.0, 5.0], [1.0, 2.0, 3.0]], 1.0) == 0
    # Of two that pass, the one whose lower bound is higher.
    assert gated([[0.0, 0.0, 0.0], [5.0, 6.0, 7.0], [20.0, 21.0, 19.0]], 1.0) == 2
    # A candidate missing a deal (refused there) is never chosen.
    assert gated([[0.0, 0.0, 0.0], [50.0, 50.0]], 1.0) == 0


def test_the_hard_bot_searches_every_family_a_round() -> None:
    """In family A the stock never runs low (a round lasts a few turns), so the search
    runs at the takes and discards of the whole round (``rollouts_a``)."""
    state = new_round("remi45", 4, "a-search")
    bots = [
        HardBot(HARD, seed=f"a/{i}") if i % 2 == 0 else make_bot("normal", seed=f"a/{i}")
        for i in range(4)
    ]
    while not state.over:
        s = state.turn
        state.apply(s, bots[s].act(view_for(state, s)))
    assert state.result is not None
    hard = [b for b in bots if isinstance(b, HardBot)]
    assert sum(b.searches for b in hard) > 0
    assert all(b.errors == [] and b.fallbacks == 0 for b in bots)


@pytest.mark.parametrize("variant", ["remi45", "remi101"])
def test_a_wall_clock_cuts_the_search_and_the_play_stays_legal(variant: str) -> None:
    """With a clock that moves 0.3 s a reading, a hard bot with a 0.4 s limit stops its
    sampling and search early (a play-out under way is dropped) and still plays legally;
    without a limit nothing is cut."""
    ticks = [0.0]

    def clock() -> float:
        ticks[0] += 0.3
        return ticks[0]

    for limit, params in ((0.4, HARD), (0.4, HARD_VALUE), (None, HARD)):
        state = _late_round(variant, 4, f"clock/{variant}", 30 if variant == "remi101" else 80)
        bots = [HardBot(params, seed=f"c/{i}", time_limit=limit, clock=clock) for i in range(4)]
        while not state.over:
            s = state.turn
            state.apply(s, bots[s].act(view_for(state, s)))
        assert all(b.errors == [] and b.fallbacks == 0 for b in bots)
        cut = sum(b.cut for b in bots)
        assert (cut > 0) if limit is not None else (cut == 0)


def test_make_bot_gives_the_hard_level_its_clock() -> None:
    bot = make_bot("hard", seed=1, clock=time.perf_counter)
    assert isinstance(bot, HardBot) and bot.time_limit == HARD_TIME_LIMIT < 0.5
    assert bot.clock is time.perf_counter
    pure = make_bot("hard", seed=1)  # no clock given: counts only, never the time
    assert isinstance(pure, HardBot) and pure.clock is None
    free = make_bot("hard", seed=1, time_limit=None)
    assert isinstance(free, HardBot) and free.time_limit is None
