"""Tiles and faces (RULES.md §1, A.1, B.1); the seeded shuffle is server/rules/shuffle.py.

A *tile* is a physical piece with a distinct integer id; a *face* is what it
shows. Faces are small integers shared by both families: ``suit * 13 +
(rank - 1)`` for ``rank`` 1..13 and ``suit`` 0..3, and :data:`JOKER` (52).
Tile ids 0..103 are two copies of the 52 faces (``face = id % 52``) and 104,
105 are the jokers; ids from 106 on are jokers created by the 101 joker button
(B.9). The short game of family A uses ids 0..51 and the two jokers.

>>> A = FAMILY_A_FACES
>>> A.format(face_of(0)), A.format(face_of(52 + 9 + 13)), A.format(face_of(105))
('AS', 'TH', 'JK')
>>> A.parse('QD') == A.parse('qd'), B_FACES.format(B_FACES.parse('10R'))
(True, '10R')
"""

from __future__ import annotations

from dataclasses import dataclass

JOKER = 52
FIRST_JOKER_ID = 104
FULL_SET_SIZE = 106
SHORT_SET_IDS: tuple[int, ...] = (*range(52), 104, 105)
FULL_SET_IDS: tuple[int, ...] = tuple(range(FULL_SET_SIZE))


def face_of(tile: int) -> int:
    """The face a tile id shows (:data:`JOKER` for 104 and above)."""
    return JOKER if tile >= FIRST_JOKER_ID else tile % 52


def rank_of(face: int) -> int:
    """Rank 1..13 of a natural face."""
    return face % 13 + 1


def suit_of(face: int) -> int:
    """Suit (or colour) 0..3 of a natural face."""
    return face // 13


def make_face(rank: int, suit: int) -> int:
    """The face of ``rank`` (1..13) in ``suit`` (0..3)."""
    return suit * 13 + rank - 1


@dataclass(frozen=True)
class FaceNotation:
    """How one family writes faces: rank symbols and suit letters."""

    ranks: tuple[str, ...]
    suits: str

    def format(self, face: int) -> str:
        if face == JOKER:
            return "JK"
        return self.ranks[rank_of(face) - 1] + self.suits[suit_of(face)]

    def parse(self, text: str) -> int:
        """Parse a face; raises ``ValueError`` for anything else."""
        t = text.strip().upper()
        if t == "JK":
            return JOKER
        if len(t) < 2 or t[-1] not in self.suits:
            raise ValueError(f"not a tile face: {text!r}")
        try:
            rank = self.ranks.index(t[:-1]) + 1
        except ValueError:
            raise ValueError(f"not a tile face: {text!r}") from None
        return make_face(rank, self.suits.index(t[-1]))


FAMILY_A_FACES = FaceNotation(
    ranks=("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"), suits="SHDC"
)
B_FACES = FaceNotation(ranks=tuple(str(n) for n in range(1, 14)), suits="RBKY")


def scenario_order(ids: tuple[int, ...], notation: FaceNotation) -> list[int]:
    """Tiles in SCENARIOS.md's fixed order: faces sorted as strings, jokers last.

    >>> [FAMILY_A_FACES.format(face_of(t)) for t in scenario_order((0, 52, 1, 104), FAMILY_A_FACES)]
    ['2S', 'AS', 'AS', 'JK']
    """
    naturals = sorted(
        (t for t in ids if face_of(t) != JOKER),
        key=lambda t: (notation.format(face_of(t)), t),
    )
    return naturals + sorted(t for t in ids if face_of(t) == JOKER)
