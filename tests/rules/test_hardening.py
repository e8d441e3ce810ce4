"""Engine API hardening (RULES.md §C, A.12, B.14): malformed input is ``bad_action``,
checked first, the same for an action object as for its JSON form, and a refused
action changes nothing (:func:`helpers.refuse_ids` compares the whole state before
and after)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import make_round, refuse_ids, snapshot, tid

from server.rules import RoundOptions, RuleError, new_round
from server.rules.actions import (
    BuyJoker,
    Discard,
    Draw,
    Lay,
    LayOff,
    LayoffSpec,
    MeldSpec,
    TakeDiscard,
    TakeRow,
    action_to_dict,
)
from server.rules.state import BUILD, OVER


def opened_position() -> Any:
    """Seat 0 to build in remi45, opened, a run on the table; the atu is the KC."""
    return make_round(
        ["5S 6S 7S 8S 9H 9D", "3D 4D"], atu="KC", table=[(0, "TC JC QC")], phase=BUILD
    )


# A typed action and its JSON form: each is bad_action, before any other rule.
MALFORMED = [
    pytest.param(LayOff(tid("8S"), -1), id="negative meld index"),
    pytest.param(BuyJoker(tid("8S"), -1), id="negative meld index (buy_joker)"),
    pytest.param(Discard(float(tid("9H"))), id="float tile id"),
    pytest.param(Discard(True), id="bool tile id"),
    pytest.param(Lay((MeldSpec((tid("5S"), tid("6S"), tid("5S"))),)), id="same tile twice"),
    pytest.param(
        Lay(
            (
                MeldSpec((tid("5S"), tid("6S"), tid("7S"))),
                MeldSpec((tid("7S"), tid("8S"), tid("9H"))),
            )
        ),
        id="same tile in two melds",
    ),
    pytest.param(
        Lay((MeldSpec((tid("9H"), tid("9H")), "double"),)), id="a double of one tile twice"
    ),
    pytest.param(Lay((MeldSpec((tid("5S"), tid("6S"), tid("7S")), "pair"),)), id="unknown kind"),
    pytest.param(LayOff(tid("8S"), 0, "middle"), id="unknown end"),
    pytest.param(Discard(106), id="a tile id the round does not have"),
    pytest.param(Discard(10**9), id="a huge tile id"),
    pytest.param(
        Lay((MeldSpec((tid("JC", 1), tid("QC", 1), tid("KC"))),)), id="the atu without atu: true"
    ),
    pytest.param(
        Lay((MeldSpec((tid("5S"), tid("6S"), tid("7S"))),), atu=True),
        id="atu: true without the atu",
    ),
]


@pytest.mark.parametrize("action", MALFORMED)
def test_malformed_typed_action_is_bad_action_and_changes_nothing(action: Any) -> None:
    s = opened_position()
    assert refuse_ids(s, 0, action) == "bad_action"


@pytest.mark.parametrize("action", MALFORMED)
def test_the_json_form_is_refused_alike(action: Any) -> None:
    s = opened_position()
    data = action_to_dict(action)
    assert refuse_ids(s, 0, data) == "bad_action"
    with pytest.raises(RuleError) as typed:
        s.apply(0, action)
    with pytest.raises(RuleError) as json_form:
        s.apply(0, data)
    assert typed.value.message == json_form.value.message


@pytest.mark.parametrize("action", MALFORMED)
def test_malformed_comes_before_turn_and_round_over(action: Any) -> None:
    """§C order: bad_action is checked before not_your_turn and round_over."""
    s = opened_position()
    assert refuse_ids(s, 1, action) == "bad_action"
    s.phase = OVER
    assert refuse_ids(s, 0, action) == "bad_action"


def test_a_double_of_two_different_faces_is_invalid_meld_in_both_forms() -> None:
    """B.3: two tiles of different faces are not a double: a meld rule (invalid_meld),
    not malformed input; the typed object and its JSON form answer alike."""
    s = new_round("remi101", 2, seed=3)
    hand = s.hands[0]
    a = hand[0]
    b = next(t for t in hand if t % 52 != a % 52 and t < 104)
    typed = Lay((MeldSpec((a, b), "double"),))
    assert refuse_ids(s, 0, typed) == "invalid_meld"
    assert refuse_ids(s, 0, action_to_dict(typed)) == "invalid_meld"


def test_b14_family_b_has_no_take_row() -> None:
    """B.14: take_row is bad_action in family B, as JSON and as an object, before the
    turn, the phase and the row are looked at."""
    s = new_round("remi101", 2, seed=3)
    s.apply(0, {"do": "discard", "tile": s.hands[0][0]})
    top = s.row[-1]
    for seat in (0, 1):
        assert refuse_ids(s, seat, {"do": "take_row", "index": 0, "melds": []}) == "bad_action"
        assert refuse_ids(s, seat, TakeRow(0, (MeldSpec((top,)),))) == "bad_action"
    # the legal take in family B still works
    s.apply(1, Draw())
    assert s.phase == BUILD


def test_joker_button_tiles_exist_once_created() -> None:
    """B.9: a joker of the button gets a new id, which then exists in the round."""
    s = new_round(
        "remi101", 2, seed=3, options=RoundOptions(joker_button=True, joker_credits=(1, 1))
    )
    s.apply(0, {"do": "discard", "tile": s.hands[0][0]})
    assert refuse_ids(s, 1, {"do": "discard", "tile": 106}) == "bad_action"
    s.apply(1, {"do": "joker_button"})
    assert 106 in s.hands[1]
    assert refuse_ids(s, 1, {"do": "discard", "tile": 107}) == "bad_action"
    s.apply(1, {"do": "discard", "tile": s.hands[1][0]})
    assert 106 in s.hands[1] and s.turn == 0


def test_short_game_ids_outside_the_pack_do_not_exist() -> None:
    """§1: the short game holds ids 0..51 and the jokers; id 60 is not in the round."""
    s = new_round("remi45", 2, seed=5, options=RoundOptions(short_game=True))
    assert refuse_ids(s, 0, {"do": "discard", "tile": 60}) == "bad_action"


def test_the_atu_after_it_was_taken_is_an_ordinary_tile() -> None:
    """A.12: once laid, the atu is a tile of the table; a joker atu bought back is a
    hand tile again and is laid without the flag."""
    s = make_round(
        ["5S 6S 8H 2C", "3D 4D"],
        atu="JK",
        table=[(1, "8D 8C JK")],
        phase=BUILD,
        opened=[True, True],
    )
    joker = s.table[0].tiles[2]
    assert joker != s.atu  # the meld holds the other joker; mark the atu as taken into it
    s.table[0].tiles[2] = s.atu
    s.atu_taken_by = 1
    s.apply(0, {"do": "buy_joker", "tile": tid("8H"), "meld": 0})
    assert s.atu in s.hands[0]
    before = snapshot(s)
    s.apply(0, {"do": "lay", "melds": [[tid("5S"), tid("6S"), s.atu]]})
    assert snapshot(s) != before and s.table[-1].tiles[-1] == s.atu


def test_a_lay_off_list_in_a_typed_take_discard_is_checked() -> None:
    s = new_round("remi101", 2, seed=3)
    s.apply(0, {"do": "discard", "tile": s.hands[0][0]})
    assert refuse_ids(s, 1, TakeDiscard((), (LayoffSpec(s.row[-1], -1),))) == "bad_action"
    assert refuse_ids(s, 1, TakeDiscard((), ({"tile": s.row[-1], "meld": 0},))) == "bad_action"
