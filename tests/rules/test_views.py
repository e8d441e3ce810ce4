"""What each seat may see (RULES.md §D): own hand only, no stock order, no seed;
a spectator sees no hand; every hand is revealed when the round is over; the
row within the visible depth."""

from __future__ import annotations

import json

import pytest
from helpers import act, make_round, tid

from server.rules import RoundOptions, SeatView, new_round, spectator_view, view_for
from server.rules.state import BUILD


def all_ints(node: object) -> set[int]:
    """Every integer anywhere in a JSON-like value."""
    out: set[int] = set()
    if isinstance(node, bool):
        return out
    if isinstance(node, int):
        out.add(node)
    elif isinstance(node, dict):
        for v in node.values():
            out |= all_ints(v)
    elif isinstance(node, list | tuple):
        for v in node:
            out |= all_ints(v)
    return out


def test_d_own_hand_and_counts_of_the_others() -> None:
    s = new_round("remi45", 3, seed="view")
    for seat in range(3):
        v = view_for(s, seat)
        assert v.seat == seat and v.hand == s.hands[seat]
        assert [x.tiles for x in v.seats] == [15, 14, 14]
        assert v.hands is None and v.result is None and not v.over
        assert v.stock_count == 62 and v.atu == s.atu


def test_d_no_other_hand_no_stock_no_seed_in_the_json() -> None:
    """§D: never another seat's hand, the stock order or the seed until the round is over."""
    s = new_round("etalat", 4, seed="secret-seed-42")
    s.apply(0, {"do": "discard", "tile": s.hands[0][0]})
    for seat in (*range(4), None):
        v = view_for(s, seat) if seat is not None else spectator_view(s)
        data = v.to_dict()
        text = json.dumps(data)
        assert "secret-seed-42" not in text and 'stock"' not in text.replace("stock_count", "")
        tile_fields = {t for key in ("hand", "row") for t in data[key]} | {data["atu"]}
        hidden = {t for i, h in enumerate(s.hands) if i != seat for t in h} | set(s.stock)
        assert not tile_fields & hidden
        for meld in data["table"]:
            assert not set(meld["tiles"]) & hidden


def test_d_spectator_sees_no_hand() -> None:
    s = new_round("remi", 2, seed="spec")
    v = spectator_view(s)
    assert v.seat is None and v.hand == [] and v.joker_credits == 0 and not v.button_used
    assert [x.tiles for x in v.seats] == [15, 14]


def test_d_hands_revealed_when_the_round_is_over() -> None:
    s = make_round(["2S 3S 4S TH TD TC 9C", "2C 3C"], phase=BUILD)
    act(s, 0, "lay", melds=[["2S", "3S", "4S"], ["TH", "TD", "TC"]])
    assert view_for(s, 1).hands is None
    act(s, 0, "discard", tile="9C")
    for v in (view_for(s, 1), spectator_view(s)):
        assert v.over and v.phase == "over"
        assert v.hands == [[], [tid("2C"), tid("3C")]]
        assert v.result is not None and v.result["scores"] == [45 + 50, -100]


def test_d_table_with_credits_atu_consumed_and_seat_flags() -> None:
    s = make_round(
        ["4H 2C 3C", "8D 9D"], atu="7S", table=[(1, "JK 5H 6H"), (0, "TC JC QC")], phase=BUILD
    )
    act(s, 0, "buy_joker", tile="4H", meld=0)
    v = view_for(s, 1)
    assert v.table[0] == {
        "kind": "run",
        "tiles": [tid("4H"), tid("5H"), tid("6H")],
        "owners": [0, 1, 1],
        "low": 4,
        "suit": 1,
        "stands_for": [None, None, None],
    }
    assert v.consumed == [104] and v.atu == tid("7S") and v.atu_taken_by is None
    assert [(x.opened, x.credits, x.tiles) for x in v.seats] == [(True, 35, 3), (True, 10, 2)]
    assert v.opened == [True, True] and v.opened_with == ["points", "points"]


def test_d_table_jokers_show_what_they_stand_for() -> None:
    """A.11: a run's joker stands for one face, a set's for the rank in a missing suit;
    the view says so, so buying it back needs no arithmetic in the client."""
    s = make_round(["4H 2C 3C", "8D 9D"], table=[(1, "JK 5H 6H"), (0, "9C JK 9S")], phase=BUILD)
    v = view_for(s, 1)
    face = s.family.notation.parse
    assert v.table[0]["stands_for"] == [[face("4H")], None, None]
    assert v.table[1]["stands_for"] == [None, sorted([face("9H"), face("9D")]), None]
    assert spectator_view(s).table == v.table


def test_d_row_by_names_each_discarder() -> None:
    """§D: who discarded each row tile is public; a take removes theirs with the tiles."""
    s = new_round("remi45", 3, seed=4)
    for seat in (0, 1, 2):
        if seat:
            s.apply(seat, {"do": "draw"})
        s.apply(seat, {"do": "discard", "tile": s.hands[seat][0]})
    assert view_for(s, 0).row_by == [0, 1, 2] and len(view_for(s, 0).row) == 3
    s2 = new_round("remi45", 3, seed=4, options=RoundOptions(row_depth=2))
    for seat in (0, 1, 2):
        if seat:
            s2.apply(seat, {"do": "draw"})
        s2.apply(seat, {"do": "discard", "tile": s2.hands[seat][0]})
    assert view_for(s2, 1).row_by == [1, 2]


@pytest.mark.parametrize(
    ("depth", "visible", "offset"),
    [
        (None, ["9C", "5D", "9H", "9S", "2D"], 0),
        (5, ["9C", "5D", "9H", "9S", "2D"], 0),
        (9, ["9C", "5D", "9H", "9S", "2D"], 0),
        (2, ["9S", "2D"], 3),
        (1, ["2D"], 4),
    ],
)
def test_d_row_within_the_visible_depth(depth: int | None, visible: list[str], offset: int) -> None:
    """A.9/§D: row_depth = how many of the newest row tiles are visible (top always)."""
    s = make_round(["8C 7C", "2C 3C"], row="9C 5D 9H 9S 2D", options=RoundOptions(row_depth=depth))
    v = view_for(s, 0)
    assert v.row == [tid(f) for f in visible]
    assert (v.row_offset, v.row_length, v.row_depth) == (offset, 5, depth)


def test_d_row_depth_must_be_positive() -> None:
    with pytest.raises(ValueError):
        new_round("remi45", 2, seed=1, options=RoundOptions(row_depth=0))


def test_d_view_round_trips_and_bad_seat() -> None:
    s = new_round("remi51", 2, seed="rt")
    v = view_for(s, 1)
    assert SeatView.from_dict(v.to_dict()) == v
    with pytest.raises(ValueError):
        view_for(s, 2)


@pytest.mark.parametrize("variant", ["remi", "etalat", "remi101"])
def test_d_public_credits_equal_each_seats_credits_through_whole_rounds(variant: str) -> None:
    """A.7 / §D: the ``credits`` of every seat in a view (computed in one pass over the
    table) equal ``state.credits(seat)`` after every action of bot rounds
    that lay melds, lay off and (family A) take jokers back."""
    from server.bots import make_bot
    from server.rules.state import replay

    laid = 0
    for r in range(3):
        state = new_round(variant, players=4, seed=f"credits/{r}")
        bots = [make_bot("normal", seed=f"credits/{r}/{i}") for i in range(4)]
        while not state.over and len(state.log) < 2000:
            state.apply(state.turn, bots[state.turn].act(view_for(state, state.turn)))
        for n in range(len(state.log) + 1):
            step = replay(state.variant, state.players, state.deal, state.options, state.log[:n])
            credits = [s.credits for s in spectator_view(step).seats]
            assert credits == [step.credits(i) for i in range(4)]
            laid = max(laid, sum(credits))
    assert laid > 0  # the rounds did put credited melds on the table


@pytest.mark.parametrize("variant", ["remi45", "etalat", "remi101"])
def test_d_every_view_gives_each_seat_exactly_its_view_for(variant: str) -> None:
    """``every_view`` (the rooms' one call per version) gives, after every action of
    bot rounds, the spectator's view and each seat's ``view_for``: the same values,
    each seat's own hand alone, the shared values not a seat's to change."""
    from server.bots import make_bot
    from server.rules.views import every_view

    for r in range(2):
        state = new_round(variant, players=3, seed=f"every/{r}")
        bots = [make_bot("easy", seed=f"every/{r}/{i}") for i in range(3)]
        while True:
            watcher, seats = every_view(state)
            assert watcher.to_dict() == spectator_view(state).to_dict()
            assert [v.to_dict() for v in seats] == [view_for(state, i).to_dict() for i in range(3)]
            assert [v.hand for v in seats] == [state.hands[i] for i in range(3)]
            assert all(v.hand is not state.hands[i] for i, v in enumerate(seats))
            if state.over or len(state.log) >= 400:
                break
            state.apply(state.turn, bots[state.turn].act(view_for(state, state.turn)))
