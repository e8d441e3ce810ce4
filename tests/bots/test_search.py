"""The hard level's search: sampled worlds match the view, work is counted, not timed."""

from __future__ import annotations

import random

from server.bots import HARD, make_bot
from server.bots.hard import HardBot
from server.bots.rollout import sample_world
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
