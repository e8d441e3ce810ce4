"""Family-A meld analysis (RULES.md A.5, A.6, A.10): sets, runs, jokers, values, lay-off fit.

Values are worked out by hand from A.6: 2..9 = 5, T J Q K = 10, ace 25 in a
set, 5 at the low end of a run and 10 at the high end; a joker on the table
is worth the tile it stands for.
"""

from __future__ import annotations

import pytest
from helpers import Ids, fmt

from server.rules import RuleError, get_variant
from server.rules.melds import (
    FAMILY_A_MELDS,
    RUN,
    SET,
    MeldRules,
    MeldShape,
    TableMeld,
    fit_layoff,
    meld_value,
    read_meld,
)
from server.rules.tiles import FAMILY_A_FACES, make_face
from server.rules.variants import FAMILY_A

ETALAT = get_variant("etalat").meld_rules
REMI = get_variant("remi45").meld_rules
assert REMI is FAMILY_A_MELDS


def shape(text: str, kind: str | None = None, rules: MeldRules = REMI) -> MeldShape:
    return read_meld(Ids().many(text), kind, rules)


def code(text: str, kind: str | None = None, rules: MeldRules = REMI) -> str:
    with pytest.raises(RuleError) as err:
        shape(text, kind, rules)
    return err.value.code.value


def value(text: str, kind: str | None = None) -> int:
    return meld_value(shape(text, kind), REMI)


def table_meld(text: str, kind: str | None = None, owner: int = 0) -> TableMeld:
    s = shape(text, kind)
    return TableMeld(s.kind, list(s.tiles), [owner] * len(s.tiles), s.low, s.suit)


# ------------------------------------------------------------------ A.5 sets
@pytest.mark.parametrize(
    "text",
    ["7S 7H 7D", "7S 7H 7D 7C", "AS AH AC", "7S JK 7D", "JK 7H JK", "KS KH JK JK", "JK JK KD"],
)
def test_a5_valid_sets(text: str) -> None:
    s = shape(text, SET)
    assert s.kind == SET and s.suit == -1


@pytest.mark.parametrize(
    "text",
    [
        "7S 7S 7D",
        "7S 7H",
        "7S 7H 7D 7C 7S",
        "7S 7H 7D 7C JK",
        "7S 8S 9H",
        "7S 7H 8D",
        "JK JK",
        "7S 7H 7S JK",
    ],
)
def test_a5_invalid_sets(text: str) -> None:
    """A.5: 3 or 4 tiles, one rank, all suits different, at least one natural tile."""
    assert code(text, SET) == "invalid_meld"


# ------------------------------------------------------------------ A.5 runs
@pytest.mark.parametrize(
    ("text", "low"),
    [
        ("AH 2H 3H", 1),  # ace low
        ("QH KH AH", 12),  # ace high
        ("TS JS QS KS AS", 10),
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", 1),  # 13 tiles, ace low
        ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", 2),  # 13 tiles, ace high
        ("5D 6D 7D", 5),
    ],
)
def test_a5_valid_runs(text: str, low: int) -> None:
    s = shape(text)
    assert (s.kind, s.low) == (RUN, low)


@pytest.mark.parametrize(
    "text",
    [
        "KH AH 2H",  # A.5: never wrapped
        "QH KH AH 2H",
        "5H 6H",  # at least 3
        "5H 6S 7H",  # one suit
        "5H 6H 8H",  # consecutive
        "5H 5H 6H",  # never a rank twice
        "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",  # 14 tiles: ace both low and high
    ],
)
def test_a5_invalid_runs(text: str) -> None:
    assert code(text) == "invalid_meld"
    assert code(text, RUN) == "invalid_meld"


@pytest.mark.parametrize(
    ("text", "ordered", "low"),
    [
        ("7H 5H 6H", "5H 6H 7H", 5),
        ("KH AH QH", "QH KH AH", 12),  # ace goes high when low does not fit
        ("3H AH 2H", "AH 2H 3H", 1),
        ("JS AS KS TS QS", "TS JS QS KS AS", 10),
    ],
)
def test_a5_unsorted_natural_runs_are_sorted(text: str, ordered: str, low: int) -> None:
    """A.5: without jokers the engine may sort the run (low to high)."""
    s = shape(text)
    assert (s.kind, s.low, fmt(s.tiles)) == (RUN, low, ordered.split())


# ------------------------------------------------------------------ A.5 jokers in runs
@pytest.mark.parametrize(
    ("text", "low", "stands_for"),
    [
        ("JK 5H 6H", 4, "4H"),  # RULES.md A.5 example
        ("QH KH JK", 12, "AH"),  # RULES.md A.5 example: the ace high
        ("5H JK 7H", 5, "6H"),
        ("5H 6H JK", 5, "7H"),
        ("JK 2S 3S", 1, "AS"),  # the ace low
        ("AD JK 3D", 1, "2D"),
        ("JK KC AC", 12, "QC"),
        ("9H JK JK QH", 9, "TH"),
    ],
)
def test_a5_joker_stands_for_its_position(text: str, low: int, stands_for: str) -> None:
    """A.5: in a run the tile order given fixes what the joker stands for."""
    s = shape(text)
    assert (s.kind, s.low) == (RUN, low)
    meld = table_meld(text)
    joker_at = text.split().index("JK")
    assert FAMILY_A_FACES.format(meld.stands_for(joker_at) or 0) == stands_for


@pytest.mark.parametrize(
    "text",
    [
        "6H 5H JK",  # written high to low
        "5H JK 4H",
        "JK AH 2H",  # nothing below the ace
        "KH AH JK",  # nothing above the high ace (no wrap)
        "JK QH KH AH JK",
        "5H JK 8H",
    ],
)
def test_a5_joker_run_out_of_order_is_invalid(text: str) -> None:
    """A.5: a run with a joker written in another order than ascending is invalid_meld."""
    assert code(text, RUN) == "invalid_meld"


def test_a5_set_joker_stands_for_a_missing_suit() -> None:
    meld = table_meld("7S JK 7D")
    assert meld.kind == SET and meld.low == 7
    assert meld.stands_for(1) is None  # any suit the set lacks
    assert meld.natural_suits() == {0, 2}
    assert meld.stands_for(0) == make_face(7, 0)


# ------------------------------------------------------------------ A.5 kind inference
@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("5H 6H 7H", RUN),
        ("5H 5S 5D", SET),
        ("5H JK 7H", RUN),
        ("5H JK 5D", SET),
        ("KH JK JK", SET),  # a run K A ? does not exist: only the set reading
        ("JK JK 2H", SET),  # a run would need a 0: only the set reading
    ],
)
def test_a5_kind_is_inferred(text: str, kind: str) -> None:
    assert shape(text).kind == kind


@pytest.mark.parametrize("text", ["5H JK JK", "JK 5H JK", "JK JK 5H", "AH JK JK", "JK JK AH"])
def test_a5_ambiguous_only_when_both_readings_are_valid(text: str) -> None:
    """A.5: one natural + jokers reads as a set and as a run: ambiguous_meld unless kind given."""
    assert code(text) == "ambiguous_meld"
    assert shape(text, SET).kind == SET
    assert shape(text, RUN).kind == RUN


def test_a5_given_kind_that_does_not_fit_is_invalid() -> None:
    assert code("5H 6H 7H", SET) == "invalid_meld"
    assert code("5H 5S 5D", RUN) == "invalid_meld"


def test_a5_family_a_has_no_double_kind() -> None:
    """Decision: a meld kind "double" in family A is invalid_meld (no doubles, A.5)."""
    assert code("5H 5H", "double") == "invalid_meld"
    assert code("5H 5S 5D", "double") == "invalid_meld"


# ------------------------------------------------------------------ A.5 etalat joker limit
@pytest.mark.parametrize("text", ["5H JK JK", "9H JK JK QH", "KS KH JK JK"])
def test_a5_etalat_too_many_jokers(text: str) -> None:
    """A.5 etalat: at most one joker per meld; remi*: no limit beyond the tile count."""
    assert code(text, None, ETALAT) == "too_many_jokers"
    assert code(text, RUN if "9H" in text else SET, ETALAT) == "too_many_jokers"
    assert shape(text, RUN if "9H" in text else SET).kind in (RUN, SET)  # fine in remi


def test_a5_etalat_one_joker_is_fine() -> None:
    assert shape("JK 5H 6H", None, ETALAT).low == 4
    assert shape("5H JK 5D", None, ETALAT).kind == SET


def test_a5_too_many_jokers_only_for_an_otherwise_valid_meld() -> None:
    """Decision: invalid_meld comes first (§C order), so a meld that is wrong anyway
    is invalid_meld even with too many jokers."""
    assert code("5H JK JK 5H", None, ETALAT) == "invalid_meld"
    assert code("JK JK", None, ETALAT) == "invalid_meld"
    assert code("5H 6S JK JK", RUN, ETALAT) == "invalid_meld"


def test_a5_etalat_rules_only_differ_in_the_joker_limit() -> None:
    assert (ETALAT.max_jokers, REMI.max_jokers) == (1, None)
    assert get_variant("etalat51").meld_rules.max_jokers == 1
    assert get_variant("remi").meld_rules.max_jokers is None
    assert FAMILY_A.name == "A"


# ------------------------------------------------------------------ A.6 values
@pytest.mark.parametrize(
    ("text", "kind", "points"),
    [
        ("2H 3H 4H", None, 15),
        ("AH 2H 3H", None, 15),  # ace low = 5
        ("QH KH AH", None, 30),  # ace high = 10
        ("TS JS QS KS AS", None, 50),
        ("8D 9D TD", None, 20),
        ("AS AH AD", None, 75),  # ace 25 in a set
        ("AS AH JK", SET, 75),  # the joker is an ace of the set: 25
        ("KS KH KD KC", None, 40),
        ("5S 5H 5D", None, 15),
        ("JK 5H 6H", None, 15),  # joker = 4H: 5
        ("QH KH JK", None, 30),  # joker = AH high: 10
        ("JK 2S 3S", None, 15),  # joker = AS low: 5
        ("9H JK JH", None, 25),  # joker = TH: 10
        ("AH JK JK", RUN, 15),  # A 2 3
        ("JK JK AH", RUN, 30),  # Q K A
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", None, 5 * 9 + 10 * 4),
        ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", None, 5 * 8 + 10 * 5),
    ],
)
def test_a6_table_values(text: str, kind: str | None, points: int) -> None:
    assert value(text, kind) == points


@pytest.mark.parametrize(
    ("face", "points"),
    [
        ("JK", 50),
        ("AS", 25),
        ("2H", 5),
        ("9D", 5),
        ("TC", 10),
        ("JS", 10),
        ("QH", 10),
        ("KD", 10),
    ],
)
def test_a6_hand_values(face: str, points: int) -> None:
    """A.6 in hand: a joker 50, an ace 25, others as on the table."""
    assert FAMILY_A.hand_value(FAMILY_A_FACES.parse(face)) == points


def test_a6_position_values() -> None:
    pv = REMI.position_value
    assert [pv(RUN, r) for r in (1, 2, 9, 10, 13, 14)] == [5, 5, 5, 10, 10, 10]
    assert [pv(SET, r) for r in (1, 2, 9, 10, 13)] == [25, 5, 5, 10, 10]


# ------------------------------------------------------------------ A.10 lay-off fit
def fits(meld_text: str, tile: str, end: str | None = None) -> str | None:
    meld = table_meld(meld_text)
    pick = Ids()
    for f in meld_text.split():
        pick(f)  # the meld's copies are taken: the tile is the other copy
    return fit_layoff(meld, pick(tile), end, REMI, joker_allowed=False)


@pytest.mark.parametrize(
    ("meld", "tile", "end", "where"),
    [
        ("5H 6H 7H", "8H", None, "high"),
        ("5H 6H 7H", "4H", None, "low"),  # a tile fitting one end goes there
        ("5H 6H 7H", "4H", "low", "low"),
        ("5H 6H 7H", "4H", "high", None),  # named end where it does not fit
        ("5H 6H 7H", "8H", "low", None),
        ("5H 6H 7H", "8S", None, None),  # suit
        ("5H 6H 7H", "9H", None, None),  # not the next rank
        ("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AH", None, "high"),  # both ends: high
        ("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AH", "low", "low"),
        ("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "AH", "high", "high"),
        ("JH QH KH", "AH", None, "high"),
        ("2H 3H 4H", "AH", None, "low"),
        ("AH 2H 3H", "KH", None, None),  # no wrap
        ("QH KH AH", "2H", None, None),  # no wrap
        ("QH KH AH", "JH", None, "low"),
        ("JK 5H 6H", "3H", None, "low"),  # the joker is the 4
        ("JK 5H 6H", "4H", None, None),  # the joker holds the 4's place
        ("QH KH JK", "AH", None, None),  # the joker is the high ace
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "AC", None, None),  # 13 tiles: full
        ("7S 7H 7D", "7C", None, "set"),  # a suit the set lacks
        ("7S 7H 7D", "7S", None, None),  # a suit the set holds
        ("7S 7H 7D", "8C", None, None),
        ("7S 7H 7D", "7C", "high", None),  # ends are for runs
        ("7S 7H 7D 7C", "7S", None, None),  # a set never exceeds 4
        ("7S JK 7D", "7H", None, "set"),  # the set joker does not hold a suit
        ("7S JK 7D", "7C", None, "set"),
        ("7S JK 7D 7H", "7C", None, None),  # four already
    ],
)
def test_a10_fit_layoff(meld: str, tile: str, end: str | None, where: str | None) -> None:
    assert fits(meld, tile, end) == where


def test_a10_joker_never_fits_in_family_a() -> None:
    meld = table_meld("5H 6H 7H")
    assert fit_layoff(meld, 104, None, REMI, joker_allowed=False) is None
    assert fit_layoff(table_meld("7S 7H 7D"), 105, None, REMI, joker_allowed=False) is None


def test_a10_table_meld_positions() -> None:
    meld = table_meld("QH KH JK")
    assert [meld.rank_at(i) for i in range(3)] == [12, 13, 14]
    assert meld.stands_for(2) == make_face(1, 1)  # the ace of hearts
    assert meld_value(meld, REMI) == 30
