"""Meld solver benchmark: time per solve on 14-15 and 21-22 tile hands.

    .venv/bin/python bench/solver.py [--n 2000] [--seed 1]

Two kinds of hands:

* ``deal``: fresh random hands (family A 14/15 tiles from remi45 and etalat,
  family B 21/22 tiles from remi101), solved both as an unopened seat (the
  opening rules: threshold and run, or 101 points / 5 doubles) and as an
  opened seat; family A with the atu.
* ``game``: the exact solver problems the normal bot poses while playing
  seeded 4-player rounds (normal against easy): mid-round hands of those
  sizes with the real table for lay-offs, the atu, taken row tiles, etc.
* ``jokers``: deals with two jokers forced in (the hardest case).

Each solve is timed with ``time.perf_counter`` (wall) and
``time.process_time`` (CPU of this process: the machine may be shared).
Targets: p50 <= 2 ms and p99 <= 20 ms per solve.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import make_bot
from server.bots import planner as planner_mod
from server.bots.solver import Spec, solve, spec_for
from server.rules.melds import DOUBLE, RUN, SET
from server.rules.state import new_round
from server.rules.tiles import face_of
from server.rules.variants import get_variant
from server.rules.views import view_for

Problem = tuple[list[int], Spec]


def deal_problems(n: int, seed: int, jokers: int = 0) -> dict[str, list[Problem]]:
    rng = random.Random(seed)
    out: dict[str, list[Problem]] = {"A 14-15": [], "B 21-22": []}
    for i in range(n):
        family_b = i % 2 == 1
        size = rng.choice((21, 22) if family_b else (14, 15))
        ids = [t for t in range(104)]
        rng.shuffle(ids)
        hand = [face_of(t) for t in ids[: size - jokers]] + [52] * jokers
        atu = face_of(ids[size])
        opened = rng.random() < 0.5
        if family_b:
            v = get_variant("remi101")
            if opened:
                spec = spec_for(v, True, kinds=frozenset({SET, RUN}), out_bonus=131.0)
            elif rng.random() < 0.5:
                spec = spec_for(v, False, kinds=frozenset({SET, RUN}), threshold=101)
            else:
                spec = spec_for(
                    v, False, kinds=frozenset({DOUBLE}), opening_kind="doubles", doubles_needed=5
                )
            out["B 21-22"].append((hand, spec))
        else:
            v = get_variant(rng.choice(("remi45", "etalat")))
            spec = spec_for(v, opened, atu_face=atu, out_bonus=80.0, out_bonus_joker=130.0)
            out["A 14-15"].append((hand, spec))
    return out


def game_problems(n: int, seed: int) -> dict[str, list[Problem]]:
    """Record the solver calls the normal bot makes in real rounds."""
    recorded: list[Problem] = []
    real_solve = planner_mod.solve

    def recording(hand: list[int], spec: Spec) -> object:
        recorded.append((list(hand), spec))
        return real_solve(hand, spec)

    planner_mod.solve = recording  # type: ignore[assignment]
    out: dict[str, list[Problem]] = {"A 14-15": [], "B 21-22": []}
    try:
        r = 0
        while min(len(v) for v in out.values()) < n and r < 5000:
            variant = ("remi45", "etalat", "remi101", "remi51", "remi101-rising")[r % 5]
            state = new_round(variant, 4, f"bench/{seed}/{r}", first=r % 4)
            bots = [
                make_bot("normal" if s == 0 else "easy", seed=f"{seed}/{r}/{s}") for s in range(4)
            ]
            while not state.over:
                seat = state.turn
                recorded.clear()
                action = bots[seat].act(view_for(state, seat))
                if seat == 0:
                    for hand, spec in recorded:
                        key = "B 21-22" if variant.startswith("remi101") else "A 14-15"
                        lo, hi = (21, 22) if key == "B 21-22" else (14, 15)
                        if lo <= len(hand) <= hi and len(out[key]) < n:
                            out[key].append((hand, spec))
                state.apply(seat, action)
            r += 1
    finally:
        planner_mod.solve = real_solve
    return out


def measure(problems: list[Problem]) -> tuple[list[float], list[float], int]:
    wall: list[float] = []
    cpu: list[float] = []
    cut = 0
    for hand, spec in problems:
        c0 = time.process_time()
        w0 = time.perf_counter()
        sol = solve(hand, spec)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
        cut += not sol.complete
    return wall, cpu, cut


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="solves per group")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    groups: list[tuple[str, Callable[[], dict[str, list[Problem]]]]] = [
        ("deal", lambda: deal_problems(2 * args.n, args.seed)),
        ("game", lambda: game_problems(args.n, args.seed)),
        ("jokers", lambda: deal_problems(2 * args.n, args.seed, jokers=2)),
    ]
    ok = True
    print(
        f"{'group':<8}{'hands':<9}{'solves':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'cpu p50':>9}{'cpu p99':>9}{'cut':>5}"
    )
    for name, make in groups:
        for size, problems in make().items():
            wall, cpu, cut = measure(problems)
            p50, p99 = pct(wall, 0.5), pct(wall, 0.99)
            c50, c99 = pct(cpu, 0.5), pct(cpu, 0.99)
            print(
                f"{name:<8}{size:<9}{len(problems):>7}{p50:>9.2f}{p99:>9.2f}"
                f"{max(wall) * 1e3:>9.2f}{c50:>9.2f}{c99:>9.2f}{cut:>5}"
            )
            ok = ok and c50 <= 2.0 and c99 <= 20.0
    print("targets p50 <= 2 ms, p99 <= 20 ms (CPU time):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
