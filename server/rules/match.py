"""A match: rounds until the end condition (RULES.md A.17; B uses the same).

>>> m = Match("remi45", players=2, seed="m1", end=EndCondition("rounds", 1))
>>> r = m.start_round()
>>> r.first, m.over
(0, False)
>>> from server.rules.state import OVER
>>> r.phase = OVER  # (a finished round, for the example)
>>> _ = m.finish_round(r)
>>> m.over, len(m.history), m.winners == [i for i, t in enumerate(m.totals) if t == max(m.totals)]
(True, 1, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.rules.state import RoundOptions, RoundState, new_round
from server.rules.variants import Variant, get_variant


@dataclass(frozen=True)
class EndCondition:
    """``endless`` (default), ``rounds`` (N rounds) or ``target`` (a total to reach)."""

    kind: str = "endless"
    value: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("endless", "rounds", "target"):
            raise ValueError("end condition is endless, rounds or target")
        if self.kind != "endless" and (self.value is None or self.value < 1):
            raise ValueError(f"a {self.kind} end condition needs a positive value")


@dataclass
class Match:
    """Rounds of one variant at one table, with running totals."""

    variant_id: str
    players: int
    seed: int | str
    end: EndCondition = field(default_factory=EndCondition)
    options: RoundOptions = field(default_factory=RoundOptions)
    history: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    over: bool = False

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0] * self.players

    @property
    def variant(self) -> Variant:
        return get_variant(self.variant_id)

    @property
    def round_number(self) -> int:
        """Number (0-based) of the next round to deal."""
        return len(self.history)

    def round_seed(self, number: int) -> str:
        return f"{self.seed}/{number}"

    def first_seat(self, number: int) -> int:
        """A.1: seat 0 starts round 1; the first player moves one seat each round."""
        return number % self.players

    def start_round(self) -> RoundState:
        if self.over:
            raise ValueError("the match is over")
        n = self.round_number
        return new_round(
            self.variant, self.players, self.round_seed(n), self.first_seat(n), self.options
        )

    def finish_round(self, state: RoundState) -> list[int]:
        """Add a finished round's totals; checks the end condition (A.17)."""
        result = state.result
        if result is None:
            raise ValueError("the round is not over")
        self.history.append(list(result.scores))
        self.totals = [t + s for t, s in zip(self.totals, result.scores, strict=True)]
        if self.end.kind == "rounds":
            self.over = len(self.history) >= (self.end.value or 0)
        elif self.end.kind == "target":
            self.over = max(self.totals) >= (self.end.value or 0)
        return list(result.scores)

    @property
    def winners(self) -> list[int]:
        """Seats with the highest total (ties share the win)."""
        best = max(self.totals)
        return [i for i, t in enumerate(self.totals) if t == best]

    def score_sheet(self) -> dict[str, Any]:
        return {
            "rounds": [list(r) for r in self.history],
            "totals": list(self.totals),
            "over": self.over,
            "winners": self.winners if self.over else [],
        }
