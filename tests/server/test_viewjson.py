"""The shared view encoding gives exactly json.dumps of each seat's own view."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from server.rooms.botplay import bot_actions, make_seat_bot
from server.rooms.viewjson import ViewJSON, dumps, json_dumps, view_dict
from server.rules import RuleError, new_round, spectator_view, view_for
from server.rules.views import SeatInfo


def _bot_move(state: Any, bots: list[Any]) -> None:
    """The seat to play makes its bot's first legal move."""
    seat = state.turn
    for action in bot_actions(bots[seat], view_for(state, seat)):
        try:
            state.apply(seat, action)
        except RuleError:
            continue
        break


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
            _bot_move(state, bots)


def test_a_view_that_differs_in_public_values_is_encoded_in_full() -> None:
    state = new_round("remi", 2, "differs")
    encoder = ViewJSON()
    encoder.reset()
    base = view_for(state, 0)
    encoder.encode(base)
    seats = [SeatInfo(0, 15, True, None, 0, True), *base.seats[1:]]
    others = [
        dataclasses.replace(view_for(state, 1), stock_count=base.stock_count - 1),
        dataclasses.replace(view_for(state, 1), seats=seats),
        dataclasses.replace(view_for(state, 1), row=[*base.row, 1]),
    ]
    others.append(dataclasses.replace(view_for(state, 1), over=0))  # type: ignore[arg-type]
    for other in others:
        assert encoder.encode(other) == dumps(view_dict(other))
    assert encoder.encode(view_for(state, 1)) == dumps(view_dict(view_for(state, 1)))


# ---------------------------------------------------------------------- dumps (orjson)


@pytest.mark.parametrize(("variant", "players"), [("remi", 4), ("remi101", 3), ("etalat", 2)])
def test_dumps_writes_json_dumps_text_for_every_view_and_part(variant: str, players: int) -> None:
    from server.rules.views import own_part, public_part

    state = new_round(variant, players, "dumps")
    bots = [make_seat_bot("easy", f"d:{i}") for i in range(players)]
    prev: dict[str, object] | None = None
    checked = 0
    for _ in range(400):
        pub = public_part(state)
        values: list[object] = [pub, spectator_view(state).to_dict()]
        values += [view_dict(view_for(state, s)) for s in range(players)]
        values += [own_part(state, s) for s in range(players)]
        if prev is not None:
            values.append({k: v for k, v in pub.items() if prev.get(k) != v})  # a patch
        for value in values:
            assert dumps(value) == json_dumps(value)
            checked += 1
        prev = pub
        if state.over:
            break
        _bot_move(state, bots)
    assert state.over and checked > 500


@pytest.mark.parametrize(
    "value",
    [
        {"name": 'Ana "the shark" \\ / é 漢字 🂡', "ls": "\u2028"},
        {"ctl": "\x00\x01\x1f\x7f\n\r\t\b\f"},
        {1: "int key", 2: [1, -2, 0, 2**63 - 1, -(2**63)]},
        {"deadline": 1764470000.123, "server_time": 1764470000.0, "x": [0.1, -0.0, 1.5, 2.25e-3]},
        {"nested": [{"a": []}, {}, [None, True, False]], "tuple": (1, "two")},
        "",
        [],
    ],
)
def test_dumps_writes_json_dumps_text_for_edge_values(value: object) -> None:
    assert dumps(value) == json_dumps(value)


def test_dumps_leaves_to_json_what_orjson_refuses() -> None:
    big = {"n": 2**70, "m": -(2**64)}
    assert dumps(big) == json_dumps(big) == '{"n":1180591620717411303424,"m":-18446744073709551616}'
    lone = {"s": "\ud800"}  # a lone surrogate: json writes it as is
    assert dumps(lone) == json_dumps(lone)


def test_dumps_differs_only_in_ways_that_read_back_the_same() -> None:
    assert (dumps(1.5e-7), json_dumps(1.5e-7)) == ("1.5e-7", "1.5e-07")
    assert json.loads(dumps(1.5e-7)) == json.loads(json_dumps(1.5e-7))
    assert dumps(float("nan")) == "null"  # json would write NaN, which is not JSON
