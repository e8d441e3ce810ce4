"""The shadow round built from a seat's view judges actions exactly as the real round (§D).

Bots and the browser hold only a view; they ask the one engine through
:func:`server.rules.shadow.would_accept`. For every step of random rounds in
every variant, each candidate action (the playout's own choice and a spread of
likely-illegal ones) gets the same verdict from the shadow as from the real state.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from server.rules import VARIANTS, RuleError, new_round, view_for
from server.rules.playout import random_action
from server.rules.shadow import shadow_state, would_accept
from server.rules.state import RoundOptions, RoundState
from server.rules.views import SeatView


def real_verdict(state: RoundState, seat: int, action: dict[str, Any]) -> str | None:
    trial = copy.deepcopy(state)
    try:
        trial.apply(seat, action)
    except RuleError as err:
        return err.code.value
    return None


def candidates(state: RoundState, rng: random.Random) -> list[dict[str, Any]]:
    seat = state.turn
    hand = state.hands[seat]
    out: list[dict[str, Any]] = [random_action(state, rng), {"do": "draw"}]
    for tile in rng.sample(hand, min(3, len(hand))):
        out.append({"do": "discard", "tile": tile})
        for meld in range(len(state.table)):
            out.append({"do": "layoff", "tile": tile, "meld": meld})
            out.append({"do": "buy_joker", "tile": tile, "meld": meld})
    if len(hand) >= 3:
        out.append({"do": "lay", "melds": [rng.sample(hand, 3)]})
    depth = state.options.row_depth
    for index in range(len(state.row)):
        # A seat can only name row tiles it sees (§D, A.9 depth); deeper ones by index only.
        visible = depth is None or len(state.row) - index <= depth
        named = [state.row[index]] if visible else []
        meld = [*named, *rng.sample(hand, min(3 - len(named), len(hand)))]
        out.append({"do": "take_row", "index": index, "melds": [meld]})
    if state.row:
        out.append({"do": "take_discard", "melds": [[state.row[-1], *hand[:2]]]})
    out.append({"do": "joker_button"})
    if state.atu is not None and len(hand) >= 2:
        out.append({"do": "lay", "melds": [[state.atu, *hand[:2]]], "atu": True})
    return out


TABLES = [(v, n, False) for v in VARIANTS for n in (2, 3, 4)] + [
    (v, 2, True) for v, var in VARIANTS.items() if var.family.has_atu
]


@pytest.mark.volume
@pytest.mark.parametrize(("variant", "players", "short"), TABLES)
def test_shadow_verdicts_match_the_real_round(variant: str, players: int, short: bool) -> None:
    rng = random.Random(f"{variant}-{players}-{short}")
    family_a = VARIANTS[variant].family.has_atu
    options = RoundOptions(
        short_game=short,
        row_depth=3 if family_a and players == 3 else None,
        joker_button=not family_a,
        joker_credits=None if family_a else tuple([1] * players),
    )
    state = new_round(
        variant, players, seed=rng.randrange(10**6), first=players - 1, options=options
    )
    compared = 0
    for _ in range(200):  # a round's first 200 steps: openings, lay-offs, the row
        if state.over:
            break
        seat = state.turn
        view = SeatView.from_dict(json.loads(json.dumps(view_for(state, seat).to_dict())))
        for action in candidates(state, rng):
            assert would_accept(view, action) == real_verdict(state, seat, action), action
            compared += 1
        other = (seat + 1) % players
        assert would_accept(view_for(state, other), {"do": "draw"}) == "not_your_turn"
        state.apply(seat, random_action(state, rng))
    assert compared > 100


def test_the_shadow_holds_nothing_the_view_does_not_show() -> None:
    state = new_round("etalat", 4, seed=11)
    view = view_for(state, 2)
    shadow = shadow_state(view)
    assert shadow.hands[2] == state.hands[2]
    assert [len(h) for h in shadow.hands] == [len(h) for h in state.hands]
    assert len(shadow.stock) == len(state.stock)
    # Only the view's own tiles sit where the real round has them.
    for seat in (0, 1, 3):
        assert set(shadow.hands[seat]) != set(state.hands[seat])
