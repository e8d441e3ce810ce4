"""What a play-out search could gain over the normal bot, per kind of decision (not a test).

    .venv/bin/python bench/regret.py remi --deals 15 --playouts 30 [--start 0] [--json F]

Four normal bots play deals ``regret/{d}``. At each decision of seat 0 that has an
alternative, the candidates the hard level's search would compare (take: the normal
choice and the other of drawing / the best take; discard: the normal choice and the next
two distinct faces of the discard ranking; an opening lay: laying it or discarding
instead) are each valued by ``--playouts`` determinised play-outs
(:mod:`server.bots.rollout`: the hidden tiles dealt at random from the view, the normal
policy with a 1,000-node solver playing every seat to the round's end; the seat's total
minus the others' mean), every candidate on the same sampled deals. The decision then
continues as the normal bot chose.

The gain of "choose by play-outs" over the normal choice is estimated without the bias
of taking the best of noisy means: the play-outs are split in two halves, the candidate
that looks best on one half is valued on the other, both ways, averaged
(:func:`split_half_gain`). That is the gain of a search with half the play-outs per
candidate; ``--playouts 30`` measures a search of 15 per candidate (45 for a discard),
several times what the hard level can afford in 500 ms. Prints, per kind: decisions, how
many per deal, the mean gain per decision with its 95% CI, and the CPU per decision.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import HARD, NORMAL
from server.bots.bot import NormalBot
from server.bots.hard import HardBot
from server.bots.planner import make_ctx, take_options
from server.bots.rollout import play_out, sample_world
from server.rules.errors import RuleError
from server.rules.state import new_round
from server.rules.views import SeatView, view_for

PLAYERS = 4


def candidates(view: SeatView, picked: set[int], chosen: dict[str, Any]
               ) -> tuple[str, list[dict[str, Any]]] | None:
    """(kind, candidates with the normal choice first) for this decision, if it has any."""
    ctx = make_ctx(view, picked, NORMAL)
    if view.phase == "take":
        if view.variant.family.first_turn_restricted and view.seats[ctx.seat].first_turn:
            return None
        options = take_options(ctx, NORMAL)
        if not options:
            return None
        best = max(options, key=lambda o: o[0])[1]
        return "take", [chosen, best] if chosen["do"] == "draw" else [chosen, {"do": "draw"}]
    if chosen["do"] == "discard" and len(view.hand) > 2:
        return "discard", HardBot(HARD, "regret")._discard_candidates(ctx, chosen)
    if chosen["do"] == "lay" and not ctx.opened:
        return "open", [chosen, NormalBot(NORMAL, "regret").discard(ctx)]
    return None


def value_candidates(view: SeatView, picked: set[int], cands: list[dict[str, Any]],
                     playouts: int, seed: str) -> list[list[float]] | None:
    """Each candidate's play-out values, the same sampled deals for all (None: one of
    them was refused in a sampled deal)."""
    policy_params = replace(NORMAL, node_limit=1000)
    judge = HardBot(HARD, "regret")._judge
    rng = random.Random(seed)
    values: list[list[float]] = [[] for _ in cands]
    for _ in range(playouts):
        world = f"{rng.random():.17f}"
        for k, action in enumerate(cands):
            state = sample_world(view, picked, random.Random(world))
            try:
                state.apply(0, action)
            except RuleError:
                return None
            values[k].append(play_out(state, 0, lambda s: NormalBot(policy_params, s), world,
                                      40, judge))
    return values


def split_half_gain(values: list[list[float]]) -> float:
    """Gain over candidate 0 of the candidate chosen on one half of the play-outs, valued
    on the other half (both ways, averaged)."""
    n = len(values[0])
    h = n // 2
    halves = ([sum(v[:h]) / h for v in values], [sum(v[h:]) / (n - h) for v in values])
    gain = 0.0
    for pick, judge in ((0, 1), (1, 0)):
        best = max(range(len(values)), key=lambda k: halves[pick][k])
        gain += halves[judge][best] - halves[judge][0]
    return gain / 2


def run(variant: str, deals: int, playouts: int, start: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for d in range(start, start + deals):
        state = new_round(variant, PLAYERS, f"regret/{d}", first=d % PLAYERS)
        bots = [NormalBot(NORMAL, f"regret/{d}/{i}") for i in range(PLAYERS)]
        while not state.over:
            seat = state.turn
            view = view_for(state, seat)
            action = bots[seat].act(view)
            if seat == 0:
                picked = set(bots[0].memory.picked)
                found = candidates(view, picked, action)
                if found is not None and len(found[1]) > 1:
                    c0 = time.process_time()
                    values = value_candidates(view, picked, found[1], playouts,
                                              f"{d}/{len(state.log)}")
                    if values is not None:
                        rows.append({"deal": d, "kind": found[0], "values": values,
                                     "cpu": time.process_time() - c0})
            state.apply(seat, action)
    return rows


def summary(rows: list[dict[str, Any]]) -> list[str]:
    deals = len({r["deal"] for r in rows}) or 1
    out = []
    for kind in ("take", "open", "discard"):
        mine = [r for r in rows if r["kind"] == kind]
        if not mine:
            continue
        gains = [split_half_gain(r["values"]) for r in mine]
        n = len(gains)
        m = sum(gains) / n
        sd = math.sqrt(sum((g - m) ** 2 for g in gains) / max(1, n - 1))
        cpu = sum(r["cpu"] for r in mine) / n
        out.append(f"{kind:8} decisions {n:4}  per deal {n / deals:4.2f}  gain per decision "
                   f"{m:+6.2f} ± {1.96 * sd / math.sqrt(n):5.2f}  per deal {m * n / deals:+6.2f}"
                   f"  CPU per decision {cpu:5.2f} s")
    # Every decision of a deal together, a mean over the deals (the deals are independent).
    per_deal: dict[int, float] = {}
    for r in rows:
        per_deal[r["deal"]] = per_deal.get(r["deal"], 0.0) + split_half_gain(r["values"])
    totals = list(per_deal.values())
    if len(totals) > 1:
        m = sum(totals) / len(totals)
        sd = math.sqrt(sum((x - m) ** 2 for x in totals) / (len(totals) - 1))
        out.append(f"all      gain per deal {m:+6.2f} ± {1.96 * sd / math.sqrt(len(totals)):5.2f}"
                   f" (95% CI over {len(totals)} deals)")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variant")
    ap.add_argument("--deals", type=int, default=15)
    ap.add_argument("--playouts", type=int, default=30)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--json", help="write the rows here (to merge runs: --merge)")
    ap.add_argument("--merge", nargs="*", help="summarise these --json files instead")
    args = ap.parse_args()
    if args.merge:
        rows = [r for f in args.merge for r in json.loads(Path(f).read_text())]
    else:
        rows = run(args.variant, args.deals, args.playouts, args.start)
        if args.json:
            Path(args.json).write_text(json.dumps(rows))
    print(f"{args.variant}: {len({r['deal'] for r in rows})} deals, seat 0 of four normal bots")
    for line in summary(rows):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
