"""The shared view encoding gives exactly json.dumps of each seat's own view."""

from __future__ import annotations

import json

import pytest

from server.rooms.actor import view_dict
from server.rooms.botplay import bot_actions, make_seat_bot
from server.rooms.viewjson import ViewJSON, dumps
from server.rules import RuleError, new_round, spectator_view, view_for


@pytest.mark.parametrize(
    ("variant", "players"), [("remi", 4), ("remi45", 2), ("remi101", 3), ("etalat", 4)]
)
def test_every_view_of_bot_rounds_encodes_exactly(variant: str, players: int) -> None:
    encoder = ViewJSON()
    for seed in range(3):
        state = new_round(variant, players, f"viewjson-{seed}")
        bots = [make_seat_bot("easy", f"{seed}:{i}") for i in range(players)]
        for _ in range(400):
            encoder.reset()  # a new version
            # The spectator first, then the seats in a varying order: any view may be the
            # version's template.
            order: list[int | None] = [None, *range(players)]
            if seed % 2:
                order.reverse()
            for seat in order:
                view = view_for(state, seat) if seat is not None else spectator_view(state)
                data = view_dict(view)
                text = encoder.encode(data)
                assert text == dumps(data)
                assert json.loads(text) == json.loads(json.dumps(view.to_dict()))
            if state.over:
                break
            seat = state.turn
            for action in bot_actions(bots[seat], view_for(state, seat)):
                try:
                    state.apply(seat, action)
                except RuleError:
                    continue
                break


def test_a_view_that_differs_in_public_values_is_encoded_in_full() -> None:
    encoder = ViewJSON()
    a = {"seat": 0, "hand": [1], "n": 1, "joker_credits": 0, "button_used": False}
    encoder.encode(a)
    for other in ({**a, "n": True}, {**a, "n": 2}, {**a, "extra": 1}):
        assert encoder.encode(other) == dumps(other)


def test_a_container_met_again_is_encoded_again() -> None:
    # Views are built from fresh containers; the same list twice may have changed in place.
    encoder = ViewJSON()
    row = [1, 2]
    view = {"seat": 0, "hand": [], "row": row, "joker_credits": 0, "button_used": False}
    encoder.encode(view)
    row.append(3)
    encoder.reset()
    assert encoder.encode(view) == dumps(view)
