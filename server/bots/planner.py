"""Turn decisions from a seat's view: take, build (open, lay, lay off, buy jokers), discard.

The planner turns the solver's best arrangement into the next action of
the turn and judges positions with one estimate, ``E``: roughly what the
seat would score if the round ended soon, counting the melds it could lay,
the tiles left in hand (weighted by how near the end is), the partial
melds that may still complete and the going-out bonus. ``Params`` switch
features on and off; the levels are parameter sets (see ``server.bots``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.bots.facts import Facts, facts_of
from server.bots.knowledge import Knowledge
from server.bots.legal import check
from server.bots.solver import (
    FACE,
    IdPlan,
    Solution,
    Spec,
    solve,
    spec_for,
    to_ids,
    variant_tables,
)
from server.rules.melds import DOUBLE, RUN, SET, TableMeld
from server.rules.queries import reachable_row_indices
from server.rules.tiles import JOKER, face_of, make_face, rank_of, suit_of
from server.rules.views import SeatView

FAKE_JOKER = 10_000  # stands for a joker-button joker while planning (never sent)


@dataclass
class Params:
    """What one level does."""

    node_limit: int = 6000
    take_row: bool = True  # break the row / take the discard when it pays
    deep_takes: bool = True
    buy_jokers: bool = True
    use_atu: bool = True
    joker_button: bool = True
    danger: bool = True  # avoid feeding the next player
    potential: bool = True  # keep partial melds
    greedy_discard: bool = False  # easy: discard the highest loose tile
    draw_samples: int = 0  # hard: sampled draws to value drawing / discards
    discard_candidates: int = 0  # hard: discards judged by sampling
    opp_samples: int = 0  # hard: sampled opponent hands for the feeding risk
    max_take: int = 10  # deeper row takes (more tiles coming in) are not considered
    take_tile_cost: float = 1.0  # per extra tile a row take brings into the hand
    take_margin: float = 1.0  # a take must beat drawing by this much
    joker_keep: int = 0  # laying a joker is worth this much less than its hand value
    going_out_tempo: float = 30.0  # going out ends the round: worth more than its bonus
    urgency_scale: float = 1.0  # how much tiles left in hand weigh against partial melds
    discard_lookahead: float = 0.0
    rollout_turns: int = 3  # hard: turns of the seat's own sampled future per discard
    rollout_samples: int = 6  # hard: weight of the sampled next-draw estimate
    # Before opening a tile's value in hand matters less (flat -100 / -202) and high
    # tiles help reach the threshold: the discard weighs hand value by this much.
    unopened_value_a: float = 0.3
    unopened_value_b: float = -0.8
    pairs_two: float = 0.15  # family B, not opened: weight of pairs toward doubles
    pairs_many: float = 0.6
    # hard: partial melds and held pairs are worth only the draws left to complete them,
    # and with at most one draw per seat left the hand is valued at its sure penalty.
    stock_aware: bool = False
    # hard: a row take with this many tiles in hand or fewer that leaves the hand bigger
    # (after the discard) than drawing would costs this much per extra tile (0: off).
    small_hand: int = 5
    small_hand_take_cost: float = 0.0
    # hard, family B: an opened seat keeps a joker in hand for a joker closing (B.11: +202,
    # penalties doubled) while the table has a spot to lay it off later (B.3) and the stock
    # has a future: the joker is then worth this much instead of its 101 penalty (0: off).
    joker_close: float = 0.0
    # hard: determinised play-outs (server.bots.rollout) judge the take, opening and
    # discard choices once the stock holds at most ``rollout_stock`` tiles; ``rollouts``
    # play-outs per decision in all (0: off), each played by the normal policy with a
    # solver of ``rollout_nodes`` nodes, to the end of the round or ``rollout_horizon``
    # turns.
    rollouts: int = 0
    rollout_stock: int = 8
    rollout_nodes: int = 2000
    rollout_horizon: int = 40
    rollout_candidates: int = 3
    # hard, family A: the search at every take and discard of the round (a round lasts a
    # few turns there, the stock never runs low): ``rollouts_a`` play-outs per decision
    # (0: off) over the policy's choice and one alternative, which it must beat on the
    # same sampled deals by ``rollout_gate_a`` standard errors (bench/regret.py).
    rollouts_a: int = 0
    rollout_candidates_a: int = 2
    rollout_gate_a: float = 1.0
    # hard: the learned evaluation (server.bots.value) as the play-outs' leaf: a play-out
    # stops at the seat's turn after ``value_cycles`` rounds of the table and is judged by
    # the evaluation instead of being played to the round's end (much cheaper, so more
    # play-outs fit in the time; ``rollout_gate`` then applies in every variant).
    value_leaf: bool = False
    value_cycles: int = 1
    rollout_gate: float = 0.0
    # hard: the discard chosen among the heuristic's ``value_discard`` best distinct faces
    # by the learned evaluation of the hand left (0: off); a one-ply search, no play-outs.
    value_discard: int = 0


@dataclass
class Plan:
    """One arrangement of a hand, ready to be played."""

    sol: Solution
    ids: IdPlan
    opening: str | None  # "points" / "doubles" when this plan opens the seat
    estimate: float = 0.0


@dataclass
class Ctx:
    view: SeatView
    seat: int
    facts: Facts
    opened: bool
    opened_with: str | None
    know: Knowledge
    hand_values: tuple[int, ...]
    params: Params = field(default_factory=lambda: Params())
    errors: list[str] = field(default_factory=list)
    nodes: int = 0  # solver nodes spent on this decision (a deterministic work budget)

    @property
    def table(self) -> list[TableMeld]:
        return self.know.table


def make_ctx(view: SeatView, picked: set[int] | None = None, params: Params | None = None) -> Ctx:
    seat = view.seat if view.seat is not None else 0
    variant = view.variant
    me = view.seats[seat]
    hv = variant_tables(variant)[0]
    return Ctx(
        view,
        seat,
        facts_of(variant),
        me.opened,
        me.opened_with,
        Knowledge.from_view(view, picked),
        hv,
        params or Params(),
    )


# ------------------------------------------------------------------ specs
def out_bonus(ctx: Ctx) -> tuple[float, float]:
    """(going-out bonus, bonus when the last tile is a joker) in the solver's units."""
    v = ctx.view.variant
    if ctx.facts.laid_credits:
        tempo = ctx.params.going_out_tempo
        base = v.out_bonus + tempo
        joker = v.out_bonus_joker + tempo
        if v.joker_out_doubles:  # etalat: the seat's whole total doubles
            joker += 100 + ctx.view.seats[ctx.seat].credits
        return float(base), float(joker)
    from_hand = not any(s.opened for s in ctx.view.seats)
    mult = 2 if from_hand else 1
    tempo = ctx.params.going_out_tempo
    win = ctx.facts.win_bonus
    return float(win * mult + tempo), float(2 * win * mult + tempo + 60)


def specs(
    ctx: Ctx,
    *,
    forced: int | None = None,
    allow_atu: bool = True,
    node_limit: int = 20000,
    extra_layoff_ok: bool = True,
) -> list[tuple[Spec, str | None]]:
    """The solver problems for this seat now: (spec, opening kind it would make)."""
    view = ctx.view
    variant = view.variant
    family = variant.family
    ob, obj = out_bonus(ctx)
    forced_face = face_of(forced) if forced is not None else None
    common: dict[str, Any] = dict(
        table=ctx.table,
        layoffs=True,
        out_bonus=ob,
        out_bonus_joker=obj,
        forced_face=forced_face,
        node_limit=node_limit,
    )
    if ctx.params.joker_keep:
        hv = list(ctx.hand_values)
        hv[JOKER] -= ctx.params.joker_keep
        common["hand_values"] = tuple(hv)
    if not ctx.facts.doubles:
        atu = None
        if ctx.facts.atu and allow_atu and view.atu is not None and view.atu_taken_by is None:
            atu = face_of(view.atu)
        return [
            (
                spec_for(variant, ctx.opened, atu_face=atu, **common),
                None if ctx.opened else "points",
            )
        ]
    # Doubles (B.6, B.7); the taken discard may go to a lay-off (B.4).
    common["forced_layoff_ok"] = ctx.facts.take_layoff and ctx.opened and extra_layoff_ok
    if ctx.opened:
        kinds = {SET, RUN}
        if ctx.opened_with == "doubles":
            kinds = {DOUBLE}
        elif "doubles" in view.opened_with:
            kinds.add(DOUBLE)
        return [(spec_for(variant, True, kinds=frozenset(kinds), **common), None)]
    thresholds = getattr(family, "thresholds", None)
    points, doubles = (
        thresholds(view)
        if thresholds is not None
        else (variant.threshold, variant.doubles_threshold)
    )
    return [
        (
            spec_for(variant, False, kinds=frozenset({SET, RUN}), threshold=points, **common),
            "points",
        ),
        (
            spec_for(
                variant,
                False,
                kinds=frozenset({DOUBLE}),
                opening_kind="doubles",
                doubles_needed=doubles,
                **common,
            ),
            "doubles",
        ),
    ]


def best_plan(
    ctx: Ctx,
    hand: Sequence[int],
    *,
    forced: int | None = None,
    allow_atu: bool = True,
    node_limit: int = 20000,
    potential: bool = True,
) -> Plan | None:
    """The best playable arrangement of ``hand`` (ids), judged by :func:`estimate`."""
    faces = [face_of(t) for t in hand]
    view = ctx.view
    atu_id = view.atu if ctx.facts.atu and view.atu_taken_by is None else None
    rules = view.variant.meld_rules
    best: Plan | None = None
    hands: list[tuple[list[int], list[int], int | None]] = [(list(hand), faces, None)]
    if (
        ctx.params.joker_close
        and ctx.facts.joker_layoff
        and ctx.opened_with != "doubles"
        and JOKER in faces
        and forced is None
        and future_share(ctx) > 0.0
    ):
        # Also plan with one joker held back for a joker closing (B.11).
        j = next(t for t in hand if face_of(t) == JOKER)
        rest = [t for t in hand if t != j]
        hands.append((rest, [face_of(t) for t in rest], j))
    for sub, sub_faces, held in hands:
        for spec, opening in specs(ctx, forced=forced, allow_atu=allow_atu, node_limit=node_limit):
            if held is not None and opening == "doubles":
                continue
            sol = solve(sub_faces, spec)
            ctx.nodes += sol.nodes + 1
            if sol.gain == float("-inf"):
                continue
            ids = to_ids(sol, sub, rules, atu_id, forced, ctx.table)
            if ids is None:
                ctx.errors.append(f"to_ids failed: {sol}")
                continue
            if held is not None:
                sol.left = [*sol.left, JOKER]
                sol.going_out = False
                ids.left = [*ids.left, held]
            opens = opening if (sol.melds and not ctx.opened) else None
            plan = Plan(sol, ids, opens)
            plan.estimate = estimate(ctx, plan, potential=potential)
            if best is None or plan.estimate > best.estimate:
                best = plan
    return best


# ------------------------------------------------------------------ estimate
def estimate(ctx: Ctx, plan: Plan, *, potential: bool = True) -> float:
    """Roughly the seat's score if the round ended soon after this turn."""
    sol = plan.sol
    opened_after = ctx.opened or plan.opening is not None
    hv = ctx.hand_values
    left = sol.left
    lam = ctx.know.urgency * ctx.params.urgency_scale
    sure = ctx.params.stock_aware and ctx.view.stock_count <= ctx.view.players
    if sure and not sol.going_out:
        return sure_score(ctx, plan, opened_after)
    unopened = float(ctx.facts.unopened_score)
    if ctx.facts.laid_credits:
        laid = sum(sum(m.window.pos) for m in sol.melds) + sum(
            sum(m.window.pos[: len(m.faces)]) for m in sol.layoffs
        )
        if opened_after:
            value = laid - lam * sum(hv[f] for f in left) - 2.0 * len(left)
        else:
            value = unopened - 0.3 * lam * sum(hv[f] for f in left) - 2.0 * len(left)
    else:
        if opened_after:
            mult = 2 if (plan.opening or ctx.opened_with) == "doubles" else 1
            value = -mult * lam * sum(hv[f] for f in left) - 2.0 * len(left)
            if ctx.params.joker_close and JOKER in left and not sol.going_out:
                value += joker_hold(ctx, plan, mult * lam)
        else:
            value = unopened - 0.2 * lam * sum(hv[f] for f in left) - 2.0 * len(left)
    if sol.going_out:
        ob, obj = out_bonus(ctx)
        value += obj if left and left[0] == JOKER else ob
    elif potential:
        value += hand_potential(ctx, left, opened_after)[0]
    return value


def joker_hold(ctx: Ctx, plan: Plan, weight: float) -> float:
    """Family B: what holding one joker for the close is worth beyond its penalty."""
    if ctx.opened_with == "doubles" or plan.opening == "doubles":
        return 0.0  # a doubles opener may not lay it off onto its own doubles later
    top = ctx.facts.top_rank
    spots = [
        m
        for m in plan_table(ctx, plan)
        if (m.kind == RUN and len(m.tiles) < top) or (m.kind == SET and len(m.tiles) < 4)
    ]
    if not spots:
        return 0.0
    fut = future_share(ctx)
    return fut * (weight * ctx.hand_values[JOKER] + ctx.params.joker_close)


def plan_table(ctx: Ctx, plan: Plan) -> list[TableMeld]:
    """The table after ``plan``'s new melds (lay-offs do not change what fits a joker)."""
    extra = [
        TableMeld(m.kind, [0] * len(m.faces), [ctx.seat] * len(m.faces), 1, 0)
        for m in plan.sol.melds
    ]
    return [*ctx.table, *extra]


def sure_score(ctx: Ctx, plan: Plan, opened_after: bool) -> float:
    """The round total the seat is sure of if the round ends on the empty stock now-ish
    (A.16 / B.12 without a closer): nothing in the hand has a future any more."""
    sol = plan.sol
    hv = ctx.hand_values
    hand = sum(hv[f] for f in sol.left)
    if not opened_after:
        return ctx.facts.unopened_score - 0.01 * hand
    if ctx.facts.laid_credits:
        laid = sum(sum(m.window.pos) for m in sol.melds) + sum(
            sum(m.window.pos[: len(m.faces)]) for m in sol.layoffs
        )
        return laid - hand - 0.5 * len(sol.left)
    mult = 2 if (plan.opening or ctx.opened_with) == "doubles" else 1
    return -mult * hand - 0.5 * len(sol.left)


def future_share(ctx: Ctx) -> float:
    """How much of a partial meld's worth is left: 1 with many draws ahead, 0 with none."""
    if not ctx.params.stock_aware:
        return 1.0
    mine = ctx.view.stock_count / max(1, ctx.view.players)  # this seat's draws left
    return max(0.0, min(1.0, (mine - 1.0) / 4.0))


def hand_potential(ctx: Ctx, faces: Sequence[int], opened: bool) -> tuple[float, list[float]]:
    """Value of the partial melds in ``faces`` and each tile's share of it (keep scores)."""
    know = ctx.know
    unseen = know.unseen
    hv = ctx.hand_values
    facts = ctx.facts
    lam = know.urgency * ctx.params.urgency_scale
    n = len(faces)
    keep = [0.0] * n
    total_unseen = max(1, know.unseen_total)
    draws_left = max(1.0, min(8.0, ctx.view.stock_count / max(1, ctx.view.players)))
    if ctx.params.stock_aware:
        draws_left = max(0.0, min(8.0, ctx.view.stock_count / max(1, ctx.view.players)))
    chance_per_out = min(0.25, draws_left / total_unseen * 1.5)
    fut = future_share(ctx)
    by_face: dict[int, list[int]] = {}
    for i, f in enumerate(faces):
        by_face.setdefault(f, []).append(i)
    pv = ctx.view.variant.meld_rules.position_value

    def tile_gain(f: int, kind: str, rank: int) -> float:
        w = lam if opened else 0.5
        return w * hv[f] + (pv(kind, rank) if facts.laid_credits else 0.0) + 4.0

    total = 0.0
    # Sets (and B doubles): same rank, different suits.
    for r in range(1, 14):
        present = [s for s in range(4) if FACE[r][s] in by_face]
        if len(present) == 2:
            outs = sum(unseen[FACE[r][s]] for s in range(4) if s not in present)
            q = min(0.9, outs * chance_per_out)
            gain = sum(tile_gain(FACE[r][s], SET, r) for s in present) + tile_gain(
                FACE[r][present[0]], SET, r
            )
            val = q * gain
            total += val
            for s in present:
                keep[by_face[FACE[r][s]][0]] += val / 2
    # Runs: neighbours and one-gap pairs of one suit.
    top = facts.top_rank
    for s in range(4):

        def has(rank: int, suit: int = s) -> bool:
            if rank < 1 or rank > top:
                return False
            return FACE[rank][suit] in by_face

        def out(rank: int, suit: int = s) -> int:
            if rank < 1 or rank > top:
                return 0
            return unseen[FACE[rank][suit]]

        for r in range(1, top):
            if not has(r):
                continue
            fa = FACE[r][s]
            for d in (1, 2):
                r2 = r + d
                if not has(r2):
                    continue
                if d == 2 and has(r + 1):
                    continue
                outs = out(r - 1) + out(r + 2) if d == 1 else out(r + 1)
                q = min(0.9, outs * chance_per_out)
                fb = FACE[r2][s]
                gain = tile_gain(fa, RUN, r) + tile_gain(fb, RUN, r2) + tile_gain(fa, RUN, r)
                val = q * gain
                total += val
                keep[by_face[fa][0]] += val / 2
                keep[by_face[fb][0]] += val / 2
    # Doubles (family B): a lone tile whose twin is unseen, or a pair already held.
    if facts.doubles and (ctx.opened_with == "doubles" or not ctx.opened):
        pairs = sum(1 for f, idx in by_face.items() if f != JOKER and len(idx) >= 2)
        p = ctx.params
        weight = (
            1.0
            if ctx.opened_with == "doubles"
            else (p.pairs_many if pairs >= 3 else (p.pairs_two if pairs == 2 else 0.15))
        )
        for f, idx in by_face.items():
            if f == JOKER:
                continue
            if len(idx) >= 2:
                val = weight * fut * 2 * (hv[f] + 6)
                total += val
                keep[idx[0]] += val / 2
                keep[idx[1]] += val / 2
            elif unseen[f]:
                val = weight * min(0.9, chance_per_out) * 2 * (hv[f] + 4)
                total += val
                keep[idx[0]] += val
    # Lay-off spots on the table (useful now if opened, later otherwise).
    fit = know.fit_faces(facts.top_rank)
    for i, f in enumerate(faces):
        if f == JOKER:
            keep[i] += 80.0
            continue
        if f in fit:
            val = (0.8 if opened else 0.5) * (lam * hv[f] + 3.0) * (1.0 if opened else fut)
            keep[i] += val
            total += val
    return total, keep


def fits_table(m: TableMeld, f: int, top: int) -> bool:
    if m.kind == SET:
        return len(m.tiles) < 4 and rank_of(f) == m.low and suit_of(f) not in m.natural_suits()
    if m.kind != RUN or suit_of(f) != m.suit:
        return False
    r = rank_of(f)
    high = m.low + len(m.tiles) - 1
    return r == m.low - 1 or r == high + 1 or (r == 1 and high + 1 == 14 and top == 14)


# ------------------------------------------------------------------ actions
def plan_first_action(ctx: Ctx, plan: Plan) -> dict[str, Any] | None:
    """The next build action of ``plan`` (lay, lay-off, or lay with the atu)."""
    ids = plan.ids
    melds = [{"kind": k, "tiles": list(t)} for k, t in ids.melds]
    layoffs = [
        {"do": "layoff", "tile": t, "meld": m, **({"end": e} if e else {})}
        for t, m, e in ids.layoffs
    ]
    if ids.atu_used:
        if ctx.opened and layoffs:
            return layoffs[0]
        if melds:
            return {"do": "lay", "melds": melds, "atu": True}
        return None
    if melds:
        return {"do": "lay", "melds": melds}
    if layoffs:
        return layoffs[0]
    return None


def buyable_jokers(ctx: Ctx) -> list[tuple[int, int, int]]:
    """(tile in hand, meld index, joker id) for each joker the seat may buy back now."""
    view = ctx.view
    consumed = set(view.consumed)
    out: list[tuple[int, int, int]] = []
    hand_by_face: dict[int, int] = {}
    for t in view.hand:
        hand_by_face.setdefault(face_of(t), t)
    for k, m in enumerate(ctx.table):
        for i, t in enumerate(m.tiles):
            if face_of(t) != JOKER or t in consumed:
                continue
            stands = m.stands_for(i)
            if stands is not None:
                tile = hand_by_face.get(stands)
                if tile is not None:
                    out.append((tile, k, t))
            else:
                for s in range(4):
                    if s in m.natural_suits():
                        continue
                    tile = hand_by_face.get(make_face(m.low, s))
                    if tile is not None:
                        out.append((tile, k, t))
                        break
    return out


def consider_buy(ctx: Ctx, base: Plan | None, params: Params) -> dict[str, Any] | None:
    """Buy back a joker when the hand plays better with it (A.11, B.10)."""
    view = ctx.view
    if not ctx.opened or not params.buy_jokers:
        return None
    options = buyable_jokers(ctx)[:4]
    if not options:
        return None
    base_est = base.estimate if base is not None else float("-inf")
    pv = view.variant.meld_rules.position_value
    best: tuple[float, dict[str, Any]] | None = None
    for tile, k, joker in options:
        m = ctx.table[k]
        pos = m.tiles.index(joker)
        new_hand = [t for t in view.hand if t != tile] + [joker]
        new_table = [
            TableMeld(x.kind, list(x.tiles), list(x.owners), x.low, x.suit) for x in ctx.table
        ]
        new_table[k].tiles[pos] = tile
        new_table[k].owners[pos] = ctx.seat
        sub = Ctx(
            view,
            ctx.seat,
            ctx.facts,
            ctx.opened,
            ctx.opened_with,
            Knowledge(
                ctx.know.unseen,
                ctx.know.copies,
                new_table,
                ctx.know.urgency,
                ctx.know.progress,
                ctx.know.picked,
            ),
            ctx.hand_values,
            ctx.params,
            ctx.errors,
        )
        plan = best_plan(sub, new_hand, node_limit=params.node_limit)
        if plan is None:
            continue
        credit = float(pv(m.kind, m.rank_at(pos))) if ctx.facts.laid_credits else 0.0
        if ctx.facts.laid_credits and m.owners[pos] != ctx.seat:
            credit += pv(m.kind, m.rank_at(pos)) * 0.5  # an opponent loses that credit
        # The joker must do something this turn: it leaves the hand in the plan.
        joker_laid = JOKER not in plan.sol.left
        if not joker_laid:
            continue
        gain = plan.estimate + credit - base_est
        if gain > 3.0 and (best is None or gain > best[0]):
            best = (gain, {"do": "buy_joker", "tile": tile, "meld": k})
    if best is None or check(view, best[1]) is not None:
        return None
    return best[1]


def take_options(ctx: Ctx, params: Params) -> list[tuple[float, dict[str, Any]]]:
    """(estimate, action) for each way to take other than drawing."""
    view = ctx.view
    out: list[tuple[float, dict[str, Any]]] = []
    if params.take_row:
        indices = reachable_row_indices(view)
        if not params.deep_takes:
            indices = indices[-1:]
        hand = list(view.hand)
        for index in reversed(indices):
            coming = view.row[index - view.row_offset :]
            if len(coming) > params.max_take:
                break
            taken = coming[0]
            if not _could_meld(face_of(taken), [face_of(t) for t in hand + coming[1:]], ctx):
                continue
            plan = best_plan(
                ctx,
                hand + coming,
                forced=taken,
                allow_atu=False,
                node_limit=params.node_limit,
                potential=params.potential,
            )
            if plan is None:
                continue
            if not plan.ids.uses_forced_in_meld and not ctx.facts.take_layoff:
                continue
            action = _take_action(ctx, plan, index, taken)
            if action is None or check(view, action) is not None:
                if action is not None:
                    ctx.errors.append(f"take plan refused: {check(view, action)} {action}")
                continue
            value = plan.estimate - params.take_tile_cost * (len(coming) - 1)
            growth = len(plan.sol.left) - 1 - len(hand)  # after the discard, vs drawing
            if params.small_hand_take_cost and len(hand) <= params.small_hand and growth > 0:
                value -= params.small_hand_take_cost * growth
            out.append((value, action))
    if (
        params.joker_button
        and view.joker_button
        and view.joker_credits >= 1
        and not view.button_used
    ):
        plan = best_plan(
            ctx, [*view.hand, FAKE_JOKER], node_limit=params.node_limit, potential=params.potential
        )
        if (
            plan is not None
            and (plan.sol.going_out or plan.opening is not None)
            and JOKER not in plan.sol.left
        ):
            out.append((plan.estimate - 5.0, {"do": "joker_button"}))
    return out


def _could_meld(f: int, others: Sequence[int], ctx: Ctx) -> bool:
    """Cheap filter: can face ``f`` be part of any new meld or lay-off with ``others``?"""
    if f == JOKER:
        return True
    if JOKER in others:
        return True
    r, s = rank_of(f), suit_of(f)
    same_rank = {suit_of(g) for g in others if g != JOKER and rank_of(g) == r} - {s}
    if len(same_rank) >= 2:
        return True
    facts = ctx.facts
    if facts.take_layoff and ctx.opened and f in ctx.know.fit_faces(facts.top_rank):
        return True
    if facts.doubles and f in others:
        return True  # a double
    ranks = {rank_of(g) for g in others if g != JOKER and suit_of(g) == s}
    if facts.ace_high and 1 in ranks:
        ranks.add(14)
    rr = [r, 14] if (r == 1 and facts.ace_high) else [r]
    return any(
        (x - 1 in ranks and x + 1 in ranks)
        or (x + 1 in ranks and x + 2 in ranks)
        or (x - 1 in ranks and x - 2 in ranks)
        for x in rr
    )


def _take_action(ctx: Ctx, plan: Plan, index: int, taken: int) -> dict[str, Any] | None:
    ids = plan.ids
    melds = [{"kind": k, "tiles": list(t)} for k, t in ids.melds]
    if ctx.facts.row_break:
        if not melds:
            return None
        return {"do": "take_row", "index": index, "melds": melds}
    layoffs = [{"tile": t, "meld": m, **({"end": e} if e else {})} for t, m, e in ids.layoffs]
    if not melds and not ctx.opened:
        return None
    return {"do": "take_discard", "melds": melds, "layoffs": layoffs}


# ------------------------------------------------------------------ discard
def discard_scores(ctx: Ctx, params: Params, rng_noise: float = 0.0) -> list[tuple[float, int]]:
    """(score, tile) for each tile the seat may discard; the highest is discarded."""
    view = ctx.view
    hand = list(view.hand)
    naturals = [t for t in hand if face_of(t) != JOKER]
    allowed = naturals or hand  # a joker only when nothing else is left (A.14 and sense)
    hv = ctx.hand_values
    faces = [face_of(t) for t in hand]
    if params.greedy_discard:
        core = _core_melds(ctx, faces, params)
        return [
            (float(hv[face_of(t)]) - (100.0 if face_of(t) in core else 0.0), t) for t in allowed
        ]
    lam = ctx.know.urgency * params.urgency_scale
    if not ctx.opened:
        lam *= params.unopened_value_a if ctx.facts.laid_credits else params.unopened_value_b
    keep = [0.0] * len(hand)
    if params.potential:
        _, keep = hand_potential(ctx, faces, ctx.opened)
    # Tiles in complete melds that cannot be laid yet (not opened, or held back).
    core = _core_melds(ctx, faces, params)
    seen: dict[int, int] = {}
    scores: list[tuple[float, int]] = []
    for i, t in enumerate(hand):
        f = faces[i]
        if t not in allowed:
            continue
        dup = seen.get(f, 0)
        seen[f] = dup + 1
        k = keep[i] if dup == 0 else 0.0
        if not ctx.facts.doubles and dup:
            k -= 2.0  # a second copy of a face builds nothing a first copy doesn't
        k += core.get(f, 0.0) if dup == 0 else core.get(-f - 1, 0.0)
        score = lam * hv[f] - k
        if params.danger:
            score -= danger(ctx, f)
        scores.append((score, t))
    return scores


def _core_melds(ctx: Ctx, faces: Sequence[int], params: Params) -> dict[int, float]:
    """Keep value of tiles in complete melds of the hand (ignoring the threshold)."""
    variant = ctx.view.variant
    kinds = {SET, RUN}
    if ctx.facts.doubles and ctx.opened_with == "doubles":
        kinds = {DOUBLE}
    spec = spec_for(variant, True, kinds=frozenset(kinds), node_limit=min(3000, params.node_limit))
    sol = solve(faces, spec)
    out: dict[int, float] = {}
    hv = ctx.hand_values
    for m in sol.melds:
        for f in m.faces:
            key = f if f not in out else -f - 1
            out[key] = out.get(key, 0.0) + 25.0 + hv[f]
    if ctx.facts.doubles and not ctx.opened:
        # Pairs toward a doubles opening.
        dspec = spec_for(variant, True, kinds=frozenset({DOUBLE}), node_limit=500)
        dsol = solve(faces, dspec)
        if len(dsol.melds) >= 3:
            for m in dsol.melds:
                for f in m.faces:
                    key = f if f not in out else -f - 1
                    out[key] = out.get(key, 0.0) + 6.0 * len(dsol.melds)
    return out


def danger(ctx: Ctx, f: int) -> float:
    """How much discarding face ``f`` may help the next seats (what the table shows)."""
    view = ctx.view
    players = view.players
    risk = 0.0
    hv = ctx.hand_values
    for step in range(1, players):
        o = (ctx.seat + step) % players
        info = view.seats[o]
        # A.9: any later seat may take the tile from the row; B.4: only the next one.
        weight = 1.0 if step == 1 else (0.35 if ctx.facts.row_break else 0.0)
        if weight == 0.0:
            continue
        if ctx.facts.take_layoff:
            # B.4: the next seat takes the discard only to use it at once.
            if info.opened and f in ctx.know.fit_faces(ctx.facts.top_rank):
                risk += weight * (hv[f] + 25.0)
            continue
        # A.9: a tile taken from the row must go into a new meld with the taker's tiles;
        # the faces they took before and the melds they laid show what they collect.
        r, s = rank_of(f), suit_of(f)
        for g in ctx.know.picked:
            if g == JOKER:
                continue
            if (rank_of(g) == r and suit_of(g) != s) or (
                suit_of(g) == s and abs(rank_of(g) - r) <= 2
            ):
                risk += weight * 4.0
        for m in ctx.table:
            if o not in m.owners:
                continue
            if m.kind == SET and m.low == r and len(m.tiles) >= 4:
                continue
            if m.kind == RUN and m.suit == s:
                high = m.low + len(m.tiles) - 1
                if m.low - 3 <= r <= high + 3:
                    risk += weight * 2.0
        if info.tiles <= 4:
            risk += weight * 3.0  # near going out: any help ends the round sooner
    return risk
