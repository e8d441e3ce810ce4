"""Train the learned evaluation (:mod:`server.bots.value`) from self-play (not a test).

    .venv/bin/python bench/train.py --seed 1 --deals-a 200 --deals-b 100 \\
        [--variants remi,remi101] [--out server/bots/value_weights.py]

Four normal bots (every fourth deal two) play deals ``train/{seed}/{variant}/{d}`` of
every variant. At the start of each turn of every seat the seat's view is turned into
the model's features (:func:`server.bots.value.features`: the view only); when the
round ends each of those rows gets the seat's round total minus the mean of the other
seats' totals as its target. A ridge regression (pure Python, the bias not penalised) is
fitted per variant on the deals not held out (every fifth deal is held out), and the
weights are written as a Python data module (``--out``; the variants not trained by
this run are kept) that the bots import, so they run unchanged under Pyodide.
Everything is seeded: the same command on the same code gives the same weights.
Prints, per variant: rows, deals, seconds, and the held-out
root mean square error of the model, of a fit on the planner's estimate alone and of
the mean (what the model explains beyond the hand-tuned estimate).
"""

from __future__ import annotations

import argparse
import math
import runpy
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.bots import NORMAL
from server.bots.bot import NormalBot
from server.bots.facts import facts_of
from server.bots.value import FEATURES, features
from server.bots.value_weights import WEIGHTS
from server.rules.state import new_round
from server.rules.variants import VARIANTS
from server.rules.views import SeatView, view_for

MAX_ACTIONS = 2000
HOLD_OUT = 5  # every fifth deal is held out
DATA_VERSION = 1  # bump when the features or the self-play change


def play(variant: str, seed: str, deals: int) -> list[tuple[int, list[float], float]]:
    """(deal, features, target) rows of ``deals`` self-play deals."""
    rows: list[tuple[int, list[float], float]] = []
    for d in range(deals):
        players = 2 if d % 4 == 3 else 4
        state = new_round(variant, players=players, seed=f"train/{seed}/{variant}/{d}")
        bots = [NormalBot(NORMAL, f"train/{seed}/{variant}/{d}/{s}") for s in range(players)]
        pending: list[tuple[int, list[float]]] = []
        actions = 0
        while not state.over and actions < MAX_ACTIONS:
            s = state.turn
            view = view_for(state, s)
            if state.phase == "take":
                pending.append((s, features(view)))
            state.apply(s, bots[s].act(view))
            actions += 1
        if state.result is None:
            continue
        scores = state.result.scores
        for s, x in pending:
            others = [scores[i] for i in range(players) if i != s]
            rows.append((d, x, scores[s] - sum(others) / len(others)))
    return rows


def ridge(xs: list[list[float]], ys: list[float], lam: float) -> list[float]:
    """Weights minimising squared error + ``lam`` × |w|² (the bias, column 0, free)."""
    k = len(xs[0])
    a = [[0.0] * (k + 1) for _ in range(k)]
    for x, y in zip(xs, ys, strict=True):
        for i in range(k):
            xi = x[i]
            if xi == 0.0:
                continue
            row = a[i]
            for j in range(k):
                row[j] += xi * x[j]
            row[k] += xi * y
    for i in range(1, k):
        a[i][i] += lam
    # Gauss-Jordan elimination with partial pivoting.
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        piv = a[c][c]
        if abs(piv) < 1e-12:
            continue
        inv = 1.0 / piv
        a[c] = [v * inv for v in a[c]]
        for r in range(k):
            if r != c and a[r][c] != 0.0:
                f = a[r][c]
                rc = a[c]
                a[r] = [v - f * w for v, w in zip(a[r], rc, strict=True)]
    return [a[i][k] for i in range(k)]


def rmse(w: list[float], xs: list[list[float]], ys: list[float]) -> float:
    err = 0.0
    for x, y in zip(xs, ys, strict=True):
        err += (sum(a * b for a, b in zip(w, x, strict=True)) - y) ** 2
    return math.sqrt(err / max(1, len(ys)))


def load(path: Path) -> tuple[dict[str, list[float]], dict[str, str]]:
    """The weights and notes already in ``path`` (other variants are kept)."""
    if not path.exists():
        return {}, {}
    data = runpy.run_path(str(path))
    if data.get("FEATURES") != len(FEATURES):
        return {}, {}
    return dict(data.get("WEIGHTS", {})), dict(data.get("NOTES", {}))


def save(path: Path, weights: dict[str, list[float]], notes: dict[str, str], lam: float) -> None:
    order = [v for v in VARIANTS if v in weights]
    body = [
        '"""Weights of :mod:`server.bots.value`, written by bench/train.py (do not edit).',
        "",
        f"Data version {DATA_VERSION}: self-play of the normal level (bench/train.py),",
        f"the features of server.bots.value; ridge regression, lam {lam}.",
        '"""',
        "",
        f"DATA_VERSION = {DATA_VERSION}",
        f"FEATURES = {len(FEATURES)}",
        "",
        "NOTES: dict[str, str] = {",
    ]
    for v in order:
        body.append(f"    {v!r}: (")
        text = notes.get(v, "")
        for i in range(0, len(text), 80):
            body.append(f"        {text[i : i + 80]!r}")
        body.append("    ),")
    body += ["}", "", "WEIGHTS: dict[str, list[float]] = {"]
    for v in order:
        w = weights[v]
        body.append(f"    {v!r}: [")
        for i in range(0, len(w), 6):
            body.append("        " + ", ".join(repr(x) for x in w[i : i + 6]) + ",")
        body.append("    ],")
    body.append("}")
    path.write_text("\n".join(body) + "\n")


def timing(variant: str, n: int) -> None:
    """CPU per evaluation of views met in self-play: the whole (features, with the
    planner's estimate) and the model alone (the weighted sum)."""
    views: list[SeatView] = []
    d = 0
    while len(views) < n:
        state = new_round(variant, players=4, seed=f"bench/{variant}/{d}")
        bots = [NormalBot(NORMAL, f"bench/{variant}/{d}/{s}") for s in range(4)]
        while not state.over and len(views) < n:
            s = state.turn
            view = view_for(state, s)
            if state.phase == "take":
                views.append(view)
            state.apply(s, bots[s].act(view))
        d += 1
    whole, model = [], []
    w = WEIGHTS.get(variant, [0.0] * len(FEATURES))
    for view in views:
        c0 = time.process_time()
        x = features(view)
        c1 = time.process_time()
        for _ in range(100):
            sum(a * b for a, b in zip(w, x, strict=True))
        c2 = time.process_time()
        whole.append((c1 - c0) + (c2 - c1) / 100)
        model.append((c2 - c1) / 100)
    whole.sort()
    model.sort()

    def q(xs: list[float], p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))] * 1e3

    print(
        f"{variant}: {n} views; CPU per evaluation p50 {q(whole, 0.5):.2f} ms, p99 "
        f"{q(whole, 0.99):.2f} ms, max {q(whole, 1.0):.2f} ms; the model alone p50 "
        f"{q(model, 0.5) * 1e3:.1f} µs",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", default="1")
    ap.add_argument("--deals-a", type=int, default=200, help="deals per variant, family A")
    ap.add_argument("--deals-b", type=int, default=100, help="deals per variant, Remi 101")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--lam", type=float, default=20.0)
    ap.add_argument("--out", default="server/bots/value_weights.py")
    ap.add_argument(
        "--bench",
        type=int,
        default=0,
        metavar="N",
        help="instead of training: time the evaluation on N views per variant",
    )
    args = ap.parse_args()
    if args.bench:
        for variant in args.variants.split(","):
            timing(variant, args.bench)
        return 0
    out = Path(args.out)
    weights, notes = load(out)
    for variant in args.variants.split(","):
        deals = args.deals_b if facts_of(VARIANTS[variant]).doubles else args.deals_a
        t0 = time.process_time()
        rows = play(variant, args.seed, deals)
        secs = time.process_time() - t0
        train = [(x, y) for d, x, y in rows if d % HOLD_OUT != HOLD_OUT - 1]
        test = [(x, y) for d, x, y in rows if d % HOLD_OUT == HOLD_OUT - 1]
        xs, ys = [x for x, _ in train], [y for _, y in train]
        w = ridge(xs, ys, args.lam)
        tx, ty = [x for x, _ in test], [y for _, y in test]
        mean = sum(ys) / len(ys)
        w_mean = [mean] + [0.0] * (len(FEATURES) - 1)
        w_est = ridge([x[:2] for x in xs], ys, args.lam)
        est_only = rmse(w_est, [x[:2] for x in tx], ty)
        note = (
            f"--seed {args.seed}, {deals} deals, {len(rows)} rows, {secs:.0f} s CPU; "
            f"held-out RMSE: model {rmse(w, tx, ty):.1f}, estimate only {est_only:.1f}, "
            f"mean {rmse(w_mean, tx, ty):.1f} ({len(ty)} rows)"
        )
        print(f"{variant}: {note}", flush=True)
        weights[variant] = [round(v, 4) for v in w]
        notes[variant] = note
        save(out, weights, notes, args.lam)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
