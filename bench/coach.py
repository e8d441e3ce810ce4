"""What the coach's advice is worth when it is followed (not a test).

    nice -n 19 .venv/bin/python bench/coach.py remi --rounds 300 [--players 2]
        [--budget 1.0] [--minutes M] [--start 0] [--json F] [--export F]

Normal bots play every seat of deal ``coach/{d}``; seat 0 stands in for the player.
The coach (:mod:`server.bots.coach`) reviews seat 0's decisions with ``--budget``
seconds of CPU per decision (the clock given to the coach is ``time.process_time``, so
the review does as much work on a loaded machine as on an idle one). Then each flagged
decision is played again: the same deal, the same bots with the same seeds replay the
round to that decision, seat 0 plays the coach's suggestion there, and the bots play
the rest of the round as they would (duplicate play: only that decision differs). The
gain of a suggestion is seat 0's result (its round total minus the mean of the others')
after it, less the original round's.

Prints, per run: rounds, flags per round; the gain per round of following the round's
first flagged suggestion (the later ones are not reached once the round has changed;
rounds without a flag gain 0) with its 95% CI; the mean gain of every flagged
suggestion replayed alone with its CI and the share of them that did worse; and the
review's CPU time per round (p50, p95). ``--minutes`` stops after that long, whatever
``--rounds`` says (the figures say how many rounds were played).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import NORMAL
from server.bots.bot import NormalBot
from server.bots.coach import CoachSettings, review
from server.rules.state import RoundState, new_round
from server.rules.views import view_for


def outcome(state: RoundState, seat: int = 0) -> float:
    """The seat's round total minus the mean of the others'."""
    assert state.result is not None
    scores = list(state.result.scores)
    others = [x for i, x in enumerate(scores) if i != seat]
    return scores[seat] - sum(others) / len(others)


def play(
    variant: str, players: int, d: int, change: tuple[int, dict[str, Any]] | None = None
) -> RoundState:
    """Deal ``d`` played by normal bots; ``change``: at that place of the log, seat 0
    plays this action instead of its bot's (the bot still sees the view)."""
    state = new_round(variant, players, f"coach/{d}", first=d % players)
    bots = [NormalBot(NORMAL, f"coach/{d}/{i}") for i in range(players)]
    while not state.over:
        seat = state.turn
        view = view_for(state, seat)
        action = bots[seat].act(view)
        if change is not None and len(state.log) == change[0]:
            assert seat == 0
            action = change[1]
            bots[0].memory.last_row = list(view.row)
            if action["do"] == "discard":
                bots[0].memory.after_discard(view, int(action["tile"]))
        state.apply(seat, action)
    return state


def one_round(variant: str, players: int, d: int, budget: float) -> dict[str, Any]:
    original = play(variant, players, d)
    base = outcome(original)
    c0 = time.process_time()
    found = list(
        review(
            variant,
            players,
            original.deal,
            original.options,
            original.log,
            0,
            time.process_time,
            CoachSettings(budget=budget),
        )
    )
    cpu = time.process_time() - c0
    flags = []
    for f in (x for x in found if x.flagged):
        replayed = play(variant, players, d, (f.index, f.best))
        flags.append(
            {
                "index": f.index,
                "kind": f.kind,
                "cost": f.cost,
                "se": f.se,
                "worlds": f.worlds,
                "gain": outcome(replayed) - base,
            }
        )
    return {
        "deal": d,
        "decisions": len(found),
        "cpu": cpu,
        "flags": flags,
        "worlds": [x.worlds for x in found if x.candidates > 1],
    }


def ci(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return m, 1.96 * sd / math.sqrt(n)


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def summary(variant: str, rows: list[dict[str, Any]], budget: float) -> list[str]:
    n = len(rows)
    flags = [f for r in rows for f in r["flags"]]
    first = [r["flags"][0]["gain"] if r["flags"] else 0.0 for r in rows]
    m, h = ci(first)
    fm, fh = ci([f["gain"] for f in flags])
    worse = sum(1 for f in flags if f["gain"] < 0)
    worlds = [w for r in rows for w in r["worlds"]]
    cpus = [r["cpu"] for r in rows]
    return [
        f"{variant}: {n} rounds, budget {budget} s CPU per decision, "
        f"{sum(r['decisions'] for r in rows) / max(1, n):.1f} decisions and "
        f"{len(flags) / max(1, n):.2f} flags per round, "
        f"{sum(worlds) / max(1, len(worlds)):.1f} sampled deals per valued decision",
        f"  gain per round (first flag followed): {m:+.2f} ± {h:.2f} (95% CI)",
        f"  gain per flagged suggestion replayed alone: {fm:+.2f} ± {fh:.2f} over "
        f"{len(flags)}; worse when replayed: {worse} ({worse / max(1, len(flags)):.0%}), "
        f"equal: {sum(1 for f in flags if f['gain'] == 0)}",
        f"  review CPU per round: p50 {pct(cpus, 0.5):.1f} s, p95 {pct(cpus, 0.95):.1f} s",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variant")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--budget", type=float, default=1.0)
    ap.add_argument("--minutes", type=float, help="stop after this long")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--merge", nargs="*", help="summarise these --json files instead")
    ap.add_argument(
        "--export",
        help="write the played rounds here as JSON, unreviewed (the "
        "browser's figure: web/scripts/bench-coach.mjs)",
    )
    args = ap.parse_args()
    if args.export:
        out = []
        for d in range(args.start, args.start + args.rounds):
            st = play(args.variant, args.players, d)
            out.append(
                {
                    "variant": args.variant,
                    "players": args.players,
                    "deal": st.deal.to_dict(),
                    "options": st.options.to_dict(),
                    "log": [[s, a] for s, a in st.log],
                }
            )
        Path(args.export).write_text(json.dumps(out))
        return 0
    if args.merge:
        rows = [r for f in args.merge for r in json.loads(Path(f).read_text())]
    else:
        rows = []
        t0 = time.monotonic()
        for d in range(args.start, args.start + args.rounds):
            if args.minutes and time.monotonic() - t0 > args.minutes * 60:
                break
            rows.append(one_round(args.variant, args.players, d, args.budget))
            if args.json:
                Path(args.json).write_text(json.dumps(rows))
    for line in summary(args.variant, rows, args.budget):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
