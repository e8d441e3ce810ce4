"""Per-seat views (RULES.md §D): the only way hidden information leaves the engine.

:func:`view_for` gives what one seat may see; :func:`spectator_view` what a
watcher may see (no hand at all). Until the round is over, a view never holds
a tile of another seat's hand, the stock order or the seed; then all hands
are revealed with the scored result.

>>> from server.rules.state import new_round
>>> s = new_round("remi", players=3, seed=5)
>>> v = view_for(s, 1)
>>> v.hand == s.hands[1], [x.tiles for x in v.seats], v.stock_count
(True, [15, 14, 14], 62)
>>> set(v.to_dict()) >= {"hand", "seats", "row", "table", "atu", "turn", "phase"}
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from server.rules.state import Event, RoundState, meld_public
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


OWN_KEYS = ("seat", "hand", "joker_credits", "button_used")
"""The values of a view that are the seat's own (:func:`own_part`); the rest is public."""

PUBLIC_KEYS = (
    "variant_id", "players", "first", "turn", "phase", "seats", "table", "row", "row_offset",
    "row_length", "row_depth", "atu", "atu_taken_by", "stock_count", "consumed",
    "last_points_opening", "last_doubles_opening", "joker_button", "over", "result", "hands",
    "opened_with",
)
"""The values of a view that every seat sees alike (:func:`public_part`), in its order."""


def _row_offset(state: RoundState) -> int:
    depth = state.options.row_depth
    return 0 if depth is None else max(0, len(state.row) - depth)


def _seats(state: RoundState) -> list[dict[str, Any]]:
    credits = _credits(state)
    return [
        {
            "seat": i,
            "tiles": len(state.hands[i]),
            "opened": state.opened[i],
            "opened_with": state.opened_with[i],
            "credits": credits[i],
            "first_turn": state.first_turn(i),
        }
        for i in range(state.players)
    ]


def _result(state: RoundState) -> dict[str, Any] | None:
    result = state.result
    return asdict(result) if result is not None else None


# How each public value is read from the round (one getter per key of PUBLIC_KEYS).
_PUBLIC: dict[str, Callable[[RoundState], Any]] = {
    "variant_id": lambda s: s.variant.id,
    "players": lambda s: s.players,
    "first": lambda s: s.first,
    "turn": lambda s: s.turn,
    "phase": lambda s: s.phase,
    "seats": _seats,
    "table": lambda s: [meld_public(m) for m in s.table],
    "row": lambda s: s.row[_row_offset(s):],
    "row_offset": _row_offset,
    "row_length": lambda s: len(s.row),
    "row_depth": lambda s: s.options.row_depth,
    "atu": lambda s: s.atu,
    "atu_taken_by": lambda s: s.atu_taken_by,
    "stock_count": lambda s: len(s.stock),
    "consumed": lambda s: sorted(s.consumed),
    "last_points_opening": lambda s: s.last_points_opening,
    "last_doubles_opening": lambda s: s.last_doubles_opening,
    "joker_button": lambda s: s.options.joker_button,
    "over": lambda s: s.over,
    "result": _result,
    "hands": lambda s: [list(h) for h in s.hands] if s.over else None,
    "opened_with": lambda s: list(s.opened_with),
}


def public_part(state: RoundState) -> dict[str, Any]:
    """Every value of a view that is the same for every seat and for a spectator.

    Plain JSON-ready data (``seats`` as dicts). A view is exactly this plus
    :func:`own_part`: ``view_for(state, s).to_dict() == {**public_part(state),
    **own_part(state, s)}``, so a server can encode the public part once per
    change and add each seat's own values.

    >>> from server.rules.state import new_round
    >>> s = new_round("remi", players=2, seed=1)
    >>> view_for(s, 0).to_dict() == {**public_part(s), **own_part(s, 0)}
    True
    >>> sorted(set(public_part(s)) & set(OWN_KEYS))
    []
    """
    return {key: get(state) for key, get in _PUBLIC.items()}


def public_values(state: RoundState, keys: Iterable[str]) -> dict[str, Any]:
    """The public values named by ``keys`` (:data:`PUBLIC_KEYS`), as in :func:`public_part`.

    >>> from server.rules.state import new_round
    >>> s = new_round("remi", players=2, seed=1)
    >>> public_values(s, ("stock_count", "turn"))
    {'stock_count': 76, 'turn': 0}
    """
    return {key: _PUBLIC[key](state) for key in keys}


# What each engine event (Event.do) may change of the public part of the views (§D);
# the acting seat's own part (its hand, B.9 credits) may change too, nobody else's. A
# round that ends also changes _ROUND_OVER. tests/rules/test_views.py checks these
# against the whole public part before and after every action of many random rounds.
_ROW = ("row", "row_offset", "row_length")
_OPENING = ("opened_with", "last_points_opening", "last_doubles_opening")
_ROUND_OVER = ("phase", "over", "result", "hands")
_CHANGES: dict[str, tuple[str, ...]] = {
    "draw": ("phase", "seats", "stock_count"),
    "discard": (*_ROW, "turn", "phase", "seats"),
    "lay": ("seats", "table", "atu_taken_by", *_OPENING),
    "take_row": (*_ROW, "phase", "seats", "table", *_OPENING),
    "layoff": ("seats", "table"),
    "buy_joker": ("seats", "table", "consumed"),
    "take_discard": (*_ROW, "phase", "seats", "table", *_OPENING),
    "joker_button": ("phase", "seats"),
}


def _in_order(keys: Iterable[str]) -> tuple[str, ...]:
    wanted = set(keys)
    return tuple(key for key in PUBLIC_KEYS if key in wanted)


_CHANGED: dict[tuple[str, bool], tuple[str, ...]] = {}
for _do, _keys in _CHANGES.items():
    _CHANGED[(_do, False)] = _in_order(_keys)
    _CHANGED[(_do, True)] = _in_order((*_keys, *_ROUND_OVER))


def changed_keys(event: Event, state: RoundState) -> tuple[str, ...]:
    """The keys of the public part that ``event``, just applied to ``state``, may have
    changed (in :data:`PUBLIC_KEYS` order; every key for an event not listed). With
    :func:`public_values` and the acting seat's :func:`own_part`, a server sends the
    change of a view without comparing whole views.

    >>> from server.rules.state import new_round
    >>> s = new_round("remi", players=2, seed=1)
    >>> changed_keys(s.apply(0, {"do": "discard", "tile": s.hands[0][0]}), s)
    ('turn', 'phase', 'seats', 'row', 'row_offset', 'row_length')
    """
    keys = _CHANGED.get((event.do, state.over))
    return PUBLIC_KEYS if keys is None else keys


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
            kind = meld.kind
            for i, owner in enumerate(meld.owners):
                if 0 <= owner < players:
                    totals[owner] += position_value(kind, meld.rank_at(i))
    return totals


def own_part(state: RoundState, seat: int | None) -> dict[str, Any]:
    """The values of ``seat``'s view that are its own (``None``: a spectator's)."""
    if seat is None:
        return {"seat": None, "hand": [], "joker_credits": 0, "button_used": False}
    return {
        "seat": seat,
        "hand": list(state.hands[seat]),
        "joker_credits": state.joker_credits[seat],
        "button_used": state.button_used[seat],
    }


def _view(state: RoundState, seat: int | None) -> SeatView:
    fields = public_part(state)
    fields["seats"] = [SeatInfo(**info) for info in fields["seats"]]
    fields.update(own_part(state, seat))
    return SeatView(**fields)


def view_for(state: RoundState, seat: int) -> SeatView:
    """What ``seat`` may see (§D)."""
    if not 0 <= seat < state.players:
        raise ValueError("no such seat")
    return _view(state, seat)


def spectator_view(state: RoundState) -> SeatView:
    """What a watcher may see: no hand until the round is over."""
    return _view(state, None)
