"""What a seat knows from its view: unseen tiles, urgency, who collects what.

Everything here is computed from a :class:`~server.rules.views.SeatView`
(and from earlier views the same bot saw), never from the round state.

>>> from server.rules.state import new_round
>>> from server.rules.views import view_for
>>> v = view_for(new_round("remi45", players=4, seed=2), 1)
>>> k = Knowledge.from_view(v)
>>> sum(k.unseen), k.copies
(91, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.bots.legal import table_melds
from server.rules.melds import RUN, SET, TableMeld
from server.rules.tiles import JOKER, face_of, make_face
from server.rules.views import SeatView


def short_game(view: SeatView) -> bool:
    """One pack (54 tiles) rather than two: inferred from the tile count."""
    total = (
        sum(s.tiles for s in view.seats)
        + view.stock_count
        + view.row_length
        + sum(len(m["tiles"]) for m in view.table)
        + (1 if view.atu is not None and view.atu_taken_by is None else 0)
    )
    return view.variant.family.has_atu and total <= 54


def initial_stock(view: SeatView, short: bool | None = None) -> int:
    family = view.variant.family
    if short is None:
        short = short_game(view)
    big, small = family.hand_sizes(short)
    total = 54 if short else 106
    return total - big - small * (view.players - 1) - (1 if family.has_atu else 0)


@dataclass
class Knowledge:
    """Per-face counts of tiles this seat cannot see, and simple round facts."""

    unseen: list[int]  # per face 0..52
    copies: int  # copies of each natural face in the set (1 short game, 2 full)
    table: list[TableMeld]
    urgency: float  # 0.35..1: how much a tile left in hand is likely to cost
    progress: float  # 0..1: share of the stock already drawn
    picked: set[int] = field(default_factory=set)  # faces others took from the row
    _fits: dict[int, frozenset[int]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def unseen_total(self) -> int:
        return sum(self.unseen)

    def fit_faces(self, top: int) -> frozenset[int]:
        """The faces that could be laid off onto a table meld now (``top``: the highest
        rank of a run, 14 when the ace may follow the king): what
        :func:`server.bots.planner.fits_table` accepts, for the whole table at once."""
        fits = self._fits.get(top)
        if fits is None:
            fits = self._fits[top] = table_fit_faces(self.table, top)
        return fits

    @classmethod
    def from_view(cls, view: SeatView, picked: set[int] | None = None) -> Knowledge:
        short = short_game(view)
        copies = 1 if short else 2
        unseen = [copies] * 52 + [2]
        table = table_melds(view)
        known: list[int] = list(view.hand) + list(view.row)
        for m in table:
            known.extend(m.tiles)
        if view.atu is not None and view.atu_taken_by is None:
            known.append(view.atu)
        for t in known:
            f = face_of(t)
            if unseen[f] > 0:
                unseen[f] -= 1
        start = max(1, initial_stock(view, short))
        progress = min(1.0, max(0.0, 1.0 - view.stock_count / start))
        seat = view.seat if view.seat is not None else 0
        others = [s.tiles for s in view.seats if s.seat != seat]
        min_opp = min(others) if others else 99
        end_soon = 0.4 if min_opp <= 3 else (0.2 if min_opp <= 6 else 0.0)
        urgency = min(1.0, 0.35 + 0.5 * progress + end_soon)
        return cls(unseen, copies, table, urgency, progress, set(picked or ()))


def table_fit_faces(table: list[TableMeld], top: int) -> frozenset[int]:
    """Faces that extend a run of ``table`` at either end or complete a 3-set."""
    out: set[int] = set()
    for m in table:
        if m.kind == SET:
            if len(m.tiles) < 4:
                have = m.natural_suits()
                out.update(make_face(m.low, s) for s in range(4) if s not in have)
        elif m.kind == RUN:
            high = m.low + len(m.tiles) - 1
            if m.low - 1 >= 1:
                out.add(make_face(m.low - 1, m.suit))
            if high + 1 <= 13:
                out.add(make_face(high + 1, m.suit))
            elif high + 1 == 14 and top == 14:
                out.add(make_face(1, m.suit))
    return frozenset(out)


class RowMemory:
    """Remembers the row between a seat's turns to see what the others took.

    Tiles that leave the row and do not appear on the table went into
    someone's hand (a row break, A.9): the faces they collect.
    """

    def __init__(self) -> None:
        self.key: tuple[object, ...] | None = None
        self.last_stock = -1
        self.last_row: list[int] = []
        self.picked: set[int] = set()

    def update(self, view: SeatView) -> set[int]:
        key = (view.variant_id, view.players, view.seat, view.first, view.atu)
        if key != self.key or view.stock_count > self.last_stock >= 0:
            self.key = key
            self.picked = set()
            self.last_row = []
        on_table = {t for m in view.table for t in m["tiles"]}
        now = set(view.row)
        mine = set(view.hand)
        for t in self.last_row:
            if t not in now and t not in on_table and t not in mine:
                self.picked.add(face_of(t))
        self.last_row = list(view.row)
        self.last_stock = view.stock_count
        return self.picked

    def after_discard(self, view: SeatView, tile: int) -> None:
        self.last_row = [*view.row, tile]


def is_joker(tile: int) -> bool:
    return face_of(tile) == JOKER
