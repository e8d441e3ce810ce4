"""Arena: seeded rounds between bots, through the engine.

    python -m server.bots.arena --variant remi45 --players 4 \\
        --bots hard,normal,easy,easy --rounds 2000 --seed 1

Round ``r`` is dealt from ``"{seed}/{r}"`` with first player ``r % players``
(A.1 rotation); every bot is created for the round with a seed derived from
the same numbers, so a run is reproducible (and independent of ``--jobs``).
The arena runs the round with the engine's ``RoundState`` but gives each bot
only ``view_for(state, seat)``. It prints per seat the mean round score with
a 95% confidence interval, the win rate (a round's top score; ties share),
the illegal actions the engine refused (must be 0), the bots' fallback moves
(planning problems caught before reaching the engine), per-level decision
times and rounds per second, then the level-vs-level margins (per round: the
mean score of one level's seats minus the other's, with a 95% CI).

>>> r = run_arena("remi", 2, ["normal", "easy"], rounds=2, seed=5)
>>> r.rounds, r.illegal
(2, 0)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.bots import BOT_LEVELS, make_bot
from server.rules.errors import RuleError
from server.rules.state import RoundOptions, new_round
from server.rules.variants import VARIANTS
from server.rules.views import view_for

MAX_ACTIONS = 6000  # per round; a round that long is a bug


@dataclass
class ArenaResult:
    variant: str
    players: int
    bots: list[str]
    rounds: int = 0
    scores: list[list[int]] = field(default_factory=list)  # per round, per seat
    illegal: int = 0
    fallbacks: int = 0
    errors: list[str] = field(default_factory=list)
    ended: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    decision_times: dict[str, list[float]] = field(default_factory=dict)  # wall clock
    decision_cpu: dict[str, list[float]] = field(default_factory=dict)  # CPU of this process

    def merge(self, other: ArenaResult) -> None:
        self.rounds += other.rounds
        self.scores.extend(other.scores)
        self.illegal += other.illegal
        self.fallbacks += other.fallbacks
        self.errors.extend(other.errors[:20])
        for k, v in other.ended.items():
            self.ended[k] = self.ended.get(k, 0) + v
        for k, ts in other.decision_times.items():
            self.decision_times.setdefault(k, []).extend(ts)
        for k, ts in other.decision_cpu.items():
            self.decision_cpu.setdefault(k, []).extend(ts)


def mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    if n < 2:
        return m, float("inf")
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def percentile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def play_round(variant: str, bots: Sequence[str], seed: int | str, number: int,
               options: RoundOptions, result: ArenaResult) -> None:
    players = len(bots)
    state = new_round(variant, players, f"{seed}/{number}", first=number % players,
                      options=options)
    seats = [make_bot(level, seed=f"{seed}/{number}/{i}") for i, level in enumerate(bots)]
    actions = 0
    while not state.over and actions < MAX_ACTIONS:
        seat = state.turn
        view = view_for(state, seat)
        c0 = time.process_time()
        t0 = time.perf_counter()
        action: dict[str, Any] = seats[seat].act(view)
        result.decision_times.setdefault(bots[seat], []).append(time.perf_counter() - t0)
        result.decision_cpu.setdefault(bots[seat], []).append(time.process_time() - c0)
        actions += 1
        try:
            state.apply(seat, action)
        except RuleError as err:
            result.illegal += 1
            result.errors.append(f"{variant} round {number} seat {seat}: {err} {action}")
            fallback = {"do": "draw"} if view.phase == "take" else {
                "do": "discard", "tile": view.hand[-1]}
            state.apply(seat, fallback)
    if state.result is None:
        result.errors.append(f"{variant} round {number}: no end after {actions} actions")
        return
    for bot in seats:
        result.fallbacks += bot.fallbacks
        result.errors.extend(bot.errors[:3])
    result.rounds += 1
    result.scores.append(list(state.result.scores))
    result.ended[state.result.reason] = result.ended.get(state.result.reason, 0) + 1


def run_arena(variant: str, players: int, bots: Sequence[str], rounds: int, seed: int | str,
              options: RoundOptions | None = None, start: int = 0) -> ArenaResult:
    """Play rounds ``start .. start + rounds - 1`` in this process."""
    options = options or RoundOptions()
    result = ArenaResult(variant, players, list(bots))
    t0 = time.perf_counter()
    for number in range(start, start + rounds):
        play_round(variant, bots, seed, number, options, result)
    result.seconds = time.perf_counter() - t0
    return result


def _chunk(args: tuple[str, int, list[str], int, int | str, dict[str, Any], int]) -> ArenaResult:
    variant, players, bots, rounds, seed, opts, start = args
    return run_arena(variant, players, bots, rounds, seed, RoundOptions.from_dict(opts), start)


def run_parallel(variant: str, players: int, bots: Sequence[str], rounds: int,
                 seed: int | str, options: RoundOptions, jobs: int) -> ArenaResult:
    """Split the rounds over ``jobs`` processes (same results as one process)."""
    t0 = time.perf_counter()
    if jobs <= 1:
        result = run_arena(variant, players, bots, rounds, seed, options)
    else:
        import multiprocessing

        size = max(1, math.ceil(rounds / (jobs * 4)))
        tasks = [(variant, players, list(bots), min(size, rounds - s), seed, options.to_dict(), s)
                 for s in range(0, rounds, size)]
        result = ArenaResult(variant, players, list(bots))
        with multiprocessing.Pool(jobs) as pool:
            for part in pool.map(_chunk, tasks):
                result.merge(part)
    result.seconds = time.perf_counter() - t0
    return result


def summary(result: ArenaResult) -> dict[str, Any]:
    """Per seat and per level figures, and the margins between levels."""
    n = result.rounds
    seats = []
    for i, level in enumerate(result.bots):
        xs = [float(r[i]) for r in result.scores]
        m, h = mean_ci(xs)
        wins = 0.0
        for r in result.scores:
            top = max(r)
            if r[i] == top:
                wins += 1.0 / sum(1 for x in r if x == top)
        seats.append({"seat": i, "bot": level, "mean": m, "ci95": h,
                      "win_rate": wins / n if n else 0.0})
    levels = [lv for lv in BOT_LEVELS if lv in result.bots]
    margins = []
    for a in levels:
        for b in levels:
            if BOT_LEVELS.index(a) <= BOT_LEVELS.index(b):
                continue
            ia = [i for i, lv in enumerate(result.bots) if lv == a]
            ib = [i for i, lv in enumerate(result.bots) if lv == b]
            ds = [sum(r[i] for i in ia) / len(ia) - sum(r[i] for i in ib) / len(ib)
                  for r in result.scores]
            m, h = mean_ci(ds)
            margins.append({"a": a, "b": b, "margin": m, "ci95": h,
                            "excludes_0": abs(m) > h})
    times = {}
    for lv, ts in result.decision_times.items():
        cpu = result.decision_cpu.get(lv, [])
        times[lv] = {"p50_ms": percentile(ts, 0.5) * 1e3, "p99_ms": percentile(ts, 0.99) * 1e3,
                     "max_ms": max(ts) * 1e3 if ts else 0.0, "decisions": len(ts),
                     "cpu_p50_ms": percentile(cpu, 0.5) * 1e3,
                     "cpu_p99_ms": percentile(cpu, 0.99) * 1e3,
                     "cpu_max_ms": max(cpu) * 1e3 if cpu else 0.0}
    return {"variant": result.variant, "players": result.players, "bots": result.bots,
            "rounds": n, "seats": seats, "margins": margins, "illegal": result.illegal,
            "fallbacks": result.fallbacks, "ended": result.ended,
            "rounds_per_s": n / result.seconds if result.seconds else 0.0,
            "decision_times": times}


def format_summary(s: dict[str, Any]) -> str:
    lines = [f"{s['variant']}: {s['players']} players, {s['rounds']} rounds, "
             f"{s['rounds_per_s']:.1f} rounds/s, ended {s['ended']}"]
    lines.append("seat  bot     mean score (95% CI)       win rate")
    for seat in s["seats"]:
        lines.append(f"{seat['seat']:>4}  {seat['bot']:<6} {seat['mean']:>9.1f} ± "
                     f"{seat['ci95']:<8.1f}        {seat['win_rate']:.3f}")
    lines.append(f"illegal actions: {s['illegal']}   bot fallbacks: {s['fallbacks']}")
    for lv, t in s["decision_times"].items():
        lines.append(f"decision time {lv}: p50 {t['p50_ms']:.1f} ms, p99 {t['p99_ms']:.1f} ms, "
                     f"max {t['max_ms']:.1f} ms (CPU p50 {t['cpu_p50_ms']:.1f}, "
                     f"p99 {t['cpu_p99_ms']:.1f}, max {t['cpu_max_ms']:.1f}) over "
                     f"{t['decisions']} decisions")
    for m in s["margins"]:
        lines.append(f"margin {m['a']} - {m['b']}: {m['margin']:+.1f} ± {m['ci95']:.1f} per round"
                     f"{'' if m['excludes_0'] else '  (CI includes 0)'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.bots.arena",
                                     description="Seeded rounds between bots.")
    parser.add_argument("--variant", default="remi45", choices=sorted(VARIANTS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default="normal,easy,easy,easy",
                        help="one level per seat, comma-separated")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--row-depth", type=int, default=None)
    parser.add_argument("--short-game", action="store_true")
    parser.add_argument("--joker-button", type=int, default=0, metavar="CREDITS",
                        help="101: turn the joker button on with this many credits per seat")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",")]
    if len(bots) != args.players:
        parser.error(f"--bots must name {args.players} levels")
    for b in bots:
        if b not in BOT_LEVELS:
            parser.error(f"unknown level {b!r}")
    options = RoundOptions(row_depth=args.row_depth, short_game=args.short_game,
                           joker_button=args.joker_button > 0,
                           joker_credits=(tuple([args.joker_button] * args.players)
                                          if args.joker_button else None))
    result = run_parallel(args.variant, args.players, bots, args.rounds, args.seed, options,
                          args.jobs)
    s = summary(result)
    print(json.dumps(s, indent=1) if args.json else format_summary(s))
    for e in result.errors[:10]:
        print("  !", e, file=sys.stderr)
    return 1 if result.illegal else 0


if __name__ == "__main__":
    sys.exit(main())
