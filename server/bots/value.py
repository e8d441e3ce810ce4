"""A learned evaluation: a seat's expected round result from what that seat sees.

``value(view)`` estimates the seat's round total minus the mean of the other
seats' totals (the quantity the hard level's play-outs measure) at the start
of one of its turns, from its view only: the hand, the table, the visible
row, the stock count, every seat's tile count, opening and credits, the
opening threshold now (B.8) and the joker button (B.9). It is a linear model
over the features of :func:`features`, one weight vector per variant, whose
weights are the data module :mod:`server.bots.value_weights` written by
``bench/train.py`` (self-play of the normal level, seeded; see docs/bots.md).
Plain Python: no numpy at play time, so it runs in the browser under Pyodide.

>>> from server.rules.state import new_round
>>> from server.rules.views import view_for
>>> v = view_for(new_round("remi101", players=4, seed=3), 0)
>>> len(features(v)) == len(FEATURES)
True
>>> isinstance(value(v), float)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from server.bots.knowledge import Knowledge, initial_stock, short_game
from server.bots.planner import Ctx, Params, best_plan, make_ctx
from server.bots.value_weights import WEIGHTS
from server.rules.tiles import JOKER, face_of
from server.rules.views import SeatView

FEATURES: tuple[str, ...] = (
    "bias",
    "estimate",  # the planner's estimate of the hand's best arrangement (/100)
    "opened",
    "hand_tiles",  # /10
    "hand_points",  # the hand's penalty (/100)
    "jokers",
    "progress",  # share of the stock drawn
    "draws_left",  # stock per seat (/10, at most 1)
    "opp_min_tiles",  # the shortest other hand (/10)
    "opp_near_out",  # an other hand of 3 tiles or fewer
    "opp_opened",  # share of the other seats that opened
    "credits",  # the seat's laid credits (/100)
    "opp_credits",  # the others' mean laid credits (/100)
    "opened_x_points",
    "unopened_x_progress",
    "opened_x_progress_x_points",
    "doubles_opener",
    "pairs",  # faces held twice (/5)
    "fits",  # hand tiles that fit a table meld now (/5)
    "two_players",
    "button",  # the joker button is there to press (B.9)
    "threshold",  # the points an opening needs now (/100; B.8 rising)
    "estimate_x_progress",
    "stock_empty",
)

PLAN_NODES = 1000  # solver nodes for the estimate feature
_PARAMS = Params(node_limit=PLAN_NODES)


def features(
    view: SeatView, ctx: Ctx | None = None, hand: Sequence[int] | None = None
) -> list[float]:
    """The model's inputs for ``view``'s seat (``hand``: a hand to judge instead of the
    view's, the rest of the view kept). Reads only the view."""
    if ctx is None:
        ctx = make_ctx(view, None, _PARAMS)
    hand = list(view.hand) if hand is None else list(hand)
    seat = ctx.seat
    facts = ctx.facts
    know: Knowledge = ctx.know
    hv = ctx.hand_values
    faces = [face_of(t) for t in hand]
    plan = best_plan(ctx, hand, node_limit=PLAN_NODES)
    est = (plan.estimate if plan is not None else -200.0) / 100.0
    opened = 1.0 if ctx.opened else 0.0
    points = sum(hv[f] for f in faces) / 100.0
    start = max(1, initial_stock(view, short_game(view)))
    progress = min(1.0, max(0.0, 1.0 - view.stock_count / start))
    others = [s for s in view.seats if s.seat != seat]
    opp_min = min((s.tiles for s in others), default=0)
    opp_opened = sum(1 for s in others if s.opened) / max(1, len(others))
    opp_credits = sum(s.credits for s in others) / max(1, len(others)) / 100.0
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    pairs = sum(1 for f, n in counts.items() if f != JOKER and n >= 2)
    fit = know.fit_faces(facts.top_rank)
    fits = sum(1 for f in faces if f in fit)
    thresholds = getattr(view.variant.family, "thresholds", None)
    threshold = thresholds(view)[0] if thresholds is not None else view.variant.threshold
    button = (
        1.0 if (view.joker_button and view.joker_credits >= 1 and not view.button_used) else 0.0
    )
    return [
        1.0,
        est,
        opened,
        len(hand) / 10.0,
        points,
        float(faces.count(JOKER)),
        progress,
        min(1.0, view.stock_count / max(1, view.players) / 10.0),
        opp_min / 10.0,
        1.0 if opp_min <= 3 else 0.0,
        opp_opened,
        view.seats[seat].credits / 100.0,
        opp_credits,
        opened * points,
        (1.0 - opened) * progress,
        opened * progress * points,
        1.0 if ctx.opened_with == "doubles" else 0.0,
        pairs / 5.0,
        fits / 5.0,
        1.0 if view.players == 2 else 0.0,
        button,
        threshold / 100.0,
        est * progress,
        1.0 if view.stock_count == 0 else 0.0,
    ]


def has_model(variant_id: str) -> bool:
    """Whether weights were trained for the variant."""
    return variant_id in WEIGHTS


def value(view: SeatView, ctx: Ctx | None = None, hand: Sequence[int] | None = None) -> float:
    """The expected round total minus the others' mean for ``view``'s seat (points)."""
    w = WEIGHTS.get(view.variant_id)
    x = features(view, ctx, hand)
    if w is None:
        return x[1] * 100.0  # no weights: the planner's estimate
    return float(sum(a * b for a, b in zip(w, x, strict=True)))
