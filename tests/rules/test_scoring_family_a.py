"""Family-A round scoring (RULES.md A.6, A.7, A.16), every number computed by hand.

A.16 per seat: went out = laid + bonus (remi* 50, or 100 when the going-out
turn laid a meld holding a joker or discarded a joker last; etalat 100);
opened = laid − hand; never laid a meld = flat −100. Atu pair +50 (not with
the flat −100). etalat: going out on a joker ×2. Atu a joker or an ace: every
total ×2. Order: base, + atu pair, × etalat joker, × atu.

Values (A.6): 2..9 = 5, T J Q K = 10, ace 25 in a set / 5 low / 10 high in a
run, a table joker = the tile it stands for; in hand joker 50, ace 25.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import act
from helpers import make_round as _make_round

from server.rules import RoundState
from server.rules.state import BUILD
from server.rules.variants import RoundResult


def make_round(*args: Any, **kwargs: Any) -> RoundState:
    """helpers.make_round with an atu (8S) that no hand here is dealt, unless given."""
    kwargs.setdefault("atu", "8S")
    return _make_round(*args, **kwargs)


def result(state: RoundState) -> RoundResult:
    assert state.over and state.result is not None
    return state.result


def three_seat_out(
    variant: str = "remi45", atu: str = "4C", seat0: str = "7H 8H 9H KC", seat1: str = "AS 9C JK"
) -> RoundState:
    """Seat 0 (laid TS JS QS = 30) lays 7H 8H 9H (15) and discards its last tile.
    Seat 1 laid 5D 6D 7D (15) and holds ``seat1``; seat 2 never laid a meld."""
    s = make_round(
        [seat0, seat1, "2D 3D 4D 5S"],
        variant=variant,
        atu=atu,
        table=[(0, "TS JS QS"), (1, "5D 6D 7D")],
        phase=BUILD,
    )
    melds = [seat0.split()[:3]]
    act(s, 0, "lay", melds=melds)
    act(s, 0, "discard", tile=seat0.split()[3])
    return s


# ------------------------------------------------------------------ remi* going-out bonus
def test_a16_remi_out_opened_and_never_laid() -> None:
    s = three_seat_out()
    r = result(s)
    # seat 0: 30 + 15 laid + 50 bonus = 95
    # seat 1: 15 laid − (AS 25 + 9C 5 + JK 50) = 15 − 80 = −65
    # seat 2: never laid a meld: −100 (its hand does not matter)
    assert (r.reason, r.out, r.scores) == ("out", 0, [95, -65, -100])
    b = r.breakdown
    assert (b[0].laid, b[0].bonus, b[0].hand, b[0].multiplier) == (45, 50, 0, 1)
    assert (b[1].laid, b[1].hand) == (15, 80)


def test_a16_remi_joker_meld_in_the_going_out_turn_gives_100() -> None:
    s = three_seat_out(seat0="7H JK 9H KC")
    # seat 0: 30 + (7H, JK as 8H, 9H = 15) + 100 = 145
    assert result(s).scores == [145, -65, -100]


def test_a16_remi_joker_meld_laid_in_an_earlier_turn_gives_50() -> None:
    s = make_round(
        ["7H JK 9H 2C 3C 4C KD", "5S 6S"],
        table=[(0, "TS JS QS"), (1, "QD KD AD")],
        stock="8S 8D",
        phase=BUILD,
    )
    act(s, 0, "lay", melds=[["7H", "JK", "9H"]])
    act(s, 0, "discard", tile="KD")
    act(s, 1, "draw")
    act(s, 1, "discard", tile="8S")
    act(s, 0, "draw")
    act(s, 0, "lay", melds=[["2C", "3C", "4C"]])
    act(s, 0, "discard", tile="8D")
    # seat 0: 30 + 15 + 15 = 60 laid + 50 (the joker meld was an earlier turn) = 110
    # seat 1: Q 10 + K 10 + high A 10 = 30 laid − (5S + 6S = 10) = 20
    assert result(s).scores == [110, 20]


def test_a16_remi_joker_as_last_discard_gives_100() -> None:
    s = make_round(["JK", "5S 6S"], table=[(0, "TS JS QS"), (1, "5D 6D 7D")], phase=BUILD)
    act(s, 0, "discard", tile="JK")
    # seat 0: 30 + 100; seat 1: 15 − 10 = 5
    assert result(s).scores == [130, 5]


def test_a16_remi_joker_bonus_from_a_row_break_in_the_going_out_turn() -> None:
    s = make_round(
        ["8C 7C", "JK 6H 2C"], row="5H", table=[(0, "TS JS QS"), (1, "2S 3S 4S")], turn=1
    )
    act(s, 1, "take_row", index=0, melds=[["5H", "6H", "JK"]])  # the joker is the 7H
    act(s, 1, "discard", tile="2C")
    # seat 1: 15 + 15 laid + 100 = 130; seat 0: 30 − (8C + 7C = 10) = 20
    assert result(s).scores == [20, 130]


def test_a16_bought_back_joker_credits_and_the_joker_meld_bonus() -> None:
    """A.7/A.11: the buyer is credited with the replacement, the joker leaves the layer's
    credits; a consumed joker laid again still makes a joker meld (A.16)."""
    s = make_round(["4H 8D 9D KC", "2C 3C"], table=[(0, "TC JC QC"), (1, "JK 5H 6H")], phase=BUILD)
    act(s, 0, "buy_joker", tile="4H", meld=1)
    act(s, 0, "lay", melds=[["JK", "8D", "9D"]])
    act(s, 0, "discard", tile="KC")
    # seat 0: 30 + 4H 5 + (JK as 7D, 8D, 9D = 15) = 50 laid + 100 = 150
    # seat 1: 5H + 6H = 10 laid − (2C + 3C = 10) = 0
    assert result(s).scores == [150, 0]


def test_a16_layoffs_count_for_the_seat_that_laid_them_off() -> None:
    s = make_round(
        ["8D 9H KC", "2C 3C"],
        table=[(0, "TC JC QC"), (1, "5D 6D 7D"), (1, "9S 9D 9C")],
        phase=BUILD,
    )
    act(s, 0, "layoff", tile="8D", meld=1)
    act(s, 0, "layoff", tile="9H", meld=2)
    act(s, 0, "discard", tile="KC")
    # seat 0: 30 + 8D 5 + 9H 5 = 40 laid + 50 = 90; seat 1: 15 + 15 − 10 = 20
    assert result(s).scores == [90, 20]


# ------------------------------------------------------------------ etalat bonus and doubling
def test_a16_etalat_out_bonus_is_100() -> None:
    s = three_seat_out(variant="etalat")
    # seat 0: 45 + 100 = 145; seat 1 −65; seat 2 −100
    assert result(s).scores == [145, -65, -100]


@pytest.mark.parametrize(
    ("variant", "scores"),
    [
        ("etalat", [260, 5]),  # (30 + 100) × 2
        ("etalat51", [260, 5]),
        ("remi45", [130, 5]),  # 30 + 100, no doubling outside etalat
        ("remi", [130, 5]),
    ],
)
def test_a16_going_out_on_a_joker(variant: str, scores: list[int]) -> None:
    s = make_round(
        ["JK", "5S 6S"], variant=variant, table=[(0, "TS JS QS"), (1, "5D 6D 7D")], phase=BUILD
    )
    act(s, 0, "discard", tile="JK")
    assert result(s).scores == scores  # seat 1: 15 − 10 = 5


# ------------------------------------------------------------------ atu pair
def test_a16_atu_pair_for_the_out_seat() -> None:
    s = make_round(
        ["9S 9H 9D KC", "2C", "2D 3D"],
        atu="9S",
        table=[(0, "TS JS QS"), (1, "5D 6D 7D")],
        phase=BUILD,
    )
    assert s.atu_pair == [True, False, False]
    act(s, 0, "lay", melds=[["9S", "9H", "9D"]])
    act(s, 0, "discard", tile="KC")
    # seat 0: 30 + 15 + 50 bonus + 50 atu pair = 145; seat 1: 15 − 5 = 10; seat 2: −100
    assert result(s).scores == [145, 10, -100]
    assert result(s).breakdown[0].atu_pair == 50


def test_a16_atu_pair_for_an_opened_seat_not_for_a_never_laid_one() -> None:
    s = three_seat_out(atu="9S", seat1="9S 2C")
    # seat 1: 15 − (9S 5 + 2C 5) + 50 = 55
    assert result(s).scores == [95, 55, -100]
    s = make_round(
        ["7H 8H 9H KC", "2C", "9S 3D"],
        atu="9S",
        table=[(0, "TS JS QS"), (1, "5D 6D 7D")],
        phase=BUILD,
    )
    act(s, 0, "lay", melds=[["7H", "8H", "9H"]])
    act(s, 0, "discard", tile="KC")
    # seat 2 was dealt the pair but never laid: flat −100, no +50
    assert result(s).scores == [95, 10, -100] and result(s).breakdown[2].atu_pair == 0


def test_a16_atu_pair_needs_the_copy_in_the_dealt_hand() -> None:
    """Decision: a seat that draws the atu's other copy later gets no atu pair bonus."""
    s = make_round(
        ["7H 8H 9H", "2C 5C"],
        atu="9S",
        stock="9S 8C",
        table=[(0, "TS JS QS"), (1, "5D 6D 7D")],
        turn=1,
    )
    act(s, 1, "draw")  # the atu's other copy
    act(s, 1, "discard", tile="5C")
    act(s, 0, "draw")
    act(s, 0, "lay", melds=[["7H", "8H", "9H"]])
    act(s, 0, "discard", tile="8C")
    # seat 0: 45 + 50 = 95; seat 1: 15 − (2C + 9S = 10) = 5, no +50
    assert s.atu_pair == [False, False] and result(s).scores == [95, 5]


# ------------------------------------------------------------------ atu doubling
@pytest.mark.parametrize("atu", ["AH", "AC", "AD"])  # (seat 1 holds the AS)
def test_a16_ace_atu_doubles_every_total(atu: str) -> None:
    s = three_seat_out(atu=atu)
    assert result(s).scores == [190, -130, -200]
    assert all(row.multiplier == 2 for row in result(s).breakdown)


def test_a16_joker_atu_doubles_every_total_and_pairs_with_the_other_joker() -> None:
    s = three_seat_out(atu="JK")
    # seat 1 was dealt the other joker: (15 − 80 + 50) × 2 = −30
    assert result(s).scores == [190, -30, -200]


def test_a16_order_pair_then_etalat_joker_then_atu() -> None:
    """etalat, atu AS: seat 0 (dealt the other AS) lays AS AH AD and goes out on a joker:
    (30 + 75 + 100 + 50) × 2 × 2 = 1020; seat 1 (15 − 5) × 2 = 20; seat 2 −100 × 2."""
    s = make_round(
        ["AS AH AD JK", "2C", "2D 3D"],
        variant="etalat",
        atu="AS",
        table=[(0, "TS JS QS"), (1, "5D 6D 7D")],
        phase=BUILD,
    )
    act(s, 0, "lay", melds=[["AS", "AH", "AD"]])
    act(s, 0, "discard", tile="JK")
    r = result(s)
    assert r.scores == [1020, 20, -200]
    assert (r.breakdown[0].multiplier, r.breakdown[0].atu_pair) == (4, 50)
    # Each doubling named in the order applied (the summary says why ×4).
    assert [b.doublings for b in r.breakdown] == [
        ["joker_out", "atu_ace"],
        ["atu_ace"],
        ["atu_ace"],
    ]


# ------------------------------------------------------------------ stock exhaustion
def test_a16_stock_ran_out_nobody_out_no_bonus() -> None:
    """A.15/A.16: no seat went out: laid − hand or −100; the atu doubling still applies."""
    s = make_round(
        ["KD 2C", "4S 5S"],
        variant="etalat51",
        atu="AC",
        stock="5H",
        table=[(0, "TS JS QS")],
        turn=1,
    )
    act(s, 1, "draw")
    act(s, 1, "discard", tile="5H")
    act(s, 0, "draw")
    r = result(s)
    # seat 0: (30 − 15) × 2 = 30; seat 1: −100 × 2 = −200
    assert (r.reason, r.out, r.scores) == ("stock", None, [30, -200])


def test_a16_opened_seat_can_score_below_zero() -> None:
    s = make_round(["KC", "JK JK AS"], table=[(0, "TS JS QS"), (1, "2D 3D 4D")], phase=BUILD)
    act(s, 0, "discard", tile="KC")
    # seat 1: 15 − (50 + 50 + 25) = −110
    assert result(s).scores == [80, -110]
