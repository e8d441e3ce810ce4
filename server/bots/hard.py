"""The hard bot: the normal planner plus determinised sampling of the unseen tiles.

The tiles a seat cannot see (other hands, the stock, the hidden part of the
row) are known as a multiset from its view (:class:`Knowledge`). The hard
bot draws samples from that multiset to judge:

* drawing: the mean estimate of the best turn over sampled stock tiles,
  compared with breaking the row / taking the discard;
* its discard: for the few best candidates of the normal heuristic, the
  risk of feeding the next seat is judged on sampled hands for that seat
  (its tile count, from the unseen tiles) and what the table shows it can do
  with the tile, instead of the heuristic's guess; optionally
  (``discard_lookahead``) plus the mean estimate after a sampled next draw.

All sampling uses the bot's own ``random.Random`` and fixed sample counts,
so it is deterministic given the seed; the work is bounded by the counts
(``Params``). A caller may add a wall-clock limit per decision
(``time_limit``, what :func:`server.bots.make_bot` gives the hard level, read on a
``clock`` the caller injects, as the server's room shell does): the search then ends
early when the next round of play-outs would pass it. Without a clock the bot never
reads the time and stays pure (tests/rules/test_purity.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from server.bots.bot import Bot, NormalBot
from server.bots.facts import Facts
from server.bots.planner import (
    Ctx,
    Params,
    Plan,
    best_plan,
    danger,
    discard_scores,
    make_ctx,
    take_options,
)
from server.bots.rollout import choose
from server.bots.value import has_model, value
from server.rules.tiles import JOKER, face_of, rank_of, suit_of
from server.rules.views import SeatView

NODE_BUDGET = 30000  # solver nodes per decision before the sampling is cut short


class HardBot(Bot):
    level = "hard"

    def __init__(
        self,
        params: Params,
        seed: int | str | None = None,
        stop: Callable[[], bool] | None = None,
        time_limit: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__(params, seed)
        # An optional cap from the caller: asked between rounds of play-outs; when it
        # answers True the search ends with what it has.
        self.stop = stop
        # An optional wall-clock limit per decision, in seconds (None: counts only, so a
        # decision is deterministic given the seed and the views).
        self.time_limit = time_limit
        # The clock that limit is read on, in seconds; None: no limit.
        self.clock = clock
        self._deadline: float | None = None
        self._was_cut = False
        self._last = 0.0
        self.policy_params = replace(
            Params(), node_limit=min(params.node_limit, params.rollout_nodes)
        )
        self.searches = 0
        self.cut = 0  # decisions whose work the clock cut short

    def act(self, view: SeatView) -> dict[str, Any]:
        self._deadline = (
            None
            if self.time_limit is None or self.clock is None
            else self.clock() + self.time_limit
        )
        self._was_cut = False
        action = super().act(view)
        self.cut += self._was_cut
        return action

    def _stopped(self) -> bool:
        """Whether the search must end now: the caller's cap, or the next round of
        play-outs (as long as the last one) would end past the decision's deadline."""
        if self.stop is not None and self.stop():
            return True
        if self._deadline is None or self.clock is None:
            return False
        now = self.clock()
        step, self._last = now - self._last, now
        if now + step > self._deadline:
            self._was_cut = True
        return self._was_cut

    def _late(self) -> bool:
        """Whether the decision's deadline has passed (no deadline: never)."""
        if self._deadline is not None and self.clock is not None and self.clock() > self._deadline:
            self._was_cut = True
        return self._was_cut

    # ------------------------------------------------------------ search
    def _search(self, ctx: Ctx) -> tuple[int, int, float] | None:
        """(play-outs, candidates, gate) of the search for this decision; None: none."""
        p = self.params
        if ctx.view.stock_count <= 0:
            return None
        if ctx.facts.row_break and p.rollouts_a > 0:
            # A row game (A.9) ends by a seat going out within a few turns a seat: the
            # search runs at every take and discard.
            return p.rollouts_a, p.rollout_candidates_a, p.rollout_gate_a
        if p.rollouts > 0 and ctx.view.stock_count <= p.rollout_stock:
            return p.rollouts, p.rollout_candidates, p.rollout_gate
        return None

    def _policy(self, seed: str) -> Bot:
        return NormalBot(self.policy_params, seed)

    def judge(self, view: SeatView) -> float:
        """The seat's estimate of ``view`` (a play-out cut short at its horizon): the
        learned evaluation with ``value_leaf``, else the planner's estimate."""
        ctx = make_ctx(view, None, self.policy_params)
        if self.params.value_leaf:
            return value(view, ctx)
        plan = best_plan(ctx, list(view.hand), node_limit=self.policy_params.node_limit)
        return plan.estimate if plan is not None else -200.0

    def _choose(
        self, ctx: Ctx, cands: list[dict[str, Any]], setting: tuple[int, int, float]
    ) -> dict[str, Any]:
        if len(cands) == 1:
            return cands[0]
        self.searches += 1
        rollouts, _, gate = setting
        p = self.params
        horizon = ctx.view.players * p.value_cycles - 1 if p.value_leaf else None
        self._last = self.clock() if self.clock is not None else 0.0
        k = choose(
            ctx.view,
            set(ctx.know.picked),
            cands,
            self.rng,
            p,
            self._policy,
            self.judge,
            stop=self._stopped,
            rollouts=rollouts,
            gate=gate,
            horizon=horizon,
            late=self._late,
        )
        return cands[k]

    def take(self, ctx: Ctx) -> dict[str, Any]:
        action = super().take(ctx)
        setting = self._search(ctx)
        if setting is None:
            return action
        view = ctx.view
        if ctx.facts.first_turn_restricted and view.seats[ctx.seat].first_turn:
            return action
        cands = take_candidates(ctx, action, self.params)
        return action if cands is None else self._choose(ctx, cands, setting)

    def build(self, ctx: Ctx) -> dict[str, Any] | None:
        action = super().build(ctx)
        setting = self._search(ctx)
        if action is None or setting is None:
            return action
        if action["do"] == "discard":
            cands = discard_candidates(ctx, action, self.params, setting[1])
            return self._choose(ctx, cands, setting)
        if action["do"] == "lay" and not ctx.opened and not ctx.facts.laid_credits:
            # Open now, or wait (discard) for a better opening / a closing from hand (B.11).
            # (Not where laid tiles score: there the play-outs judge this worse than the
            # policy, bench/regret.py.)
            return self._choose(ctx, [action, super().discard(ctx)], setting)
        return action

    # ------------------------------------------------------------ sampling
    def _pool(self, ctx: Ctx) -> list[int]:
        pool: list[int] = []
        for f, n in enumerate(ctx.know.unseen):
            pool.extend([f] * n)
        return pool

    def _stand_in(self, face: int, avoid: set[int]) -> int:
        """A tile id showing ``face`` that is not in ``avoid`` (planning only)."""
        if face == JOKER:
            t = 104
            while t in avoid:
                t += 1
            return t
        return face if face not in avoid else face + 52  # the copy the seat does not hold

    def _draw_samples(self, ctx: Ctx, n: int) -> list[int]:
        pool = self._pool(ctx)
        if not pool or n <= 0:
            return []
        return [self.rng.choice(pool) for _ in range(n)]

    def draw_estimate(self, ctx: Ctx, base: Plan | None) -> float:
        n = self.params.draw_samples
        faces = self._draw_samples(ctx, n)
        if not faces:
            return super().draw_estimate(ctx, base)
        hand = list(ctx.view.hand)
        avoid = set(hand)
        total = 0.0
        done = 0
        for f in faces:
            if (ctx.nodes > NODE_BUDGET and done >= 2) or (self._late() and done >= 1):
                break
            done += 1
            t = self._stand_in(f, avoid)
            plan = best_plan(
                ctx,
                [*hand, t],
                allow_atu=False,
                node_limit=self.params.node_limit // 2,
                potential=self.params.potential,
            )
            total += plan.estimate if plan is not None else -200.0
        return total / done

    def value_discard(self, ctx: Ctx) -> dict[str, Any] | None:
        """The discard whose hand left the learned evaluation rates best, among the
        heuristic's ``value_discard`` best distinct faces (None: no choice to make)."""
        view = ctx.view
        if self.params.value_discard <= 1 or len(view.hand) <= 2 or not has_model(view.variant_id):
            return None
        ranked = sorted(discard_scores(ctx, self.params), key=lambda st: (-st[0], st[1]))
        cands: list[int] = []
        for _, t in ranked:
            if all(face_of(t) != face_of(u) for u in cands):
                cands.append(t)
            if len(cands) >= self.params.value_discard:
                break
        if len(cands) <= 1:
            return None
        judge_ctx = make_ctx(view, None, self.policy_params)
        best: tuple[float, int] | None = None
        for t in cands:
            v = value(view, judge_ctx, [u for u in view.hand if u != t])
            if best is None or v > best[0]:
                best = (v, t)
            if self._late():
                break
        assert best is not None
        return {"do": "discard", "tile": best[1]}

    def discard(self, ctx: Ctx) -> dict[str, Any]:
        chosen = self.value_discard(ctx)
        if chosen is not None:
            return chosen
        scores = discard_scores(ctx, self.params)
        m = self.params.discard_candidates
        ranked = sorted(scores, key=lambda st: (-st[0], st[1]))
        if m <= 1 or len(ranked) <= 1 or len(ctx.view.hand) <= 2:
            return super().discard(ctx)
        # Distinct faces only (two copies of a face are the same discard).
        cands: list[tuple[float, int]] = []
        seen: set[int] = set()
        for s, t in ranked:
            if face_of(t) in seen:
                continue
            seen.add(face_of(t))
            cands.append((s, t))
            if len(cands) >= m:
                break
        if len(cands) == 1 or cands[0][0] - cands[1][0] > 12.0:
            return {"do": "discard", "tile": cands[0][1]}
        look = self.params.discard_lookahead
        draws = self._draw_samples(ctx, max(2, self.params.draw_samples // 2)) if look else []
        hand = list(ctx.view.hand)
        best: tuple[float, int] | None = None
        for s, t in cands:
            f = face_of(t)
            # The sampled feeding risk replaces the heuristic's guess.
            value = s + danger(ctx, f) - self.feeding_risk(ctx, f)
            if draws:
                rest = [x for x in hand if x != t]
                avoid = set(hand)
                ahead = 0.0
                done = 0
                for g in draws:
                    if ctx.nodes > NODE_BUDGET and done >= 1:
                        break
                    done += 1
                    plan = best_plan(
                        ctx,
                        [*rest, self._stand_in(g, avoid)],
                        allow_atu=True,
                        node_limit=self.params.node_limit // 2,
                        potential=self.params.potential,
                    )
                    ahead += plan.estimate if plan is not None else -200.0
                value += look * ahead / max(1, done)
            if best is None or value > best[0]:
                best = (value, t)
        assert best is not None
        return {"do": "discard", "tile": best[1]}

    # ------------------------------------------------------------ feeding
    def feeding_risk(self, ctx: Ctx, f: int) -> float:
        """Expected help to the next seat from discarding face ``f`` (sampled hands)."""
        view = ctx.view
        o = (ctx.seat + 1) % view.players
        info = view.seats[o]
        n = self.params.opp_samples
        if n <= 0 or f == JOKER:
            return 0.0
        hv = ctx.hand_values
        facts = ctx.facts
        if facts.take_layoff and info.opened and f in ctx.know.fit_faces(facts.top_rank):
            return hv[f] + 25.0  # B.4: laid off at once
        pool = self._pool(ctx)
        size = min(info.tiles, len(pool))
        if size <= 0:
            return 0.0
        hits = 0
        for _ in range(n):
            hand = self.rng.sample(pool, size)
            if _makes_meld(f, hand, facts):
                hits += 1
        p = hits / n
        if not info.opened:
            p *= 0.25  # it would have to open with that tile in the same move
        gain = (hv[f] + 20.0) if facts.laid_credits else (hv[f] + 15.0)
        return p * gain


def take_candidates(
    ctx: Ctx, chosen: dict[str, Any], params: Params
) -> list[dict[str, Any]] | None:
    """The policy's take, then drawing or its best other take; None when there is no
    other take."""
    options = take_options(ctx, params)
    if not options:
        return None
    best = max(options, key=lambda o: o[0])[1]
    return [chosen, best] if chosen["do"] == "draw" else [chosen, {"do": "draw"}]


def discard_candidates(
    ctx: Ctx, first: dict[str, Any], params: Params, count: int
) -> list[dict[str, Any]]:
    """The policy's discard, then the next best distinct faces, ``count`` in all."""
    out = [first]
    faces = {face_of(int(first["tile"]))}
    ranked = sorted(discard_scores(ctx, params), key=lambda st: (-st[0], st[1]))
    for _, t in ranked:
        if len(out) >= count:
            break
        if face_of(t) in faces:
            continue
        faces.add(face_of(t))
        out.append({"do": "discard", "tile": t})
    return out


def _makes_meld(f: int, hand: Sequence[int], facts: Facts) -> bool:
    """Whether face ``f`` forms a new meld with two tiles of ``hand`` (faces)."""
    jokers = sum(1 for g in hand if g == JOKER)
    r, s = rank_of(f), suit_of(f)
    suits = {suit_of(g) for g in hand if g != JOKER and rank_of(g) == r} - {s}
    if len(suits) + jokers >= 2:
        return True
    top = facts.top_rank
    have = set()
    for g in hand:
        if g != JOKER and suit_of(g) == s:
            have.add(rank_of(g))
            if facts.ace_high and rank_of(g) == 1:
                have.add(14)
    ranks = [r, 14] if (facts.ace_high and r == 1) else [r]
    for x in ranks:
        for a, b in ((x - 2, x - 1), (x - 1, x + 1), (x + 1, x + 2)):
            if a < 1 or b > top:
                continue
            missing = (a not in have) + (b not in have)
            if missing <= min(jokers, 1):
                return True
    return False
