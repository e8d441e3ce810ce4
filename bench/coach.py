"""What the coach's advice is worth when it is followed (not a test).

    nice -n 19 .venv/bin/python bench/coach.py remi --rounds 300 [--players 2]
        [--budget 1.0] [--minutes M] [--start 0] [--json F] [--export F] [--record DEALS]
    .venv/bin/python bench/coach.py remi --merge F... [--rule COST,Z,DEALS[,KIND+KIND] ...]

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

Choosing a flag rule: ``--record DEALS`` reviews under a permissive rule (a mean
difference above 0 by more than one standard error, sampling on to DEALS deals while
that is in sight) and keeps, for every valued decision, each sampled deal's values of
every candidate, the deal count at which the budget ran out, and the replayed gain of
every candidate; ``--merge`` of such files with ``--rule`` then gives the figures any
stricter rule (a larger cost, z or deal count, only some kinds of decision) would have
given on those rounds, the coach's own stopping and flag logic applied to the record.
A rule chosen so on some deals is then measured on other deals by a plain run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import NORMAL
from server.bots.bot import NormalBot
from server.bots.coach import CoachSettings, Decision, review
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


def review_seat0(
    variant: str,
    players: int,
    original: RoundState,
    settings: CoachSettings,
    trace: list[dict[str, Any]] | None = None,
) -> Iterator[Decision]:
    """The coach's review of seat 0 in a finished round, on the CPU clock (``trace``:
    :func:`server.bots.coach.value`'s record of every valued decision)."""
    return review(
        variant,
        players,
        original.deal,
        original.options,
        original.log,
        0,
        time.process_time,
        settings,
        trace=trace,
    )


def one_round(variant: str, players: int, d: int, budget: float) -> dict[str, Any]:
    original = play(variant, players, d)
    base = outcome(original)
    c0 = time.process_time()
    found = list(review_seat0(variant, players, original, CoachSettings(budget=budget)))
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


# ------------------------------------------------------------------ choosing a rule


def recorded_round(
    variant: str, players: int, d: int, budget: float, record: CoachSettings
) -> dict[str, Any]:
    """:func:`one_round` under the permissive rule ``record``, keeping every valued
    decision's play-outs and the replayed gain of each of its candidates."""
    original = play(variant, players, d)
    base = outcome(original)
    trace: list[dict[str, Any]] = []
    c0 = time.process_time()
    found = {
        x.index: x
        for x in review_seat0(variant, players, original, replace(record, budget=budget), trace)
    }
    cpu = time.process_time() - c0
    decisions = []
    for t in trace:
        index = int(t["seed"].rsplit("/", 1)[1])
        gains = [0.0] + [
            outcome(play(variant, players, d, (index, a))) - base for a in t["cands"][1:]
        ]
        decisions.append(
            {
                "index": index,
                "kind": found[index].kind,
                "stock": found[index].stock,
                "spent": t["spent"],
                "table": t["table"],
                "gains": gains,
            }
        )
    flags = []  # the record rule's own flags, as one_round gives them
    for dec, t in zip(decisions, trace, strict=True):
        x = found[dec["index"]]
        if x.flagged:
            k = t["cands"].index(x.best)
            flags.append({"index": x.index, "kind": x.kind, "gain": dec["gains"][k]})
    return {
        "deal": d,
        "decisions": len(found),
        "cpu": cpu,
        "flags": flags,
        "worlds": [x.worlds for x in found.values() if x.candidates > 1],
        "record": decisions,
    }


def _clears(diffs: list[float], min_cost: float, z: float) -> bool:
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1) / n)
    return mean >= min_cost and mean - z * se > 0


def flag_under(dec: dict[str, Any], rule: CoachSettings) -> int | None:
    """The candidate a recorded decision would flag under ``rule`` (the coach's stopping
    and flag logic on the recorded deals), ``None`` if none; raises ``LookupError`` when
    the record stopped before ``rule`` would have."""
    table = dec["table"]
    k_all = len(table[0]) if table else 0

    def full(n: int) -> list[int]:
        return [k for k in range(k_all) if all(r[k] is not None for r in table[:n])]

    def col(k: int, n: int) -> list[float]:
        return [float(r[k]) for r in table[:n]]

    def in_sight(n: int) -> bool:
        ks = [k for k in full(n) if k > 0]
        if n < 2 or not ks:
            return False
        best = max(ks, key=lambda k: sum(col(k, n)))
        return _clears(
            [a - b for a, b in zip(col(best, n), col(0, n), strict=True)], rule.min_cost, rule.z
        )

    spent = dec["spent"]
    stop = None
    for n in range(rule.max_worlds + 1):
        if n == rule.max_worlds or (
            n >= rule.min_worlds
            and spent is not None
            and n >= spent
            and (n >= rule.flag_worlds or not in_sight(n))
        ):
            stop = n
            break
        if n >= len(table):
            raise LookupError("the record stopped first")
    assert stop is not None
    if stop > len(table):
        raise LookupError("the record stopped first")
    ks = full(stop)
    best = max(ks, key=lambda k: (sum(col(k, stop)) / stop, -k))
    if best == 0 or stop < rule.flag_worlds:
        return None
    diffs = [a - b for a, b in zip(col(best, stop), col(0, stop), strict=True)]
    return best if _clears(diffs, rule.min_cost, rule.z) else None


def rows_under(
    rows: list[dict[str, Any]], rule: CoachSettings, kinds: set[str] | None = None
) -> list[dict[str, Any]]:
    """Recorded rows as :func:`one_round` would have given them under ``rule`` (``kinds``:
    flags only on these kinds of decision)."""
    out = []
    for r in rows:
        flags = []
        for dec in r["record"]:
            if kinds is not None and dec["kind"] not in kinds:
                continue
            k = flag_under(dec, rule)
            if k is not None:
                flags.append({"index": dec["index"], "kind": dec["kind"], "gain": dec["gains"][k]})
        out.append({**r, "flags": sorted(flags, key=lambda f: f["index"])})
    return out


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
        "--record",
        type=int,
        metavar="DEALS",
        help="record every valued decision under the permissive rule (mean > 0, z = 1, "
        "sampling on to DEALS when it is in sight) and replay all its candidates",
    )
    ap.add_argument(
        "--rule",
        nargs="*",
        metavar="COST,Z,DEALS[,KIND+KIND]",
        help="with --merge of --record files: the figures under these flag rules",
    )
    ap.add_argument(
        "--export",
        help="write the played rounds here as JSON, unreviewed (the "
        "browser's figure: web/scripts/bench-coach.mjs)",
    )
    ap.add_argument(
        "--grid",
        action="store_true",
        help="with --merge of --record files: every rule of a grid (cost, z, deals, kinds), "
        "best first by the lower end of the gain per round's CI, among those with at "
        "least 8 flags and at most 1 in 5 worse when replayed",
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
            if args.record:
                record = CoachSettings(z=1.0, min_cost=0.0, flag_worlds=args.record)
                rows.append(recorded_round(args.variant, args.players, d, args.budget, record))
            else:
                rows.append(one_round(args.variant, args.players, d, args.budget))
            if args.json:
                Path(args.json).write_text(json.dumps(rows))
    if args.grid:
        kinds = {
            "all": "",
            "discard": ",discard",
            "take": ",take",
            "not-discard": ","
            + "+".join(("take", "open", "lay", "layoff", "buy_joker", "joker_button")),
        }
        args.rule = [
            f"{c},{z},{n}{k}"
            for c in (3, 10, 20, 30, 40, 60)
            for z in (2, 3, 3.5, 4, 5)
            for n in (16, 24, 32)
            for k in kinds.values()
        ]
        table = []
        for text in args.rule:
            cost, z, deals, *only = text.split(",")
            rule = CoachSettings(min_cost=float(cost), z=float(z), flag_worlds=int(deals))
            try:
                under = rows_under(rows, rule, set(only[0].split("+")) if only else None)
            except LookupError:
                continue
            flags = [f for r in under for f in r["flags"]]
            worse = sum(1 for f in flags if f["gain"] < 0)
            m, h = ci([r["flags"][0]["gain"] if r["flags"] else 0.0 for r in under])
            if len(flags) >= 8 and worse * 5 <= len(flags):
                table.append((m - h, m, h, len(flags), worse, text))
        for _, m, h, n, worse, text in sorted(table, reverse=True):
            print(f"{text}: {m:+.2f} ± {h:.2f} a round, {n} flags, {worse} worse")
        return 0
    if args.rule:
        for text in args.rule:
            cost, z, deals, *kinds = text.split(",")
            rule = CoachSettings(min_cost=float(cost), z=float(z), flag_worlds=int(deals))
            only = set(kinds[0].split("+")) if kinds else None
            try:
                under = rows_under(rows, rule, only)
            except LookupError:
                print(f"rule {text}: the record stopped before this rule would")
                continue
            print(f"rule {text}:")
            for line in summary(args.variant, under, args.budget)[1:3]:
                print(line)
        return 0
    for line in summary(args.variant, rows, args.budget):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
