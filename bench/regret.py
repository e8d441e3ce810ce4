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
many per deal, the mean gain per decision with its 95% CI, and the CPU per decision; then
the gain per deal of every decision together (``--kinds``: of some kinds), with its CI.

A smaller search is judged on the same play-outs without playing again: ``--merge`` the
rows of earlier runs (``--json``) with ``--choose K`` (K play-outs per candidate, valued on
the ones it did not use), ``--gate Z`` (the hard bot's own gate) and ``--candidates C``::

    .venv/bin/python bench/regret.py remi --merge a.json b.json --choose 4 --gate 1 \
        --candidates 2 --kinds take,discard

``--vs CHOOSE,GATE,CANDIDATES`` compares that search with another on the same decisions
(the per-deal difference of their held-out gains, with its CI): how two settings of the
hard level's search compare without playing a duel between them.
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
from server.bots.hard import HardBot, discard_candidates, take_candidates
from server.bots.planner import make_ctx
from server.bots.rollout import gated, play_out, sample_world
from server.rules.errors import RuleError
from server.rules.state import new_round
from server.rules.views import SeatView, view_for

PLAYERS = 4


def candidates(
    view: SeatView, picked: set[int], chosen: dict[str, Any]
) -> tuple[str, list[dict[str, Any]]] | None:
    """(kind, candidates with the normal choice first) for this decision, if it has any."""
    ctx = make_ctx(view, picked, NORMAL)
    if view.phase == "take":
        if view.variant.family.first_turn_restricted and view.seats[ctx.seat].first_turn:
            return None
        cands = take_candidates(ctx, chosen, NORMAL)
        return None if cands is None else ("take", cands)
    if chosen["do"] == "discard" and len(view.hand) > 2:
        return "discard", discard_candidates(ctx, chosen, HARD, HARD.rollout_candidates)
    if chosen["do"] == "lay" and not ctx.opened:
        return "open", [chosen, NormalBot(NORMAL, "regret").discard(ctx)]
    return None


def value_candidates(
    view: SeatView, picked: set[int], cands: list[dict[str, Any]], playouts: int, seed: str
) -> list[list[float]] | None:
    """Each candidate's play-out values, the same sampled deals for all (None: one of
    them was refused in a sampled deal)."""
    policy_params = replace(NORMAL, node_limit=1000)
    judge = HardBot(HARD, "regret").judge
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
            values[k].append(
                play_out(state, 0, lambda s: NormalBot(policy_params, s), world, 40, judge)
            )
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


def held_out_gain(
    values: list[list[float]], choose: int, gate: float = 0.0, candidates: int | None = None
) -> float:
    """Gain over candidate 0 of a search that plays ``choose`` play-outs per candidate
    (among the first ``candidates``) and picks as the hard bot does (the best mean, or
    with ``gate`` > 0 :func:`server.bots.rollout.gated`), valued on the play-outs it did
    not use; averaged over the disjoint blocks of ``choose`` play-outs."""
    values = values[:candidates] if candidates else values
    n = len(values[0])
    total, blocks = 0.0, 0
    for start in range(0, n - choose + 1, choose):
        used = range(start, start + choose)
        rest = [i for i in range(n) if not start <= i < start + choose]
        if not rest:
            break
        sample = [[v[i] for i in used] for v in values]
        if gate > 0:
            k = gated(sample, gate)
        else:
            k = max(range(len(values)), key=lambda c: (sum(sample[c]), -c))
        total += sum(values[k][i] - values[0][i] for i in rest) / len(rest)
        blocks += 1
    return total / max(1, blocks)


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
                    values = value_candidates(
                        view, picked, found[1], playouts, f"{d}/{len(state.log)}"
                    )
                    if values is not None:
                        rows.append(
                            {
                                "deal": d,
                                "kind": found[0],
                                "values": values,
                                "cpu": time.process_time() - c0,
                            }
                        )
            state.apply(seat, action)
    return rows


def summary(
    rows: list[dict[str, Any]],
    choose: int | None = None,
    gate: float = 0.0,
    candidates: int | None = None,
    kinds: set[str] | None = None,
) -> list[str]:
    """Per kind of decision and per deal: the split-half gain, or with ``choose`` the
    held-out gain of that search (:func:`held_out_gain`)."""

    def gain_of(values: list[list[float]]) -> float:
        if choose is None:
            return split_half_gain(values)
        return held_out_gain(values, choose, gate, candidates)

    deals = len({r["deal"] for r in rows}) or 1
    out = []
    for kind in ("take", "open", "discard"):
        mine = [r for r in rows if r["kind"] == kind]
        if not mine:
            continue
        gains = [gain_of(r["values"]) for r in mine]
        n = len(gains)
        m = sum(gains) / n
        sd = math.sqrt(sum((g - m) ** 2 for g in gains) / max(1, n - 1))
        cpu = sum(r["cpu"] for r in mine) / n
        out.append(
            f"{kind:8} decisions {n:4}  per deal {n / deals:4.2f}  gain per decision "
            f"{m:+6.2f} ± {1.96 * sd / math.sqrt(n):5.2f}  per deal {m * n / deals:+6.2f}"
            f"  CPU per decision {cpu:5.2f} s"
        )
    # Every decision of a deal together, a mean over the deals (the deals are independent).
    per_deal: dict[int, float] = {}
    for r in rows:
        if kinds is None or r["kind"] in kinds:
            per_deal[r["deal"]] = per_deal.get(r["deal"], 0.0) + gain_of(r["values"])
    totals = [per_deal.get(d, 0.0) for d in {r["deal"] for r in rows}]
    if len(totals) > 1:
        m = sum(totals) / len(totals)
        sd = math.sqrt(sum((x - m) ** 2 for x in totals) / (len(totals) - 1))
        which = "+".join(sorted(kinds)) if kinds else "all"
        out.append(
            f"{which:8} gain per deal {m:+6.2f} ± {1.96 * sd / math.sqrt(len(totals)):5.2f}"
            f" (95% CI over {len(totals)} deals)"
        )
    return out


def per_deal_gains(
    rows: list[dict[str, Any]],
    choose: int | None,
    gate: float,
    candidates: int | None,
    kinds: set[str] | None,
) -> dict[int, float]:
    """Each deal's gain over the normal choices of a search (:func:`summary`'s total)."""
    out = {r["deal"]: 0.0 for r in rows}
    for r in rows:
        if kinds is None or r["kind"] in kinds:
            v = r["values"]
            out[r["deal"]] += (
                split_half_gain(v) if choose is None else held_out_gain(v, choose, gate, candidates)
            )
    return out


def compare(
    rows: list[dict[str, Any]],
    a: tuple[int, float, int | None],
    b: tuple[int, float, int | None],
    kinds: set[str] | None = None,
) -> str:
    """Search ``a`` against search ``b`` (each: play-outs per candidate, gate, candidates),
    valued on the same decisions: the mean per-deal difference and its 95% CI."""
    ga = per_deal_gains(rows, a[0], a[1], a[2], kinds)
    gb = per_deal_gains(rows, b[0], b[1], b[2], kinds)
    diffs = [ga[d] - gb[d] for d in ga]
    n = len(diffs)
    m = sum(diffs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in diffs) / max(1, n - 1))
    return (
        f"{a} - {b}: {m:+6.2f} ± {1.96 * sd / math.sqrt(n):5.2f} per deal "
        f"(95% CI over {n} deals, paired)"
    )


def _setting(text: str) -> tuple[int, float, int]:
    choose, gate, candidates = text.split(",")
    return int(choose), float(gate), int(candidates)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variant")
    ap.add_argument("--deals", type=int, default=15)
    ap.add_argument("--playouts", type=int, default=30)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--json", help="write the rows here (to merge runs: --merge)")
    ap.add_argument("--merge", nargs="*", help="summarise these --json files instead")
    ap.add_argument(
        "--choose",
        type=int,
        help="value a search of this many play-outs per "
        "candidate on the others (default: the split-half estimate)",
    )
    ap.add_argument("--gate", type=float, default=0.0, help="with --choose: the hard bot's gate")
    ap.add_argument("--candidates", type=int, help="with --choose: only the first ones")
    ap.add_argument("--kinds", help="the per-deal total over these kinds only (take,discard)")
    ap.add_argument(
        "--vs",
        help="with --choose: compare with this search, given as "
        "CHOOSE,GATE,CANDIDATES, on the same decisions (paired by deal)",
    )
    args = ap.parse_args()
    if args.merge:
        rows = [r for f in args.merge for r in json.loads(Path(f).read_text())]
    else:
        rows = run(args.variant, args.deals, args.playouts, args.start)
        if args.json:
            Path(args.json).write_text(json.dumps(rows))
    print(f"{args.variant}: {len({r['deal'] for r in rows})} deals, seat 0 of four normal bots")
    kinds = set(args.kinds.split(",")) if args.kinds else None
    for line in summary(rows, args.choose, args.gate, args.candidates, kinds):
        print(line)
    if args.vs and args.choose:
        mine = (args.choose, args.gate, args.candidates)
        print(compare(rows, mine, _setting(args.vs), kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
