"""Bot decision times as the offline practice sees them (web/scripts/bench-offline.mjs).

Seeded rounds where every seat is a bot of one level; each decision (``bot.act`` on
the seat's view) is timed with the ``clock`` the caller gives (the worker passes the
browser's ``performance.now``), so this module reads no clock itself.

>>> ticks = iter(range(10_000))
>>> times = decision_times("remi", 2, "easy", 5, clock=lambda: float(next(ticks)))
>>> len(times), set(times)
(5, {1.0})
"""

from __future__ import annotations

from collections.abc import Callable

from server.bots import make_bot
from server.bots.legal import fallback_action
from server.rules import RuleError, new_round, view_for


def decision_times(
    variant: str,
    players: int,
    level: str,
    decisions: int,
    clock: Callable[[], float],
    seed: str = "bench",
) -> list[float]:
    """``decisions`` timings (in the clock's unit) of ``level`` bots playing ``variant``."""
    out: list[float] = []
    game = 0
    while len(out) < decisions:
        state = new_round(variant, players, f"{seed}/{game}", game % players)
        bots = [make_bot(level, f"{seed}/{game}/{s}") for s in range(players)]
        while not state.over and len(out) < decisions and len(state.log) < 2000:
            seat = state.turn
            view = view_for(state, seat)
            start = clock()
            action = bots[seat].act(view)
            out.append(clock() - start)
            try:
                state.apply(seat, action)
            except RuleError:
                state.apply(seat, fallback_action(view))
        game += 1
    return out
