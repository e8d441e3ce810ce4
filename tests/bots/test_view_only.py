"""Bots decide from the seat's view only: shuffling what the seat cannot see changes nothing.

At many decision points of seeded rounds the hidden tiles (the other hands and
the stock) are shuffled among themselves, sizes kept; the seat's view stays the
same, and a copy of the bot (same memory, same random state) must return the
same action on the shuffled round as the bot does on the real one. For the hard
level this covers its sampled play-outs: they are drawn from the view, not the
round; with the learned evaluation as their leaf, it covers the evaluation's
inputs too, which are also compared directly (every feature, the shuffled round
against the real one).
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace

import pytest

from server.bots import HARD, HARD_VALUE, make_bot
from server.bots.bot import Bot
from server.bots.hard import HardBot
from server.bots.value import features
from server.rules.state import RoundState, new_round
from server.rules.views import view_for


def shuffled_hidden(state: RoundState, seat: int, rng: random.Random) -> RoundState:
    other = copy.deepcopy(state)
    pool: list[int] = list(other.stock)
    for i, hand in enumerate(other.hands):
        if i != seat:
            pool.extend(hand)
    rng.shuffle(pool)
    pos = 0
    for i, hand in enumerate(other.hands):
        if i != seat:
            other.hands[i] = pool[pos : pos + len(hand)]
            pos += len(hand)
    other.stock = pool[pos:]
    return other


# The learned leaf with few play-outs (the test's time), at every decision.
SMALL_VALUE = replace(HARD_VALUE, rollouts=6, rollouts_a=6)


def _bot(level: str, seed: str) -> Bot:
    if level == "hard_value":
        return HardBot(SMALL_VALUE, seed)
    return make_bot(level, seed=seed, time_limit=None)


@pytest.mark.volume
@pytest.mark.parametrize("hard", ["hard", "hard_value"])
@pytest.mark.parametrize("variant", ["remi45", "remi101"])
def test_decision_ignores_hidden_tiles(variant: str, hard: str) -> None:
    rng = random.Random(4)
    checked = 0
    for r in range(2):
        state = new_round(variant, 3, f"hidden/{r}", first=r % 3)
        bots = [_bot(level, f"h/{r}/{i}") for i, level in enumerate((hard, "normal", hard))]
        steps = 0
        while not state.over and steps < 400:
            seat = state.turn
            view = view_for(state, seat)
            probe = steps % 5 == 0 or state.stock_count <= HARD.rollout_stock
            twin = copy.deepcopy(bots[seat]) if probe else None
            action = bots[seat].act(view)
            if twin is not None:
                other = shuffled_hidden(state, seat, rng)
                other_view = view_for(other, seat)
                assert other_view.to_dict() == view.to_dict()
                if state.phase == "take":
                    assert features(other_view) == features(view)
                assert twin.act(other_view) == action
                checked += 1
            state.apply(seat, action)
            steps += 1
    assert checked >= (20 if hard == "hard" else 8)
