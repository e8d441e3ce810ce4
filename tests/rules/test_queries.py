"""The query API the UI and the bots use, from a seat's view (A.5, A.6, A.8, A.9)."""

from __future__ import annotations

import pytest
from helpers import Ids, act, fmt, make_round, tid

from server.rules import RoundOptions, new_round
from server.rules.melds import meld_value, read_meld
from server.rules.queries import (
    arrange,
    evaluate_formation,
    hand_value,
    opening_lock,
    reachable_row_indices,
    row_take_block,
    row_take_preview,
)
from server.rules.state import BUILD
from server.rules.tiles import face_of
from server.rules.views import view_for


# ------------------------------------------------------------------ A.9 reachable row tiles
def test_a9_reachable_unopened_top_only_opened_whole_row() -> None:
    s = make_round(["8C 7C", "2C 3C"], row="9C 5D 9H")
    assert reachable_row_indices(view_for(s, 0)) == [2]  # unopened: the top
    assert reachable_row_indices(view_for(s, 1)) == []  # not its turn
    s.opened[0] = True
    assert reachable_row_indices(view_for(s, 0)) == [0, 1, 2]


def test_a9_reachable_within_the_depth() -> None:
    s = make_round(
        ["8C 7C", "2C 3C"],
        row="9C 5D 9H 2H",
        table=[(0, "TS JS QS")],
        options=RoundOptions(row_depth=2),
    )
    assert reachable_row_indices(view_for(s, 0)) == [2, 3]


def test_a9_reachable_nothing_at_the_build_step_in_a_first_turn_or_empty_row() -> None:
    s = make_round(["8C 7C", "2C 3C"], row="9C", table=[(0, "TS JS QS")], phase=BUILD)
    assert reachable_row_indices(view_for(s, 0)) == []
    s = make_round(["8C 7C", "2C 3C"], row="9C", fresh=True, turn=1, phase="take")
    assert reachable_row_indices(view_for(s, 1)) == []  # A.4
    s = make_round(["8C 7C", "2C 3C"], table=[(0, "TS JS QS")])
    assert reachable_row_indices(view_for(s, 0)) == []


def test_a9_row_take_preview() -> None:
    """A.9 seed example: taking the 3 of 5 10 1 5 3 6 7 brings 3 6 7."""
    s = make_round(
        ["8C 7C", "2C 3C"],
        row="5C TD AD 5S 3H 6C 7D",
        table=[(0, "TS JS QS")],
        options=RoundOptions(row_depth=4),
    )
    v = view_for(s, 0)
    assert row_take_preview(v, 4) == [tid("3H"), tid("6C"), tid("7D")]
    assert row_take_preview(v, 6) == [tid("7D")]
    assert row_take_preview(v, 2) == []  # below the visible depth
    assert row_take_preview(v, 7) == []


# ------------------------------------------------------------------ A.5/A.6 formations
def test_a5_evaluate_formation() -> None:
    v = view_for(new_round("remi45", 2, seed=1), 0)
    pick = Ids()
    assert evaluate_formation(v, pick.many("QH KH JK")) == {
        "valid": True,
        "code": None,
        "message": "",
        "kind": "run",
        "value": 30,
    }
    assert evaluate_formation(v, pick.many("AS AH AD"))["value"] == 75
    bad = evaluate_formation(v, pick.many("5H 6S 7H"))
    assert (bad["valid"], bad["code"], bad["value"]) == (False, "invalid_meld", 0)
    amb = Ids().many("5D JK JK")
    assert evaluate_formation(v, amb)["code"] == "ambiguous_meld"
    assert evaluate_formation(v, amb, "run")["value"] == 15  # 5 6 7
    assert evaluate_formation(v, amb, "set")["value"] == 15


def test_a5_evaluate_formation_etalat_joker_limit() -> None:
    v = view_for(new_round("etalat", 2, seed=1), 0)
    r = evaluate_formation(v, Ids().many("9H JK JK QH"))
    assert (r["valid"], r["code"]) == (False, "too_many_jokers")


def test_a6_hand_value() -> None:
    s = make_round(["JK AS 9C TD", "2C 3C"])
    assert hand_value(view_for(s, 0)) == 50 + 25 + 5 + 10


# ------------------------------------------------------------------ A.8 opening lock
@pytest.mark.parametrize(
    ("variant", "melds", "code", "value", "has_run", "threshold"),
    [
        ("remi45", ["2S 3S 4S", "9H 9D 9C"], "below_threshold", 30, True, 45),
        ("remi45", ["AS AH AD"], "run_required", 75, False, 45),
        ("remi45", ["5S 5H 5D"], "below_threshold", 15, False, 45),  # both missing
        ("remi45", ["2S 3S 4S", "TH TD TC"], None, 45, True, 45),
        ("remi51", ["2S 3S 4S", "TH TD TC"], "below_threshold", 45, True, 51),
        ("remi", [], "run_required", 0, False, 0),  # remi: 0 points, but a run
        ("remi", ["AS AH AD"], "run_required", 75, False, 0),
        ("remi", ["2S 3S 4S"], None, 15, True, 0),
        ("etalat51", ["2S 3S 4S 5S 6S", "TH TD TC"], None, 55, True, 51),
    ],
)
def test_a8_opening_lock_reasons(
    variant: str, melds: list[str], code: str | None, value: int, has_run: bool, threshold: int
) -> None:
    v = view_for(new_round(variant, 2, seed=1), 0)
    pick = Ids()
    lock = opening_lock(v, [pick.many(m) for m in melds])
    assert (lock["locked"], lock["code"], lock["value"], lock["has_run"], lock["threshold"]) == (
        code is not None,
        code,
        value,
        has_run,
        threshold,
    )
    assert lock["run_required"] is True and lock["opened"] is False
    assert lock["doubles_needed"] is None


def test_a8_opening_lock_skips_invalid_formations_and_is_open_after_opening() -> None:
    s = make_round(["2S 3S 4S TH TD TC 9C", "2C 3C"], phase=BUILD)
    v = view_for(s, 0)
    pick = Ids()
    lock = opening_lock(v, [pick.many("2S 3S 4S"), pick.many("TH TD 9C")])
    assert (lock["code"], lock["value"]) == ("below_threshold", 15)
    act(s, 0, "lay", melds=[["2S", "3S", "4S"], ["TH", "TD", "TC"]])
    lock = opening_lock(view_for(s, 0), [Ids().many("5S 5H 5D")])
    assert (lock["locked"], lock["opened"]) == (False, True)


# ------------------------------------------------------------------ why a row tile is not offered
def test_a9_row_take_block_says_why_a_deep_take_is_not_offered() -> None:
    s = make_round(["8C 7C", "2C 3C"], row="9C 5D 9H")
    v = view_for(s, 0)
    assert row_take_block(v, 2) is None  # the top: anyone may
    block = row_take_block(v, 0)
    assert block is not None and block["code"] == "not_opened"
    assert row_take_block(view_for(s, 1), 2)["code"] == "not_your_turn"  # type: ignore[index]
    s.opened[0] = True
    assert row_take_block(view_for(s, 0), 0) is None
    for index in range(3):  # the same answer as the reachable list, tile by tile
        assert (row_take_block(view_for(s, 0), index) is None) == (
            index in reachable_row_indices(view_for(s, 0))
        )


def test_a9_row_take_block_at_the_build_step_and_in_a_first_turn() -> None:
    s = make_round(["8C 7C", "2C 3C"], row="9C", table=[(0, "TS JS QS")], phase=BUILD)
    assert row_take_block(view_for(s, 0), 0)["code"] == "wrong_phase"  # type: ignore[index]
    s = make_round(["8C 7C", "2C 3C"], row="9C", fresh=True, turn=1, phase="take")
    assert row_take_block(view_for(s, 1), 0)["code"] == "first_turn"  # type: ignore[index]


def test_b4_row_take_block_only_the_last_discard() -> None:
    s = new_round("remi101", players=2, seed=3)
    for _ in range(2):
        seat = s.turn
        if s.phase == "take":
            s.apply(seat, {"do": "draw"})
        s.apply(seat, {"do": "discard", "tile": s.hands[seat][0]})
    v = view_for(s, s.turn)
    assert row_take_block(v, v.row_length - 1) is None
    assert row_take_block(v, 0)["code"] == "bad_action"  # type: ignore[index]


# ------------------------------------------------------------------ A.9, B.4: the taken tile
def test_a9_opening_lock_with_the_taken_tile() -> None:
    s = make_round(["8C 7C TS JS QS KS", "2C 3C"], row="6C", table=[])
    v = view_for(s, 0)
    pick = Ids()
    run = pick.many("TS JS QS KS")
    taken = s.row[0]
    clubs = [taken, *[t for t in s.hands[0] if t not in run]]
    lock = opening_lock(v, [run], taken)
    assert (lock["locked"], lock["taken_used"], lock["value"]) == (True, False, 40)
    assert lock["code"] == "below_threshold"  # the opening's reason comes first
    lock = opening_lock(v, [run, clubs], taken)
    assert (lock["locked"], lock["code"], lock["taken_used"], lock["value"]) == (
        False,
        None,
        True,
        55,
    )
    s.opened[0] = True
    lock = opening_lock(view_for(s, 0), [run], taken)
    assert (lock["locked"], lock["code"], lock["taken_used"]) == (True, "taken_tile_unused", False)
    assert opening_lock(view_for(s, 0), [run])["taken_used"] is None


# ------------------------------------------------------------------ arranging the rack
def test_arrange_finds_the_run_and_the_set_and_leaves_the_rest() -> None:
    s = make_round(["4H 5H 6H 7H QS QD QC 2C 9D", "2S 3S"])
    a = arrange(view_for(s, 0))
    assert [(m["kind"], fmt(m["tiles"]), m["value"]) for m in a["melds"]] == [
        ("run", ["4H", "5H", "6H", "7H"], 20),
        ("set", ["QS", "QD", "QC"], 30),
    ]
    assert sorted(fmt(a["left"])) == ["2C", "9D"]
    assert a["complete"] is True


def test_arrange_puts_a_joker_where_it_saves_the_most() -> None:
    s = make_round(["JS QS JK 3C 3D 8H", "2S 3S"])
    a = arrange(view_for(s, 0))
    assert len(a["melds"]) == 1
    meld = a["melds"][0]
    assert meld["kind"] == "run" and tid("JK") in meld["tiles"]
    assert {tid("JS"), tid("QS")} <= set(meld["tiles"])
    assert sorted(fmt(a["left"])) == ["3C", "3D", "8H"]


@pytest.mark.parametrize("variant", ["remi", "remi45", "etalat", "remi101"])
def test_arrange_splits_the_hand_into_melds_the_engine_accepts(variant: str) -> None:
    for seed in range(12):
        view = view_for(new_round(variant, players=4, seed=seed), 0)
        a = arrange(view)
        laid = [t for m in a["melds"] for t in m["tiles"]]
        assert sorted(laid + a["left"]) == sorted(view.hand)  # every tile once
        rules = view.variant.meld_rules
        for m in a["melds"]:
            assert meld_value(read_meld(m["tiles"], m["kind"], rules), rules) == m["value"]
        if rules.doubles:  # B.3: a pair left over is offered as a double
            left_faces = [face_of(t) for t in a["left"]]
            assert len(left_faces) == len(set(left_faces))
