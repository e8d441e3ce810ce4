"""The bot: one action at a time from a seat's view, never an illegal one.

A bot sees exactly what :func:`server.rules.views.view_for` gives a human at
that seat (RULES.md §D) and nothing else; its only input is that view (or
one rebuilt from JSON with ``SeatView.from_dict``). Randomness comes from
its own ``random.Random(seed)``, so a bot is deterministic given its seed
and the views it is shown.
"""

from __future__ import annotations

import random
from typing import Any

from server.bots.knowledge import RowMemory
from server.bots.legal import check, fallback_action
from server.bots.planner import (
    Ctx,
    Params,
    Plan,
    best_plan,
    consider_buy,
    discard_scores,
    make_ctx,
    plan_first_action,
    take_options,
)
from server.rules.tiles import JOKER, face_of
from server.rules.views import SeatView

MAX_BUILD_ACTIONS = 60  # per turn: then the bot discards whatever happens


class Bot:
    """A seat player of one level. ``act(view)`` returns the next action of the turn."""

    level = "normal"

    def __init__(self, params: Params, seed: int | str | None = None) -> None:
        self.params = params
        self.rng = random.Random(seed)
        self.memory = RowMemory()
        self.errors: list[str] = []  # planning problems (each one cost a fallback move)
        self.fallbacks = 0
        self._turn_key: tuple[object, ...] | None = None
        self._turn_actions = 0

    # ------------------------------------------------------------ public API
    def act(self, view: SeatView) -> dict[str, Any]:
        """The next action for ``view.seat``; requires ``view.turn == view.seat``."""
        if view.seat is None or view.over or view.turn != view.seat:
            raise ValueError("a bot acts only on its own turn of a running round")
        action: dict[str, Any] | None = None
        try:
            action = self._decide(view)
        except Exception as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")
        if action is not None:
            code = check(view, action)
            if code is not None:
                self.errors.append(f"refused by the view check ({code}): {action}")
                action = None
        if action is None:
            self.fallbacks += 1
            action = fallback_action(view)
        if action["do"] == "discard":
            self.memory.after_discard(view, int(action["tile"]))
        return action

    def act_unchecked(self, view: SeatView) -> dict[str, Any]:
        """``act`` without the legality check: for play-outs on a stand-in round, where
        the engine itself refuses a bad action (the caller then plays a plain one)."""
        action: dict[str, Any] | None = None
        try:
            action = self._decide(view)
        except Exception as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")
        if action is None:
            action = fallback_action(view)
        if action["do"] == "discard":
            self.memory.after_discard(view, int(action["tile"]))
        return action

    # ------------------------------------------------------------ decisions
    def _decide(self, view: SeatView) -> dict[str, Any] | None:
        picked = self.memory.update(view)
        seat = view.seat if view.seat is not None else 0
        key = (
            view.variant_id,
            seat,
            view.stock_count,
            view.row_length if view.phase == "take" else -1,
            tuple(s.tiles for s in view.seats if s.seat != seat),
        )
        if view.phase == "take" or key != self._turn_key:
            self._turn_key = key
            self._turn_actions = 0
        self._turn_actions += 1
        ctx = make_ctx(view, picked, self.params)
        try:
            if view.phase == "take":
                return self.take(ctx)
            if self._turn_actions > MAX_BUILD_ACTIONS:
                return None
            return self.build(ctx)
        finally:
            self.errors.extend(ctx.errors)

    def draw_estimate(self, ctx: Ctx, base: Plan | None) -> float:
        """What drawing from the stock is worth (the base hand plus an average tile)."""
        lam = ctx.know.urgency
        return (base.estimate if base is not None else -200.0) - 3.0 * lam

    def take(self, ctx: Ctx) -> dict[str, Any]:
        view = ctx.view
        if ctx.facts.first_turn_restricted and view.seats[ctx.seat].first_turn:
            return {"do": "draw"}
        options = take_options(ctx, self.params)
        if not options:
            return {"do": "draw"}
        base = best_plan(
            ctx,
            list(view.hand),
            allow_atu=False,
            node_limit=self.params.node_limit,
            potential=self.params.potential,
        )
        draw = self.draw_estimate(ctx, base)
        if view.stock_count == 0:
            draw = float("-inf")  # drawing would end the round with nobody out
        est, action = max(options, key=lambda o: o[0])
        if est > draw + self.params.take_margin:
            return action
        return {"do": "draw"}

    def build(self, ctx: Ctx) -> dict[str, Any] | None:
        view = ctx.view
        hand = list(view.hand)
        if len(hand) == 1:
            return {"do": "discard", "tile": hand[0]}
        if not (ctx.facts.first_turn_restricted and view.seats[ctx.seat].first_turn):
            plan = best_plan(
                ctx,
                hand,
                allow_atu=self.params.use_atu,
                node_limit=self.params.node_limit,
                potential=self.params.potential,
            )
            buy = consider_buy(ctx, plan, self.params)
            if buy is not None:
                return buy
            if plan is not None and self.worth_playing(ctx, plan):
                action = plan_first_action(ctx, plan)
                if action is not None:
                    return action
        return self.discard(ctx)

    def worth_playing(self, ctx: Ctx, plan: Plan) -> bool:
        return bool(plan.ids.melds or plan.ids.layoffs)

    def discard(self, ctx: Ctx) -> dict[str, Any]:
        scores = discard_scores(ctx, self.params)
        best = max(s for s, _ in scores)
        choices = [t for s, t in scores if s >= best - 1e-9]
        tile = choices[0] if len(choices) == 1 else self.rng.choice(sorted(choices))
        return {"do": "discard", "tile": tile}


class EasyBot(Bot):
    """Plays legally and greedily: draws, lays the first arrangement found, dumps high tiles."""

    level = "easy"


class NormalBot(Bot):
    """Solver plus heuristics: row takes that pay, buy-backs, the atu, careful discards."""

    level = "normal"


def joker_count(view: SeatView) -> int:
    return sum(1 for t in view.hand if face_of(t) == JOKER)
