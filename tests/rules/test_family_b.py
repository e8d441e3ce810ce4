"""Family B (Remi 101) unit tests, rule by rule (RULES.md B.1-B.14, §C).

Expected numbers are worked out by hand from RULES.md in the comments; the
scenario files tests/scenarios/b*.json cover whole rounds (run by
test_scenarios.py), these tests pin the pieces: meld reading, values, the
opening judge, the doubles restrictions, the rising threshold, the penalty
table, the joker button and joker recovery.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from server.rules import RoundOptions, RoundState, RuleError, get_variant, new_round
from server.rules.melds import (
    DOUBLE,
    FAMILY_A_MELDS,
    FAMILY_B_MELDS,
    RUN,
    SET,
    meld_value,
    read_meld,
)
from server.rules.queries import hand_value, opening_lock
from server.rules.scenario import translate
from server.rules.state import TAKE, Deal
from server.rules.tiles import B_FACES, FULL_SET_IDS, JOKER, face_of
from server.rules.variants import B_JOKER_IN_HAND, FAMILY_B
from server.rules.views import view_for

R101 = "remi101"
RISING = "remi101-rising"
assert get_variant(R101).family is FAMILY_B and get_variant(RISING).family is FAMILY_B


# ----------------------------------------------------------------- helpers
class _Ids:
    """Hands out tile ids for faces, each physical tile once."""

    def __init__(self) -> None:
        self.free: dict[int, list[int]] = {}
        for t in FULL_SET_IDS:
            self.free.setdefault(face_of(t), []).append(t)

    def __call__(self, face: str) -> int:
        return self.free[B_FACES.parse(face)].pop(0)

    def many(self, faces: Sequence[str]) -> list[int]:
        return [self(f) for f in faces]


def ids(*faces: str) -> list[int]:
    """Distinct tile ids for faces (second copy for a repeated face)."""
    return _Ids().many(faces)


def shape(faces: Sequence[str], kind: str | None = None) -> Any:
    return read_meld(ids(*faces), kind, FAMILY_B_MELDS)


def make_state(
    hands: Sequence[Sequence[str]],
    *,
    variant: str = R101,
    first: int = 0,
    stock: Sequence[str] = (),
    options: RoundOptions | None = None,
) -> RoundState:
    """A round whose hands start with ``hands`` (padded to 22/21 with unnamed tiles)."""
    pick = _Ids()
    named = {B_FACES.parse(f) for h in hands for f in h} | {B_FACES.parse(f) for f in stock}
    dealt = [pick.many(h) for h in hands]
    top = pick.many(stock)
    spare = [t for f in sorted(pick.free) if f not in named and f != JOKER for t in pick.free[f]]
    spare += [t for f in sorted(pick.free) if f in named and f != JOKER for t in pick.free[f]]
    spare += pick.free.get(JOKER, [])
    for seat, hand in enumerate(dealt):
        while len(hand) < (22 if seat == first else 21):
            hand.append(spare.pop(0))
    deal = Deal(first, tuple(tuple(h) for h in dealt), None, tuple(top + spare))
    return RoundState(get_variant(variant), len(hands), deal, options)


def play(state: RoundState, seat: int, do: str, **fields: Any) -> None:
    """Apply a face-written action (the scenario runner's translation)."""
    state.apply(seat, translate(state, {"seat": seat, "do": do, **fields}))


def refused(state: RoundState, seat: int, do: str, **fields: Any) -> str:
    with pytest.raises(RuleError) as err:
        play(state, seat, do, **fields)
    return err.value.code.value


def spare_face(state: RoundState, seat: int, avoid: Sequence[str] = ()) -> str:
    """A face in ``seat``'s hand that no test step names."""
    for t in reversed(state.hands[seat]):
        f = B_FACES.format(face_of(t))
        if f not in avoid and f != "JK":
            return f
    raise AssertionError("no spare tile")


# ------------------------------------------------------------ B.1 deal
@pytest.mark.parametrize(("players", "stock"), [(2, 63), (3, 42), (4, 21)])
@pytest.mark.parametrize("variant", [R101, RISING])
def test_b1_deal_sizes_and_first_player_discards(variant: str, players: int, stock: int) -> None:
    """B.1: 22 for the first player, 21 for the others, no atu; 106 - 22 - 21(n-1) in stock."""
    for first in range(players):
        s = new_round(variant, players, seed=f"b1/{first}", first=first)
        assert [len(h) for h in s.hands] == [22 if i == first else 21 for i in range(players)]
        assert s.stock_count == stock and s.atu is None
        assert (s.turn, s.phase) == (first, "build")  # B.1: begins by discarding


# ------------------------------------------------------------ B.3 melds
@pytest.mark.parametrize(
    ("faces", "kind", "low"),
    [
        (["1R", "2R", "3R"], RUN, 1),
        (["11B", "12B", "13B"], RUN, 11),
        (["JK", "12B", "13B"], RUN, 11),
        (["1K", "2K", "JK"], RUN, 1),
        ([f"{n}Y" for n in range(1, 14)], RUN, 1),
        (["7R", "7B", "7K"], SET, 7),
        (["7R", "7B", "7K", "7Y"], SET, 7),
        (["7R", "JK", "7K", "JK"], SET, 7),
        (["5R", "5R"], DOUBLE, 5),
        (["5R", "JK"], DOUBLE, 5),
        (["JK", "5R"], DOUBLE, 5),
    ],
)
def test_b3_valid_melds(faces: list[str], kind: str, low: int) -> None:
    s = shape(faces)
    assert (s.kind, s.low) == (kind, low)


@pytest.mark.parametrize(
    ("faces", "kind"),
    [
        (["12R", "13R", "1R"], None),  # B.3: 1 is low only
        (["13R", "1R", "2R"], RUN),  # no wrap
        (["12R", "13R", "JK"], None),  # a joker cannot stand for a 14
        (["JK", "1R", "2R"], None),  # nor for a 0
        (["5R", "5R", "5B"], None),  # a set repeats no colour
        (["5R", "5B"], None),  # a double is one number AND one colour
        (["5R", "5B"], DOUBLE),
        (["JK", "JK"], None),  # a double holds a natural tile
        (["5R", "5R", "JK"], DOUBLE),  # a double is two tiles
        (["5R", "6R"], None),
        (["7R", "7B", "7K", "7Y", "JK"], None),  # a set is at most 4
        ([*(f"{n}Y" for n in range(1, 14)), "JK"], None),  # a run is at most 13
    ],
)
def test_b3_invalid_melds(faces: list[str], kind: str | None) -> None:
    with pytest.raises(RuleError) as err:
        shape(faces, kind)
    assert err.value.code.value == "invalid_meld"


def test_b3_no_joker_limit_and_ambiguity() -> None:
    """B.3: no joker limit beyond one natural tile; 1 natural + jokers may read both ways."""
    three_jokers = [104, 105, 106, B_FACES.parse("5R")]  # 106: a joker-button joker
    assert read_meld(three_jokers, SET, FAMILY_B_MELDS).kind == SET
    with pytest.raises(RuleError) as err:
        shape(["JK", "7K", "JK"])
    assert err.value.code.value == "ambiguous_meld"
    assert shape(["JK", "7K", "JK"], RUN).low == 6
    assert shape(["JK", "JK", "1R"]).kind == SET  # a run would need a 0 and a -1


def test_b3_family_a_has_no_doubles() -> None:
    with pytest.raises(RuleError):
        read_meld([0, 52], None, FAMILY_A_MELDS)


# ------------------------------------------------------------ B.5 values
@pytest.mark.parametrize(
    ("faces", "kind", "value"),
    [
        (["10R", "JK", "12R"], None, 33),  # seed: the joker is worth the 11 it stands for
        (["JK", "12R", "13R"], None, 36),
        (["13B", "13K", "JK"], None, 39),
        (["1R", "2R", "3R"], None, 6),  # 1 counts 1
        (["JK", "7K", "JK"], SET, 21),
        (["5R", "JK"], DOUBLE, 10),
    ],
)
def test_b5_table_values(faces: list[str], kind: str | None, value: int) -> None:
    assert meld_value(shape(faces, kind), FAMILY_B_MELDS) == value


def test_b5_hand_values() -> None:
    """B.5: a tile counts its number, a joker left in hand 101."""
    assert [FAMILY_B.hand_value(B_FACES.parse(f)) for f in ("1R", "9B", "13Y", "JK")] == [
        1,
        9,
        13,
        101,
    ] and B_JOKER_IN_HAND == 101
    s = make_state([["JK", "13Y", "1R"], []])
    s.hands[0] = s.hands[0][:3]
    assert hand_value(view_for(s, 0)) == 101 + 13 + 1


# ------------------------------------------------------------ B.6 opening
def opening(
    shapes_faces: Sequence[Sequence[str]],
    *,
    variant: str = R101,
    last_points: int | None = None,
    last_doubles: int | None = None,
) -> str:
    """The opening kind check_opening returns, or the refusal code."""
    s = make_state([[], []], variant=variant)
    s.last_points_opening, s.last_doubles_opening = last_points, last_doubles
    pick = _Ids()
    shapes = [read_meld(pick.many(m), None, FAMILY_B_MELDS) for m in shapes_faces]
    try:
        return FAMILY_B.check_opening(s, 0, shapes)
    except RuleError as err:
        return err.code.value


SEED_33_36_33 = [["10R", "11R", "12R"], ["11B", "12B", "13B"], ["11K", "11Y", "11R"]]
FIVE_DOUBLES = [["1R", "1R"], ["2B", "2B"], ["3K", "3K"], ["4Y", "4Y"], ["5R", "JK"]]


def test_b6_seed_example() -> None:
    """B.6, seed: 33 + 36 + 33 = 102 opens; the first two alone (69) do not."""
    assert opening(SEED_33_36_33) == "points"
    assert opening(SEED_33_36_33[:2]) == "below_threshold"


def test_b6_threshold_no_run_required_and_doubles() -> None:
    sets_100 = [["13R", "13B", "13K", "13Y"], ["12R", "12B", "12K", "12Y"]]
    assert opening(sets_100) == "below_threshold"  # 52 + 48 = 100
    assert opening([*sets_100, ["1R", "1B", "1K"]]) == "points"  # 103, sets only
    assert opening(FIVE_DOUBLES) == "doubles"  # 30 points, but 5 doubles
    assert opening(FIVE_DOUBLES[:4]) == "below_threshold"  # decision: not enough doubles
    # never both kinds, even when each part alone would open
    assert opening([*FIVE_DOUBLES, *SEED_33_36_33]) == "doubles_restricted"
    assert opening([*SEED_33_36_33, ["6B", "6B"]]) == "doubles_restricted"


def test_b6_layoffs_of_the_opening_turn_do_not_count() -> None:
    """B.6: an opening take_discard with 97 in melds + 11 in lay-offs stays below 101."""
    opener = [
        ["3R", "4R", "5R"],
        ["13R", "13B", "13K", "13Y"],
        ["10Y", "11Y", "12Y"],
        ["2K", "3K", "4K"],
    ]
    s = make_state(
        [
            [t for m in opener for t in m] + ["7K"],
            ["5K", "6K", "13B", "13K", "13Y", "6B", "7B", "8B", "9B", "10B", "2R", "9Y"],
        ]
    )
    play(s, 0, "lay", melds=opener)
    play(s, 0, "discard", tile="7K")
    melds = [["5K", "6K", "7K"], ["13B", "13K", "13Y"], ["6B", "7B", "8B", "9B", "10B"]]
    assert (
        refused(
            s,
            1,
            "take_discard",
            melds=melds,
            layoffs=[{"tile": "2R", "meld": 0}, {"tile": "9Y", "meld": 2}],
        )
        == "below_threshold"
    )
    assert s.opened == [True, False] and B_FACES.format(face_of(s.row[-1])) == "7K"


def test_b6_unopened_layoffs_only_is_not_opened() -> None:
    """Decision: take_discard with lay-offs and no melds by an unopened seat is not_opened."""
    opener = [["10R", "11R", "12R"], ["12B", "12K", "12Y"], ["13B", "13K", "13Y"]]
    s = make_state([[t for m in opener for t in m] + ["13R"], []])
    play(s, 0, "lay", melds=opener)
    play(s, 0, "discard", tile="13R")
    assert (
        refused(s, 1, "take_discard", melds=[], layoffs=[{"tile": "13R", "meld": 0}])
        == "not_opened"
    )
    assert refused(s, 1, "take_discard", melds=[]) == "below_threshold"  # an opening of 0


# ------------------------------------------------------------ B.7 doubles restrictions
def test_b7_restrictions() -> None:
    dbl = make_state([[], []])
    pick = _Ids()
    run = [read_meld(pick.many(["7K", "8K", "9K"]), None, FAMILY_B_MELDS)]
    double = [read_meld(pick.many(["6B", "6B"]), None, FAMILY_B_MELDS)]
    dbl.opened, dbl.opened_with = [True, False], ["doubles", None]
    with pytest.raises(RuleError) as err:
        FAMILY_B.check_later_melds(dbl, 0, run)  # a doubles opener lays no run or set
    assert err.value.code.value == "doubles_restricted"
    FAMILY_B.check_later_melds(dbl, 0, double)  # but new doubles, yes
    dbl.opened, dbl.opened_with = [True, False], ["points", None]
    with pytest.raises(RuleError):
        FAMILY_B.check_later_melds(dbl, 0, double)  # no doubles before a doubles opening
    FAMILY_B.check_later_melds(dbl, 0, run)
    dbl.opened, dbl.opened_with = [True, True], ["points", "doubles"]
    FAMILY_B.check_later_melds(dbl, 0, double)  # now allowed


def test_b7_doubles_opener_lays_off_on_others_runs() -> None:
    doubles = [["1R", "1R"], ["2B", "2B"], ["3K", "3K"], ["4Y", "4Y"], ["5R", "5R"]]
    pts = [["11R", "12R", "13R"], ["13B", "13K", "13Y"], ["9Y", "10Y", "11Y", "12Y"]]
    s = make_state(
        [[t for d in doubles for t in d] + ["10R", "9K"], [t for m in pts for t in m]],
        stock=["6Y", "7B"],
    )
    play(s, 0, "lay", melds=doubles)
    play(s, 0, "discard", tile="9K")
    play(s, 1, "draw")
    play(s, 1, "lay", melds=pts)
    play(s, 1, "discard", tile="6Y")
    play(s, 0, "draw")
    play(s, 0, "layoff", tile="10R", meld=5)
    assert B_FACES.format(face_of(s.table[5].tiles[0])) == "10R"
    assert refused(s, 0, "layoff", tile="7B", meld=0) == "layoff_does_not_fit"


# ------------------------------------------------------------ B.8 rising threshold
def test_b8_thresholds_rise_on_two_tracks() -> None:
    rising = make_state([[], []], variant=RISING)
    fixed = make_state([[], []], variant=R101)
    assert FAMILY_B.thresholds(rising) == (101, 5)
    for s in (rising, fixed):
        s.last_points_opening, s.last_doubles_opening = 116, None
    assert FAMILY_B.thresholds(rising) == (117, 5)  # RULES: after 116, >= 117
    assert FAMILY_B.thresholds(fixed) == (101, 5)
    rising.last_doubles_opening = 5
    assert FAMILY_B.thresholds(rising) == (117, 6)  # after 5 doubles, >= 6


def test_b8_opening_sequence() -> None:
    assert opening(SEED_33_36_33, variant=RISING, last_points=101) == "points"  # 102 > 101
    assert opening(SEED_33_36_33, variant=RISING, last_points=102) == "below_threshold"
    assert opening(SEED_33_36_33, variant=R101, last_points=116) == "points"
    assert opening(FIVE_DOUBLES, variant=RISING, last_points=200) == "doubles"  # other track
    assert opening(FIVE_DOUBLES, variant=RISING, last_doubles=5) == "below_threshold"
    six = [*FIVE_DOUBLES, ["9Y", "9Y"]]
    assert opening(six, variant=RISING, last_doubles=5) == "doubles"


def test_b8_record_and_lock_query() -> None:
    """The state records each opening; the lock query shows the next threshold."""
    s = make_state([[t for m in SEED_33_36_33 for t in m], []], variant=RISING)
    play(s, 0, "lay", melds=SEED_33_36_33)
    assert (s.last_points_opening, s.last_doubles_opening) == (102, None)
    lock = opening_lock(view_for(s, 1), [])
    assert (lock["threshold"], lock["doubles_needed"], lock["code"]) == (103, 5, "below_threshold")


# ------------------------------------------------------------ B.11 / B.12 scoring table
def scored(
    *,
    out: int | None,
    joker: bool = False,
    from_hand: bool = False,
    kinds: Sequence[str | None],
    hands: Sequence[Sequence[str]],
) -> list[int]:
    """Score a finished round built by hand: who went out, how, who opened with what."""
    s = make_state([[], [], [], []][: len(kinds)])
    pick = _Ids()
    s.hands = [pick.many(h) for h in hands]
    s.opened_with = list(kinds)
    s.opened = [k is not None for k in kinds]
    s.out = out
    s.last_discard_joker = joker
    s.anyone_opened_at_turn_start = not from_hand
    s.phase = "over"
    result = s.result
    assert result is not None
    assert result.closing == (
        None
        if out is None
        else {
            (False, False): "normal",
            (True, False): "joker",
            (False, True): "hand",
            (True, True): "hand_joker",
        }[(joker, from_hand)]
    )
    return result.scores


# losers' hands: 3 + 4 + 13 = 20 (twice) and 9 + 101 (a joker) = 110
H20, H20B, HJ = ["3R", "4B", "13K"], ["3Y", "4Y", "13R"], ["9Y", "JK"]


@pytest.mark.parametrize(
    ("joker", "expected"),
    [
        # B.12 table, normal closing: winner 101; unopened 202, runs/sets sum, doubles 2 x sum
        (False, [101, -202, -20, -40, -110, -220]),
        # B.11/B.12 joker closing: winner 202, every row x 2: 404, 2 x sum, 4 x sum
        (True, [202, -404, -40, -80, -220, -440]),
    ],
)
def test_b12_penalty_table(joker: bool, expected: list[int]) -> None:
    rows = scored(
        out=0,
        joker=joker,
        kinds=["points", None, "points", "doubles"],
        hands=[[], ["1R"], H20, H20],
    )
    assert rows == expected[:4]
    rows = scored(
        out=0, joker=joker, kinds=["points", None, "points", "doubles"], hands=[[], H20, HJ, HJ]
    )
    assert rows[2:] == expected[4:]  # B.5: a joker left in hand counts 101


@pytest.mark.parametrize(
    ("joker", "from_hand", "named"),
    [
        (False, False, []),
        (True, False, ["closing_joker"]),
        (False, True, ["closing_hand"]),
        (True, True, ["closing_hand_joker"]),
    ],
)
def test_b11_each_losers_doubling_is_named(joker: bool, from_hand: bool, named: list[str]) -> None:
    """The summary says why a penalty is multiplied: the closing kind (B.11) is named on
    every loser's row; the closer's bonus holds the factor and its note names it."""
    s = make_state([[], [], []])
    s.hands = [[], _Ids().many(["3R"]), []]
    s.opened_with = ["points", "points", None]
    s.opened = [True, True, False]
    s.out, s.last_discard_joker, s.anyone_opened_at_turn_start = 0, joker, not from_hand
    s.phase = "over"
    result = s.result
    assert result is not None
    assert [b.doublings for b in result.breakdown] == [[], named, named]


@pytest.mark.parametrize(
    ("joker", "expected"),
    [
        (False, [202, -404, -404]),  # B.11 from hand
        (True, [404, -808, -808]),  # from hand, last discard a joker
    ],
)
def test_b11_closing_from_hand(joker: bool, expected: list[int]) -> None:
    assert (
        scored(
            out=0, joker=joker, from_hand=True, kinds=["points", None, None], hands=[[], H20, HJ]
        )
        == expected
    )


def test_b12_b13_stock_exhaustion_no_winner_no_multiplier() -> None:
    s = make_state([[], [], [], []])
    rows = scored(out=None, kinds=[None, "points", "doubles", "points"], hands=[H20, H20, H20B, HJ])
    assert rows == [-202, -20, -40, -110]
    s.stock.clear()
    s.phase = TAKE
    s.turn = 1
    s.row.append(s.hands[0].pop())
    play(s, 1, "draw")  # B.13 / A.15: accepted, the round ends with nobody out
    assert s.over and s.result is not None
    assert (s.result.reason, s.result.out, s.result.closing) == ("stock", None, None)


def test_b11_closing_kind_is_decided_at_the_start_of_the_closers_turn() -> None:
    """Decision: "hand" when no seat had opened when the closer's turn began."""
    run13 = [f"{n}R" for n in range(1, 14)]
    rest = [["13B", "13K", "13Y"], ["8K", "9K", "10K", "11K", "12K"]]
    s = make_state([["13R"], run13[:-1] + [t for m in rest for t in m] + ["5Y"]])
    play(s, 0, "discard", tile="13R")
    play(s, 1, "take_discard", melds=[run13, *rest])  # opens AND lays everything
    play(s, 1, "discard", tile="5Y")
    assert s.result is not None and s.result.closing == "hand"
    assert s.result.scores == [-404, 202]


# ------------------------------------------------------------ B.9 joker button
def button_state(credits: tuple[int, ...] | None, on: bool = True) -> RoundState:
    s = make_state([[], []], options=RoundOptions(joker_button=on, joker_credits=credits))
    play(s, 0, "discard", tile=spare_face(s, 0))
    return s


def test_b9_button_takes_a_new_joker_and_spends_a_credit() -> None:
    s = button_state((1, 2))
    stock = s.stock_count
    play(s, 1, "joker_button")
    new = s.hands[1][-1]
    assert new >= 106 and face_of(new) == JOKER  # outside the 106 tiles
    assert s.stock_count == stock and s.joker_credits == [1, 1] and s.phase == "build"
    assert refused(s, 1, "draw") == "wrong_phase"  # the button replaced the take
    play(s, 1, "discard", tile=spare_face(s, 1))
    play(s, 0, "joker_button")
    assert s.hands[0][-1] == new + 1  # every button joker has its own id
    play(s, 0, "discard", tile=spare_face(s, 0))
    # a second credit does not give a second press in the same round (decision)
    assert refused(s, 1, "joker_button") == "button_unavailable"


@pytest.mark.parametrize(("credits", "on"), [((1, 0), True), (None, True), ((1, 1), False)])
def test_b9_button_unavailable(credits: tuple[int, ...] | None, on: bool) -> None:
    s = button_state(credits, on)
    assert refused(s, 1, "joker_button") == "button_unavailable"
    play(s, 1, "draw")
    assert refused(s, 1, "joker_button") == "wrong_phase"  # §C: phase before the button


def test_b9_credits_one_per_seat() -> None:
    with pytest.raises(ValueError):
        make_state([[], [], []], options=RoundOptions(joker_button=True, joker_credits=(1, 1)))
    with pytest.raises(ValueError):
        make_state([[], []], options=RoundOptions(joker_button=True, joker_credits=(1, -1)))


# ------------------------------------------------------------ B.10 joker recovery
def test_b10_recovery_without_consumption() -> None:
    o0 = [["10R", "JK", "12R"], ["13B", "13K", "13Y"], ["9Y", "10Y", "11Y"]]
    o1 = [["12B", "12K", "12Y"], ["13R", "13B", "13K"], ["7K", "8K", "9K", "10K"]]
    s = make_state(
        [
            [t for m in o0 for t in m] + ["7Y", "1Y"],
            [t for m in o1 for t in m] + ["11B", "11R", "5Y", "6Y"],
        ],
        stock=["4B", "2Y"],
    )
    play(s, 0, "lay", melds=o0)
    play(s, 0, "discard", tile=spare_face(s, 0, ["7Y", "1Y"]))
    play(s, 1, "draw")
    assert refused(s, 1, "buy_joker", tile="11R", meld=0) == "not_opened"
    play(s, 1, "lay", melds=o1)
    assert refused(s, 1, "buy_joker", tile="11B", meld=0) == "wrong_replacement"
    play(s, 1, "buy_joker", tile="11R", meld=0)
    joker = s.hands[1][-1]
    play(s, 1, "lay", melds=[["5Y", "6Y", "JK"]])  # free to stand for another tile
    play(s, 1, "discard", tile="4B")
    play(s, 0, "draw")
    play(s, 0, "buy_joker", tile="7Y", meld=6)  # the same joker, recovered again
    assert s.hands[0][-1] == joker and not s.consumed


# ------------------------------------------------------------ B.3 joker lay-offs
def test_b3_joker_layoff_ends() -> None:
    o0 = [
        ["5B", "6B", "7B"],
        ["11K", "12K", "13K"],
        ["9R", "9B", "9K"],
        ["10Y", "10R", "10B", "10K"],
    ]
    s = make_state([[t for m in o0 for t in m] + ["JK", "JK", "9K"], []])
    play(s, 0, "lay", melds=o0)
    play(s, 0, "layoff", tile="JK", meld=0)  # no end named: high
    assert (s.table[0].low, face_of(s.table[0].tiles[-1])) == (5, JOKER)
    play(s, 0, "layoff", tile="JK", meld=1)  # high is past 13: low
    assert (s.table[1].low, face_of(s.table[1].tiles[0])) == (10, JOKER)
    assert refused(s, 0, "buy_joker", tile="9K", meld=2) == "wrong_replacement"


# ------------------------------------------------------------ §C codes
def test_c_empty_row_cannot_happen_in_play_but_is_checked() -> None:
    """§C empty_row: every B turn ends with a discard, so the take step always finds one;
    the check still answers empty_row on a state forced to an empty row."""
    s = make_state([[], []])
    play(s, 0, "discard", tile=spare_face(s, 0))
    s.row.clear()
    assert refused(s, 1, "take_discard", melds=[]) == "empty_row"


def test_c_take_discard_layoff_index_is_bad_action_first() -> None:
    """§C: a lay-off meld index out of range is bad_action before the other checks."""
    s = make_state([[], []])
    play(s, 0, "discard", tile=spare_face(s, 0))
    assert (
        refused(s, 1, "take_discard", melds=[], layoffs=[{"tile": spare_face(s, 1), "meld": 0}])
        == "bad_action"
    )


def test_b14_family_b_actions_only() -> None:
    s = make_state([[], []])
    assert refused(s, 0, "take_row", index=0, melds=[]) == "bad_action"
    with pytest.raises(RuleError) as err:
        s.apply(0, {"do": "lay", "melds": [[0, 1, 2]], "atu": True})
    assert err.value.code.value == "bad_action"
