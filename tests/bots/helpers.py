"""Helpers for the bot tests: play seeded rounds through the engine."""

from __future__ import annotations

from typing import Any

from server.bots import make_bot
from server.bots.bot import Bot
from server.rules.state import RoundOptions, RoundState, new_round
from server.rules.views import view_for

MAX_TURN_ACTIONS = 80


def play_round(
    variant: str,
    levels: list[str],
    seed: str,
    first: int = 0,
    options: RoundOptions | None = None,
    bots: list[Bot] | None = None,
) -> tuple[RoundState, list[Bot]]:
    """One round with one bot per seat; fails on any refused action or runaway turn."""
    state = new_round(variant, players=len(levels), seed=seed, first=first, options=options)
    if bots is None:
        # No wall clock: the rounds replay exactly whatever the machine's load.
        bots = [
            make_bot(level, seed=f"{seed}/{i}", time_limit=None) for i, level in enumerate(levels)
        ]
    actions = 0
    turn_actions = 0
    last_seat = -1
    while not state.over:
        seat = state.turn
        if seat != last_seat:
            turn_actions = 0
            last_seat = seat
        view = view_for(state, seat)
        action: dict[str, Any] = bots[seat].act(view)
        state.apply(seat, action)  # raises RuleError on an illegal action
        actions += 1
        turn_actions += 1
        assert turn_actions <= MAX_TURN_ACTIONS, "a turn did not end with a discard"
        assert actions < 5000
    return state, bots
