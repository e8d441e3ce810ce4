"""The shared view encoding gives exactly json.dumps of each seat's own view."""

from __future__ import annotations

import dataclasses
import json

import pytest

from server.rooms.botplay import bot_actions, make_seat_bot
from server.rooms.viewjson import ViewJSON, dumps, view_dict
from server.rules import RuleError, new_round, spectator_view, view_for
from server.rules.views import SeatInfo


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
                text = encoder.encode(view)
                assert text == dumps(view_dict(view))
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
    state = new_round("remi", 2, "differs")
    encoder = ViewJSON()
    encoder.reset()
    base = view_for(state, 0)
    encoder.encode(base)
    seats = [SeatInfo(0, 15, True, None, 0, True), *base.seats[1:]]
    others = [
        dataclasses.replace(view_for(state, 1), stock_count=base.stock_count - 1),
        dataclasses.replace(view_for(state, 1), over=0),  # type: ignore[arg-type]
        dataclasses.replace(view_for(state, 1), seats=seats),
        dataclasses.replace(view_for(state, 1), row=[*base.row, 1]),
    ]
    for other in others:
        assert encoder.encode(other) == dumps(view_dict(other))
    assert encoder.encode(view_for(state, 1)) == dumps(view_dict(view_for(state, 1)))
