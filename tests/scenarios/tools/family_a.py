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
        ["5C AD 3H 7C 2S 4S 6S 8S QS 2D 4D 8D JC KC 9D",
         "9H TH JH QH KS KD KC 4H 5H TS 6D 5S 2C 3C"],
        atu="8H", stock="8C 2H 9S 3D 4C JD",
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
            check(row=["5C", "TS", "AD", "5S"], hand_count=[14, 7],
                  hand={"1": ["2C", "3C", "8C", "9S", "4C", "6D", "7C"]},
                  table=[["9H", "TH", "JH", "QH"], ["KS", "KD", "KC"], ["3H", "4H", "5H"]],
                  credits=[0, 80], turn=1, phase="build", stock_count=70),
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
        ["7S 8S 9S TS QH QD QC 2H 3D 5C 6H 9D JD KS 4C",
         "2D 3D 4D 5D KS KH KC 3S 5S 7H 9H JC 6C 8C"],
        atu="4S", stock="AC 2C 3C",
        steps=[
            check(hand_count=[15, 14], stock_count=76, row=[], turn=0, phase="build",
                  opened=[False, False]),
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
            check(opened=[True, True], credits=[55, 50], hand_count=[7, 7], stock_count=73,
                  turn=0, phase="take", row=["9D", "AC", "2C", "3C"]),
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
        ["2C 3C 4C 9S JS 6H 8H TD QD 5S 7S KH AH 4D",
         "2H 3H 4H 6C 8C TC QC 3S 5D 7D 9D JH KD KS AD",
         "5H 6H 7H 2S 4S 8S TS QS 3D 5C 9C JC KC 6D"],
        atu="9H", first=1, stock="2D 8D 7C 6S 4H",
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
            check(turn=1, phase="take", opened=[True, True, True], credits=[15, 15, 15],
                  hand_count=[11, 11, 11], stock_count=57),
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
        ["2S 4S 6S 8S TS QS 3H 5H 7H 9H JH KH 2D 4D",
         "6D 3S 5S 9S JS KS AS 6H 8H TH QH 3D 5D 7D",
         "8D TD QD 2C 3C 4C 5C 6C 7C 8C 4S 6S 8S AD",
         "AH 2H 3H 4H 5H 9C TC JC QC KC 7S 7D 7C 7H KD"],
        atu="6D", first=3, stock="JD 9D 2S 3S",
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
