"""Arena: duplicate play between bots, through the engine.

    python -m server.bots.arena --variant remi45 --players 4 \\
        --bots hard,normal,easy,easy --deals 500 --seed 1

Duplicate play is the arena's only way to compare levels: deal ``d`` is dealt
from ``"{seed}/{d}"`` with first player ``d % players`` (A.1 rotation) and
played once for every distinct rotation of the line-up over the seats (with
``hard,normal,easy,easy`` four times: each level sits at every seat, before
and after every other), so the luck of the deal and of the seat cancels. A
level's result for a deal is the mean score of its seats over the
rotations; the margin between two levels is the per-deal difference of those
results, and means carry 95% confidence intervals over the deals (the
deals are independent, the rotations of one deal are not). Every bot is
created for the round with a seed derived from the deal, the rotation and its
seat, so a run is reproducible (and independent of ``--jobs``).

The arena runs the round with the engine's ``RoundState`` but gives each bot
only ``view_for(state, seat)``. It prints per line-up entry and per level the
mean round score, the win rate (a round's top score; ties share), the illegal
actions the engine refused (must be 0), the bots' fallback moves (planning
problems caught before reaching the engine), per-level decision times and
rounds per second, then the level-vs-level margins.

:func:`run_duplicate` also takes bot factories instead of level names
(``bench/duel.py`` compares parameter sets that way).

>>> r = run_arena("remi", 2, ["normal", "easy"], rounds=2, seed=5)
>>> r.deals, r.rounds, r.illegal
(2, 4, 0)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.bots import BOT_LEVELS, make_bot
from server.bots.bot import Bot
from server.rules.errors import RuleError
from server.rules.state import RoundOptions, new_round
from server.rules.variants import VARIANTS
from server.rules.views import view_for

MAX_ACTIONS = 6000  # per round; a round that long is a bug

Factory = Callable[[str], Bot]  # a bot from its seed


@dataclass
class ArenaResult:
    variant: str
    players: int
    bots: list[str]  # the line-up (labels), seat by seat in rotation 0
    deals: int = 0
    rounds: int = 0
    # Per deal: per line-up entry, its score averaged over the rotations played.
    entry_scores: list[list[float]] = field(default_factory=list)
    # Per deal: per line-up entry, its share of the rounds' wins (ties share).
    entry_wins: list[list[float]] = field(default_factory=list)
    illegal: int = 0
    fallbacks: int = 0
    errors: list[str] = field(default_factory=list)
    ended: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    decision_times: dict[str, list[float]] = field(default_factory=dict)  # wall clock
    decision_cpu: dict[str, list[float]] = field(default_factory=dict)  # CPU of this process

    def merge(self, other: ArenaResult) -> None:
        self.deals += other.deals
        self.rounds += other.rounds
        self.entry_scores.extend(other.entry_scores)
        self.entry_wins.extend(other.entry_wins)
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


def rotations(labels: Sequence[str]) -> list[int]:
    """The shifts k giving distinct seatings (seat i holds entry (i - k) mod n)."""
    n = len(labels)
    seen: set[tuple[str, ...]] = set()
    out: list[int] = []
    for k in range(n):
        seating = tuple(labels[(i - k) % n] for i in range(n))
        if seating not in seen:
            seen.add(seating)
            out.append(k)
    return out


def play_round(
    variant: str,
    factories: Sequence[Factory],
    labels: Sequence[str],
    seed: int | str,
    number: int,
    options: RoundOptions,
    result: ArenaResult,
    shift: int = 0,
) -> list[int] | None:
    """Deal ``number`` with entry ``(i - shift) % n`` at seat ``i``; scores per seat."""
    players = len(factories)
    entry = [(i - shift) % players for i in range(players)]
    state = new_round(variant, players, f"{seed}/{number}", first=number % players, options=options)
    seats = [factories[entry[i]](f"{seed}/{number}/{shift}/{i}") for i in range(players)]
    actions = 0
    while not state.over and actions < MAX_ACTIONS:
        seat = state.turn
        label = labels[entry[seat]]
        view = view_for(state, seat)
        c0 = time.process_time()
        t0 = time.perf_counter()
        action: dict[str, Any] = seats[seat].act(view)
        result.decision_times.setdefault(label, []).append(time.perf_counter() - t0)
        result.decision_cpu.setdefault(label, []).append(time.process_time() - c0)
        actions += 1
        try:
            state.apply(seat, action)
        except RuleError as err:
            result.illegal += 1
            result.errors.append(f"{variant} deal {number} seat {seat}: {err} {action}")
            fallback = (
                {"do": "draw"} if view.phase == "take" else {"do": "discard", "tile": view.hand[-1]}
            )
            state.apply(seat, fallback)
    if state.result is None:
        result.errors.append(f"{variant} deal {number}: no end after {actions} actions")
        return None
    for bot in seats:
        result.fallbacks += bot.fallbacks
        result.errors.extend(bot.errors[:3])
    result.rounds += 1
    result.ended[state.result.reason] = result.ended.get(state.result.reason, 0) + 1
    return list(state.result.scores)


def run_duplicate(
    variant: str,
    factories: Sequence[Factory],
    labels: Sequence[str],
    deals: int,
    seed: int | str,
    options: RoundOptions | None = None,
    start: int = 0,
) -> ArenaResult:
    """Play deals ``start .. start + deals - 1``, each in every distinct rotation."""
    options = options or RoundOptions()
    players = len(factories)
    result = ArenaResult(variant, players, list(labels))
    shifts = rotations(labels)
    t0 = time.perf_counter()
    for number in range(start, start + deals):
        sums = [0.0] * players
        wins = [0.0] * players
        played = 0
        for k in shifts:
            scores = play_round(variant, factories, labels, seed, number, options, result, k)
            if scores is None:
                continue
            played += 1
            top = max(scores)
            ties = sum(1 for x in scores if x == top)
            for i in range(players):
                e = (i - k) % players
                sums[e] += scores[i]
                if scores[i] == top:
                    wins[e] += 1.0 / ties
        if played:
            result.deals += 1
            result.entry_scores.append([x / played for x in sums])
            result.entry_wins.append([x / played for x in wins])
    result.seconds = time.perf_counter() - t0
    return result


def _level_factory(level: str) -> Factory:
    # No wall-clock limit: the hard level's work is its counts, so a run is reproducible
    # whatever the machine's load (bench/duel.py measures the level with its clock).
    return lambda seed: make_bot(level, seed=seed, time_limit=None)


def run_arena(
    variant: str,
    players: int,
    bots: Sequence[str],
    rounds: int,
    seed: int | str,
    options: RoundOptions | None = None,
    start: int = 0,
) -> ArenaResult:
    """``rounds`` deals of levels ``bots`` (one per seat), in this process."""
    if len(bots) != players:
        raise ValueError("one level per seat")
    return run_duplicate(
        variant, [_level_factory(b) for b in bots], bots, rounds, seed, options, start
    )


def _chunk(args: tuple[str, int, list[str], int, int | str, dict[str, Any], int]) -> ArenaResult:
    variant, players, bots, rounds, seed, opts, start = args
    return run_arena(variant, players, bots, rounds, seed, RoundOptions.from_dict(opts), start)


def run_parallel(
    variant: str,
    players: int,
    bots: Sequence[str],
    rounds: int,
    seed: int | str,
    options: RoundOptions,
    jobs: int,
) -> ArenaResult:
    """Split the deals over ``jobs`` processes (same results as one process)."""
    t0 = time.perf_counter()
    if jobs <= 1:
        result = run_arena(variant, players, bots, rounds, seed, options)
    else:
        import multiprocessing

        size = max(1, math.ceil(rounds / (jobs * 4)))
        tasks = [
            (variant, players, list(bots), min(size, rounds - s), seed, options.to_dict(), s)
            for s in range(0, rounds, size)
        ]
        result = ArenaResult(variant, players, list(bots))
        with multiprocessing.Pool(jobs) as pool:
            for part in pool.map(_chunk, tasks):
                result.merge(part)
    result.seconds = time.perf_counter() - t0
    return result


def margins(result: ArenaResult, order: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per pair of labels: the paired per-deal difference of their mean scores, with CI."""
    labels = list(dict.fromkeys(result.bots))
    if order is not None:
        labels = [lv for lv in order if lv in labels] + [lv for lv in labels if lv not in order]
    per_label = {lv: [i for i, b in enumerate(result.bots) if b == lv] for lv in labels}
    out = []
    for ia_, a in enumerate(labels):
        for b in labels[:ia_]:
            ia, ib = per_label[a], per_label[b]
            ds = [
                sum(r[i] for i in ia) / len(ia) - sum(r[i] for i in ib) / len(ib)
                for r in result.entry_scores
            ]
            m, h = mean_ci(ds)
            out.append({"a": a, "b": b, "margin": m, "ci95": h, "excludes_0": abs(m) > h})
    return out


def summary(result: ArenaResult) -> dict[str, Any]:
    """Per line-up entry and per level figures, and the paired margins between levels."""
    n = result.deals
    seats = []
    for i, level in enumerate(result.bots):
        m, h = mean_ci([r[i] for r in result.entry_scores])
        wins = sum(r[i] for r in result.entry_wins)
        seats.append(
            {"seat": i, "bot": level, "mean": m, "ci95": h, "win_rate": wins / n if n else 0.0}
        )
    times = {}
    for lv, ts in result.decision_times.items():
        cpu = result.decision_cpu.get(lv, [])
        times[lv] = {
            "p50_ms": percentile(ts, 0.5) * 1e3,
            "p99_ms": percentile(ts, 0.99) * 1e3,
            "max_ms": max(ts) * 1e3 if ts else 0.0,
            "decisions": len(ts),
            "cpu_p50_ms": percentile(cpu, 0.5) * 1e3,
            "cpu_p99_ms": percentile(cpu, 0.99) * 1e3,
            "cpu_max_ms": max(cpu) * 1e3 if cpu else 0.0,
        }
    return {
        "variant": result.variant,
        "players": result.players,
        "bots": result.bots,
        "deals": n,
        "rounds": result.rounds,
        "rotations": len(rotations(result.bots)),
        "seats": seats,
        "margins": margins(result, BOT_LEVELS),
        "illegal": result.illegal,
        "fallbacks": result.fallbacks,
        "ended": result.ended,
        "rounds_per_s": result.rounds / result.seconds if result.seconds else 0.0,
        "decision_times": times,
    }


def format_summary(s: dict[str, Any]) -> str:
    lines = [
        f"{s['variant']}: {s['players']} players, {s['deals']} deals x {s['rotations']} "
        f"rotations = {s['rounds']} rounds, {s['rounds_per_s']:.1f} rounds/s, "
        f"ended {s['ended']}"
    ]
    lines.append("entry  bot     mean score (95% CI, over deals)  win rate")
    for seat in s["seats"]:
        lines.append(
            f"{seat['seat']:>5}  {seat['bot']:<6} {seat['mean']:>9.1f} ± "
            f"{seat['ci95']:<8.1f}               {seat['win_rate']:.3f}"
        )
    lines.append(f"illegal actions: {s['illegal']}   bot fallbacks: {s['fallbacks']}")
    for lv, t in s["decision_times"].items():
        lines.append(
            f"decision time {lv}: p50 {t['p50_ms']:.1f} ms, p99 {t['p99_ms']:.1f} ms, "
            f"max {t['max_ms']:.1f} ms (CPU p50 {t['cpu_p50_ms']:.1f}, "
            f"p99 {t['cpu_p99_ms']:.1f}, max {t['cpu_max_ms']:.1f}) over "
            f"{t['decisions']} decisions"
        )
    for m in s["margins"]:
        lines.append(
            f"margin {m['a']} - {m['b']}: {m['margin']:+.1f} ± {m['ci95']:.1f} per round"
            f" (paired by deal){'' if m['excludes_0'] else '  (CI includes 0)'}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m server.bots.arena", description="Duplicate play between bots."
    )
    parser.add_argument("--variant", default="remi45", choices=sorted(VARIANTS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--bots",
        default="normal,easy,easy,easy",
        help="one level per seat, comma-separated (every rotation is played)",
    )
    parser.add_argument(
        "--deals",
        "--rounds",
        dest="deals",
        type=int,
        default=100,
        help="deals, each played in every rotation of the line-up",
    )
    parser.add_argument("--seed", default="1")
    parser.add_argument("--row-depth", type=int, default=None)
    parser.add_argument("--short-game", action="store_true")
    parser.add_argument(
        "--joker-button",
        type=int,
        default=0,
        metavar="CREDITS",
        help="101: turn the joker button on with this many credits per seat",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",")]
    if len(bots) != args.players:
        parser.error(f"--bots must name {args.players} levels")
    for b in bots:
        if b not in BOT_LEVELS:
            parser.error(f"unknown level {b!r}")
    options = RoundOptions(
        row_depth=args.row_depth,
        short_game=args.short_game,
        joker_button=args.joker_button > 0,
        joker_credits=(tuple([args.joker_button] * args.players) if args.joker_button else None),
    )
    result = run_parallel(
        args.variant, args.players, bots, args.deals, args.seed, options, args.jobs
    )
    s = summary(result)
    sys.stdout.write((json.dumps(s, indent=1) if args.json else format_summary(s)) + "\n")
    for e in result.errors[:10]:
        sys.stderr.write(f"  ! {e}\n")
    return 1 if result.illegal else 0


if __name__ == "__main__":
    sys.exit(main())
