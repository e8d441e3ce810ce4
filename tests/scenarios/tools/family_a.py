"""Write the family-A scenario files tests/scenarios/a01-….json … (RULES.md A, §C).

    .venv/bin/python tests/scenarios/tools/family_a.py [SLUG_PREFIX...]

Every deal, action and expected result below is written by hand from
../shared/RULES.md; nothing here asks the engine. Scores are worked out in each
scenario's ``note`` (RULES.md A.16 order: base total, + atu pair, × etalat joker
doubling, × atu doubling). The only computed thing is the file format's stock
order (``full_stock``), used to spell long draw/discard loops.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from scenario_kit import (
    buy,
    check,
    dd,
    disc,
    draw,
    full_stock,
    lay,
    off,
    scenario,
    take,
    write,
)

Scenario = dict[str, Any]
DEFS: list[tuple[str, Callable[[], Scenario]]] = []


def define(slug: str) -> Callable[[Callable[[], Scenario]], Callable[[], Scenario]]:
    def register(fn: Callable[[], Scenario]) -> Callable[[], Scenario]:
        DEFS.append((slug, fn))
        return fn

    return register


def stock_loop(sc: Scenario, seats: list[int], skip: int, count: int) -> list[dict[str, Any]]:
    """``count`` plain turns (draw, discard the drawn tile) for ``seats`` in turn
    order, starting with the stock tile at position ``skip`` (tiles already drawn)."""
    stock = full_stock(sc)
    steps: list[dict[str, Any]] = []
    for k in range(count):
        steps += dd(seats[k % len(seats)], stock[skip + k])
    return steps


# --------------------------------------------------------------------- a01-a04
@define("a01-remi45-seed-row-example")
def a01() -> Scenario:
    return scenario(
        "remi45 RULES A.9 A.3 A.18: the seed's own example: row 5 10 1 5 3 6 7, an opened "
        "seat takes the 3 (index 4) into a new run; the 6 and 7 above it come into its hand "
        "as ordinary tiles and the row becomes 5 10 1 5; 2 players",
        "remi45",
        [
            "5C AD 3H 7C 2S 4S 6S 8S QS 2D 4D 8D JC KC 9D",
            "9H TH JH QH KS KD KC 4H 5H TS 6D 5S 2C 3C",
        ],
        atu="8H",
        stock="8C 2H 9S 3D 4C JD",
        steps=[
            disc(0, "5C"),
            *dd(1, "TS"),
            *dd(0, "AD"),
            draw(1),
            lay(1, "9H TH JH QH", "KS KD KC"),
            check(credits=[0, 65], opened=[False, True]),
            disc(1, "5S"),
            *dd(0, "3H"),
            *dd(1, "6D"),
            *dd(0, "7C"),
            check(row=["5C", "TS", "AD", "5S", "3H", "6D", "7C"], turn=1, phase="take"),
            take(1, 4, "3H 4H 5H"),
            check(
                row=["5C", "TS", "AD", "5S"],
                hand_count=[14, 7],
                hand={"1": ["2C", "3C", "8C", "9S", "4C", "6D", "7C"]},
                table=[["9H", "TH", "JH", "QH"], ["KS", "KD", "KC"], ["3H", "4H", "5H"]],
                credits=[0, 80],
                turn=1,
                phase="build",
                stock_count=70,
            ),
            disc(1, "6D"),
            check(row=["5C", "TS", "AD", "5S", "6D"], turn=0, phase="take"),
        ],
        note="seat 1 opens 9H TH JH QH (5+10+10+10=35) + KS KD KC (30) = 65 >= 45; "
        "the row break lays 3H 4H 5H (15): credits 65 + 15 = 80. "
        "Stock 106 - 15 - 14 - 1 (atu) = 76, six draws: 70.",
    )


@define("a02-remi45-deal-first-turn")
def a02() -> Scenario:
    return scenario(
        "remi45 RULES A.2 A.3 A.4: 15/14 deal, 76 in stock, the first player starts at the "
        "build step (draw and take_row are wrong_phase); in each seat's first turn lay, "
        "take_row, layoff and buy_joker are first_turn (checked before the missing meld "
        "index); discard before taking and taking twice are wrong_phase; from the second "
        "turn on both seats open",
        "remi45",
        [
            "7S 8S 9S TS QH QD QC 2H 3D 5C 6H 9D JD KS 4C",
            "2D 3D 4D 5D KS KH KC 3S 5S 7H 9H JC 6C 8C",
        ],
        atu="4S",
        stock="AC 2C 3C",
        steps=[
            check(
                hand_count=[15, 14],
                stock_count=76,
                row=[],
                turn=0,
                phase="build",
                opened=[False, False],
            ),
            draw(0, error="wrong_phase"),
            take(0, 0, "9D 9H 9C", error="wrong_phase"),
            draw(1, error="not_your_turn"),
            lay(0, "7S 8S 9S TS", "QH QD QC", error="first_turn"),
            disc(0, "9D"),
            check(row=["9D"], turn=1, phase="take", hand_count=[14, 14]),
            disc(1, "3S", error="wrong_phase"),
            take(1, 0, "9D 9H 9C", error="first_turn"),
            draw(1),
            draw(1, error="wrong_phase"),
            lay(1, "2D 3D 4D 5D", "KS KH KC", error="first_turn"),
            off(1, "6C", 0, error="first_turn"),
            buy(1, "6C", 0, error="first_turn"),
            disc(1, "AC"),
            draw(0),
            lay(0, "7S 8S 9S TS", "QH QD QC"),
            check(opened=[True, False], credits=[55, 0]),
            disc(0, "2C"),
            draw(1),
            lay(1, "2D 3D 4D 5D", "KS KH KC"),
            disc(1, "3C"),
            check(
                opened=[True, True],
                credits=[55, 50],
                hand_count=[7, 7],
                stock_count=73,
                turn=0,
                phase="take",
                row=["9D", "AC", "2C", "3C"],
            ),
        ],
        note="seat 0: 7S 8S 9S TS = 5+5+5+10 = 25, QH QD QC = 30: 55; seat 1: 2D..5D = 20, "
        "KS KH KC = 30: 50. Hands 15-1+1-7-1 = 7 and 14+1-1+1-7-1 = 7; stock 76-3 = 73.",
    )


@define("a03-remi-3p-first-seat-1")
def a03() -> Scenario:
    return scenario(
        "remi RULES A.1 A.2 A.4 A.8: 3 players, seat 1 first (deal.first, the seat of a later "
        "round): it holds 15 and starts by discarding, 62 in stock, turns run 1 2 0 1 2 0; "
        "each seat's first turn is first_turn whoever went before; remi opens on any run",
        "remi",
        [
            "2C 3C 4C 9S JS 6H 8H TD QD 5S 7S KH AH 4D",
            "2H 3H 4H 6C 8C TC QC 3S 5D 7D 9D JH KD KS AD",
            "5H 6H 7H 2S 4S 8S TS QS 3D 5C 9C JC KC 6D",
        ],
        atu="9H",
        first=1,
        stock="2D 8D 7C 6S 4H",
        steps=[
            check(turn=1, phase="build", hand_count=[14, 15, 14], stock_count=62, row=[]),
            draw(0, error="not_your_turn"),
            disc(2, "5H", error="not_your_turn"),
            disc(1, "AD"),
            check(turn=2, phase="take"),
            draw(2),
            lay(2, "5H 6H 7H", error="first_turn"),
            disc(2, "2D"),
            check(turn=0, phase="take"),
            draw(0),
            lay(0, "2C 3C 4C", error="first_turn"),
            disc(0, "8D"),
            check(turn=1, phase="take"),
            draw(1),
            lay(1, "2H 3H 4H"),
            disc(1, "7C"),
            check(turn=2, opened=[False, True, False], credits=[0, 15, 0]),
            draw(2),
            lay(2, "5H 6H 7H"),
            disc(2, "6S"),
            check(turn=0),
            draw(0),
            lay(0, "2C 3C 4C"),
            disc(0, "4H"),
            check(
                turn=1,
                phase="take",
                opened=[True, True, True],
                credits=[15, 15, 15],
                hand_count=[11, 11, 11],
                stock_count=57,
            ),
        ],
        note="106 - (14 + 15 + 14) - 1 atu = 62; five draws: 57. Each run of three 2..9 is "
        "15 (remi: 0 points but a run). Hands: seat 1 15-1+1-3-1 = 11, seats 0 and 2 "
        "14+1-1+1-3-1 = 11.",
    )


@define("a04-remi51-4p-first-seat-3-out")
def a04() -> Scenario:
    return scenario(
        "remi51 RULES A.1 A.2 A.8 A.16: 4 players, seat 3 first (15 tiles), 48 in stock, "
        "turns 3 0 1 2 3; seat 3 opens with everything and goes out in its second turn: "
        "laid 90 + 50; the three others never laid a meld: flat -100 each (seat 1's atu "
        "pair does not count under the flat -100); actions after the end are round_over",
        "remi51",
        [
            "2S 4S 6S 8S TS QS 3H 5H 7H 9H JH KH 2D 4D",
            "6D 3S 5S 9S JS KS AS 6H 8H TH QH 3D 5D 7D",
            "8D TD QD 2C 3C 4C 5C 6C 7C 8C 4S 6S 8S AD",
            "AH 2H 3H 4H 5H 9C TC JC QC KC 7S 7D 7C 7H KD",
        ],
        atu="6D",
        first=3,
        stock="JD 9D 2S 3S",
        steps=[
            check(turn=3, phase="build", hand_count=[14, 14, 14, 15], stock_count=48),
            disc(3, "KD"),
            check(turn=0, phase="take"),
            draw(1, error="not_your_turn"),
            *dd(0, "JD"),
            check(turn=1),
            *dd(1, "9D"),
            check(turn=2),
            *dd(2, "2S"),
            check(turn=3),
            draw(3),
            lay(3, "AH 2H 3H 4H 5H", "9C TC JC QC KC", "7S 7D 7C 7H"),
            check(hand={"3": ["3S"]}, credits=[0, 0, 0, 90]),
            disc(3, "3S"),
            check(phase="over", hand_count=[14, 14, 14, 0], stock_count=44),
            draw(0, error="round_over"),
            disc(3, "3S", error="round_over"),
        ],
        result={"over": True, "reason": "out", "out": 3, "scores": [-100, -100, -100, 140]},
        note="seat 3: AH 2H 3H 4H 5H = 5 (ace low) + 4*5 = 25; 9C TC JC QC KC = 5 + 4*10 = "
        "45; 7S 7D 7C 7H = 20; laid 90 (>= 51, with runs) + 50 going-out bonus (no "
        "joker) = 140. Seats 0, 1, 2 never laid a meld: -100 each; seat 1 was dealt the "
        "other 6D (atu pair) but the flat -100 applies. Atu 6D: no doubling. "
        "Stock 106 - 57 - 1 = 48, four draws: 44.",
    )


# --------------------------------------------------------------------- a05-a10
@define("a05-remi45-short-game-stock-out")
def a05() -> Scenario:
    sc = scenario(
        "remi45 RULES A.2 A.15 A.16 (short game, RULES 1): 2 players, one pack of 54, hands "
        "11/10, 32 in stock; seat 0 opens, then draw/discard until the stock is empty; the "
        "next draw is accepted and ends the round with nobody out: opened seat laid - hand, "
        "the other flat -100",
        "remi45",
        ["9S TS JS QS KS AH 3D 4C 5H KD 7C", "2S 4S 6S 8S 2H 4H 6H 8H 2C 3C"],
        atu="9D",
        options={"short_game": True},
        result={"over": True, "reason": "stock", "out": None, "scores": [-5, -100]},
        note="seat 0: laid 9S TS JS QS KS = 5+10+10+10+10 = 45; hand AH 3D 4C 5H KD = "
        "25+5+5+5+10 = 50; 45 - 50 = -5 (no bonus: nobody went out). Seat 1 never laid a "
        "meld: flat -100. Atu 9D: no pair (one pack), no doubling. Stock 54 - 11 - 10 - 1 "
        "= 32: draw 33 finds it empty.",
    )
    stock = full_stock(sc)
    sc["steps"] = [
        check(hand_count=[11, 10], stock_count=32),
        disc(0, "7C"),
        *dd(1, stock[0]),
        draw(0),
        lay(0, "9S TS JS QS KS"),
        disc(0, stock[1]),
        *stock_loop(sc, [1, 0], 2, 30),
        check(
            stock_count=0,
            turn=1,
            phase="take",
            hand_count=[5, 10],
            opened=[True, False],
            hand={"0": ["AH", "3D", "4C", "5H", "KD"]},
        ),
        draw(1),
        check(phase="over", stock_count=0, hand_count=[5, 10]),
        disc(1, "2S", error="round_over"),
    ]
    return sc


@define("a06-remi45-stock-out-row-break")
def a06() -> Scenario:
    sc = scenario(
        "remi45 RULES A.15 A.16 A.9 A.6: full game, both seats open, 76 draws empty the "
        "stock; with the stock empty seat 1 still breaks the row instead of drawing; then "
        "seat 0 asks to draw and the round ends with nobody out: laid - hand (a joker in "
        "hand 50), seat 1 + 50 for the atu pair it was dealt",
        "remi45",
        [
            "TH JH QH KH 5S 5D 5C 2S 8C 3H 6H 9S JD AC 4D",
            "2D 3D 4D 5D 6D QS QC QD 8D 8H 9C 3C 7S KS",
        ],
        atu="9C",
        result={"over": True, "reason": "stock", "out": None, "scores": [-50, 105]},
        note="seat 0: laid TH JH QH KH (40) + 5S 5D 5C (15) = 55; hand 3H 6H 9S JD AC 4D "
        "= 5+5+5+10+25+5 = 55, + JK drawn last = 50: 105; 55 - 105 = -50. Seat 1: laid "
        "2D..6D (25) + QS QC QD (30) + 8C 8D 8H from the row (15) = 70; hand 9C 3C 7S = "
        "15; 70 - 15 = 55, + 50 atu pair (dealt the other 9C) = 105. Atu 9C: no "
        "doubling.",
    )
    stock = full_stock(sc)
    assert stock[-1] == "JK"
    sc["steps"] = [
        disc(0, "2S"),
        *dd(1, stock[0]),
        draw(0),
        lay(0, "TH JH QH KH", "5S 5D 5C"),
        disc(0, stock[1]),
        draw(1),
        lay(1, "2D 3D 4D 5D 6D", "QS QC QD"),
        disc(1, stock[2]),
        *stock_loop(sc, [0, 1], 3, 72),
        check(stock_count=1, turn=0, phase="take"),
        draw(0),
        disc(0, "8C"),
        check(stock_count=0, turn=1, phase="take"),
        take(1, 76, "8C 8D 8H"),
        disc(1, "KS"),
        check(
            turn=0,
            phase="take",
            hand={"0": ["3H", "6H", "9S", "JD", "AC", "4D", "JK"], "1": ["9C", "3C", "7S"]},
        ),
        draw(0),
        check(phase="over"),
    ]
    return sc


@define("a07-remi45-open-and-out-same-turn")
def a07() -> Scenario:
    return scenario(
        "remi45 RULES A.8 A.16 A.3: seat 0 opens (50) and, in the same turn, lays two more "
        "melds (no threshold after the opening) and goes out: laid + 50; seat 1 never laid a "
        "meld: flat -100 even though it was dealt the atu pair",
        "remi45",
        [
            "AS 2S 3S 4S KH KD KC 7H 8H 9H TH JS JD JC 2C",
            "4D 2H 3H 5C 6C 8C 9D TS QS QC KS 5H 6S AC",
        ],
        atu="4D",
        stock="JH 6D",
        steps=[
            disc(0, "2C"),
            *dd(1, "JH"),
            draw(0),
            lay(0, "AS 2S 3S 4S", "KH KD KC"),
            check(opened=[True, False], credits=[50, 0]),
            lay(0, "7H 8H 9H TH", "JS JD JC"),
            check(credits=[105, 0], hand={"0": ["6D"]}),
            disc(0, "6D"),
            check(phase="over", hand_count=[0, 14]),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [155, -100]},
        note="seat 0: AS 2S 3S 4S = 5 (ace low) + 15 = 20, KH KD KC = 30 (opening 50 >= 45), "
        "then 7H 8H 9H TH = 25 and JS JD JC = 30: laid 105 + 50 bonus = 155. Seat 1: "
        "never laid: -100 (its dealt 4D, the atu pair, does not apply). Atu 4D: no "
        "doubling.",
    )


@define("a08-remi-out-joker-meld-100")
def a08() -> Scenario:
    return scenario(
        "remi RULES A.16 A.5 A.6: seat 0 goes out in a turn where it lays a meld holding a "
        "joker (JK 9C TC, the joker is 8C worth 5): bonus 100; seat 1 opened: laid - hand "
        "(an ace in hand 25)",
        "remi",
        [
            "5D 6D 7D JK 9C TC QS QH QD 2H 3H 4H 5H 6H KC",
            "8S 9S TS 2C 4C 6C 8D 3S 5S JH KH AD QC 2D",
        ],
        atu="2S",
        stock="3C 7S 4S 9H",
        steps=[
            disc(0, "KC"),
            *dd(1, "3C"),
            draw(0),
            lay(0, "5D 6D 7D"),
            disc(0, "7S"),
            draw(1),
            lay(1, "8S 9S TS"),
            disc(1, "4S"),
            draw(0),
            lay(0, "JK 9C TC", "QS QH QD", "2H 3H 4H 5H 6H"),
            check(credits=[90, 20], hand={"0": ["9H"]}),
            disc(0, "9H"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [190, -70]},
        note="seat 0: 5D 6D 7D = 15; JK 9C TC = 5 (joker as 8C) + 5 + 10 = 20; QS QH QD = "
        "30; 2H..6H = 25; laid 90 + 100 (the going-out turn laid a meld with a joker) "
        "= 190. Seat 1: laid 8S 9S TS = 20; hand 2C 4C 6C 8D 3S 5S = 30, JH KH QC = 30, "
        "AD = 25, 2D = 5: 90; 20 - 90 = -70. Atu 2S: no pair, no doubling.",
    )


@define("a09-remi51-out-joker-discard-100")
def a09() -> Scenario:
    return scenario(
        "remi51 RULES A.14 A.16: in remi a joker may be discarded mid-round (seat 1 does); "
        "seat 0 goes out by discarding a joker as its last tile: bonus 100, no doubling "
        "outside etalat; seat 1 opened: laid - hand",
        "remi51",
        [
            "TH JH QH KH 9S 9D 9C 3C 4C 7D 7H 7S 7C JK 2S",
            "JK 5S 6S 7S 8S 9S KS KD KC 2H 4H 6D 8C 3D",
        ],
        atu="2D",
        stock="JD 4D 6H 5C",
        steps=[
            disc(0, "2S"),
            draw(1),
            disc(1, "JK"),
            check(row=["2S", "JK"]),
            draw(0),
            lay(0, "TH JH QH KH", "9S 9D 9C"),
            disc(0, "4D"),
            draw(1),
            lay(1, "5S 6S 7S 8S 9S", "KS KD KC"),
            disc(1, "6H"),
            draw(0),
            lay(0, "3C 4C 5C", "7D 7H 7S 7C"),
            check(hand={"0": ["JK"]}, credits=[90, 55]),
            disc(0, "JK"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [190, 20]},
        note="seat 0: TH JH QH KH = 40, 9S 9D 9C = 15 (opening 55 >= 51), 3C 4C 5C = 15, "
        "7D 7H 7S 7C = 20: laid 90 + 100 (last discard a joker) = 190 (remi: no "
        "doubling). Seat 1: laid 5S..9S = 25 + KS KD KC = 30 = 55; hand 2H 4H 6D 8C 3D "
        "= 25 + JD 10 = 35; 55 - 35 = 20. Atu 2D: nothing.",
    )


@define("a10-remi45-joker-meld-earlier-turn-50")
def a10() -> Scenario:
    return scenario(
        "remi45 RULES A.16 A.6 A.8: a joker meld laid in an earlier turn does not raise the "
        "going-out bonus: 50; seat 1 opens on exactly 45 (ace low = 5) and keeps a joker in "
        "hand (50)",
        "remi45",
        [
            "JK 5H 6H TS JS QS KS 8D 8C 8S 2C 3C 4C 5C 9H",
            "AD 2D 3D KH KD KC JK 9S 7H 4S 6C TC QH 7C",
        ],
        atu="3S",
        stock="2H 4D 6S 7D",
        steps=[
            disc(0, "9H"),
            *dd(1, "2H"),
            draw(0),
            lay(0, "JK 5H 6H", "TS JS QS KS"),
            check(credits=[55, 0]),
            disc(0, "4D"),
            draw(1),
            lay(1, "AD 2D 3D", "KH KD KC"),
            check(credits=[55, 45], opened=[True, True]),
            disc(1, "6S"),
            draw(0),
            lay(0, "8D 8C 8S", "2C 3C 4C 5C"),
            disc(0, "7D"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [140, -50]},
        note="seat 0: JK 5H 6H = 5 (joker as 4H) + 5 + 5 = 15, TS JS QS KS = 40 (opening "
        "55), 8D 8C 8S = 15, 2C..5C = 20: laid 90 + 50 (the going-out turn laid no "
        "joker and discarded a natural) = 140. Seat 1: AD 2D 3D = 5+5+5 = 15, KH KD KC "
        "= 30: laid 45; hand JK 50 + 9S 7H 4S 6C 7C = 25 + TC QH = 20: 95; 45 - 95 = -50.",
    )


# --------------------------------------------------------------------- a11-a16
@define("a11-etalat-out-100-joker-discard-refused")
def a11() -> Scenario:
    return scenario(
        "etalat RULES A.14 A.16 A.5: a joker can't be discarded while the hand holds "
        "other tiles (joker_discard); seat 0 goes out laying a one-joker meld and "
        "discarding a natural: etalat bonus 100, no doubling; seat 1 opened: laid - hand",
        "etalat",
        [
            "9H TH JH QH KS KD KC JK 4C 5C 6C 2S 2D 2H 7D",
            "5S 6S 7S 8S AS AH AC 3D 4D 8H 9C JC QD 8D",
        ],
        atu="6D",
        stock="TC 3H KH 7C",
        steps=[
            disc(0, "7D"),
            *dd(1, "TC"),
            draw(0),
            lay(0, "9H TH JH QH", "KS KD KC"),
            disc(0, "JK", error="joker_discard"),
            disc(0, "3H"),
            draw(1),
            lay(1, "5S 6S 7S 8S", "AS AH AC"),
            disc(1, "KH"),
            draw(0),
            lay(0, "JK 4C 5C 6C", "2S 2D 2H"),
            check(hand={"0": ["7C"]}, credits=[100, 95]),
            disc(0, "7C"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [200, 50]},
        note="seat 0: 9H TH JH QH = 35, KS KD KC = 30 (opening 65 >= 45), JK 4C 5C 6C = 5 "
        "(joker as 3C) + 15 = 20, 2S 2D 2H = 15: laid 100 + 100 (etalat bonus; the "
        "joker meld adds nothing, the last discard is natural) = 200. Seat 1: 5S..8S = "
        "20 + AS AH AC = 75 (aces in a set 25 each): laid 95; hand 3D 4D 8H 9C 8D = 25, "
        "JC QD = 20: 45; 95 - 45 = 50. Atu 6D: nothing.",
    )


@define("a12-etalat-joker-last-doubles")
def a12() -> Scenario:
    return scenario(
        "etalat RULES A.14 A.16: a hand of only a joker may discard it: going out on a "
        "joker doubles the closer's round total (laid + 100) x 2; the opened opponent is "
        "not doubled",
        "etalat",
        [
            "5H 6H 7H 8H QS QH QC TD JD QD 3S 3C 3D JK 9C",
            "2C 3C 4C JS JH JC 6S 8S TS AD 5D 7D 9D KC",
        ],
        atu="8D",
        stock="4H 2S 6C KD",
        steps=[
            disc(0, "9C"),
            *dd(1, "4H"),
            draw(0),
            lay(0, "5H 6H 7H 8H", "QS QH QC"),
            disc(0, "2S"),
            draw(1),
            lay(1, "2C 3C 4C", "JS JH JC"),
            disc(1, "6C"),
            draw(0),
            lay(0, "TD JD QD KD", "3S 3C 3D"),
            check(hand={"0": ["JK"]}, credits=[105, 45]),
            disc(0, "JK"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [410, -25]},
        note="seat 0: 5H..8H = 20, QS QH QC = 30 (opening 50), TD JD QD KD = 40, 3S 3C 3D = "
        "15: laid 105 + 100 bonus = 205, last discard a joker: x 2 = 410. Seat 1: 2C 3C "
        "4C = 15 + JS JH JC = 30: laid 45 (exactly the threshold); hand 6S 8S 5D 7D 9D "
        "= 25, TS KC = 20, AD = 25: 70; 45 - 70 = -25. Atu 8D: no doubling.",
    )


@define("a13-etalat51-atu-ace-x4-3p")
def a13() -> Scenario:
    return scenario(
        "etalat51 RULES A.16 A.1: 3 players, the atu is an ace: every seat's total is "
        "doubled, good or bad; the closer also went out on a joker: x 4; the never-opened "
        "seat -100 x 2 (its dealt atu pair ignored)",
        "etalat51",
        [
            "5H 6H 7H 8H 9H QS QH QC JD QD 3S 3C 3D JK 2C",
            "AS 2S 5S 7S 8S TD 2D 4H 6C 8C 9C JC 5D 8D",
            "AH 2H 3H KS KH KC 4S 4D 4C 6D 7D 9S JS AD",
        ],
        atu="AS",
        stock="7C 9D TC 5C 6C KD",
        steps=[
            disc(0, "2C"),
            *dd(1, "7C"),
            *dd(2, "9D"),
            draw(0),
            lay(0, "5H 6H 7H 8H 9H", "QS QH QC"),
            disc(0, "TC"),
            *dd(1, "5C"),
            draw(2),
            lay(2, "AH 2H 3H", "KS KH KC", "4S 4D 4C"),
            disc(2, "6C"),
            draw(0),
            lay(0, "JD QD KD", "3S 3C 3D"),
            check(hand={"0": ["JK"]}, credits=[100, 0, 60]),
            disc(0, "JK"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [800, -200, 20]},
        note="seat 0: 5H..9H = 25, QS QH QC = 30 (opening 55 >= 51), JD QD KD = 30, 3S 3C "
        "3D = 15: laid 100 + 100 = 200, x 2 (last discard a joker) x 2 (atu AS is an "
        "ace) = 800. Seat 1: never laid: -100 x 2 = -200 (its dealt AS pair does not "
        "count under the flat -100). Seat 2: AH 2H 3H = 15, KS KH KC = 30, 4S 4D 4C = "
        "15: laid 60; hand 6D 7D 9S = 15, JS 10, AD 25: 50; (60 - 50) x 2 = 20.",
    )


@define("a14-remi-atu-joker-wild-pair-doubling")
def a14() -> Scenario:
    return scenario(
        "remi RULES A.12 A.16 A.5: the atu is a joker: seat 0 takes it into a new meld as "
        "a wild tile in its going-out turn (lay says atu, one tile left), so the turn laid a "
        "joker meld: bonus 100; seat 1 was dealt the other joker: atu pair +50; every total "
        "doubled",
        "remi",
        [
            "4S 5S 6S 7S JH JD JC 9C TC 2D 3D 4D 5D 6D 8H",
            "9H TH JH JK 2C 4C 6C 8S TS QS KD AC 3H 5H",
        ],
        atu="JK",
        stock="7D 9D 2H KC",
        steps=[
            disc(0, "8H"),
            *dd(1, "7D"),
            draw(0),
            lay(0, "4S 5S 6S 7S", "JH JD JC"),
            disc(0, "9D"),
            draw(1),
            lay(1, "9H TH JH"),
            disc(1, "2H"),
            draw(0),
            lay(0, "ATU 9C TC", "2D 3D 4D 5D 6D", atu=True),
            check(
                hand={"0": ["KC"]},
                hand_count=[1, 11],
                credits=[95, 25],
                table=[
                    ["4S", "5S", "6S", "7S"],
                    ["JH", "JD", "JC"],
                    ["9H", "TH", "JH"],
                    ["JK", "9C", "TC"],
                    ["2D", "3D", "4D", "5D", "6D"],
                ],
            ),
            disc(0, "KC"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [390, -120]},
        note="seat 0: 4S..7S = 20, JH JD JC = 30, ATU(JK as 8C) 9C TC = 5+5+10 = 20, 2D..6D "
        "= 25: laid 95 + 100 (the going-out turn laid a meld holding a joker) = 195, x 2 "
        "(atu joker) = 390. Seat 1: laid 9H TH JH = 25; hand JK 50 + 2C 4C 6C 8S 3H 5H "
        "= 30 + TS QS KD = 30 + AC 25 = 135; 25 - 135 = -110, + 50 atu pair (dealt the "
        "other joker) = -60, x 2 = -120.",
    )


@define("a15-remi45-atu-taken-going-out")
def a15() -> Scenario:
    return scenario(
        "remi45 RULES A.12 A.13 A.18 A.16: the atu (7H) is a natural tile taken only in the "
        "going-out lay: a lay leaving more than one tile is atu_not_going_out, one leaving "
        "none is must_keep_discard first, ATU without atu: true is not in the hand, atu: true "
        "with no ATU is bad_action; after it is taken a second atu lay is atu_taken (before "
        "tile_not_in_hand); seat 1 (dealt the other 7H) opened: + 50",
        "remi45",
        [
            "TS JS QS KS 4D 4C 4S 4H 5H 6H 9C 9D 9S 8H 2C",
            "AC 2C 3C 4C QH QD QC 7H 2S 6S 8D TD KD 5C",
        ],
        atu="7H",
        stock="3H 6D JC 9H",
        steps=[
            disc(0, "2C"),
            *dd(1, "3H"),
            draw(0),
            lay(0, "TS JS QS KS", "4D 4C 4S"),
            disc(0, "6D"),
            draw(1),
            lay(1, "AC 2C 3C 4C", "QH QD QC"),
            disc(1, "JC"),
            draw(0),
            check(hand={"0": ["4H", "5H", "6H", "9C", "9D", "9S", "8H", "9H"]}),
            lay(0, "4H 5H 6H ATU", atu=True, error="atu_not_going_out"),
            lay(0, "4H 5H 6H ATU", error="tile_not_in_hand"),
            lay(0, "4H 5H 6H", atu=True, error="bad_action"),
            lay(0, "4H 5H 6H ATU 8H", "9C 9D 9S 9H", atu=True, error="must_keep_discard"),
            lay(0, "4H 5H 6H ATU", "9C 9D 9S 9H", atu=True),
            check(
                hand={"0": ["8H"]},
                table=[
                    ["TS", "JS", "QS", "KS"],
                    ["4D", "4C", "4S"],
                    ["AC", "2C", "3C", "4C"],
                    ["QH", "QD", "QC"],
                    ["4H", "5H", "6H", "7H"],
                    ["9C", "9D", "9S", "9H"],
                ],
                credits=[95, 50],
            ),
            lay(0, "ATU 8H 9H", atu=True, error="atu_taken"),
            disc(0, "8H"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [145, 55]},
        note="seat 0: TS JS QS KS = 40, 4D 4C 4S = 15 (opening 55), 4H 5H 6H 7H(atu, "
        "natural) = 20, 9C 9D 9S 9H = 20: laid 95 + 50 (no joker) = 145. Seat 1: AC 2C "
        "3C 4C = 5+15 = 20, QH QD QC = 30: laid 50; hand 7H 2S 6S 8D 5C = 25, TD KD = "
        "20: 45; 50 - 45 = 5, + 50 atu pair (dealt the other 7H) = 55. Atu 7H: no "
        "doubling.",
    )


@define("a16-remi45-ace-values-atu-ace")
def a16() -> Scenario:
    return scenario(
        "remi45 RULES A.6 A.5 A.16: ace values: 25 in a set, 5 low in a run (AC 2C 3C), 10 "
        "high (QD KD AD given unsorted, TH..AH); K A 2 is invalid_meld; an ace in hand "
        "counts 25; the atu AC is an ace: every total doubled, seat 0 dealt the other AC "
        "adds 50 first",
        "remi45",
        [
            "AS AH AD AC 2C 3C AD QD KD 5S 6S 7S 8S KC JH",
            "TH JH QH KH AH AS 2D 4D 6D 8D 3C 5C 7C 9C",
        ],
        atu="AC",
        stock="4H 6H TD 9S",
        steps=[
            disc(0, "JH"),
            *dd(1, "4H"),
            draw(0),
            lay(0, "KC AC 2C", error="invalid_meld"),
            lay(0, {"kind": "run", "tiles": ["KC", "AC", "2C"]}, error="invalid_meld"),
            lay(0, "AS AH AD", "AC 2C 3C"),
            check(credits=[90, 0], table=[["AS", "AH", "AD"], ["AC", "2C", "3C"]]),
            disc(0, "6H"),
            draw(1),
            lay(1, "TH JH QH KH AH"),
            check(
                credits=[90, 50],
                table=[["AS", "AH", "AD"], ["AC", "2C", "3C"], ["TH", "JH", "QH", "KH", "AH"]],
            ),
            disc(1, "TD"),
            draw(0),
            lay(0, "AD QD KD", "5S 6S 7S 8S 9S"),
            check(
                credits=[145, 50],
                hand={"0": ["KC"]},
                table=[
                    ["AS", "AH", "AD"],
                    ["AC", "2C", "3C"],
                    ["TH", "JH", "QH", "KH", "AH"],
                    ["QD", "KD", "AD"],
                    ["5S", "6S", "7S", "8S", "9S"],
                ],
            ),
            disc(0, "KC"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [490, -30]},
        note="seat 0: AS AH AD = 3 x 25 = 75, AC 2C 3C = 5 (ace low) + 5 + 5 = 15 (opening "
        "90), QD KD AD = 10 + 10 + 10 (ace high) = 30, 5S..9S = 25: laid 145 + 50 = 195, "
        "+ 50 atu pair (dealt the other AC) = 245, x 2 (atu is an ace) = 490. Seat 1: "
        "TH JH QH KH AH = 40 + 10 (ace high) = 50 (opening >= 45); hand AS 25 + 2D 4D 6D "
        "8D 3C 5C 7C 9C = 40: 65; 50 - 65 = -15, x 2 = -30.",
    )


# --------------------------------------------------------------------- a17-a22
@define("a17-remi-meld-shapes")
def a17() -> Scenario:
    return scenario(
        "remi RULES A.5 A.6 A.10: invalid shapes (a rank twice in a run, a suit twice in a "
        "set, a 5-tile set, K A 2 wrap, two tiles, a gap, mixed suits, a wrong kind); a "
        "13-tile run A..K given shuffled and without jokers is sorted (ace low, 85); a "
        "second ace can't extend it; a 4-set takes no lay-off",
        "remi",
        [
            "KH 2H AH 3H QH 4H JH 5H TH 6H 9H 7H 8H 7S 2C",
            "9S 9H 9D 9C 9S 2D 3D 4D AH 5S 7D JC QC KC",
        ],
        atu="TD",
        stock="8C 7H 6D 4S",
        steps=[
            disc(0, "2C"),
            *dd(1, "8C"),
            draw(0),
            lay(0, "5H 6H 7H 7H 8H", error="invalid_meld"),
            lay(0, "7S 7H 7H", error="invalid_meld"),
            lay(0, "JH QH KH AH 2H", error="invalid_meld"),
            lay(0, "5H 6H", error="invalid_meld"),
            lay(0, "5H 6H 8H", error="invalid_meld"),
            lay(0, "7S 8H 9H", error="invalid_meld"),
            lay(0, {"kind": "set", "tiles": ["5H", "6H", "7H"]}, error="invalid_meld"),
            lay(0, "KH 2H AH 3H QH 4H JH 5H TH 6H 9H 7H 8H"),
            check(
                table=[
                    ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
                ],
                credits=[85, 0],
                hand={"0": ["7S", "7H"]},
            ),
            disc(0, "7S"),
            draw(1),
            lay(1, "9S 9H 9D 9C 9S", error="invalid_meld"),
            lay(1, "9S 9H 9D 9C", "2D 3D 4D"),
            check(credits=[85, 35]),
            off(1, "AH", 0, error="layoff_does_not_fit"),
            off(1, "AH", 0, end="high", error="layoff_does_not_fit"),
            off(1, "9S", 1, error="layoff_does_not_fit"),
            disc(1, "6D"),
            *dd(0, "4S"),
            check(hand_count=[1, 7], turn=1, phase="take"),
        ],
        note="seat 0: AH..KH = 5 (ace low) + 8 x 5 + 4 x 10 = 85. Seat 1: 9S 9H 9D 9C = "
        "20, 2D 3D 4D = 15: 35. Round not over.",
    )


@define("a18-remi-joker-positions")
def a18() -> Scenario:
    return scenario(
        "remi RULES A.5 A.6 A.8: the written order fixes a joker: JK 5H 6H = 4H (5), QH KH "
        "JK = AH high (10); a run with a joker written high to low, K A + joker, joker below "
        "an ace and JK JK are invalid_meld; one natural with two jokers is ambiguous_meld "
        "unless kind is given (remi allows two jokers); a set of 7s with two jokers still "
        "needs a run",
        "remi",
        [
            "JK JK 5H 6H QH KH KS AS 2S 7D 3C 8C 9D TS 4D",
            "2C 4C 6C 8S TH 3H 5D 7C 9C JD KC 2H 6S 8D",
        ],
        atu="QC",
        stock="3D 5C 7S",
        steps=[
            disc(0, "4D"),
            *dd(1, "3D"),
            draw(0),
            lay(0, "6H 5H JK", error="invalid_meld"),
            lay(0, "JK JK", error="invalid_meld"),
            lay(0, "KS AS JK", error="invalid_meld"),
            lay(0, "JK AS 2S", error="invalid_meld"),
            lay(0, "JK 7D JK", error="ambiguous_meld"),
            lay(0, {"kind": "set", "tiles": ["JK", "7D", "JK"]}, error="run_required"),
            lay(0, "JK 5H 6H", "QH KH JK"),
            check(
                credits=[45, 0],
                table=[["JK", "5H", "6H"], ["QH", "KH", "JK"]],
                opened=[True, False],
            ),
            disc(0, "5C"),
            *dd(1, "7S"),
            check(hand_count=[8, 14], turn=0, phase="take"),
        ],
        note="seat 0: JK 5H 6H = 5 (joker as 4H) + 5 + 5 = 15; QH KH JK = 10 + 10 + 10 "
        "(joker as AH, high end) = 30: 45. The refused set JK 7D JK would be 15 (3 x 5) "
        "but has no run (remi: 0 points, a run required). Round not over.",
    )


@define("a19-etalat-too-many-jokers")
def a19() -> Scenario:
    return scenario(
        "etalat RULES A.5 C: at most one joker per meld: JK 7S JK is too_many_jokers (the "
        "limit is checked before ambiguous_meld), 5H 6H JK JK too_many_jokers, an invalid "
        "meld with two jokers is invalid_meld first; one joker in each of two melds opens",
        "etalat",
        [
            "JK JK 5H 6H 7S QH KH 9C 2D 4D 6D 8D TC QC 3S",
            "2C 4C 6C 8S TH 3H 5D 7C 9H JD KC 2H 6S 8H",
        ],
        atu="KS",
        stock="3D 5C 7D",
        steps=[
            disc(0, "3S"),
            *dd(1, "3D"),
            draw(0),
            lay(0, "JK 7S JK", error="too_many_jokers"),
            lay(0, {"kind": "run", "tiles": ["JK", "7S", "JK"]}, error="too_many_jokers"),
            lay(0, "5H 6H JK JK", error="too_many_jokers"),
            lay(0, "JK 5H JK 9C", error="invalid_meld"),
            lay(0, "JK 5H 6H", "JK QH KH"),
            check(credits=[45, 0], table=[["JK", "5H", "6H"], ["JK", "QH", "KH"]]),
            disc(0, "5C"),
            *dd(1, "7D"),
            check(hand_count=[8, 14], turn=0),
        ],
        note="seat 0: JK 5H 6H = 5 (4H) + 10 = 15, JK QH KH = 10 (JH) + 20 = 30: 45 = the "
        "etalat threshold, with runs. Round not over.",
    )


@define("a20-remi-run-required")
def a20() -> Scenario:
    return scenario(
        "remi RULES A.8: remi asks 0 points but a run: sets alone (even 55 points) are "
        "run_required; a lone A 2 3 run (15) opens; sets follow in the same turn with no "
        "threshold; the other seat's set-only opening is run_required too",
        "remi",
        [
            "7S 7H 7D KS KH KD KC AS 2S 3S 4C 6C 9D JD TH",
            "8S 8H 8D 2C 3C 5C 9C JC QH 5D 6S TD QD 4H",
        ],
        atu="6H",
        stock="2H 4S 5S 9S",
        steps=[
            disc(0, "TH"),
            *dd(1, "2H"),
            draw(0),
            lay(0, "7S 7H 7D", error="run_required"),
            lay(0, "7S 7H 7D", "KS KH KD KC", error="run_required"),
            lay(0, "AS 2S 3S"),
            check(opened=[True, False], credits=[15, 0]),
            lay(0, "7S 7H 7D"),
            lay(0, "KS KH KD KC"),
            check(credits=[70, 0]),
            disc(0, "4S"),
            draw(1),
            lay(1, "8S 8H 8D", error="run_required"),
            disc(1, "5S"),
            check(opened=[True, False], hand_count=[4, 14]),
        ],
        note="seat 0: AS 2S 3S = 5 (ace low) + 5 + 5 = 15 opens remi; then 7S 7H 7D = 15 "
        "and KS KH KD KC = 40: credits 70. Round not over.",
    )


@define("a21-remi45-threshold")
def a21() -> Scenario:
    return scenario(
        "remi45 RULES A.8: 30 with a run is below_threshold; 30 of sets lacks both and is "
        "below_threshold; 60 of sets is run_required; the opening is one lay (15 then 30 "
        "is refused); exactly 45 opens; more melds then need no threshold, in the same turn "
        "and the next",
        "remi45",
        [
            "2S 3S 4S 5H 5D 5C KS KH KD QS QH QD 9C JC 2H",
            "3D 6D 8C TC AS 7H 9H JH 4C 6S 8S TH 7C 9S",
        ],
        atu="4D",
        stock="JS 8D 7D 2C 3C",
        steps=[
            disc(0, "2H"),
            *dd(1, "JS"),
            draw(0),
            lay(0, "2S 3S 4S", "5H 5D 5C", error="below_threshold"),
            lay(0, "KS KH KD", error="below_threshold"),
            lay(0, "KS KH KD", "QS QH QD", error="run_required"),
            lay(0, "2S 3S 4S", error="below_threshold"),
            lay(0, "2S 3S 4S", "KS KH KD"),
            check(opened=[True, False], credits=[45, 0]),
            lay(0, "5H 5D 5C"),
            check(credits=[60, 0]),
            disc(0, "8D"),
            *dd(1, "7D"),
            draw(0),
            lay(0, "QS QH QD"),
            disc(0, "2C"),
            check(credits=[90, 0], hand_count=[2, 14], opened=[True, False]),
        ],
        note="2S 3S 4S = 15, 5H 5D 5C = 15, KS KH KD = 30, QS QH QD = 30. Opening 15 + 30 = "
        "45 (exactly the threshold), then + 15 (same turn) + 30 (next turn): 90. "
        "Round not over.",
    )


@define("a22-remi51-threshold")
def a22() -> Scenario:
    return scenario(
        "remi51 RULES A.8 A.6: 50 is below_threshold (values are multiples of 5, so 51 "
        "needs 55); 55 opens; the other seat is refused at 45 and 50 and opens at 55",
        "remi51",
        [
            "9H TH JH QH 5S 5D 5C 5H 2C 4C 6C 8C JS QS KC",
            "AS 2S 3S 4S 5S KS KH KD 3D 7D 9D JC 6H 8H",
        ],
        atu="TS",
        stock="3C 7C 9C",
        steps=[
            disc(0, "KC"),
            *dd(1, "3C"),
            draw(0),
            lay(0, "TH JH QH", "5S 5D 5C 5H", error="below_threshold"),
            lay(0, "9H TH JH QH", "5S 5D 5C 5H"),
            check(credits=[55, 0]),
            disc(0, "7C"),
            draw(1),
            lay(1, "AS 2S 3S", "KS KH KD", error="below_threshold"),
            lay(1, "AS 2S 3S 4S", "KS KH KD", error="below_threshold"),
            lay(1, "AS 2S 3S 4S 5S", "KS KH KD"),
            check(credits=[55, 55], opened=[True, True]),
            disc(1, "9C"),
        ],
        note="seat 0: TH JH QH = 30 + 5S 5D 5C 5H = 20: 50 < 51; with 9H: 35 + 20 = 55. "
        "Seat 1: AS 2S 3S = 15 + KS KH KD = 30: 45; AS..4S = 20: 50; AS..5S = 25: 55. "
        "Round not over.",
    )


# --------------------------------------------------------------------- a23-a28
@define("a23-remi45-layoffs")
def a23() -> Scenario:
    return scenario(
        "remi45 RULES A.10 A.7 A.13 A.16: lay-offs onto the opponent's melds are credited "
        "to the layer; an ace on a 2..K run with no end goes high; a wrong suit, a named end "
        "where the tile does not fit, a full 4-set (even one whose joker stands for that "
        "tile) are layoff_does_not_fit; a joker is joker_layoff; before opening not_opened; "
        "a lay-off that would empty the hand is must_keep_discard",
        "remi45",
        [
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 7C 8C JS",
            "7S 7H 7D JK 4C 5C 6C TH JH QH KH AD 3C JK",
        ],
        atu="5S",
        stock="2S 9S QS AH",
        steps=[
            disc(0, "JS"),
            *dd(1, "2S"),
            draw(0),
            lay(0, "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
            check(credits=[80, 0]),
            disc(0, "9S"),
            draw(1),
            off(1, "AD", 0, error="not_opened"),
            lay(1, "7S 7H 7D JK", "4C 5C 6C", "TH JH QH KH"),
            check(credits=[80, 75]),
            off(1, "AD", 0),
            check(
                credits=[80, 85],
                table=[
                    ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"],
                    ["7S", "7H", "7D", "JK"],
                    ["4C", "5C", "6C"],
                    ["TH", "JH", "QH", "KH"],
                ],
            ),
            off(1, "QS", 0, error="layoff_does_not_fit"),
            off(1, "JK", 2, error="joker_layoff"),
            off(1, "3C", 2, end="high", error="layoff_does_not_fit"),
            off(1, "3C", 2),
            check(credits=[80, 90]),
            disc(1, "QS"),
            check(hand={"1": ["JK"]}),
            draw(0),
            off(0, "7C", 1, error="layoff_does_not_fit"),
            off(0, "7C", 2),
            off(0, "8C", 2),
            check(
                credits=[90, 90],
                table=[
                    ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"],
                    ["7S", "7H", "7D", "JK"],
                    ["3C", "4C", "5C", "6C", "7C", "8C"],
                    ["TH", "JH", "QH", "KH"],
                ],
            ),
            off(0, "AH", 3, error="must_keep_discard"),
            disc(0, "AH"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [140, 40]},
        note="seat 0: 2D..KD = 8 x 5 + 4 x 10 = 80, lay-offs 7C + 8C on seat 1's run = 10: "
        "laid 90 + 50 = 140. Seat 1: 7S 7H 7D JK = 4 x 5 = 20, 4C 5C 6C = 15, TH JH QH "
        "KH = 40 (opening 75), AD high on seat 0's run = 10, 3C low on its own run = 5: "
        "laid 90; hand JK = 50; 90 - 50 = 40. Atu 5S: nothing.",
    )


@define("a24-remi45-joker-buyback")
def a24() -> Scenario:
    return scenario(
        "remi45 RULES A.11 A.7 A.16: buying back a joker: not_opened first; the wrong tile "
        "is wrong_replacement (a run's joker needs its exact tile, a set's joker any suit "
        "the set lacks, a meld without a joker has none); the placed tile is credited to "
        "the buyer and the joker's credit leaves the layer; a bought joker laid again plays "
        "as before but is joker_consumed; a joker kept in hand costs 50",
        "remi45",
        [
            "JK 5H 6H 7S 7H JK TS JS QS 2C 3C 4C 5C 7D KC",
            "9C TC JC KS KH KD 4H 7C 8D 9D 2S 3D 5D 6S",
        ],
        atu="8C",
        stock="8S 9H 4S 6C",
        steps=[
            disc(0, "KC"),
            *dd(1, "8S"),
            draw(0),
            lay(0, "JK 5H 6H", "7S 7H JK", "TS JS QS"),
            check(credits=[60, 0]),
            disc(0, "9H"),
            draw(1),
            buy(1, "4H", 0, error="not_opened"),
            lay(1, "9C TC JC", "KS KH KD"),
            check(credits=[60, 55]),
            buy(1, "8D", 0, error="wrong_replacement"),
            buy(1, "6S", 1, error="wrong_replacement"),
            buy(1, "4H", 2, error="wrong_replacement"),
            buy(1, "4H", 0),
            check(
                credits=[55, 60],
                table=[
                    ["4H", "5H", "6H"],
                    ["7S", "7H", "JK"],
                    ["TS", "JS", "QS"],
                    ["9C", "TC", "JC"],
                    ["KS", "KH", "KD"],
                ],
            ),
            buy(1, "7C", 1),
            check(credits=[50, 65]),
            lay(1, "JK 8D 9D"),
            check(credits=[50, 80], hand={"1": ["JK", "2S", "3D", "5D", "6S", "4S"]}),
            disc(1, "4S"),
            draw(0),
            lay(0, "2C 3C 4C 5C 6C"),
            buy(0, "7D", 5, error="joker_consumed"),
            check(hand={"0": ["7D"]}, credits=[75, 80]),
            disc(0, "7D"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [125, 10]},
        note="seat 0: JK 5H 6H = 15 (joker as 4H), 7S 7H JK = 15, TS JS QS = 30: 60; seat 1 "
        "buys the 4H (5) and the 7C (5) places: 60 - 10 = 50; then 2C..6C = 25: laid 75 "
        "+ 50 = 125. Seat 1: 9C TC JC = 25, KS KH KD = 30, 4H 5 + 7C 5, JK 8D 9D = 15 "
        "(joker as 7D): laid 80; hand JK 50 + 2S 3D 5D 6S 20 = 70; 80 - 70 = 10.",
    )


@define("a25-remi45-take-top-to-open")
def a25() -> Scenario:
    return scenario(
        "remi45 RULES A.9 A.8: an unopened seat breaking the row: a deep take is "
        "not_opened; taking the top it must open in that action with the taken tile: 30 is "
        "below_threshold, sets only run_required, a valid opening without the taken tile "
        "taken_tile_unused (below_threshold first when both); JD QD KD + 5S 6S 7S opens, "
        "more melds follow",
        "remi45",
        [
            "2S 4S 6S 8S TS 3H 5H 7H 9H JH 2C 4C 6C QD KC",
            "5S 6S 7S QS QC JD KD 2H 2D 2C 9H 9D 9C 3D",
        ],
        atu="AS",
        stock="8S 4D 5D",
        steps=[
            disc(0, "KC"),
            *dd(1, "8S"),
            *dd(0, "QD"),
            check(row=["KC", "8S", "QD"], turn=1, phase="take"),
            take(1, 1, "5S 6S 7S 8S", "JD QD KD", error="not_opened"),
            take(1, 2, "JD QD KD", error="below_threshold"),
            take(1, 2, "QS QC QD", "2H 2D 2C", error="run_required"),
            take(1, 2, "5S 6S 7S", "2H 2D 2C", "9H 9D 9C", error="taken_tile_unused"),
            take(1, 2, "2H 2D 2C", error="below_threshold"),
            take(1, 2, "JD QD KD", "5S 6S 7S"),
            check(row=["KC", "8S"], opened=[False, True], credits=[0, 45], phase="build"),
            lay(1, "2H 2D 2C", "9H 9D 9C"),
            disc(1, "3D"),
            check(credits=[0, 75], hand={"1": ["QS", "QC"]}, row=["KC", "8S", "3D"]),
            *dd(0, "5D"),
        ],
        note="seat 1: JD QD KD = 30 + 5S 6S 7S = 15: 45 with a run opens; then 2H 2D 2C = 15 "
        "and 9H 9D 9C = 15: 75. Refused: JD QD KD alone 30; QS QC QD + 2H 2D 2C = 45 "
        "without a run; 5S 6S 7S + two sets = 45 without QD. Round not over.",
    )


@define("a26-remi45-row-depth")
def a26() -> Scenario:
    return scenario(
        "remi45 RULES A.9 (options.row_depth 3): an opened seat sees the top 3 tiles of a "
        "6-tile row: index 1 is too_deep, index 0 with the taken tile unused too_deep "
        "(before taken_tile_unused), index 2 with an invalid meld invalid_meld (meld "
        "validity before too_deep); index 3 is allowed and brings the 2 tiles above it",
        "remi45",
        [
            "3C 4C 5C 6C 7C JS JD JC 9S 9D 7H 8H 2S KD 4D",
            "QH KH AH 5S 5H 5D 6H 2C 8C TD JH 3S 4S 7D",
        ],
        atu="QC",
        stock="9C TC 2H 3H 4H",
        options={"row_depth": 3},
        steps=[
            disc(0, "2S"),
            *dd(1, "9C"),
            draw(0),
            lay(0, "3C 4C 5C 6C 7C", "JS JD JC"),
            disc(0, "KD"),
            draw(1),
            lay(1, "QH KH AH", "5S 5H 5D"),
            disc(1, "6H"),
            *dd(0, "3H"),
            *dd(1, "4H"),
            check(row=["2S", "9C", "KD", "6H", "3H", "4H"], turn=0, phase="take"),
            take(0, 1, "9C 9S 9D", error="too_deep"),
            take(0, 0, "6H 7H 8H", error="too_deep"),
            take(0, 2, "KD", error="invalid_meld"),
            take(0, 3, "6H 7H 8H"),
            check(
                row=["2S", "9C", "KD"],
                credits=[70, 45],
                hand={"0": ["9S", "9D", "4D", "TC", "3H", "4H"]},
            ),
            disc(0, "4D"),
        ],
        note="seat 0: 3C..7C = 25 + JS JD JC = 30: 55, then 6H 7H 8H = 15: 70. Seat 1: QH KH "
        "AH = 10 + 10 + 10 (ace high) = 30 + 5S 5H 5D = 15: 45. Row of 6 with depth 3: "
        "indexes 3, 4, 5 are visible. Round not over.",
    )


@define("a27-remi45-deep-take-whole-row")
def a27() -> Scenario:
    return scenario(
        "remi45 RULES A.9: with no row_depth an opened seat may take index 0 of a 6-tile "
        "row: every tile comes into its hand and a tile that came along completes the new "
        "meld; tiles below the index don't come (tile_not_in_hand); an invalid meld or an "
        "unused taken tile is refused with the row untouched",
        "remi45",
        [
            "TH JH QH KH AC 2C 3C 7S 8D 8H 8C 5S 6S 4D 9D",
            "2H 3H 4H 5H KS KD KC 9S TS 3D 5D 7C 9C 2D",
        ],
        atu="6C",
        stock="7D JS QD TD 4S",
        steps=[
            disc(0, "5S"),
            *dd(1, "7D"),
            draw(0),
            lay(0, "TH JH QH KH", "AC 2C 3C"),
            disc(0, "6S"),
            draw(1),
            lay(1, "2H 3H 4H 5H", "KS KD KC"),
            disc(1, "QD"),
            *dd(0, "TD"),
            *dd(1, "4S"),
            check(row=["5S", "7D", "6S", "QD", "TD", "4S"], turn=0, phase="take"),
            take(0, 1, "5S 6S 7S", error="tile_not_in_hand"),
            take(0, 0, "5S 6S 8D", error="invalid_meld"),
            take(0, 0, "8D 8H 8C", error="taken_tile_unused"),
            check(row=["5S", "7D", "6S", "QD", "TD", "4S"], hand_count=[7, 7]),
            take(0, 0, "5S 6S 7S"),
            check(
                row=[],
                hand_count=[10, 7],
                credits=[70, 50],
                hand={"0": ["8D", "8H", "8C", "4D", "9D", "JS", "7D", "QD", "TD", "4S"]},
            ),
            disc(0, "4S"),
            check(row=["4S"], turn=1, phase="take"),
        ],
        note="seat 0: TH JH QH KH = 40 + AC 2C 3C = 15: 55, then 5S 6S 7S = 15: 70. Seat 1: "
        "2H..5H = 20 + KS KD KC = 30: 50. Round not over.",
    )


@define("a28-remi-must-keep-discard")
def a28() -> Scenario:
    return scenario(
        "remi RULES A.13 A.11 A.16: a lay, a lay-off or a row break that would empty the "
        "hand is must_keep_discard; a joker buy-back keeps the hand size, so a one-tile hand "
        "may buy; going out by discarding that (consumed) joker: bonus 100",
        "remi",
        [
            "AH 2H 3H 4H 5H 6H 8D 9D TD JD QD 2C 3C 4C 7S",
            "JK 6C 7C 8C TH JH QH KH 2S 3S 4S 5S 9S 9H",
        ],
        atu="KS",
        stock="6D 7D 8H 9D TS 5C",
        steps=[
            disc(0, "7S"),
            *dd(1, "6D"),
            draw(0),
            lay(0, "AH 2H 3H 4H 5H 6H", "8D 9D TD JD QD"),
            disc(0, "7D"),
            draw(1),
            lay(1, "JK 6C 7C 8C", "TH JH QH KH", "2S 3S 4S 5S"),
            disc(1, "8H"),
            *dd(0, "9D"),
            check(
                hand={"0": ["2C", "3C", "4C"], "1": ["9S", "9H"]},
                row=["7S", "6D", "7D", "8H", "9D"],
            ),
            take(1, 4, "9S 9H 9D", error="must_keep_discard"),
            *dd(1, "TS"),
            draw(0),
            lay(0, "2C 3C 4C 5C", error="must_keep_discard"),
            lay(0, "2C 3C 4C"),
            off(0, "5C", 5, error="must_keep_discard"),
            buy(0, "5C", 2),
            check(
                hand={"0": ["JK"]},
                credits=[90, 75],
                table=[
                    ["AH", "2H", "3H", "4H", "5H", "6H"],
                    ["8D", "9D", "TD", "JD", "QD"],
                    ["5C", "6C", "7C", "8C"],
                    ["TH", "JH", "QH", "KH"],
                    ["2S", "3S", "4S", "5S"],
                    ["2C", "3C", "4C"],
                ],
            ),
            disc(0, "JK"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [190, 65]},
        note="seat 0: AH..6H = 5 + 25 = 30, 8D..QD = 5+5+10+10+10 = 40, 2C 3C 4C = 15, 5C "
        "bought into seat 1's run = 5: laid 90 + 100 (last discard a joker) = 190. "
        "Seat 1: JK 6C 7C 8C = 20 - 5 (the joker's credit left with it) = 15, TH JH QH "
        "KH = 40, 2S..5S = 20: laid 75; hand 9S 9H = 10; 75 - 10 = 65.",
    )


# --------------------------------------------------------------------- a29-a34
@define("a29-remi45-check-order")
def a29() -> Scenario:
    return scenario(
        "remi45 RULES A.4 A.8 A.9 A.10 A.11 C (options.row_depth 2): one action breaking "
        "two rules gets the first code in the C order: not_your_turn before wrong_phase, "
        "wrong_phase before first_turn, first_turn before tile_not_in_hand, tile_not_in_hand "
        "and invalid_meld/ambiguous_meld before below_threshold, invalid_meld before "
        "not_opened, not_opened before too_deep / layoff_does_not_fit / joker_layoff / "
        "wrong_replacement, below_threshold before run_required and taken_tile_unused, "
        "too_deep before taken_tile_unused",
        "remi45",
        [
            "5H 6H 7H TS JS QS KS QH 8C 2D 4D 6D 3C 9C JC",
            "JK JK 7S AS 2S 4S KD KH KC 9D JH 5C 7D TC",
        ],
        atu="3D",
        stock="5D 8D 3H KS",
        options={"row_depth": 2},
        steps=[
            draw(1, error="not_your_turn"),
            take(0, 0, "QH QD QS", error="wrong_phase"),
            disc(0, "QH"),
            lay(1, "AS 2S 3S", error="wrong_phase"),
            take(1, 0, "AS 2S 3S", error="first_turn"),
            draw(1),
            lay(1, "AS 2S 3S", error="first_turn"),
            disc(1, "5D"),
            draw(0),
            lay(0, "5H 6H 7H", "TS JS QS KS"),
            disc(0, "8C"),
            check(row=["QH", "5D", "8C"], turn=1, phase="take", opened=[True, False]),
            take(1, 0, "JH QH 9D", error="invalid_meld"),
            take(1, 0, "JH QH KH", error="not_opened"),
            take(1, 2, "KD KH KC", error="below_threshold"),
            draw(1),
            off(1, "9D", 0, error="not_opened"),
            off(1, "JK", 0, error="not_opened"),
            buy(1, "4S", 1, error="not_opened"),
            lay(1, "AS 2S 3S", error="tile_not_in_hand"),
            lay(1, "7S JK JK", error="ambiguous_meld"),
            lay(1, "AS 2S 4S", error="invalid_meld"),
            lay(1, "KD KH KC", error="below_threshold"),
            disc(1, "3H"),
            check(row=["QH", "5D", "8C", "3H"], hand_count=[7, 14]),
            take(0, 0, "4D 5D 6D", error="too_deep"),
            draw(0),
            buy(0, "2D", 0, error="wrong_replacement"),
            off(0, "JC", 1, end="low", error="layoff_does_not_fit"),
            disc(0, "KS"),
            check(turn=1, phase="take", credits=[55, 0]),
        ],
        note="seat 0 opens 5H 6H 7H = 15 + TS JS QS KS = 40: 55. Nobody else lays; round not over.",
    )


@define("a30-etalat-bad-action-round-over")
def a30() -> Scenario:
    return scenario(
        "etalat RULES A.18 A.14 A.16 C: malformed actions are bad_action before anything "
        "(unknown action, family-B actions, no such seat, empty melds, atu not a boolean, "
        "a bad end, a negative index), even after the round is over; an index out of range "
        "is bad_action after first_turn; a joker not held is tile_not_in_hand, wrong_phase "
        "comes before it; joker_discard; seat 0 opens and goes out in one turn: 85 + 100, "
        "seat 1 flat -100",
        "etalat",
        [
            "4S 5S 6S 7S 8S QH QD QC 2D 3D 4D 9H 9C 9D KC",
            "JK 2H 4H 6H 8H TH 3C 5C 7C JC AS 3S 9S JS",
        ],
        atu="6C",
        stock="2C TD",
        steps=[
            {"seat": 0, "do": "pass", "error": "bad_action"},
            {"seat": 7, "do": "draw", "error": "bad_action"},
            {"seat": 0, "do": "take_discard", "melds": [["4S", "5S", "6S"]], "error": "bad_action"},
            {"seat": 0, "do": "joker_button", "error": "bad_action"},
            {"seat": 0, "do": "lay", "melds": [], "error": "bad_action"},
            {
                "seat": 0,
                "do": "lay",
                "melds": [["4S", "5S", "6S"]],
                "atu": "yes",
                "error": "bad_action",
            },
            off(0, "4S", 0, end="middle", error="bad_action"),
            take(0, -1, "4S 5S 6S", error="bad_action"),
            disc(0, "JK", error="tile_not_in_hand"),
            disc(0, "KC"),
            take(1, 5, "KC KH KD", error="first_turn"),
            draw(1),
            lay(1, "JK 2H JK", error="first_turn"),
            disc(1, "JK", error="joker_discard"),
            disc(1, "2C"),
            disc(0, "JK", error="wrong_phase"),
            take(0, 5, "2C 3C 4C", error="bad_action"),
            draw(0),
            off(0, "4S", 9, error="bad_action"),
            buy(0, "4S", 9, error="bad_action"),
            lay(0, "4S 5S 6S 7S 8S", "QH QD QC", "2D 3D 4D", "9H 9C 9D"),
            check(hand={"0": ["TD"]}, credits=[85, 0]),
            disc(0, "TD"),
            {"seat": 1, "do": "pass", "error": "bad_action"},
            {"seat": 9, "do": "draw", "error": "bad_action"},
            draw(1, error="round_over"),
            disc(0, "TD", error="round_over"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [185, -100]},
        note="seat 0: 4S..8S = 25, QH QD QC = 30, 2D 3D 4D = 15, 9H 9C 9D = 15: laid 85 + "
        "100 (etalat) = 185. Seat 1 never laid: -100. Atu 6C: nothing.",
    )


@define("a31-remi45-3p-credits-scoring")
def a31() -> Scenario:
    return scenario(
        "remi45 RULES A.7 A.10 A.11 A.16 A.1: 3 players; lay-offs onto opponents' melds are "
        "credited to the layer (AD with end low on a 2..K run: 5), a buy-back moves the "
        "joker place's credit to the buyer, who then holds the joker (50 in hand); seat 1 "
        "goes out: laid + 50; seat 2 adds its atu pair",
        "remi45",
        [
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 7S AC 4C",
            "JK 5S 6S KH KC KS AD TC JC 3H 4H 5H 6H 7H",
            "7C 8C 9C QS QH QC 4S 2H 2C 3D 5C 6C 6H TH",
        ],
        atu="6C",
        stock="5H 8S 9S JS 3S 4H 8H",
        steps=[
            disc(0, "4C"),
            *dd(1, "5H"),
            *dd(2, "8S"),
            draw(0),
            lay(0, "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
            disc(0, "9S"),
            draw(1),
            lay(1, "JK 5S 6S", "KH KC KS"),
            off(1, "AD", 0, end="low"),
            check(
                credits=[80, 50, 0],
                table=[
                    ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"],
                    ["JK", "5S", "6S"],
                    ["KH", "KC", "KS"],
                ],
            ),
            disc(1, "JS"),
            draw(2),
            lay(2, "7C 8C 9C", "QS QH QC"),
            buy(2, "4S", 1),
            check(credits=[80, 45, 50]),
            disc(2, "3S"),
            draw(0),
            off(0, "7S", 1),
            check(credits=[85, 45, 50], hand={"0": ["AC", "4H"]}),
            disc(0, "4H"),
            draw(1),
            lay(1, "3H 4H 5H 6H 7H"),
            off(1, "TC", 3),
            off(1, "JC", 3),
            check(
                credits=[85, 90, 50],
                hand={"1": ["8H"], "2": ["JK", "2H", "2C", "3D", "5C", "6C", "6H", "TH"]},
            ),
            disc(1, "8H"),
        ],
        result={"over": True, "reason": "out", "out": 1, "scores": [60, 140, 10]},
        note="seat 0: 2D..KD = 80, 7S on seat 1's run = 5: laid 85; hand AC = 25; 85 - 25 = "
        "60. Seat 1: JK 5S 6S = 15 but the joker's 5 (4S) went to seat 2: 10, KH KC KS "
        "= 30, AD low on seat 0's run = 5, 3H..7H = 25, TC + JC on seat 2's run = 20: "
        "laid 90 + 50 = 140. Seat 2: 7C 8C 9C = 15, QS QH QC = 30, 4S bought in = 5: "
        "laid 50; hand JK 50 + 2H 2C 3D 5C 6C 6H = 30 + TH 10 = 90; 50 - 90 = -40, + 50 "
        "atu pair (dealt the other 6C) = 10.",
    )


@define("a32-etalat51-4p-first-seat-2")
def a32() -> Scenario:
    return scenario(
        "etalat51 RULES A.1 A.2 A.8 A.16: 4 players, seat 2 first, turns 2 3 0 1 2 3 0 1 2; "
        "50 is below_threshold, 55 opens; seat 2 goes out with a one-joker meld (JK 2D 3D: "
        "the joker is AD low, 5): 100; two opened seats laid - hand (one with the atu "
        "pair), one flat -100",
        "etalat51",
        [
            "AH 2H 3H 4H QS QD QC 9S 9D 9H AC 7D JC 6S",
            "TH JH QH KH 5S 5H 5D JK 2C 4C 8S 3S 7S 8H",
            "5C 6C 7C 8C 9C TS TH TD JK 2D 3D KS KH KD 4S",
            "2S 4D 6D 8D TC JD 3C 5C 7H 9C JS KC AD 6H",
        ],
        atu="3S",
        first=2,
        stock="6S 7S 8S 9H KC 4H 2H QD",
        steps=[
            check(turn=2, hand_count=[14, 14, 15, 14], stock_count=48),
            disc(2, "4S"),
            check(turn=3),
            *dd(3, "6S"),
            check(turn=0),
            *dd(0, "7S"),
            check(turn=1),
            *dd(1, "8S"),
            check(turn=2),
            draw(2),
            lay(2, "5C 6C 7C 8C", "TS TH TD", error="below_threshold"),
            lay(2, "5C 6C 7C 8C 9C", "TS TH TD"),
            disc(2, "9H"),
            *dd(3, "KC"),
            draw(0),
            lay(0, "AH 2H 3H 4H", "QS QD QC", "9S 9D 9H"),
            disc(0, "4H"),
            draw(1),
            lay(1, "TH JH QH KH", "5S 5H 5D"),
            disc(1, "2H"),
            check(turn=2, credits=[65, 55, 55, 0], opened=[True, True, True, False]),
            draw(2),
            lay(2, "JK 2D 3D", "KS KH KD"),
            disc(2, "QD"),
        ],
        result={"over": True, "reason": "out", "out": 2, "scores": [20, 25, 200, -100]},
        note="seat 2: 5C..9C = 25 + TS TH TD = 30 (55 >= 51; 5C..8C + tens = 50 refused), "
        "JK 2D 3D = 5 + 5 + 5, KS KH KD = 30: laid 100 + 100 (etalat) = 200. Seat 0: "
        "AH 2H 3H 4H = 5 + 15 = 20, QS QD QC = 30, 9S 9D 9H = 15: laid 65; hand AC 25 + "
        "7D 5 + JC 10 + 6S 5 = 45; 65 - 45 = 20. Seat 1: TH JH QH KH = 40 + 5S 5H 5D = "
        "15: 55; hand JK 50 + 2C 4C 8S 3S 7S 8H = 30: 80; 55 - 80 = -25, + 50 atu pair "
        "(dealt the other 3S) = 25. Seat 3 never laid: -100. Stock 106 - 57 - 1 = 48.",
    )


@define("a33-remi-atu-pair-dealt")
def a33() -> Scenario:
    return scenario(
        "remi RULES A.16 A.9: the atu pair is about the deal: seat 0 was dealt the other 9C "
        "and discards it, and still adds 50 when it goes out; seat 1 opens by taking that "
        "9C from the row and gets no pair bonus",
        "remi",
        [
            "2S 3S 4S 9C 5H 6H 7H JD QD KD AS AH AD AC TC",
            "7C 8C KS KH KD 2D 3D 4C 6S 8S TS JS QS 5D",
        ],
        atu="9C",
        stock="6D 8H 7D",
        steps=[
            disc(0, "TC"),
            *dd(1, "6D"),
            draw(0),
            lay(0, "2S 3S 4S"),
            disc(0, "9C"),
            take(1, 2, "7C 8C 9C", "KS KH KD"),
            disc(1, "5D"),
            check(credits=[15, 45], row=["TC", "6D", "5D"]),
            draw(0),
            lay(0, "5H 6H 7H 8H", "JD QD KD", "AS AH AD AC"),
            disc(0, "7D"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [265, -10]},
        note="seat 0: 2S 3S 4S = 15, 5H..8H = 20, JD QD KD = 30, AS AH AD AC = 100: laid "
        "165 + 50 = 215, + 50 atu pair (dealt the other 9C) = 265. Seat 1: 7C 8C 9C = "
        "15 + KS KH KD = 30: 45; hand 2D 3D 4C 6S 8S = 25 + TS JS QS = 30: 55; 45 - 55 "
        "= -10 (its 9C came from the row: no pair). Atu 9C: no doubling.",
    )


@define("a34-etalat-only-jokers-discard")
def a34() -> Scenario:
    return scenario(
        "etalat RULES A.14 A.16 A.10: a hand of nothing but jokers may discard one "
        "mid-round; with a natural beside it the joker can't go (joker_discard); later a "
        "lay-off leaves the joker alone and discarding it goes out: (laid + 100) x 2",
        "etalat",
        [
            "2S 3S 4S 5S 6S 7S 8S 9S 9H TH JH QH JK JK 5D",
            "2H 4H 6H 8H 3D 7D JD KD 2C 3C AC AD QC KC",
        ],
        atu="4D",
        stock="6C KH 7C 4C 8C TS",
        steps=[
            disc(0, "5D"),
            *dd(1, "6C"),
            draw(0),
            lay(0, "2S 3S 4S 5S 6S 7S 8S 9S", "9H TH JH QH KH"),
            check(hand={"0": ["JK", "JK"]}),
            disc(0, "JK"),
            check(hand={"0": ["JK"]}, turn=1, phase="take", row=["5D", "6C", "JK"]),
            *dd(1, "7C"),
            draw(0),
            disc(0, "JK", error="joker_discard"),
            disc(0, "4C"),
            *dd(1, "8C"),
            draw(0),
            off(0, "TS", 0),
            disc(0, "JK"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [390, -100]},
        note="seat 0: 2S..9S = 40, 9H TH JH QH KH = 5 + 40 = 45, TS laid off = 10: laid 95 + "
        "100 (etalat) = 195, x 2 (last discard a joker) = 390. Seat 1 never laid: -100.",
    )


# --------------------------------------------------------------------- a35
@define("a35-remi45-high-ace-joker-out-by-row-break")
def a35() -> Scenario:
    return scenario(
        "remi45 RULES A.11 A.10 A.9 A.16 A.7: the joker of QH KH JK stands for the high AH: "
        "the opponent buys it with AH (10 moves to the buyer) and lays JH off at the low end; "
        "8S fits after 5S 6S 7S; seat 0 goes out in a turn that breaks the row into a new "
        "meld holding a joker: bonus 100",
        "remi45",
        [
            "QH KH JK 5S 6S 7S 8C JK 2D 3D 4D 5D 6D KC 9H",
            "9D TD JD KS KD KC AH JH 8S 9C 2S 4S 2H 4H",
        ],
        atu="7H",
        stock="8H TH 3S",
        steps=[
            disc(0, "9H"),
            *dd(1, "8H"),
            draw(0),
            lay(0, "QH KH JK", "5S 6S 7S"),
            check(credits=[45, 0]),
            disc(0, "TH"),
            draw(1),
            lay(1, "9D TD JD", "KS KD KC"),
            buy(1, "AH", 0),
            check(
                credits=[35, 65],
                table=[
                    ["QH", "KH", "AH"],
                    ["5S", "6S", "7S"],
                    ["9D", "TD", "JD"],
                    ["KS", "KD", "KC"],
                ],
            ),
            off(1, "JH", 0),
            off(1, "8S", 1),
            check(
                credits=[35, 80],
                table=[
                    ["JH", "QH", "KH", "AH"],
                    ["5S", "6S", "7S", "8S"],
                    ["9D", "TD", "JD"],
                    ["KS", "KD", "KC"],
                ],
            ),
            disc(1, "9C"),
            check(hand={"1": ["JK", "2S", "4S", "2H", "4H", "3S"]}),
            take(0, 3, "8C 9C JK", "2D 3D 4D 5D 6D"),
            check(hand={"0": ["KC"]}, credits=[80, 80]),
            disc(0, "KC"),
        ],
        result={"over": True, "reason": "out", "out": 0, "scores": [180, 5]},
        note="seat 0: QH KH JK = 10 + 10 + 10 (joker as AH high) and 5S 6S 7S = 15: 45; "
        "after the buy-back the AH place (10) is seat 1's: 35; then 8C 9C JK = 5 + 5 + "
        "10 (joker as TC) and 2D..6D = 25: laid 80 + 100 (the going-out turn laid a "
        "joker meld, by breaking the row) = 180. Seat 1: 9D TD JD = 25, KS KD KC = 30, "
        "AH 10, JH 10, 8S 5: laid 80; hand JK 50 + 2S 4S 2H 4H 3S = 25: 75; 80 - 75 = 5.",
    )


def main(argv: list[str]) -> int:
    wanted = argv[1:]
    for slug, fn in DEFS:
        if wanted and not any(slug.startswith(w) for w in wanted):
            continue
        path = write(slug, fn())
        print(path.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
