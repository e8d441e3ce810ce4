"""Duplicate head-to-head between two bot settings (for tuning; not a test).

    .venv/bin/python bench/duel.py remi45 4 300 '{"base": "hard"}' '{"base": "normal"}'
    .venv/bin/python bench/duel.py remi45 4 300 \\
        '{"base": "normal", "params": {"take_row": false}}' '{"base": "normal"}'

Each deal ``duel/{r}`` is played twice with seats X, Y, X, Y and then Y, X,
Y, X (2 players: X, Y then Y, X); the round's value is the mean score of X's
seats minus Y's, averaged over the two plays, which cancels most of the luck
of the deal. ``params`` override fields of the level's
:class:`server.bots.planner.Params`. Prints the mean margin with its 95% CI.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import EASY, HARD, NORMAL
from server.bots.bot import Bot, EasyBot, NormalBot
from server.bots.hard import HardBot
from server.rules.state import new_round
from server.rules.views import view_for

BASES = {"easy": (EASY, EasyBot), "normal": (NORMAL, NormalBot), "hard": (HARD, HardBot)}


def make(setting: dict[str, Any], seed: str) -> Bot:
    params, cls = BASES[setting["base"]]
    return cls(replace(params, **setting.get("params", {})), seed)


def play(
    variant: str, players: int, first: dict[str, Any], second: dict[str, Any], r: int
) -> float:
    settings = [first if i % 2 == 0 else second for i in range(players)]
    state = new_round(variant, players, f"duel/{r}", first=r % players)
    bots = [make(s, f"{r}/{i}") for i, s in enumerate(settings)]
    while not state.over:
        seat = state.turn
        state.apply(seat, bots[seat].act(view_for(state, seat)))
    assert state.result is not None
    scores = state.result.scores
    xs = [scores[i] for i in range(players) if i % 2 == 0]
    ys = [scores[i] for i in range(players) if i % 2 == 1]
    return sum(xs) / len(xs) - sum(ys) / len(ys)


def deal(args: tuple[str, int, dict[str, Any], dict[str, Any], int]) -> float:
    variant, players, x, y, r = args
    return (play(variant, players, x, y, r) - play(variant, players, y, x, r)) / 2


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    variant, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    x, y = json.loads(sys.argv[4]), json.loads(sys.argv[5])
    t0 = time.perf_counter()
    with multiprocessing.Pool(2) as pool:
        ds = pool.map(deal, [(variant, players, x, y, r) for r in range(n)], chunksize=4)
    m = sum(ds) / n
    sd = math.sqrt(sum((d - m) ** 2 for d in ds) / (n - 1))
    print(
        f"{variant}, {players} players, {n} deals x 2: X - Y = {m:+.1f} ± "
        f"{1.96 * sd / math.sqrt(n):.1f} per round ({time.perf_counter() - t0:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
