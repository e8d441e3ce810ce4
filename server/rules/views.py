"""Per-seat views (RULES.md §D): the only way hidden information leaves the engine.

:func:`view_for` gives what one seat may see; :func:`spectator_view` what a
watcher may see (no hand at all). Until the round is over, a view never holds
a tile of another seat's hand, the stock order or the seed (only its
commitment, docs/fairness.md); then all hands are revealed with the scored
result.

>>> from server.rules.state import new_round
>>> s = new_round("remi", players=3, seed=5)
>>> v = view_for(s, 1)
>>> v.hand == s.hands[1], [x.tiles for x in v.seats], v.stock_count
(True, [15, 14, 14], 62)
>>> set(v.to_dict()) >= {"hand", "seats", "row", "table", "atu", "turn", "phase"}
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from server.rules.melds import RUN
from server.rules.state import RoundState, meld_public
from server.rules.variants import Variant, get_variant


@dataclass
class SeatInfo:
    """What everybody sees of one seat."""

    seat: int
    tiles: int
    opened: bool
    opened_with: str | None
    credits: int
    first_turn: bool


@dataclass
class SeatView:
    """A seat's (or a spectator's, ``seat`` None) view of a round."""

    variant_id: str
    players: int
    seat: int | None
    first: int
    turn: int
    phase: str
    hand: list[int]
    seats: list[SeatInfo]
    table: list[dict[str, Any]]
    row: list[int]  # the visible part of the row, oldest first
    row_offset: int  # index in the whole row of row[0]
    row_length: int
    row_depth: int | None
    atu: int | None
    atu_taken_by: int | None
    stock_count: int
    consumed: list[int]
    last_points_opening: int | None
    last_doubles_opening: int | None
    joker_button: bool
    joker_credits: int
    button_used: bool
    over: bool
    result: dict[str, Any] | None = None
    hands: list[list[int]] | None = None  # revealed when the round is over
    opened_with: list[str | None] = field(default_factory=list)
    row_by: list[int | None] = field(default_factory=list)
    """Who discarded each tile of ``row`` (None: not known)."""
    commitment: str | None = None
    """SHA-256 of the round's seed (docs/fairness.md): public from the deal on; the seed
    itself is shown only once the round is over (by the room, with ``round_over``)."""

    @property
    def variant(self) -> Variant:
        return get_variant(self.variant_id)

    @property
    def opened(self) -> list[bool]:
        return [s.opened for s in self.seats]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatView:
        fields = dict(data)
        fields["seats"] = [SeatInfo(**s) for s in data["seats"]]
        return cls(**fields)


def _row_offset(state: RoundState) -> int:
    depth = state.options.row_depth
    return 0 if depth is None else max(0, len(state.row) - depth)


def _row_by(state: RoundState, offset: int) -> list[int | None]:
    """Who discarded each visible row tile: ``state.row_by`` is aligned on the row's
    newest end and may be shorter than the row (a row set from outside).

    >>> from server.rules.state import new_round
    >>> s = new_round("remi", players=2, seed=1)
    >>> s.row, s.row_by = [5, 6, 7], [1, 0]
    >>> _row_by(s, 0), _row_by(s, 2)
    ([None, 1, 0], [0])
    """
    known: list[int | None] = list(state.row_by[-len(state.row) :]) if state.row else []
    whole = [None] * (len(state.row) - len(known)) + known
    return whole[offset:]


def _result(state: RoundState) -> dict[str, Any] | None:
    result = state.result
    return asdict(result) if result is not None else None


def _credits(state: RoundState) -> list[int]:
    """Every seat's ``state.credits(seat)`` (A.7), in one pass over the table.

    >>> from server.rules.state import new_round
    >>> s = new_round("remi", players=3, seed=1)
    >>> _credits(s) == [s.credits(i) for i in range(3)]
    True
    """
    players = state.players
    totals = [0] * players
    if state.table:
        position_value = state.variant.meld_rules.position_value
        for meld in state.table:
            kind, low = meld.kind, meld.low
            step = 1 if kind == RUN else 0
            for i, owner in enumerate(meld.owners):
                if 0 <= owner < players:
                    totals[owner] += position_value(kind, low + step * i)
    return totals


def _public(state: RoundState) -> SeatView:
    """What everybody sees (a spectator's view): no hand, no seat's own joker credits
    or button (B.9)."""
    offset = _row_offset(state)
    credits = _credits(state)
    return SeatView(
        variant_id=state.variant.id,
        players=state.players,
        seat=None,
        first=state.first,
        turn=state.turn,
        phase=state.phase,
        hand=[],
        seats=[
            SeatInfo(
                seat=i,
                tiles=len(state.hands[i]),
                opened=state.opened[i],
                opened_with=state.opened_with[i],
                credits=credits[i],
                first_turn=state.first_turn(i),
            )
            for i in range(state.players)
        ],
        table=[meld_public(m) for m in state.table],
        row=state.row[offset:],
        row_by=_row_by(state, offset),
        row_offset=offset,
        row_length=len(state.row),
        row_depth=state.options.row_depth,
        atu=state.atu,
        atu_taken_by=state.atu_taken_by,
        stock_count=len(state.stock),
        consumed=sorted(state.consumed),
        last_points_opening=state.last_points_opening,
        last_doubles_opening=state.last_doubles_opening,
        joker_button=state.options.joker_button,
        joker_credits=0,
        button_used=False,
        over=state.over,
        result=_result(state),
        hands=[list(h) for h in state.hands] if state.over else None,
        opened_with=list(state.opened_with),
        commitment=state.deal.commitment,
    )


def _own(public: SeatView, state: RoundState, seat: int) -> SeatView:
    """``public`` with what ``seat`` alone sees: its hand, joker credits and button (B.9).
    The other values are ``public``'s own objects."""
    view = SeatView.__new__(SeatView)  # a shallow copy (``copy.copy`` costs 5x more)
    view.__dict__.update(public.__dict__)
    view.seat = seat
    view.hand = list(state.hands[seat])
    view.joker_credits = state.joker_credits[seat]
    view.button_used = state.button_used[seat]
    return view


def view_for(state: RoundState, seat: int) -> SeatView:
    """What ``seat`` may see (§D)."""
    if not 0 <= seat < state.players:
        raise ValueError("no such seat")
    return _own(_public(state), state, seat)


def spectator_view(state: RoundState) -> SeatView:
    """What a watcher may see: no hand until the round is over."""
    return _public(state)


def every_view(state: RoundState) -> tuple[SeatView, list[SeatView]]:
    """The spectator's view and each seat's (``view_for``), made at once: what all of
    them see alike is built once and its objects are shared between the views, so
    they are for reading (encoding, comparing), not for changing.

    >>> from server.rules.state import new_round
    >>> s = new_round("remi101", players=3, seed=2)
    >>> watcher, seats = every_view(s)
    >>> [v.to_dict() for v in seats] == [view_for(s, i).to_dict() for i in range(3)]
    True
    >>> watcher.to_dict() == spectator_view(s).to_dict(), watcher.hand
    (True, [])
    """
    public = _public(state)
    return public, [_own(public, state, seat) for seat in range(state.players)]
