"""The coach: reviews only finished rounds, reads only the seat's view, flags a known
mistake and not the good moves, and gives a hint from the view alone."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from server.bots import HARD, make_bot
from server.bots.coach import CoachSettings, hint, hint_json, review, review_json
from server.bots.hard import HardBot
from server.rules.state import Deal, RoundState, new_round
from server.rules.tiles import face_of
from server.rules.views import view_for

FIXED = CoachSettings(budget=1e9, min_worlds=4, max_worlds=4)  # four sampled deals, no clock


def ticks() -> Callable[[], float]:
    """A clock that never runs out within a decision: the settings' counts bound the work."""
    count = itertools.count()
    return lambda: float(next(count))


def bot_round(variant: str, players: int, seed: str) -> RoundState:
    state = new_round(variant, players, seed)
    bots = [make_bot("normal", f"{seed}/{i}") for i in range(players)]
    while not state.over:
        seat = state.turn
        state.apply(seat, bots[seat].act(view_for(state, seat)))
    return state


def test_a_round_in_play_is_never_reviewed() -> None:
    state = bot_round("remi", 2, "coach/play")
    with pytest.raises(ValueError, match="round_not_finished"):
        next(review("remi", 2, state.deal, state.options, state.log[:-3], 0, ticks(), FIXED))


def tiles_in(x: Any, tiles: bool = False) -> set[int]:
    """Every tile id named in actions (their tile, tiles and melds fields)."""
    if isinstance(x, dict):
        return set().union(*(tiles_in(v, k in ("tile", "tiles", "melds")) for k, v in x.items()))
    if isinstance(x, list):
        return set().union(*(tiles_in(v, tiles) for v in x))
    return {x} if tiles and isinstance(x, int) and not isinstance(x, bool) else set()


def hidden_swap(state: RoundState, seat: int) -> Deal:
    """The round's deal with tiles ``seat`` never saw exchanged: a tile another seat held
    from the deal to the end without playing it, for a stock tile nobody drew (another
    face). The log stays legal and every view of ``seat`` before the end is the same."""
    used = tiles_in([a for _, a in state.log])
    deal = state.deal
    left = set(state.stock)  # never drawn
    for other in range(state.players):
        if other == seat:
            continue
        for tile in deal.hands[other]:
            if tile not in state.hands[other] or tile in used:
                continue
            for spare in deal.stock:
                if spare in left and spare % 52 != tile % 52 and spare < 104 and tile < 104:
                    hands = [list(h) for h in deal.hands]
                    hands[other][hands[other].index(tile)] = spare
                    stock = [tile if t == spare else t for t in deal.stock]
                    return Deal(
                        deal.first,
                        tuple(tuple(h) for h in hands),
                        deal.atu,
                        tuple(stock),
                        deal.commitment,
                    )
    raise AssertionError("no hidden tile to exchange")


@pytest.mark.volume
@pytest.mark.parametrize("variant", ["remi45", "remi101"])
def test_the_review_reads_only_the_seat_view(variant: str) -> None:
    state = bot_round(variant, 3, f"coach/view/{variant}")
    other = hidden_swap(state, 0)
    assert other != state.deal
    twin = RoundState(state.variant, 3, other, state.options)
    for seat, action in state.log:
        if seat == 0 and not twin.over:
            assert (
                view_for(twin, 0).to_dict()
                == view_for(replay_to(state, len(twin.log)), 0).to_dict()
            )
        twin.apply(seat, action)
    assert twin.over
    assert twin.result is not None and state.result is not None
    assert twin.hands != state.hands  # the revealed hands differ
    mine = seat_moves(state)[:6]

    def reviewed(deal: Deal) -> list[dict[str, object]]:
        return [
            d.to_dict()
            for d in review(
                variant, 3, deal, state.options, state.log, 0, ticks(), FIXED, only=set(mine)
            )
        ]

    first, second = reviewed(state.deal), reviewed(other)
    assert sum(1 for d in first if d["worlds"]) >= 3  # decisions with play-outs compared
    assert first == second


def replay_to(state: RoundState, n: int) -> RoundState:
    out = RoundState(state.variant, state.players, state.deal, state.options)
    for seat, action in state.log[:n]:
        out.apply(seat, action)
    return out


def seat_moves(state: RoundState, seat: int = 0) -> list[int]:
    return [i for i, (s, _) in enumerate(state.log) if s == seat]


def round_json(state: RoundState) -> str:
    """A finished round as the browser's worker hands it to the review."""
    return json.dumps(
        {
            "variant": state.variant.id,
            "players": state.players,
            "deal": state.deal.to_dict(),
            "options": state.options.to_dict(),
            "log": [[s, a] for s, a in state.log],
        }
    )


def test_review_json_gives_each_decision_as_json() -> None:
    state = bot_round("remi", 2, "coach/trace")
    first = json.loads(next(review_json(round_json(state), 0, ticks(), budget=1.0)))
    index = seat_moves(state)[0]
    assert (first["index"], first["seat"]) == (index, 0)
    then = new_round("remi", 2, "coach/trace")
    for seat, action in state.log[:index]:
        then.apply(seat, action)
    assert first["hand"] == list(view_for(then, 0).hand)  # the seat's own tiles then


@pytest.mark.volume
def test_review_json_and_progress() -> None:
    state = bot_round("remi101", 2, "coach/json")
    out = [json.loads(x) for x in review_json(round_json(state), 1, ticks(), budget=1.0)]
    assert [d["index"] for d in out] == seat_moves(state, 1)
    assert all(d["seat"] == 1 and d["worlds"] <= 200 for d in out)
    # The clock bounds the work: it is read before each sampled deal once the minimum
    # (four) is played, one tick a reading, one tick of budget: four deals, or up to the
    # sixteen a flag needs when one is in sight.
    valued = [d for d in out if d["candidates"] > 1]
    assert valued and all(4 <= d["worlds"] <= 16 for d in valued)
    assert sum(1 for d in valued if d["worlds"] == 4) > len(valued) // 2
    assert all(d["worlds"] == 16 for d in out if d["flagged"])


def test_hint_from_the_view() -> None:
    state = new_round("remi", 2, "coach/hint")
    bots = [make_bot("normal", f"h/{i}") for i in range(2)]
    hints = 0
    while not state.over and hints < 6:
        seat = state.turn
        view = view_for(state, seat)
        if seat == 0:
            got = hint(view)
            assert got["action"] == HardBot(HARD, "hint").act(view)
            assert got["text"]["en"] and got["text"]["ro"]
            assert got["text"]["en"] != got["text"]["ro"]
            assert json.loads(hint_json(json.dumps(view.to_dict())))["action"] == got["action"]
            hints += 1
        state.apply(seat, bots[seat].act(view))
    assert hints == 6
    with pytest.raises(ValueError, match="not_your_turn"):
        hint(view_for(state, 1 - state.turn))


@pytest.mark.volume
def test_a_known_mistake_is_flagged_and_good_moves_are_not() -> None:
    """Seat 0 plays the hard level's own policy, except at its third discard, where it
    throws the tile that policy wants to keep most (its lowest discard score: here a 2
    that its runs need). The coach flags that discard, suggests another, and leaves the
    policy's own discards around it alone."""
    from server.bots.planner import discard_scores, make_ctx

    state = new_round("remi101", 2, "coach-test/0")
    player = HardBot(replace(HARD, rollouts=0, rollouts_a=0), "t/0/0")
    bots = [player, make_bot("normal", "t/0/1")]
    mistake, discards = -1, 0
    while not state.over:
        seat = state.turn
        view = view_for(state, seat)
        action = bots[seat].act(view)
        if seat == 0 and mistake < 0 and action["do"] == "discard" and len(view.hand) > 4:
            discards += 1
            if discards == 3:
                ctx = make_ctx(view, set(player.memory.picked), HARD)
                worst = min(discard_scores(ctx, HARD))[1]
                assert worst != action["tile"]
                action, mistake = {"do": "discard", "tile": worst}, len(state.log)
                player.memory.last_row = list(view.row)
                player.memory.after_discard(view, worst)
        state.apply(seat, action)
    good = [i for i in seat_moves(state) if i != mistake and state.log[i][1]["do"] == "discard"]
    settings = CoachSettings(budget=1e9, min_worlds=32, max_worlds=32)
    out = {
        d.index: d
        for d in review(
            "remi101",
            2,
            state.deal,
            state.options,
            state.log,
            0,
            ticks(),
            settings,
            only={mistake, *good[:4]},
        )
    }
    flagged = out[mistake]
    assert flagged.flagged and flagged.kind == "discard"
    assert flagged.best["do"] == "discard"
    assert face_of(flagged.best["tile"]) != face_of(state.log[mistake][1]["tile"])
    assert flagged.cost >= settings.min_cost and flagged.cost > settings.z * flagged.se
    assert "cost about" in flagged.text["en"] and "a costat cam" in flagged.text["ro"]
    assert len(good) >= 4 and not any(out[i].flagged for i in good[:4])
    assert sum(1 for i in good[:4] if out[i].worlds == 32) >= 2  # valued, not skipped


def test_the_trace_holds_each_valued_decisions_play_outs() -> None:
    """A benchmark's trace (bench/coach.py) records the play-outs the review judged by,
    deal by deal, and asking for it changes nothing of the review."""
    state = bot_round("remi", 2, "coach/trace")
    only = set(seat_moves(state)[:2])
    settings = CoachSettings(budget=1e9, min_worlds=3, max_worlds=3)

    def run(trace: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        return [
            d.to_dict()
            for d in review(
                "remi", 2, state.deal, state.options, state.log, 0, ticks(), settings, only, trace
            )
        ]

    trace: list[dict[str, Any]] = []
    traced = run(trace)
    assert traced == run(None)
    valued = [d for d in traced if d["worlds"]]
    assert valued and len(trace) == len(valued)
    for d, t in zip(valued, trace, strict=True):
        assert t["seed"] == f"coach/0/{d['index']}"
        assert t["cands"][0] == d["played"] and len(t["cands"]) == d["candidates"]
        assert len(t["table"]) == d["worlds"] == 3 and t["spent"] is None  # no clock ran out
        played = [row[0] for row in t["table"]]
        assert round(sum(played) / 3, 2) == d["values"][0]
