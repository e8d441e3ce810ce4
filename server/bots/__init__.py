"""Bots for every variant, playing from a seat's view only (RULES.md §D).

Standard library only (they also run in the browser under Pyodide)::

    from server.bots import make_bot, BOT_LEVELS
    bot = make_bot("normal", seed=123)      # deterministic given the seed
    action = bot.act(view)                  # view = view_for(state, seat), on the seat's turn

``act`` returns one action dict in the engine's JSON form; a turn ends with
a discard after a bounded number of actions.

>>> from server.rules.state import new_round
>>> from server.rules.views import view_for
>>> state = new_round("remi45", players=2, seed=9)
>>> bots = [make_bot(level, seed=i) for i, level in enumerate(("easy", "normal"))]
>>> while not state.over and len(state.log) < 400:
...     seat = state.turn
...     _ = state.apply(seat, bots[seat].act(view_for(state, seat)))
>>> state.over
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from server.bots.bot import Bot, EasyBot, NormalBot
from server.bots.hard import HardBot
from server.bots.legal import fallback_action
from server.bots.planner import Params

BOT_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")

EASY = Params(
    node_limit=80,
    take_row=False,
    deep_takes=False,
    buy_jokers=False,
    use_atu=False,
    joker_button=False,
    danger=False,
    potential=False,
    greedy_discard=True,
)
NORMAL = Params()
HARD = Params(
    draw_samples=10,
    discard_candidates=3,
    opp_samples=12,
    stock_aware=True,
    small_hand_take_cost=15.0,
    joker_close=40.0,
    rollouts=12,
    rollout_stock=6,
    rollout_nodes=1000,
    rollouts_a=12,
    rollout_gate_a=0.5,
)
# The hard level's search with the learned evaluation as its leaf (server.bots.value):
# short play-outs (one round of the table) at every take and discard of every variant.
HARD_VALUE = replace(
    HARD, value_leaf=True, rollouts=36, rollout_stock=200, rollout_gate=0.5, rollouts_a=36
)

HARD_TIME_LIMIT = 0.4
"""Seconds of wall clock a hard decision's sampling and search may take: they stop
before a round of play-outs that would end past it, and drop a play-out under way when it
passes, so the decision stays under 0.5 s with room for the rest of the turn's work."""


def make_bot(
    level: str,
    seed: int | str | None = None,
    time_limit: float | None = HARD_TIME_LIMIT,
    clock: Callable[[], float] | None = None,
) -> Bot:
    """A bot of ``level`` (one of :data:`BOT_LEVELS`), deterministic given ``seed``.

    The hard level's decisions stop within ``time_limit`` seconds read on ``clock`` (the
    caller's, e.g. ``time.perf_counter``: the bots never read a clock of their own); with
    no clock or no limit they are bounded by counts only and reproducible."""
    if level == "easy":
        return EasyBot(EASY, seed)
    if level == "normal":
        return NormalBot(NORMAL, seed)
    if level == "hard":
        return HardBot(HARD, seed, time_limit=time_limit, clock=clock)
    raise ValueError(f"unknown bot level {level!r}; one of {', '.join(BOT_LEVELS)}")


__all__ = ["BOT_LEVELS", "Bot", "fallback_action", "make_bot"]
