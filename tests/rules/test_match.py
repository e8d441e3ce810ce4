"""Matches (RULES.md A.1, A.17): round seeds, the first seat moving, end conditions, ties."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from server.rules import EndCondition, Match, new_round
from server.rules.variants import RoundResult


@dataclass
class Finished:
    """Stands in for a finished round: Match.finish_round only reads ``result``."""

    result: RoundResult | None


def done(*scores: int) -> Finished:
    return Finished(RoundResult("out", 0, list(scores)))


def test_a1_first_seat_moves_one_seat_each_round() -> None:
    """A.1: seat 0 starts round 1; the first player moves one seat on each round."""
    m = Match("remi45", players=3, seed="m")
    firsts = []
    for _ in range(7):
        r = m.start_round()
        firsts.append((r.first, r.turn, len(r.hands[r.first])))
        m.finish_round(done(0, 0, 0))
    assert firsts == [
        (0, 0, 15),
        (1, 1, 15),
        (2, 2, 15),
        (0, 0, 15),
        (1, 1, 15),
        (2, 2, 15),
        (0, 0, 15),
    ]


def test_a17_round_seeds_are_match_seed_slash_number() -> None:
    """Decision: round n (0-based) is dealt from the seed "{match_seed}/{n}"."""
    m = Match("etalat", players=4, seed="room-9")
    for n in range(3):
        r = m.start_round()
        assert m.round_seed(n) == f"room-9/{n}"
        assert r.deal == new_round("etalat", 4, seed=f"room-9/{n}", first=n % 4).deal
        m.finish_round(done(0, 0, 0, 0))
    assert (
        Match("etalat", 4, seed="room-9").start_round().deal
        != Match("etalat", 4, seed="room-8").start_round().deal
    )


def test_a17_endless_by_default() -> None:
    m = Match("remi", players=2, seed=1)
    assert m.end == EndCondition("endless")
    for _ in range(50):
        m.finish_round(done(10_000, -100))
    assert not m.over and m.score_sheet()["winners"] == []


def test_a17_fixed_number_of_rounds() -> None:
    m = Match("remi45", players=3, seed=1, end=EndCondition("rounds", 3))
    assert m.finish_round(done(95, -65, -100)) == [95, -65, -100]
    m.finish_round(done(-100, 110, 20))
    assert not m.over and m.totals == [-5, 45, -80]
    m.finish_round(done(0, -50, 130))
    assert m.over and m.totals == [-5, -5, 50] and m.winners == [2]
    assert m.history == [[95, -65, -100], [-100, 110, 20], [0, -50, 130]]
    with pytest.raises(ValueError):
        m.start_round()
    sheet = m.score_sheet()
    assert sheet == {"rounds": m.history, "totals": [-5, -5, 50], "over": True, "winners": [2]}


def test_a17_target_total_checked_at_the_end_of_each_round() -> None:
    """A.17: the match ends as soon as any total reaches the target (>=)."""
    m = Match("remi45", players=2, seed=1, end=EndCondition("target", 500))
    m.finish_round(done(499, 0))
    assert not m.over
    m.finish_round(done(1, -100))
    assert m.over and m.totals == [500, -100] and m.winners == [0]


def test_a17_target_reached_by_several_the_highest_wins() -> None:
    m = Match("remi45", players=3, seed=1, end=EndCondition("target", 200))
    m.finish_round(done(250, 300, 0))
    assert m.over and m.winners == [1]


def test_a17_equal_highest_totals_share_the_win() -> None:
    m = Match("remi45", players=4, seed=1, end=EndCondition("rounds", 2))
    m.finish_round(done(100, 50, 100, -100))
    m.finish_round(done(0, 50, 0, 200))
    assert m.over and m.totals == [100, 100, 100, 100] and m.winners == [0, 1, 2, 3]
    m2 = Match("remi45", players=3, seed=1, end=EndCondition("rounds", 1))
    m2.finish_round(done(-100, -100, -200))
    assert m2.winners == [0, 1]


def test_a17_a_round_not_over_cannot_be_added() -> None:
    m = Match("remi45", players=2, seed=1)
    with pytest.raises(ValueError):
        m.finish_round(m.start_round())
    with pytest.raises(ValueError):
        m.finish_round(Finished(None))
    assert m.history == []


@pytest.mark.parametrize(
    ("kind", "value"), [("rounds", None), ("rounds", 0), ("target", -5), ("forever", None)]
)
def test_a17_bad_end_conditions(kind: str, value: int | None) -> None:
    with pytest.raises(ValueError):
        EndCondition(kind, value)


def test_a17_real_rounds_add_up() -> None:
    """A real round played to stock exhaustion feeds the totals."""
    m = Match("remi45", players=2, seed="real", end=EndCondition("rounds", 1))
    r = m.start_round()
    r.stock.clear()
    r.apply(0, {"do": "discard", "tile": r.hands[0][0]})
    r.apply(1, {"do": "draw"})  # empty stock: the round ends (A.15)
    assert m.finish_round(r) == [-100, -100]
    assert m.over and m.winners == [0, 1]
