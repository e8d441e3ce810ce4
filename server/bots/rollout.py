"""Determinised play-outs from a seat's view: the hard level's search.

A play-out starts from the engine's stand-in round for the view
(:func:`server.rules.shadow.shadow_state`), deals the tiles the seat cannot
see (other hands, the stock, the hidden part of the row) at random among
their places, sizes kept, applies one candidate action of the seat and
lets the normal policy play every seat to the end of the round (or to a
horizon of turns, judged then by the seat's estimate). The value of a
play-out is the seat's round total minus the mean of the others'.

Sampling follows what the view shows: the tile counts of every hand and of
the stock, and the faces the others took from the row (A.9; kept by
:class:`~server.bots.knowledge.RowMemory`) are dealt to the other hands
first. Every candidate is played on the same sampled deals (common random
numbers), so the comparison between candidates is sharper than the values.

The work is counted in play-outs (``Params.rollouts`` per decision): no
clock, so a decision is deterministic given the bot's seed and the views it
was shown. A wall-clock cap is an option of the caller outside tests.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from server.bots.planner import Params
from server.rules.errors import RuleError
from server.rules.shadow import shadow_state
from server.rules.tiles import face_of
from server.rules.views import SeatView, view_for

MAX_ROLLOUT_ACTIONS = 400  # per play-out; the stock ends a round long before


def sample_world(view: SeatView, picked: set[int], rng: random.Random) -> Any:
    """A stand-in round for ``view`` with the hidden tiles dealt at random."""
    state = shadow_state(view)
    seat = view.seat if view.seat is not None else 0
    others = [i for i in range(view.players) if i != seat]
    hidden_row = view.row_offset
    pool: list[int] = list(state.stock) + list(state.row[:hidden_row])
    for i in others:
        pool.extend(state.hands[i])
    rng.shuffle(pool)
    sizes = {i: len(state.hands[i]) for i in others}
    hands: dict[int, list[int]] = {i: [] for i in others}
    if picked and others:
        # Faces the others took from the row go to their hands first (one tile each).
        for f in sorted(picked):
            k = next((x for x, t in enumerate(pool) if face_of(t) == f), None)
            if k is None:
                continue
            room = [i for i in others if len(hands[i]) < sizes[i]]
            if not room:
                break
            hands[rng.choice(room)].append(pool.pop(k))
    for i in others:
        need = sizes[i] - len(hands[i])
        hands[i].extend(pool[:need])
        del pool[:need]
        state.hands[i] = hands[i]
    state.row = pool[:hidden_row] + state.row[hidden_row:]
    del pool[:hidden_row]
    state.stock = pool
    return state


def play_out(
    state: Any,
    seat: int,
    policy: Callable[[str], Any],
    world: str,
    horizon: int,
    judge: Callable[[SeatView], float],
) -> float:
    """Play ``state`` on with ``policy(seed)`` bots; the seat's total minus the others' mean."""
    value = play_out_until(state, seat, policy, world, horizon, judge, None)
    assert value is not None  # nothing cuts it short
    return value


def play_out_until(
    state: Any,
    seat: int,
    policy: Callable[[str], Any],
    world: str,
    horizon: int,
    judge: Callable[[SeatView], float],
    late: Callable[[], bool] | None,
) -> float | None:
    """:func:`play_out`, or None when ``late`` (asked before every action) answers True."""
    bots = {i: policy(f"{world}/{i}") for i in range(state.players)}
    turns = 0
    actions = 0
    while not state.over and actions < MAX_ROLLOUT_ACTIONS:
        if late is not None and late():
            return None
        s = state.turn
        if state.phase == "take":
            turns += 1
            if turns > horizon and s == seat:
                return judge(view_for(state, seat))
        v = view_for(state, s)
        action = bots[s].act_unchecked(v)
        actions += 1
        try:
            state.apply(s, action)
        except RuleError:
            state.apply(
                s,
                {"do": "draw"}
                if state.phase == "take"
                else {"do": "discard", "tile": state.hands[s][-1]},
            )
    result = state.result
    if result is None:
        return judge(view_for(state, seat))
    scores: list[int] = list(result.scores)
    others = [scores[i] for i in range(len(scores)) if i != seat]
    return float(scores[seat]) - sum(others) / max(1, len(others))


def choose(
    view: SeatView,
    picked: set[int],
    candidates: Sequence[dict[str, Any]],
    rng: random.Random,
    params: Params,
    policy: Callable[[str], Any],
    judge: Callable[[SeatView], float],
    stop: Callable[[], bool] | None = None,
    rollouts: int | None = None,
    gate: float = 0.0,
    horizon: int | None = None,
    late: Callable[[], bool] | None = None,
) -> int:
    """The index of the chosen candidate: the best mean play-out value (ties: the first);
    with ``gate`` > 0, candidate 0 (the policy's own choice) unless another beats it on
    the same sampled deals by more than ``gate`` standard errors of the differences.

    ``rollouts`` play-outs in all (``params.rollouts`` by default). ``stop``, when given,
    is asked before each round of samples and ends the search early (at least one sample
    per candidate is always played). ``horizon``: turns of the table before a play-out is
    judged by ``judge`` (``params.rollout_horizon`` by default). ``late``, when given, is
    asked during the play-outs: when it answers True the round of samples under way is
    dropped and the search ends (with no complete round: candidate 0)."""
    n = len(candidates)
    per = max(1, (params.rollouts if rollouts is None else rollouts) // max(1, n))
    seat = view.seat if view.seat is not None else 0
    values: list[list[float]] = [[] for _ in range(n)]
    refused: set[int] = set()
    done = 0
    for _ in range(per):
        if done and stop is not None and stop():
            break
        world = f"{rng.random():.17f}"
        sizes = [len(v) for v in values]
        was_refused = set(refused)
        for k, action in enumerate(candidates):
            state = sample_world(view, picked, random.Random(world))
            try:
                state.apply(seat, action)
            except RuleError:
                refused.add(k)
                continue
            value = play_out_until(
                state,
                seat,
                policy,
                world,
                params.rollout_horizon if horizon is None else horizon,
                judge,
                late,
            )
            if value is None:
                break
            values[k].append(value)
        else:
            done += 1
            continue
        for k, size in enumerate(sizes):  # too late: this round of samples is dropped
            del values[k][size:]
        refused = was_refused
        break
    if done == 0:
        return 0
    if gate > 0:
        return gated(values, gate)
    return max(range(n), key=lambda k: (float("-inf") if k in refused else sum(values[k]), -k))


def gated(values: Sequence[Sequence[float]], z: float) -> int:
    """Candidate 0 unless another beats it on the same deals (``values[k][i]``: candidate
    k on deal i) by more than ``z`` standard errors of the paired differences; then the
    one whose lower bound is highest. A candidate refused on a deal is never chosen."""
    best, best_low = 0, 0.0
    base = values[0]
    for k in range(1, len(values)):
        if len(values[k]) != len(base) or len(base) < 2:
            continue
        diffs = [a - b for a, b in zip(values[k], base, strict=True)]
        mean = sum(diffs) / len(diffs)
        var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
        low = mean - z * (var / len(diffs)) ** 0.5
        if low > best_low:
            best, best_low = k, low
    return best
