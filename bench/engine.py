"""Rule-engine benchmark (not a test): prints figures for docs/benchmarks.md.

    .venv/bin/python bench/engine.py [--rounds N] [--variants remi45,remi101] [--quick]

Two figures, single process (one core):

1. Validated actions per second. Random legal 4-player rounds are recorded
   first (:mod:`server.rules.playout`); then fresh states are built from
   their deals and only ``state.apply(seat, action)`` is timed over the
   recorded streams, the actions given as JSON dicts the way a client sends
   them (mostly draws and discards, with lay-offs, lays and takes). The mix is
   printed.
2. Complete random-legal 4-player rounds per second for each variant: deal,
   play to the end with the playout (its own time included), score.

Each rate is given per wall-clock second and per CPU second of this process
(``time.process_time``); on a shared machine the second one is the fairer
per-core figure.

Targets: >= 20,000 actions/s and >= 100 rounds/s per core.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.rules import VARIANTS, RoundOptions, RoundState, get_variant, new_round
from server.rules.playout import play_round

PLAYERS = 4
ACTIONS_TARGET = 20_000
ROUNDS_TARGET = 100


def record(variant: str, rounds: int, seed: int) -> list[tuple[RoundState, list[Any]]]:
    """Play ``rounds`` random rounds; (dealt state, recorded log) pairs."""
    out = []
    for i in range(rounds):
        state = new_round(variant, PLAYERS, f"bench-{seed}-{i}", first=i % PLAYERS)
        play_round(state, random.Random(seed * 100_003 + i))
        out.append((state, list(state.log)))
    return out


def actions_per_second(variants: list[str], rounds: int, repeats: int) -> None:
    recorded = {v: record(v, rounds, 1) for v in variants}
    mix: Counter[str] = Counter(
        a["do"] for rs in recorded.values() for _, log in rs for _, a in log
    )
    total = sum(mix.values())
    print(
        f"action mix ({total} actions): "
        + ", ".join(f"{k} {100 * n / total:.1f}%" for k, n in mix.most_common())
    )
    sum_wall = sum_cpu = 0.0
    for variant, rs in recorded.items():
        best_wall = best_cpu = 0.0
        for _ in range(repeats):
            states = [RoundState(s.variant, s.players, s.deal, s.options) for s, _ in rs]
            n = sum(len(log) for _, log in rs)
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            for state, (_, log) in zip(states, rs, strict=True):
                apply = state.apply
                for seat, action in log:
                    apply(seat, action)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            best_wall, best_cpu = max(best_wall, n / dt), max(best_cpu, n / dc)
        sum_wall += best_wall
        sum_cpu += best_cpu
        print(
            f"  {variant:16s} {best_wall:10,.0f} validated actions/s wall, "
            f"{best_cpu:10,.0f} per CPU second"
        )
    k = len(recorded)
    print(
        f"  {'mean':16s} {sum_wall / k:10,.0f} validated actions/s wall, "
        f"{sum_cpu / k:10,.0f} per CPU second (target >= {ACTIONS_TARGET:,})"
    )


def rounds_per_second(variants: list[str], seconds: float) -> None:
    for variant in variants:
        v = get_variant(variant)
        options = RoundOptions()
        n = actions = 0
        reasons: Counter[str] = Counter()
        rng = random.Random(7)
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        while True:
            state = new_round(v, PLAYERS, f"round-{n}", first=n % PLAYERS, options=options)
            stats = play_round(state, rng)
            result = state.result
            assert result is not None and stats.fallbacks == 0
            reasons[result.reason] += 1
            actions += stats.actions
            n += 1
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
        dc = time.process_time() - c0
        print(
            f"  {variant:16s} {n / dt:6,.0f} rounds/s wall, {n / dc:6,.0f} per CPU second "
            f"({n} rounds, {actions / n:.0f} actions/round, out {reasons['out']}, "
            f"stock {reasons['stock']})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--rounds", type=int, default=200, help="recorded rounds per variant")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per variant, rounds/s")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small numbers, for a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.repeats = 20, 0.3, 1
    variants = [v for v in args.variants.split(",") if v]
    print(
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.machine()}, one process, {PLAYERS} players"
    )
    print("1. validated actions per second (state.apply on recorded streams)")
    actions_per_second(variants, args.rounds, args.repeats)
    print(
        f"2. complete random-legal rounds per second (deal + play + score; "
        f"target >= {ROUNDS_TARGET})"
    )
    rounds_per_second(variants, args.seconds)


if __name__ == "__main__":
    main()
