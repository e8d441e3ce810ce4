"""Tiles, faces, the seeded shuffle and the deal (RULES.md §1, A.1, A.2; B.1 notation)."""

from __future__ import annotations

import random

import pytest

from server.rules import Deal, RoundOptions, RoundState, new_round
from server.rules.shuffle import shuffled
from server.rules.state import BUILD, deal_tiles
from server.rules.tiles import (
    B_FACES,
    FAMILY_A_FACES,
    FULL_SET_IDS,
    JOKER,
    SHORT_SET_IDS,
    FaceNotation,
    face_of,
    make_face,
    rank_of,
    scenario_order,
    suit_of,
)
from server.rules.variants import get_variant

A = FAMILY_A_FACES
FAMILY_A = ("remi", "remi45", "remi51", "etalat", "etalat51")


# ------------------------------------------------------------------ §1 ids and faces
def test_s1_ids_two_copies_of_52_faces_plus_two_jokers() -> None:
    """§1: 106 distinct ids; face f copy c is c*52+f; 104 and 105 are the jokers."""
    assert tuple(range(106)) == FULL_SET_IDS
    for f in range(52):
        assert face_of(f) == face_of(52 + f) == f
    assert face_of(104) == face_of(105) == JOKER == 52
    assert face_of(106) == JOKER  # B.9 button jokers are jokers too


def test_s1_rank_suit_round_trip() -> None:
    for suit in range(4):
        for rank in range(1, 14):
            f = make_face(rank, suit)
            assert (rank_of(f), suit_of(f)) == (rank, suit)
            assert 0 <= f < 52


@pytest.mark.parametrize(
    ("text", "face"),
    [
        ("AS", 0),
        ("2S", 1),
        ("TS", 9),
        ("KS", 12),
        ("AH", 13),
        ("TH", 22),
        ("QD", 37),
        ("KC", 51),
        ("JK", JOKER),
        ("qd", 37),
        (" 7c ", 45),
    ],
)
def test_s1_family_a_parse(text: str, face: int) -> None:
    assert A.parse(text) == face


@pytest.mark.parametrize(
    ("text", "face"),
    [
        ("1R", 0),
        ("10R", 9),
        ("13R", 12),
        ("1B", 13),
        ("11B", 23),
        ("5K", 30),
        ("13Y", 51),
        ("JK", JOKER),
        ("7y", 45),
    ],
)
def test_s1_family_b_parse(text: str, face: int) -> None:
    assert B_FACES.parse(text) == face


@pytest.mark.parametrize("text", ["10H", "1S", "AX", "", "J", "ZZ", "JKS", "14R"])
def test_s1_family_a_rejects_other_notations(text: str) -> None:
    with pytest.raises(ValueError):
        A.parse(text)


@pytest.mark.parametrize("text", ["TR", "AR", "0R", "14R", "5S", "JKK", "R"])
def test_s1_family_b_rejects_other_notations(text: str) -> None:
    with pytest.raises(ValueError):
        B_FACES.parse(text)


@pytest.mark.parametrize("notation", [A, B_FACES])
def test_s1_format_parse_round_trip_every_face(notation: FaceNotation) -> None:
    n = notation
    written = [n.format(f) for f in range(53)]
    assert len(set(written)) == 53
    assert [n.parse(w) for w in written] == list(range(53))


def test_s1_format_examples() -> None:
    assert [A.format(face_of(t)) for t in (0, 22, 37, 51, 52, 74, 104, 105)] == [
        "AS",
        "TH",
        "QD",
        "KC",
        "AS",
        "TH",
        "JK",
        "JK",
    ]
    assert [B_FACES.format(f) for f in (0, 9, 23, 51)] == ["1R", "10R", "11B", "13Y"]


def test_s1_scenario_order_sorts_faces_as_strings_jokers_last() -> None:
    """SCENARIOS.md: the unnamed rest of the set follows in sorted() face order."""
    order = scenario_order((105, 9, 0, 52, 13, 104), A)
    assert [A.format(face_of(t)) for t in order] == ["AH", "AS", "AS", "TS", "JK", "JK"]
    b = scenario_order((0, 9, 13), B_FACES)
    assert [B_FACES.format(face_of(t)) for t in b] == ["10R", "1B", "1R"]


# ------------------------------------------------------------------ A.2 seeded shuffle
def test_a2_shuffle_is_deterministic_per_seed_and_a_permutation() -> None:
    a = shuffled(FULL_SET_IDS, "room-7/0")
    assert a == shuffled(FULL_SET_IDS, "room-7/0")
    assert sorted(a) == list(FULL_SET_IDS)
    assert a != shuffled(FULL_SET_IDS, "room-7/1")
    assert shuffled(FULL_SET_IDS, 3) == shuffled(FULL_SET_IDS, 3) != shuffled(FULL_SET_IDS, 4)


def test_a2_shuffle_does_not_use_the_global_random() -> None:
    random.seed(1)
    state = random.getstate()
    deal_a = new_round("remi45", 4, seed="x").deal
    assert random.getstate() == state
    random.seed(99)
    assert new_round("remi45", 4, seed="x").deal == deal_a


# ------------------------------------------------------------------ A.1 / A.2 deal sizes
@pytest.mark.parametrize("variant", FAMILY_A)
@pytest.mark.parametrize(("players", "stock"), [(2, 76), (3, 62), (4, 48)])
def test_a2_deal_15_for_the_first_14_for_the_others_then_the_atu(
    variant: str, players: int, stock: int
) -> None:
    """A.2: first player 15, others 14, one atu face up, the rest is the stock;
    106 - 15 - 14 (n-1) - 1 = 76 / 62 / 48. The row starts empty."""
    for first in range(players):
        s = new_round(variant, players, seed=f"a2/{first}", first=first)
        assert [len(h) for h in s.hands] == [15 if i == first else 14 for i in range(players)]
        assert s.atu is not None and s.stock_count == stock and s.row == []
        everything = [t for h in s.hands for t in h] + [s.atu, *s.stock]
        assert sorted(everything) == list(range(106))
        assert (s.first, s.turn, s.phase) == (first, first, BUILD)  # A.3: starts building


@pytest.mark.parametrize("variant", FAMILY_A)
def test_s1_short_game_54_tiles_11_and_10(variant: str) -> None:
    """§1: the short game (2 players): one pack, ids 0..51 and the jokers 104/105,
    hands 11 (first) and 10, the atu, 54 - 21 - 1 = 32 in the stock."""
    opts = RoundOptions(short_game=True)
    for first in (0, 1):
        s = new_round(variant, 2, seed=f"short/{first}", first=first, options=opts)
        assert [len(h) for h in s.hands] == [11 if i == first else 10 for i in (0, 1)]
        assert s.stock_count == 32
        everything = sorted([t for h in s.hands for t in h] + [s.atu, *s.stock])
        assert everything == sorted(SHORT_SET_IDS) == [*range(52), 104, 105]


@pytest.mark.parametrize(("variant", "players"), [("remi45", 3), ("remi45", 4), ("remi101", 2)])
def test_s1_short_game_is_for_two_players_of_family_a(variant: str, players: int) -> None:
    with pytest.raises(ValueError):
        new_round(variant, players, seed=1, options=RoundOptions(short_game=True))


@pytest.mark.parametrize(("players", "first"), [(1, 0), (5, 0), (2, 2), (3, -1)])
def test_a1_two_to_four_players_and_first_is_a_seat(players: int, first: int) -> None:
    with pytest.raises(ValueError):
        new_round("remi", players, seed=1, first=first)


def test_a2_deal_round_trips_and_depends_only_on_the_seed() -> None:
    v = get_variant("etalat")
    d = deal_tiles(v, 3, "s", first=1)
    assert deal_tiles(v, 3, "s", first=1) == d
    assert Deal.from_dict(d.to_dict()) == d
    assert deal_tiles(v, 3, "t", first=1) != d
    assert len(d.hands[1]) == 15


def test_a2_a_tile_dealt_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        RoundState(get_variant("remi"), 2, Deal(0, ((1, 2, 3), (3, 4)), 5, (6,)))
