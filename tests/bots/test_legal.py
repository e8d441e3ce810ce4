"""The view-side check agrees with the engine on legal vs illegal actions."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from server.bots import make_bot
from server.bots.legal import check, fallback_action
from server.rules.errors import RuleError
from server.rules.state import RoundOptions, RoundState, new_round
from server.rules.tiles import JOKER, face_of
from server.rules.views import view_for


def _random_actions(state: RoundState, seat: int, rng: random.Random) -> list[dict[str, Any]]:
    view = view_for(state, seat)
    hand = list(view.hand)
    out: list[dict[str, Any]] = [{"do": "draw"}, {"do": "joker_button"}]
    for t in rng.sample(hand, min(3, len(hand))):
        out.append({"do": "discard", "tile": t})
    for k in range(len(view.table)):
        t = rng.choice(hand)
        out.append(
            {
                "do": "layoff",
                "tile": t,
                "meld": k,
                **({"end": rng.choice(["low", "high"])} if rng.random() < 0.5 else {}),
            }
        )
        out.append({"do": "buy_joker", "tile": t, "meld": k})
    for _ in range(3):
        size = rng.choice((2, 3, 4))
        if len(hand) >= size:
            meld = rng.sample(hand, size)
            out.append({"do": "lay", "melds": [meld]})
            if view.atu is not None:
                out.append({"do": "lay", "melds": [[*meld[:2], view.atu]], "atu": True})
    if view.row:
        top = view.row[-1]
        pair = rng.sample(hand, 2) if len(hand) >= 2 else hand
        out.append({"do": "take_row", "index": view.row_length - 1, "melds": [[top, *pair]]})
        out.append({"do": "take_discard", "melds": [[top, *pair]]})
        if view.table:
            out.append({"do": "take_discard", "melds": [], "layoffs": [{"tile": top, "meld": 0}]})
    return out


@pytest.mark.parametrize("variant", ["remi45", "etalat", "remi101-rising"])
def test_check_matches_the_engine(variant: str) -> None:
    rng = random.Random(variant)
    options = (
        RoundOptions(joker_button=True, joker_credits=(1, 1, 1))
        if variant.startswith("remi101")
        else RoundOptions(row_depth=4)
    )
    compared = legal = 0
    for r in range(3):
        state = new_round(variant, players=3, seed=f"chk/{r}", options=options)
        bots = [make_bot("normal", seed=i) for i in range(3)]
        while not state.over:
            seat = state.turn
            view = view_for(state, seat)
            candidates = _random_actions(state, seat, rng)
            # The bot's own choice is legal; so is the fallback.
            candidates.append(fallback_action(view))
            for action in candidates:
                trial = copy.deepcopy(state)
                try:
                    trial.apply(seat, action)
                    ok = True
                except RuleError:
                    ok = False
                assert (check(view, action) is None) == ok, action
                compared += 1
                legal += ok
            state.apply(seat, bots[seat].act(view))
    assert compared > 500 and legal > 50


def test_fallback_never_discards_a_joker_in_etalat() -> None:
    state = new_round("etalat", players=2, seed=1)
    jokers = [t for t in range(104, 106)]
    state.hands[0] = [*jokers, *state.hands[0][2:]]
    view = view_for(state, 0)
    action = fallback_action(view)
    assert face_of(action["tile"]) != JOKER and check(view, action) is None
