"""Duplicate head-to-head between two bot settings (for tuning; not a test).

    .venv/bin/python bench/duel.py remi45 4 300 '{"base": "hard"}' '{"base": "normal"}'
    .venv/bin/python bench/duel.py remi45 4 300 \\
        '{"base": "normal", "params": {"take_row": false}}' '{"base": "normal"}'

Duplicate play through :func:`server.bots.arena.run_duplicate`, in one
process: each deal ``{seed}/{r}`` (seed ``duel`` unless a sixth argument
gives one) is played with seats X, Y, X, Y and then Y, X, Y, X (2 players:
X, Y then Y, X); the deal's value is the mean score of X's seats minus Y's,
averaged over the two plays, which cancels most of the luck of the deal.
``params`` override fields of the level's
:class:`server.bots.planner.Params`; ``"time_limit": S`` gives a hard setting a wall
clock of S seconds a decision (what ``make_bot`` gives the hard level; without it the
work is counted only, reproducible whatever the load). Bases: easy, normal, hard,
hard_value (the hard level's search with the learned evaluation as its leaf) and
normal_value (the normal level choosing its discard by the learned evaluation). Prints
the mean margin with its 95% CI, the CPU and wall-clock p99 and maximum of each side's
decisions.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import EASY, HARD, HARD_VALUE, NORMAL
from server.bots.arena import margins, percentile, rotations, run_duplicate
from server.bots.bot import Bot, EasyBot, NormalBot
from server.bots.hard import HardBot

BASES = {
    "easy": (EASY, EasyBot),
    "normal": (NORMAL, NormalBot),
    "hard": (HARD, HardBot),
    "hard_value": (HARD_VALUE, HardBot),
    "normal_value": (replace(NORMAL, value_discard=5), HardBot),
}


def make(setting: dict[str, Any], seed: str) -> Bot:
    params, cls = BASES[setting["base"]]
    params = replace(params, **setting.get("params", {}))
    if cls is HardBot:
        return HardBot(params, seed, time_limit=setting.get("time_limit"), clock=time.perf_counter)
    return cls(params, seed)


def main() -> int:
    if len(sys.argv) not in (6, 7):
        print(__doc__)
        return 2
    variant, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    x, y = json.loads(sys.argv[4]), json.loads(sys.argv[5])
    seed = sys.argv[6] if len(sys.argv) == 7 else "duel"
    labels = ["X" if i % 2 == 0 else "Y" for i in range(players)]
    factories = [(lambda s, c=(x if lb == "X" else y): make(c, s)) for lb in labels]
    result = run_duplicate(variant, factories, labels, n, seed)
    (m,) = margins(result, ["Y", "X"])
    cpu = {k: percentile(v, 0.99) * 1e3 for k, v in result.decision_cpu.items()}
    cpu_max = {k: max(v) * 1e3 for k, v in result.decision_cpu.items()}
    wall = {k: percentile(v, 0.99) * 1e3 for k, v in result.decision_times.items()}
    wall_max = {k: max(v) * 1e3 for k, v in result.decision_times.items()}
    print(
        f"{variant}, {players} players, {result.deals} deals x {len(rotations(labels))} "
        f"rotations: X - Y = {m['margin']:+.1f} ± {m['ci95']:.1f} per round "
        f"({result.seconds:.0f} s; illegal {result.illegal}, fallbacks {result.fallbacks}; "
        f"CPU p99 / max ms X {cpu.get('X', 0):.1f} / {cpu_max.get('X', 0):.1f} "
        f"Y {cpu.get('Y', 0):.1f} / {cpu_max.get('Y', 0):.1f}; wall p99 / max ms "
        f"X {wall.get('X', 0):.1f} / {wall_max.get('X', 0):.1f} "
        f"Y {wall.get('Y', 0):.1f} / {wall_max.get('Y', 0):.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
