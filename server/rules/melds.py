"""Meld analysis: sets, runs and doubles with jokers (RULES.md A.5, A.6, B.3, B.5).

A meld is read from an ordered list of tile ids. Runs keep their rank span as
``low`` on a scale where the ace-high card is 14 (family A only), so a joker's
stood-for tile follows from its position. Sets keep their rank; a set joker
stands for that rank in any suit the set lacks.

>>> from server.rules.tiles import FAMILY_A_FACES as F
>>> ids = lambda *faces: [F.parse(f) for f in faces]  # face == id for copy 0
>>> shape = read_meld([*ids("QH", "KH"), 104], None, FAMILY_A_MELDS)
>>> shape.kind, shape.low, [FAMILY_A_MELDS.position_value("run", r) for r in (12, 13, 14)]
('run', 12, [10, 10, 10])
>>> read_meld([104, *ids("5H", "6H")], None, FAMILY_A_MELDS).low
4
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from server.rules.errors import ErrorCode, RuleError
from server.rules.tiles import JOKER, face_of, make_face, rank_of, suit_of

SET = "set"
RUN = "run"
DOUBLE = "double"
KINDS = (SET, RUN, DOUBLE)


def _family_a_value(kind: str, rank: int) -> int:
    """A.6: 2..9 = 5, T..K = 10, ace 25 in a set, 5 low and 10 high in a run."""
    if rank == 1:
        return 25 if kind == SET else 5
    if rank == 14:
        return 10
    return 5 if rank <= 9 else 10


def _family_b_value(kind: str, rank: int) -> int:
    """B.5: a tile counts its number."""
    return rank


@dataclass(frozen=True)
class MeldRules:
    """What a family (and variant) allows in a meld: data plus one value hook."""

    ace_high: bool
    doubles: bool
    max_jokers: int | None
    position_value: Callable[[str, int], int]

    @property
    def top_rank(self) -> int:
        return 14 if self.ace_high else 13

    def with_max_jokers(self, max_jokers: int | None) -> MeldRules:
        return MeldRules(self.ace_high, self.doubles, max_jokers, self.position_value)


FAMILY_A_MELDS = MeldRules(
    ace_high=True, doubles=False, max_jokers=None, position_value=_family_a_value
)
FAMILY_B_MELDS = MeldRules(
    ace_high=False, doubles=True, max_jokers=None, position_value=_family_b_value
)


@dataclass(frozen=True, slots=True)
class MeldShape:
    """A valid reading of a meld: its kind, tiles in table order and span."""

    kind: str
    tiles: tuple[int, ...]
    low: int  # run: rank of the first tile (1..14); set/double: the rank
    suit: int  # run/double: the suit; set: -1


@dataclass(slots=True)
class TableMeld:
    """A meld on the table, with the seat credited for each tile (A.7)."""

    kind: str
    tiles: list[int]
    owners: list[int]
    low: int
    suit: int

    def rank_at(self, index: int) -> int:
        """The rank position ``index`` stands for (runs: 1..14 scale)."""
        return self.low + index if self.kind == RUN else self.low

    def stands_for(self, index: int) -> int | None:
        """The exact face position ``index`` stands for, or None for a set joker."""
        if self.kind == SET:
            tile = self.tiles[index]
            return None if face_of(tile) == JOKER else face_of(tile)
        rank = self.rank_at(index)
        return make_face(1 if rank == 14 else rank, self.suit)

    def natural_suits(self) -> set[int]:
        return {suit_of(face_of(t)) for t in self.tiles if face_of(t) != JOKER}

    def replacements(self, index: int) -> list[int]:
        """The faces that may take the place of the joker at ``index`` (A.11, B.10): the
        one face it stands for in a run or a double, any missing suit of the rank in a
        set; ``[]`` for a natural tile.

        >>> from server.rules.tiles import make_face as f
        >>> TableMeld("run", [f(4, 1), 104, f(6, 1)], [0, 0, 0], 4, 1).replacements(1)
        [17]
        >>> TableMeld("set", [f(9, 0), 105, f(9, 2)], [0, 0, 0], 9, 0).replacements(1)
        [21, 47]
        """
        if face_of(self.tiles[index]) != JOKER:
            return []
        stands = self.stands_for(index)
        if stands is not None:
            return [stands]
        taken = self.natural_suits()
        return [make_face(self.low, suit) for suit in range(4) if suit not in taken]


def _read_run(tiles: Sequence[int], rules: MeldRules) -> MeldShape | None:
    n = len(tiles)
    if n < 3 or n > 13:
        return None
    faces = [face_of(t) for t in tiles]
    naturals = [(i, f) for i, f in enumerate(faces) if f != JOKER]
    if not naturals:
        return None
    suit = suit_of(naturals[0][1])
    if any(suit_of(f) != suit for _, f in naturals):
        return None
    shape = _place_run(tiles, naturals, suit, rules)
    if shape is None and len(naturals) == n:
        # A.5: without jokers the engine may sort the run (ace low, then high).
        for ace in (1, 14) if rules.ace_high else (1,):
            order = sorted(
                tiles, key=lambda t: ace if rank_of(face_of(t)) == 1 else rank_of(face_of(t))
            )
            shape = _place_run(order, [(i, face_of(t)) for i, t in enumerate(order)], suit, rules)
            if shape is not None:
                break
    return shape


def _place_run(
    tiles: Sequence[int], naturals: list[tuple[int, int]], suit: int, rules: MeldRules
) -> MeldShape | None:
    pos, face = naturals[0]
    rank = rank_of(face)
    lows = [rank - pos]
    if rank == 1 and rules.ace_high:
        lows.append(14 - pos)
    for low in lows:
        high = low + len(tiles) - 1
        if low < 1 or high > rules.top_rank:
            continue
        if all(rank_of(f) == low + i or (rank_of(f) == 1 and low + i == 14) for i, f in naturals):
            return MeldShape(RUN, tuple(tiles), low, suit)
    return None


def _read_set(tiles: Sequence[int]) -> MeldShape | None:
    if not 3 <= len(tiles) <= 4:
        return None
    naturals = [face_of(t) for t in tiles if face_of(t) != JOKER]
    if not naturals:
        return None
    rank = rank_of(naturals[0])
    suits = [suit_of(f) for f in naturals]
    if any(rank_of(f) != rank for f in naturals) or len(set(suits)) != len(suits):
        return None
    return MeldShape(SET, tuple(tiles), rank, -1)


def _read_double(tiles: Sequence[int]) -> MeldShape | None:
    if len(tiles) != 2:
        return None
    naturals = [face_of(t) for t in tiles if face_of(t) != JOKER]
    if not naturals or len(set(naturals)) != 1:
        return None
    return MeldShape(DOUBLE, tuple(tiles), rank_of(naturals[0]), suit_of(naturals[0]))


def read_meld(tiles: Sequence[int], kind: str | None, rules: MeldRules) -> MeldShape:
    """Read ``tiles`` as a meld of ``kind`` (or infer it); raises :class:`RuleError`.

    Checks in §C order: ``invalid_meld`` (no valid reading), ``too_many_jokers``
    (a valid reading over the variant's joker limit, A.5), ``ambiguous_meld``
    (both a set and a run, only possible with one natural tile and jokers).
    """
    kinds = [kind] if kind is not None else [k for k in KINDS if k != DOUBLE or rules.doubles]
    readings: list[MeldShape] = []
    for k in kinds:
        if k == RUN:
            shape = _read_run(tiles, rules)
        elif k == SET:
            shape = _read_set(tiles)
        elif k == DOUBLE and rules.doubles:
            shape = _read_double(tiles)
        else:
            shape = None
        if shape is not None:
            readings.append(shape)
    if not readings:
        what = kind or "set or run"
        raise RuleError(ErrorCode.INVALID_MELD, f"these tiles do not form a valid {what}")
    jokers = sum(1 for t in tiles if face_of(t) == JOKER)
    if rules.max_jokers is not None and jokers > rules.max_jokers:
        raise RuleError(
            ErrorCode.TOO_MANY_JOKERS, f"a meld may hold at most {rules.max_jokers} joker(s) here"
        )
    if len(readings) > 1:
        raise RuleError(
            ErrorCode.AMBIGUOUS_MELD, "these tiles read both as a set and as a run: say which"
        )
    return readings[0]


def meld_value(meld: TableMeld | MeldShape, rules: MeldRules) -> int:
    """Table value of a whole meld (jokers at the value they stand for)."""
    if meld.kind == RUN:
        return sum(rules.position_value(RUN, meld.low + i) for i in range(len(meld.tiles)))
    return rules.position_value(meld.kind, meld.low) * len(meld.tiles)


def fit_layoff(
    meld: TableMeld, tile: int, end: str | None, rules: MeldRules, joker_allowed: bool
) -> str | None:
    """Where ``tile`` fits on ``meld`` as a lay-off: "low", "high", "set" or None.

    A.10: a natural fits a set of its rank lacking its suit (at most 4), or
    the next rank at a run's end; an ace fitting both ends goes high unless
    ``end`` says otherwise. B.3: a joker may be laid off at a run's end (high
    by default) or into a 3-set; a double takes nothing.
    """
    face = face_of(tile)
    if meld.kind == DOUBLE:
        return None
    if meld.kind == SET:
        if len(meld.tiles) >= 4 or end is not None:
            return None
        if face == JOKER:
            return "set" if joker_allowed else None
        if rank_of(face) == meld.low and suit_of(face) not in meld.natural_suits():
            return "set"
        return None
    high = meld.low + len(meld.tiles) - 1
    if len(meld.tiles) >= 13:
        return None
    fits: list[str] = []
    if face == JOKER:
        if not joker_allowed:
            return None
        if high + 1 <= rules.top_rank:
            fits.append("high")
        if meld.low - 1 >= 1:
            fits.append("low")
    elif suit_of(face) == meld.suit:
        rank = rank_of(face)
        if rank == high + 1 or (rank == 1 and high + 1 == 14 and rules.ace_high):
            fits.append("high")
        if rank == meld.low - 1:
            fits.append("low")
    if end is not None:
        return end if end in fits else None
    return fits[0] if fits else None
