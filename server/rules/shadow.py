"""A stand-in round built from one seat's view, so a view holder can ask the engine.

Bots (and, under Pyodide, the browser) see only a :class:`SeatView`. To know
whether an action would be accepted they must not re-implement the rules: they
build a *shadow* :class:`RoundState` from the view and let the one engine judge.
The shadow holds everything the view shows exactly (the seat's hand, the
table with its credits, the visible row, the atu, turn, phase, opening flags,
first-turn flags, consumed jokers, thresholds and joker-button state); the
tiles the view hides (other hands, the stock, the row beyond the visible
depth) are filled with the unseen ids in an arbitrary order. The acting seat's
checks never read hidden tiles, so the engine answers exactly as it would on
the real round (a property test compares both), while the shadow carries no
information the view did not.

>>> from server.rules.state import new_round
>>> from server.rules.views import view_for
>>> s = new_round("remi45", players=3, seed=9)
>>> v = view_for(s, 0)
>>> would_accept(v, {"do": "draw"})
'wrong_phase'
>>> would_accept(v, {"do": "discard", "tile": v.hand[0]}) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.rules.actions import Action
from server.rules.errors import RuleError
from server.rules.melds import TableMeld
from server.rules.state import Deal, RoundOptions, RoundState
from server.rules.views import SeatView


def shadow_state(view: SeatView) -> RoundState:
    """A round consistent with ``view`` (hidden tiles arbitrary), for the engine to judge."""
    if view.seat is None:
        raise ValueError("a spectator view has no seat to act for")
    seat = view.seat
    variant = view.variant
    family = variant.family
    short = family.has_atu and view.players == 2 and _is_short(view)
    options = RoundOptions(
        row_depth=view.row_depth,
        short_game=short,
        joker_button=view.joker_button,
        joker_credits=tuple(view.joker_credits if i == seat else 0 for i in range(view.players)),
    )
    seen = _visible(view)
    unseen = [t for t in family.tile_ids(options.short_game) if t not in seen]
    hidden_row = view.row_offset
    hands: list[tuple[int, ...]] = []
    pos = 0
    for info in view.seats:
        if info.seat == seat:
            hands.append(tuple(view.hand))
        else:
            hands.append(tuple(unseen[pos : pos + info.tiles]))
            pos += info.tiles
    row_hidden = unseen[pos : pos + hidden_row]
    pos += hidden_row
    stock = unseen[pos : pos + view.stock_count]
    deal = Deal(view.first, tuple(hands), view.atu, tuple(stock), view.commitment)
    state = RoundState(variant, view.players, deal, options)
    state.row = list(row_hidden) + list(view.row)
    known = list(view.row_by)  # who discarded the visible row tiles: unknown ones first
    while known and known[0] is None:
        known.pop(0)
    state.row_by = [int(s) for s in known if s is not None]
    state.table = [
        TableMeld(m["kind"], list(m["tiles"]), list(m["owners"]), int(m["low"]), int(m["suit"]))
        for m in view.table
    ]
    state.atu_taken_by = view.atu_taken_by
    state.turn = view.turn
    state.phase = view.phase
    state.opened = [s.opened for s in view.seats]
    state.opened_with = list(view.opened_with)
    state.turns_done = [0 if s.first_turn else 1 for s in view.seats]
    state.consumed = set(view.consumed)
    state.last_points_opening = view.last_points_opening
    state.last_doubles_opening = view.last_doubles_opening
    state.button_used = [view.button_used if i == seat else False for i in range(view.players)]
    state.next_button_id = max([105, *seen]) + 1
    state.tile_ids.update(seen)  # button jokers on the table or in the row (B.9)
    return state


def _visible(view: SeatView) -> set[int]:
    seen = set(view.hand) | set(view.row)
    for m in view.table:
        seen.update(m["tiles"])
    if view.atu is not None:
        seen.add(view.atu)
    return seen


def _is_short(view: SeatView) -> bool:
    """The short game (§1) holds 54 tiles: what the view counts adds up to that."""
    counted = (
        sum(s.tiles for s in view.seats)
        + view.stock_count
        + view.row_length
        + sum(len(m["tiles"]) for m in view.table)
        + (1 if view.atu is not None and view.atu_taken_by is None else 0)
    )
    button = sum(1 for t in _visible(view) if t >= 106)
    return counted - button == 54


def would_accept(view: SeatView, action: Action | Mapping[str, Any]) -> str | None:
    """None if the engine would accept ``action`` from the view's seat, else the §C code."""
    state = shadow_state(view)
    try:
        state.apply(view.seat if view.seat is not None else -1, action)
    except RuleError as err:
        return err.code.value
    return None
