"""The family-A round state machine, rule by rule (RULES.md A.3-A.15, §C).

Positions are built with :func:`helpers.make_round` (a Deal written in faces,
hands of any size, row and table placed directly), so each test starts where
its rule applies. Every refusal goes through :func:`helpers.refuse`, which also
asserts that the refused action changed nothing (§C: "an illegal action
changes nothing").
"""

from __future__ import annotations

import pytest
from helpers import (
    act,
    credits,
    fmt,
    hand_faces,
    make_round,
    refuse,
    refuse_ids,
    snapshot,
    table_faces,
    tid,
)

from server.rules import RoundOptions, new_round, replay
from server.rules.state import BUILD, OVER, TAKE
from server.rules.tiles import JOKER, face_of

# ===================================================================== A.3 turn and phase


def test_a3_first_player_starts_at_the_build_step_then_turns_wrap() -> None:
    """A.3: the first player's first turn has no take; seats play in increasing order."""
    s = new_round("remi45", 3, seed="a3", first=2)
    assert (s.turn, s.phase) == (2, BUILD)
    assert refuse_ids(s, 2, {"do": "draw"}) == "wrong_phase"  # no take for the first player
    assert refuse_ids(s, 0, {"do": "draw"}) == "not_your_turn"
    s.apply(2, {"do": "discard", "tile": s.hands[2][0]})
    assert (s.turn, s.phase, len(s.row), len(s.hands[2])) == (0, TAKE, 1, 14)
    assert refuse_ids(s, 0, {"do": "discard", "tile": s.hands[0][0]}) == "wrong_phase"
    s.apply(0, {"do": "draw"})
    assert (s.phase, len(s.hands[0]), s.stock_count) == (BUILD, 15, 61)
    assert refuse_ids(s, 0, {"do": "draw"}) == "wrong_phase"  # taking twice
    assert refuse_ids(s, 0, {"do": "take_row", "index": 0, "melds": []}) == "wrong_phase"
    s.apply(0, {"do": "discard", "tile": s.hands[0][-1]})
    assert s.turn == 1
    s.apply(1, {"do": "draw"})
    s.apply(1, {"do": "discard", "tile": s.hands[1][0]})
    assert (s.turn, s.phase) == (2, TAKE)  # wrapped to seat 2


def test_a3_log_replays_to_the_same_round() -> None:
    s = new_round("etalat", 2, seed="replay")
    natural = [[t for t in h if face_of(t) != JOKER] for h in s.hands]  # A.14: no joker
    s.apply(0, {"do": "discard", "tile": natural[0][3]})
    s.apply(1, {"do": "draw"})
    s.apply(1, {"do": "discard", "tile": natural[1][0]})
    again = replay("etalat", 2, s.deal, s.options, s.log)
    assert (again.hands, again.row, again.stock, again.turn) == (s.hands, s.row, s.stock, s.turn)


def test_a3_draw_event_shows_the_tile_only_to_the_drawer() -> None:
    s = make_round(["2C 3C", "4S 5S"], stock="9H")
    event = act(s, 0, "draw")
    assert event.for_seat(0)["tile"] == tid("9H")
    assert "tile" not in event.for_seat(1) and "tile" not in event.for_seat(None)


# ===================================================================== A.4 first turn


def test_a4_first_players_first_turn_only_discards() -> None:
    """A.4: nothing reaches the table in a seat's first turn: no lay, lay-off,
    buy-back or atu (checked before anything the action itself names)."""
    s = make_round(
        ["5H 6H 7H 6S 9C", "2S 3S 4S 5S 8C"], variant="remi", atu="7S", stock="KD QD", fresh=True
    )
    assert refuse(s, 0, "lay", melds=[["5H", "6H", "7H"]]) == "first_turn"
    assert refuse(s, 0, "lay", melds=[["5H", "6H", "ATU"]], atu=True) == "first_turn"
    assert refuse_ids(s, 0, {"do": "layoff", "tile": tid("5H"), "meld": 0}) == "first_turn"
    assert refuse_ids(s, 0, {"do": "buy_joker", "tile": tid("5H"), "meld": 3}) == "first_turn"
    act(s, 0, "discard", tile="9C")
    # seat 1's first turn: no breaking the row, but a draw and a discard
    assert refuse(s, 1, "take_row", index=0, melds=[]) == "first_turn"
    act(s, 1, "draw")
    assert refuse(s, 1, "lay", melds=[["2S", "3S", "4S"]]) == "first_turn"
    act(s, 1, "discard", tile="KD")
    # seat 0's second turn: the table is open to it
    act(s, 0, "draw")
    act(s, 0, "lay", melds=[["5H", "6H", "7H"]])
    assert s.opened == [True, False]
    act(s, 0, "discard", tile="6S")
    # seat 1's second turn: it may break the row (at the top: it has not opened)
    act(s, 1, "take_row", index=2, melds=[["2S", "3S", "4S", "5S", "6S"]])
    assert s.opened == [True, True] and fmt(s.row) == ["9C", "KD"]


def test_a4_first_turn_is_per_seat_and_per_round() -> None:
    s = new_round("remi45", 3, seed="a4", first=1)
    assert [s.first_turn(i) for i in range(3)] == [True, True, True]
    s.apply(1, {"do": "discard", "tile": s.hands[1][0]})
    assert [s.first_turn(i) for i in range(3)] == [True, False, True]


# ===================================================================== A.8 opening


@pytest.mark.parametrize(
    ("variant", "melds", "code"),
    [
        ("remi45", ["2S 3S 4S", "TH TD TC"], None),  # 15 + 30 = 45: exactly the threshold
        ("remi45", ["TH JH QH KH AH"], None),  # a run alone: 50, the run counts
        ("remi45", ["JK QH KH", "2S 3S 4S"], None),  # the joker is the JH: 30 + 15
        ("remi45", ["2S 3S 4S", "9H 9D 9C"], "below_threshold"),  # 30
        ("remi45", ["AS AH AD"], "run_required"),  # 75 but no run
        ("remi45", ["5S 5H 5D"], "below_threshold"),  # 15 and no run: below_threshold
        ("remi51", ["2S 3S 4S 5S", "TH TD TC"], "below_threshold"),  # 50
        ("remi51", ["2S 3S 4S 5S 6S", "TH TD TC"], None),  # 55
        ("remi", ["2S 3S 4S"], None),  # 0 points, but a run
        ("remi", ["AS AH AD"], "run_required"),
        ("remi", ["5S 5H 5D", "KS KH KD"], "run_required"),
        ("etalat", ["2S 3S 4S", "TH TD TC"], None),
        ("etalat", ["2S 3S 4S", "9H 9D 9C"], "below_threshold"),
        ("etalat", ["AS AH AD"], "run_required"),
        ("etalat51", ["2S 3S 4S 5S", "TH TD TC"], "below_threshold"),
        ("etalat51", ["2S 3S 4S 5S 6S", "TH TD TC"], None),
    ],
)
def test_a8_opening_threshold_and_run(variant: str, melds: list[str], code: str | None) -> None:
    """A.8 / §0: remi 0 + run, remi45/etalat 45 + run, remi51/etalat51 51 + run;
    when both are missing, below_threshold."""
    hand = " ".join(melds) + " 9C 8D"
    s = make_round([hand, "2C 3C"], variant=variant, phase=BUILD)
    written = [m.split() for m in melds]
    if code is None:
        act(s, 0, "lay", melds=written)
        assert s.opened == [True, False] and s.opened_with[0] == "points"
        assert hand_faces(s, 0) == ["8D", "9C"]
    else:
        assert refuse(s, 0, "lay", melds=written) == code


def test_a8_after_opening_more_melds_layoffs_and_buybacks_same_turn() -> None:
    """A.8: after the opening, in the same turn, any meld (no threshold), lay-offs, buy-back."""
    s = make_round(
        ["2S 3S 4S TH TD TC 5C 5H 5D 5S 7D 9C", "2C 3C"],
        table=[(1, "JK 8D 9D")],
        opened=[False, True],
        phase=BUILD,
    )
    assert refuse(s, 0, "layoff", tile="5S", meld=0) == "not_opened"
    assert refuse(s, 0, "buy_joker", tile="7D", meld=0) == "not_opened"
    act(s, 0, "lay", melds=[["2S", "3S", "4S"], ["TH", "TD", "TC"]])
    act(s, 0, "lay", melds=[["5C", "5H", "5D"]])  # 15 points, no run: fine now
    act(s, 0, "layoff", tile="5S", meld=3)
    act(s, 0, "buy_joker", tile="7D", meld=0)
    assert hand_faces(s, 0) == ["9C", "JK"]
    assert credits(s) == [15 + 30 + 20 + 5, 10]


def test_a8_the_opening_is_one_lay() -> None:
    """A.8: the opening is one lay holding all opening melds; two small lays do not add up."""
    s = make_round(["2S 3S 4S TH TD TC 9C", "2C 3C"], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["2S", "3S", "4S"]]) == "below_threshold"
    assert refuse(s, 0, "lay", melds=[["TH", "TD", "TC"]]) == "below_threshold"  # 30, no run
    assert s.opened == [False, False]


def test_a8_open_and_go_out_in_the_same_turn() -> None:
    s = make_round(["2S 3S 4S TH TD TC 9C", "2C 3C"], phase=BUILD)
    act(s, 0, "lay", melds=[["2S", "3S", "4S"], ["TH", "TD", "TC"]])
    act(s, 0, "discard", tile="9C")
    assert s.over and s.result is not None and s.result.out == 0


# ===================================================================== A.9 breaking the row


def test_a9_seed_example_take_the_3() -> None:
    """A.9: the hand gains 3, 6, 7 (the 3 goes into the new meld), the row becomes 5 10 1 5."""
    s = make_round(
        ["9C 8C", "2H 4H 9D 8D"], row="5C TD AD 5S 3H 6C 7D", table=[(1, "TS JS QS")], turn=1
    )
    event = act(s, 1, "take_row", index=4, melds=[["2H", "3H", "4H"]])
    assert fmt(s.row) == ["5C", "TD", "AD", "5S"]
    assert hand_faces(s, 1) == sorted(["9D", "8D", "6C", "7D"])
    assert table_faces(s) == [["TS", "JS", "QS"], ["2H", "3H", "4H"]]
    assert credits(s) == [0, 30 + 15]
    assert (s.turn, s.phase) == (1, BUILD)
    assert fmt(event.public["tiles"]) == ["3H", "6C", "7D"]


def test_a9_taking_the_top_takes_just_it() -> None:
    s = make_round(["9C 8C", "5H 6H 2D"], row="5C TD 7H", table=[(1, "TS JS QS")], turn=1)
    act(s, 1, "take_row", index=2, melds=[["5H", "6H", "7H"]])
    assert fmt(s.row) == ["5C", "TD"] and hand_faces(s, 1) == ["2D"]


def test_a9_came_along_tiles_may_be_used_in_the_melds() -> None:
    """A.9: the melds may use any hand tiles and the tiles that came along."""
    s = make_round(["9C 8C", "6H 9C 2D"], row="4H 9S 5H 9D", table=[(1, "TS JS QS")], turn=1)
    act(s, 1, "take_row", index=0, melds=[["4H", "5H", "6H"], ["9S", "9D", "9C"]])
    assert s.row == [] and hand_faces(s, 1) == ["2D"]
    assert table_faces(s)[1:] == [["4H", "5H", "6H"], ["9S", "9D", "9C"]]


def test_a9_unopened_seat_may_take_only_the_top_and_must_open_with_it() -> None:
    """A.9: below the top only for a seat opened before this action (not_opened);
    an unopened seat makes its whole opening in the action, the taken tile inside it."""
    hand = "5S 5H 5C TS JS QS 2C"
    s = make_round(["8C 7C", hand], row="9C 5D", turn=1)
    assert (
        refuse(s, 1, "take_row", index=0, melds=[["TS", "JS", "QS"], ["5S", "5H", "5C"]])
        == "not_opened"
    )
    assert (
        refuse(s, 1, "take_row", index=1, melds=[["TS", "JS", "QS"], ["5S", "5H", "5C"]])
        == "taken_tile_unused"
    )  # a valid opening, but without the 5D
    assert refuse(s, 1, "take_row", index=1, melds=[["5D", "5S", "5H"]]) == "below_threshold"
    assert (
        refuse(s, 1, "take_row", index=1, melds=[["5D", "5S", "5H", "5C"]]) == "below_threshold"
    )  # 20
    act(s, 1, "take_row", index=1, melds=[["5D", "5S", "5H"], ["TS", "JS", "QS"]])
    assert s.opened == [False, True] and fmt(s.row) == ["9C"]
    assert hand_faces(s, 1) == ["2C", "5C"] and credits(s) == [0, 45]


def test_a9_unopened_top_take_needs_a_run() -> None:
    s = make_round(["8C 7C", "AS AH 2C"], row="9C AD", turn=1)
    assert refuse(s, 1, "take_row", index=1, melds=[["AD", "AS", "AH"]]) == "run_required"


def test_a9_taken_tile_must_go_into_a_new_meld() -> None:
    """A.9: lay-offs do not count; a meld of hand tiles only does not count either."""
    s = make_round(["8C 7C", "8H 2D 3D 4D"], row="9C 8H", table=[(1, "5H 6H 7H")], turn=1)
    assert refuse(s, 1, "take_row", index=1, melds=[]) == "taken_tile_unused"
    assert refuse(s, 1, "take_row", index=1, melds=[["2D", "3D", "4D"]]) == "taken_tile_unused"
    assert refuse(s, 1, "take_row", index=0, melds=[["2D", "3D", "4D"]]) == "taken_tile_unused"


@pytest.mark.parametrize(
    ("depth", "index", "code"),
    [
        (None, 0, None),
        (4, 0, None),
        (3, 0, "too_deep"),
        (3, 1, None),
        (1, 2, "too_deep"),
        (1, 3, None),
        (2, 2, None),
    ],
)
def test_a9_visible_depth(depth: int | None, index: int, code: str | None) -> None:
    """A.9: an opened seat reaches index i only within the room's visible depth
    (the newest ``row_depth`` tiles; the top is always reachable)."""
    row = ["9C", "5D", "9H", "9S"]
    s = make_round(
        ["8C 7C", "9D 9C 5S 5H 2C"],
        row=row,
        table=[(1, "TS JS QS")],
        turn=1,
        options=RoundOptions(row_depth=depth),
    )
    meld = {
        "9C": ["9C", "9D", "9H"],
        "5D": ["5D", "5S", "5H"],
        "9H": ["9H", "9D", "9C"],
        "9S": ["9S", "9D", "9C"],
    }[row[index]]
    if code is None:
        act(s, 1, "take_row", index=index, melds=[meld])
        assert len(s.row) == index
    else:
        assert refuse(s, 1, "take_row", index=index, melds=[meld]) == code


def test_a9_index_beyond_the_row_and_empty_row() -> None:
    """§C: an index out of range is bad_action; an empty row is empty_row (checked first)."""
    s = make_round(["8C 7C", "9D 9S 2C"], row="9C", table=[(1, "TS JS QS")], turn=1)
    assert refuse_ids(s, 1, {"do": "take_row", "index": 1, "melds": []}) == "bad_action"
    s.row = []
    assert refuse_ids(s, 1, {"do": "take_row", "index": 0, "melds": []}) == "empty_row"
    assert refuse_ids(s, 1, {"do": "take_row", "index": 5, "melds": []}) == "empty_row"


def test_a9_atomic_invalid_meld_changes_nothing() -> None:
    """A.9: if anything is invalid, nothing changes and the row stays as it was."""
    s = make_round(
        ["8C 7C", "2H 4H 9D 8D"], row="5C TD AD 5S 3H 6C 7D", table=[(1, "TS JS QS")], turn=1
    )
    assert refuse(s, 1, "take_row", index=4, melds=[["3H", "4H", "6C"]]) == "invalid_meld"
    assert (
        refuse(s, 1, "take_row", index=4, melds=[["2H", "3H", "4H"], ["9D", "8D", "6C"]])
        == "invalid_meld"
    )  # the second meld spoils the whole action
    assert len(s.row) == 7 and len(s.hands[1]) == 4


def test_a9_take_row_must_keep_a_discard() -> None:
    s = make_round(["8C 7C", "4H 5H"], row="9C 3H", table=[(1, "TS JS QS")], turn=1)
    assert refuse(s, 1, "take_row", index=1, melds=[["3H", "4H", "5H"]]) == "must_keep_discard"
    # with a tile coming along, one is left to discard
    s2 = make_round(["8C 7C", "4H 5H"], row="3H 9C", table=[(1, "TS JS QS")], turn=1)
    act(s2, 1, "take_row", index=0, melds=[["3H", "4H", "5H"]])
    assert hand_faces(s2, 1) == ["9C"]


def test_a9_breaking_the_row_is_still_allowed_with_an_empty_stock() -> None:
    """A.15: breaking the row is still allowed instead of drawing from an empty stock."""
    s = make_round(["8C 7C", "7H 8H 2C"], row="9H", table=[(1, "TS JS QS")], turn=1)
    assert s.stock_count == 0
    act(s, 1, "take_row", index=0, melds=[["7H", "8H", "9H"]])
    assert not s.over and s.phase == BUILD


# ===================================================================== A.10 lay-off


def test_a10_layoff_on_own_and_opponents_melds_is_credited_to_the_layer() -> None:
    s = make_round(
        ["8H 4H 9H 9S 2C", "3C 4C"], table=[(0, "5H 6H 7H"), (1, "9S 9D 9C")], phase=BUILD
    )
    event = act(s, 0, "layoff", tile="8H", meld=0)
    assert event.public["end"] == "high"
    act(s, 0, "layoff", tile="4H", meld=0)  # fits only low: goes there without `end`
    act(s, 0, "layoff", tile="9H", meld=1)  # the opponent's set lacks hearts
    assert table_faces(s)[0] == ["4H", "5H", "6H", "7H", "8H"]
    assert s.table[1].owners == [1, 1, 1, 0]
    assert credits(s) == [25 + 5, 15]
    assert refuse(s, 0, "layoff", tile="9S", meld=1) == "layoff_does_not_fit"  # four already
    assert refuse(s, 0, "layoff", tile="2C", meld=0) == "layoff_does_not_fit"


def test_a10_set_suit_already_there_does_not_fit() -> None:
    s = make_round(["9S 2C 3C", "3D 4D"], table=[(0, "5H 6H 7H"), (1, "9S 9D 9C")], phase=BUILD)
    assert refuse(s, 0, "layoff", tile="9S", meld=1) == "layoff_does_not_fit"


@pytest.mark.parametrize(
    ("end", "table_after"),
    [
        (None, "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
        ("high", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
        ("low", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
    ],
)
def test_a10_ace_fitting_both_ends_goes_high_unless_named(
    end: str | None, table_after: str
) -> None:
    """A.10: an ace on a 2..K run fits both ends; with no `end` it goes high."""
    s = make_round(
        ["AH 2C 3C", "3D 4D"],
        table=[(0, "5C 6C 7C"), (1, "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")],
        phase=BUILD,
    )
    fields = {"end": end} if end else {}
    act(s, 0, "layoff", tile="AH", meld=1, **fields)
    assert table_faces(s)[1] == table_after.split()
    assert credits(s)[0] == 15 + (10 if end != "low" else 5)  # A.6: high ace 10, low ace 5


def test_a10_named_end_where_the_tile_does_not_fit() -> None:
    s = make_round(["8H 2C 3C", "3D 4D"], table=[(0, "5H 6H 7H")], phase=BUILD)
    assert refuse(s, 0, "layoff", tile="8H", meld=0, end="low") == "layoff_does_not_fit"
    assert (
        refuse_ids(s, 0, {"do": "layoff", "tile": tid("8H"), "meld": 0, "end": "middle"})
        == "bad_action"
    )


def test_a10_joker_layoff_and_not_opened_and_bad_index() -> None:
    """A.10: a joker never is laid off in family A; unopened: not_opened; no meld: bad_action."""
    s = make_round(["JK 8H 2C", "9H 3D 4D"], table=[(0, "5H 6H 7H")], phase=BUILD)
    assert refuse(s, 0, "layoff", tile="JK", meld=0) == "joker_layoff"
    assert refuse(s, 0, "layoff", tile="8H", meld=1) == "bad_action"
    s.turn = 1
    assert refuse(s, 1, "layoff", tile="9H", meld=0) == "not_opened"


def test_a10_layoff_must_keep_a_discard() -> None:
    """A.13: a lay-off that would empty the hand is refused."""
    s = make_round(["8H", "3D 4D"], table=[(0, "5H 6H 7H")], phase=BUILD)
    assert refuse(s, 0, "layoff", tile="8H", meld=0) == "must_keep_discard"


# ===================================================================== A.11 joker buy-back


def test_a11_buy_run_joker_with_the_exact_tile() -> None:
    """A.11: the placed tile is credited to the buyer, the joker's credit leaves its layer."""
    s = make_round(
        ["4H 7C 7S 8D 2C", "3D 4D"],
        table=[(1, "JK 5H 6H"), (1, "7S JK 7D"), (0, "TC JC QC")],
        phase=BUILD,
    )
    assert credits(s) == [30, 15 + 15]
    assert refuse(s, 0, "buy_joker", tile="7C", meld=0) == "wrong_replacement"
    event = act(s, 0, "buy_joker", tile="4H", meld=0)
    assert table_faces(s)[0] == ["4H", "5H", "6H"] and s.table[0].owners == [0, 1, 1]
    assert tid("JK") in s.hands[0] and s.consumed == {tid("JK")}
    assert event.for_seat(0)["joker"] == tid("JK") and "joker" not in event.for_seat(1)
    assert credits(s) == [30 + 5, 10 + 15]


def test_a11_buy_set_joker_with_any_missing_suit() -> None:
    s = make_round(
        ["4H 7C 7S 8D 2C", "3D 4D"],
        table=[(1, "JK 5H 6H"), (1, "7S JK 7D"), (0, "TC JC QC")],
        phase=BUILD,
    )
    assert refuse(s, 0, "buy_joker", tile="7S", meld=1) == "wrong_replacement"  # spades held
    assert refuse(s, 0, "buy_joker", tile="8D", meld=1) == "wrong_replacement"  # rank
    assert refuse(s, 0, "buy_joker", tile="TC", meld=2) == "tile_not_in_hand"
    act(s, 0, "buy_joker", tile="7C", meld=1)
    assert sorted(table_faces(s)[1]) == ["7C", "7D", "7S"]
    assert refuse(s, 0, "buy_joker", tile="8D", meld=2) == "wrong_replacement"  # no joker


def test_a11_bought_joker_is_consumed_once_laid_again() -> None:
    """A.11: a bought-back joker plays and scores as before but can't be bought back again."""
    s = make_round(
        ["4H 8D 9D 2C 7S", "7D 8C 3D 4D"], table=[(1, "JK 5H 6H"), (0, "TC JC QC")], phase=BUILD
    )
    act(s, 0, "buy_joker", tile="4H", meld=0)
    act(s, 0, "lay", melds=[["JK", "8D", "9D"]])  # the joker stands for the 7D
    assert credits(s)[0] == 30 + 5 + 15  # scores as before
    act(s, 0, "discard", tile="2C")
    s.phase = BUILD  # (seat 1's take step skipped)
    s.opened[1] = True
    assert refuse(s, 1, "buy_joker", tile="8C", meld=2) == "wrong_replacement"
    assert refuse(s, 1, "buy_joker", tile="7D", meld=2) == "joker_consumed"


def test_a11_buyback_takes_the_first_unconsumed_matching_joker() -> None:
    """Decision: with two matching set jokers, the first one not consumed is taken."""
    s = make_round(
        ["7H 7C 2C", "3D 4D"], table=[(1, "7S JK JK", "set"), (0, "TC JC QC")], phase=BUILD
    )
    s.consumed = {104}
    event = act(s, 0, "buy_joker", tile="7H", meld=0)
    assert event.public["position"] == 2 and 105 in s.hands[0]
    assert s.table[0].tiles == [tid("7S"), 104, tid("7H")]
    assert refuse(s, 0, "buy_joker", tile="7C", meld=0) == "joker_consumed"


def test_a11_buy_joker_needs_an_opening_and_a_real_tile() -> None:
    s = make_round(
        ["4H JK 2C", "4H 3D 4D"], table=[(1, "JK 5H 6H")], opened=[True, False], phase=BUILD
    )
    assert refuse(s, 0, "buy_joker", tile="JK", meld=0) == "wrong_replacement"
    assert refuse(s, 0, "buy_joker", tile="4H", meld=4) == "bad_action"
    s.turn = 1
    assert refuse(s, 1, "buy_joker", tile="4H", meld=0) == "not_opened"


# ===================================================================== A.12 the atu


def test_a12_atu_only_when_going_out() -> None:
    """A.12: the lay with the atu must leave exactly one tile (then discarded to go out)."""
    s = make_round(["5S 6S 9H 2D", "3D 4D"], atu="7S", table=[(0, "TC JC QC")], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["5S", "6S", "ATU"]], atu=True) == "atu_not_going_out"
    s = make_round(["5S 6S 9H", "3D 4D"], atu="7S", table=[(0, "TC JC QC")], phase=BUILD)
    act(s, 0, "lay", melds=[["5S", "6S", "ATU"]], atu=True)
    assert s.atu_taken_by == 0 and table_faces(s)[1] == ["5S", "6S", "7S"]
    act(s, 0, "discard", tile="9H")
    assert s.over and s.result is not None and s.result.out == 0


def test_a12_atu_in_the_opening_and_out() -> None:
    """A.12 + A.8: the atu may be part of the opening when the seat goes out."""
    s = make_round(["5S 6S TH TD TC 9H", "3D 4D"], atu="7S", phase=BUILD)
    act(s, 0, "lay", melds=[["5S", "6S", "ATU"], ["TH", "TD", "TC"]], atu=True)
    assert s.opened[0] and credits(s)[0] == 45


def test_a12_atu_lay_that_empties_the_hand_is_must_keep_discard() -> None:
    s = make_round(["5S 6S", "3D 4D"], atu="7S", table=[(0, "TC JC QC")], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["5S", "6S", "ATU"]], atu=True) == "must_keep_discard"


def test_a12_atu_flag_and_atu_tile_must_go_together() -> None:
    """§C: atu:true with no atu in the melds, and the atu in a lay without the flag, are
    bad_action, before whose turn it is; in a lay-off the atu is nobody's tile."""
    s = make_round(["5S 6S 7S 9H", "3D 4D"], atu="7S", table=[(0, "TC JC QC")], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["5S", "6S", "7S"]], atu=True) == "bad_action"
    assert refuse(s, 0, "lay", melds=[["5S", "6S", "ATU"]]) == "bad_action"
    assert refuse(s, 1, "lay", melds=[["5S", "6S", "ATU"]]) == "bad_action"  # not its turn
    assert refuse_ids(s, 0, {"do": "layoff", "tile": s.atu, "meld": 0}) == "tile_not_in_hand"


def test_a12_atu_only_in_a_lay() -> None:
    """Decision: take_row has no atu flag (A.18), so the atu in its melds is not held."""
    s = make_round(["8C 7C", "5S 9C"], atu="7S", row="6S", table=[(1, "TC JC QC")], turn=1)
    assert refuse(s, 1, "take_row", index=0, melds=[["5S", "6S", "ATU"]]) == "tile_not_in_hand"


def test_a12_atu_taken() -> None:
    """A.12: only one seat per round (forced: the taker always goes out at once)."""
    s = make_round(["5S 6S 9H", "3D 4D"], atu="7S", table=[(0, "TC JC QC")], phase=BUILD)
    s.atu_taken_by = 1
    assert refuse(s, 0, "lay", melds=[["5S", "6S", "ATU"]], atu=True) == "atu_taken"
    # §C: atu_taken comes before tile_not_in_hand and meld validity
    not_held = [tid("5S"), tid("8D"), s.atu]
    assert refuse_ids(s, 0, {"do": "lay", "melds": [not_held], "atu": True}) == "atu_taken"


def test_a12_atu_is_natural_unless_a_joker() -> None:
    s = make_round(["5H 6H 9H", "3D 4D"], atu="7S", table=[(0, "TC JC QC")], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["5H", "6H", "ATU"]], atu=True) == "invalid_meld"
    s = make_round(["5H 6H 9H", "3D 4D"], atu="JK", table=[(0, "TC JC QC")], phase=BUILD)
    act(s, 0, "lay", melds=[["5H", "6H", "ATU"]], atu=True)
    assert s.table[1].tiles[2] == 104 and credits(s)[0] == 30 + 15


# ===================================================================== A.13 must keep a discard


def test_a13_lay_that_empties_the_hand() -> None:
    s = make_round(["5H 6H 7H", "3D 4D"], table=[(0, "TC JC QC")], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["5H", "6H", "7H"]]) == "must_keep_discard"
    s = make_round(["5H 6H 7H TS TH TD", "3D 4D"], phase=BUILD)
    assert (
        refuse(s, 0, "lay", melds=[["5H", "6H", "7H"], ["TS", "TH", "TD"]]) == "must_keep_discard"
    )


# ===================================================================== A.14 discard


def test_a14_discard_puts_the_tile_on_top_and_ends_the_turn() -> None:
    s = make_round(["5H 6H", "3D 4D"], row="9C", phase=BUILD)
    act(s, 0, "discard", tile="6H")
    assert fmt(s.row) == ["9C", "6H"] and (s.turn, s.phase) == (1, TAKE)
    assert refuse_ids(s, 1, {"do": "discard", "tile": tid("5H")}) == "wrong_phase"
    s.phase = BUILD  # (seat 1's take step skipped)
    assert refuse_ids(s, 1, {"do": "discard", "tile": tid("5H")}) == "tile_not_in_hand"


@pytest.mark.parametrize("variant", ["etalat", "etalat51"])
def test_a14_etalat_joker_discard(variant: str) -> None:
    """A.14 etalat: a joker can't be discarded unless the hand holds only jokers."""
    s = make_round(["JK 5H", "3D 4D"], variant=variant, phase=BUILD)
    assert refuse(s, 0, "discard", tile="JK") == "joker_discard"
    s = make_round(["JK JK", "3D 4D"], variant=variant, phase=BUILD)
    act(s, 0, "discard", tile="JK")
    assert not s.over and len(s.hands[0]) == 1


def test_a14_etalat_going_out_on_a_joker() -> None:
    s = make_round(["JK", "3D 4D"], variant="etalat", table=[(0, "TC JC QC")], phase=BUILD)
    act(s, 0, "discard", tile="JK")
    assert s.over and s.last_discard_joker and s.out == 0


@pytest.mark.parametrize("variant", ["remi", "remi45", "remi51"])
def test_a14_remi_may_discard_a_joker(variant: str) -> None:
    s = make_round(["JK 5H", "3D 4D"], variant=variant, phase=BUILD)
    act(s, 0, "discard", tile="JK")
    assert s.row == [104]


# ===================================================================== A.15 stock exhaustion


def test_a15_draw_from_the_empty_stock_ends_the_round() -> None:
    """A.15: the stock is never rebuilt; the draw is accepted and nobody is out."""
    s = make_round(["2C 3D", "4S 5S"], stock="9H", turn=1)
    act(s, 1, "draw")
    act(s, 1, "discard", tile="9H")
    assert s.stock_count == 0 and not s.over
    event = act(s, 0, "draw")
    assert event.public == {"stock_empty": True, "over": True}
    assert s.over and s.phase == OVER and s.stock_ran_out
    assert s.result is not None and (s.result.reason, s.result.out) == ("stock", None)
    assert hand_faces(s, 0) == ["2C", "3D"] and fmt(s.row) == ["9H"]
    assert refuse_ids(s, 0, {"do": "draw"}) == "round_over"
    assert refuse_ids(s, 1, {"do": "draw"}) == "round_over"


# ===================================================================== §C check order


def test_c_bad_action_first() -> None:
    s = make_round(["2C 3D", "4S 5S"], stock="9H")
    assert refuse_ids(s, 1, {"do": "fly"}) == "bad_action"  # before not_your_turn
    assert refuse_ids(s, 5, {"do": "draw"}) == "bad_action"  # no such seat
    assert refuse_ids(s, 0, {"do": "take_discard", "melds": []}) == "bad_action"  # family B
    assert refuse_ids(s, 0, {"do": "joker_button"}) == "bad_action"
    assert refuse_ids(s, 0, {"do": "lay", "melds": [[1, 1, 2]]}) == "bad_action"
    assert refuse_ids(s, 0, {"do": "lay", "melds": []}) == "bad_action"
    assert refuse_ids(s, 0, {"do": "discard", "tile": -1}) == "bad_action"
    assert refuse_ids(s, 0, {"do": "discard", "tile": True}) == "bad_action"
    assert refuse_ids(s, 0, {"do": "lay", "melds": [[1, 2, 3]], "atu": "yes"}) == "bad_action"
    assert (
        refuse_ids(s, 0, {"do": "lay", "melds": [{"kind": "pair", "tiles": [1, 2]}]})
        == "bad_action"
    )
    s.phase = OVER
    assert refuse_ids(s, 0, {"do": "fly"}) == "bad_action"  # before round_over


def test_c_round_over_before_not_your_turn() -> None:
    s = make_round(["2C 3D", "4S 5S"], stock="9H")
    s.phase = OVER
    assert refuse_ids(s, 1, {"do": "draw"}) == "round_over"


def test_c_not_your_turn_before_wrong_phase() -> None:
    s = make_round(["2C 3D", "4S 5S"], stock="9H")
    assert refuse_ids(s, 1, {"do": "discard", "tile": tid("4S")}) == "not_your_turn"


def test_c_wrong_phase_before_first_turn() -> None:
    s = make_round(["5H 6H 7H 9C", "4S 5S"], row="8H", fresh=True)
    assert refuse(s, 0, "take_row", index=0, melds=[["6H", "7H", "8H"]]) == "wrong_phase"


def test_c_first_turn_before_indexes_and_tiles() -> None:
    s = make_round(["5H 6H 7H 9C", "4S 5S"], row="8H", fresh=True, turn=1, phase=TAKE)
    assert refuse_ids(s, 1, {"do": "take_row", "index": 7, "melds": []}) == "first_turn"
    s.phase = BUILD
    assert refuse_ids(s, 1, {"do": "layoff", "tile": 0, "meld": 9}) == "first_turn"


def test_c_index_before_tile_not_in_hand() -> None:
    s = make_round(["5H 6H 7H 9C", "4S 5S"], row="8H", table=[(1, "TS JS QS")], turn=1)
    assert refuse_ids(s, 1, {"do": "take_row", "index": 3, "melds": [[tid("9C")]]}) == "bad_action"
    s.phase = BUILD
    assert refuse_ids(s, 1, {"do": "layoff", "tile": tid("9C"), "meld": 3}) == "bad_action"
    assert refuse_ids(s, 1, {"do": "buy_joker", "tile": tid("9C"), "meld": 3}) == "bad_action"


def test_c_tile_not_in_hand_before_meld_validity_and_opening() -> None:
    s = make_round(["5H 6H 7H 9C", "4S 5S"], phase=BUILD)
    other = [tid("4S"), tid("5S"), tid("9C")]  # seat 1's tiles and one of seat 0's
    assert refuse_ids(s, 0, {"do": "lay", "melds": [other]}) == "tile_not_in_hand"
    assert refuse_ids(s, 0, {"do": "discard", "tile": tid("4S")}) == "tile_not_in_hand"
    assert refuse_ids(s, 0, {"do": "layoff", "tile": tid("4S"), "meld": 0}) == "bad_action"


def test_c_meld_validity_before_opening() -> None:
    s = make_round(["5H 6H 8H JK 9C 5D", "4S 5S"], phase=BUILD)
    assert refuse(s, 0, "lay", melds=[["5H", "6H", "8H"]]) == "invalid_meld"
    assert (
        refuse(s, 0, "lay", melds=[["5H", "6H", "JK"], ["5D", "9C", "8H"]]) == "invalid_meld"
    )  # an invalid second meld beats the small first one
    s2 = make_round(["5H JK JK 9C", "4S 5S"], phase=BUILD)
    assert refuse(s2, 0, "lay", melds=[["5H", "JK", "JK"]]) == "ambiguous_meld"
    s3 = make_round(["5H JK JK 9C", "4S 5S"], variant="etalat", phase=BUILD)
    assert refuse(s3, 0, "lay", melds=[["5H", "JK", "JK"]]) == "too_many_jokers"
    assert (
        refuse(s3, 0, "lay", melds=[{"kind": "run", "tiles": ["5H", "JK", "JK"]}])
        == "too_many_jokers"
    )


def test_c_invalid_meld_before_not_opened_in_a_deep_take() -> None:
    s = make_round(["8C 7C", "9D 9S 2C"], row="9C 5D", turn=1)
    assert refuse(s, 1, "take_row", index=0, melds=[["9C", "9D", "2C"]]) == "invalid_meld"
    assert refuse(s, 1, "take_row", index=0, melds=[["9C", "9D", "9S"]]) == "not_opened"


def test_c_not_opened_before_too_deep_and_opening_before_too_deep() -> None:
    opts = RoundOptions(row_depth=1)
    s = make_round(["8C 7C", "9D 9S 2C"], row="9C 5D", turn=1, options=opts)
    assert refuse(s, 1, "take_row", index=0, melds=[["9C", "9D", "9S"]]) == "not_opened"
    s.opened[1] = True
    assert refuse(s, 1, "take_row", index=0, melds=[["9C", "9D", "9S"]]) == "too_deep"
    assert refuse(s, 1, "take_row", index=0, melds=[]) == "too_deep"  # before taken_tile_unused


def test_c_below_threshold_before_taken_tile_unused() -> None:
    s = make_round(["8C 7C", "9D 9S 2D 3D 4D"], row="9C 5D", turn=1)
    assert refuse(s, 1, "take_row", index=1, melds=[["2D", "3D", "4D"]]) == "below_threshold"


def test_c_layoff_order() -> None:
    """not_opened → joker_layoff → layoff_does_not_fit → must_keep_discard."""
    s = make_round(["JK", "JK 3D"], table=[(0, "5H 6H 7H")], phase=BUILD)
    assert refuse(s, 0, "layoff", tile="JK", meld=0) == "joker_layoff"  # not must_keep_discard
    s.turn = 1
    assert refuse(s, 1, "layoff", tile="JK", meld=0) == "not_opened"
    s2 = make_round(["2C", "3D"], table=[(0, "5H 6H 7H")], phase=BUILD)
    assert refuse(s2, 0, "layoff", tile="2C", meld=0) == "layoff_does_not_fit"


def test_c_buy_joker_order() -> None:
    """tile_not_in_hand → not_opened → wrong_replacement → joker_consumed."""
    s = make_round(["8C", "7D 3D"], table=[(0, "JK 8D 9D")], opened=[False, False], phase=BUILD)
    s.consumed = {104}
    assert refuse_ids(s, 0, {"do": "buy_joker", "tile": tid("7D"), "meld": 0}) == "tile_not_in_hand"
    assert refuse(s, 0, "buy_joker", tile="8C", meld=0) == "not_opened"
    s.opened[0] = True
    assert refuse(s, 0, "buy_joker", tile="8C", meld=0) == "wrong_replacement"
    s.turn = 1
    s.opened[1] = True
    assert refuse(s, 1, "buy_joker", tile="7D", meld=0) == "joker_consumed"


def test_c_etalat_discard_order() -> None:
    s = make_round(["JK 5H", "JK 3D"], variant="etalat", phase=BUILD)
    assert refuse_ids(s, 0, {"do": "discard", "tile": 105}) == "tile_not_in_hand"
    assert refuse_ids(s, 0, {"do": "discard", "tile": 104}) == "joker_discard"


@pytest.mark.parametrize(
    ("seat", "action"),
    [
        (0, []),
        (0, "draw"),
        ("0", {"do": "draw"}),
        (None, {"do": "draw"}),
        (0, {"do": None}),
        (0, {"do": "lay", "melds": "abc"}),
        (0, {"do": "lay", "melds": [[]]}),
        (0, {"do": "lay", "melds": [{"kind": "run"}]}),
        (0, {"do": "lay", "melds": [[1.5, 2, 3]]}),
        (0, {"do": "take_row"}),
        (0, {"do": "take_row", "index": "1", "melds": []}),
        (0, {"do": "discard"}),
        (0, {"do": "layoff", "tile": 1, "meld": "0"}),
        (0, {"do": "buy_joker", "tile": 1}),
    ],
)
def test_c_malformed_input_is_bad_action(seat: object, action: object) -> None:
    s = new_round("remi45", 2, seed=1)
    assert refuse_ids(s, seat, action) == "bad_action"


def test_c_unknown_tile_id_is_bad_action() -> None:
    """§C: a tile id that does not exist in the round is malformed input, checked
    before whose turn it is; an id of the round that is not in the hand is
    tile_not_in_hand."""
    s = new_round("remi45", 2, seed=1)
    before = snapshot(s)
    assert refuse_ids(s, 0, {"do": "discard", "tile": 10**9}) == "bad_action"
    assert refuse_ids(s, 1, {"do": "discard", "tile": 106}) == "bad_action"
    assert snapshot(s) == before
    assert refuse_ids(s, 0, {"do": "discard", "tile": s.hands[1][0]}) == "tile_not_in_hand"


def test_deep_copy_is_equal_and_independent() -> None:
    """A round is plain data: ``copy.deepcopy`` gives an equal, independent twin."""
    import copy

    state = new_round("remi45", players=3, seed=11)
    state.apply(0, {"do": "discard", "tile": state.hands[0][0]})
    twin = copy.deepcopy(state)
    assert snapshot(twin) == snapshot(state)
    assert twin.hands is not state.hands and twin.hands[1] is not state.hands[1]
    assert twin.variant.id == state.variant.id and twin.deal == state.deal
    twin.apply(1, {"do": "draw"})
    assert snapshot(twin) != snapshot(state) and len(state.log) == 1
    assert state.hands[1] != twin.hands[1]
