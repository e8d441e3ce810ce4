"""Whether an action is legal, judged from the seat's view alone.

Bots call :func:`check` on every action before returning it and fall back
to :func:`fallback_action` (always legal) if it answers with an error code,
so a planning bug costs a move, never an illegal action.

>>> from server.rules.state import new_round
>>> from server.rules.views import view_for
>>> s = new_round("etalat", players=2, seed=4)
>>> v = view_for(s, 0)
>>> check(v, {"do": "draw"})
'wrong_phase'
>>> a = fallback_action(v)
>>> a["do"], check(v, a) is None
('discard', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.rules.melds import TableMeld
from server.rules.shadow import would_accept
from server.rules.tiles import JOKER, face_of
from server.rules.views import SeatView


def table_melds(view: SeatView) -> list[TableMeld]:
    """The table as engine meld objects (copies; changing them changes nothing)."""
    return [
        TableMeld(m["kind"], list(m["tiles"]), list(m["owners"]), int(m["low"]), int(m["suit"]))
        for m in view.table
    ]


def fallback_action(view: SeatView) -> dict[str, Any]:
    """An action that is always legal on the seat's turn: draw, or discard a tile.

    In the build phase it discards the last natural tile of the hand (a
    joker only when the hand holds nothing else).
    """
    if view.phase == "take":
        return {"do": "draw"}
    naturals = [t for t in view.hand if face_of(t) != JOKER]
    tile = naturals[-1] if naturals else view.hand[-1]
    return {"do": "discard", "tile": tile}


def check(view: SeatView, data: Mapping[str, Any]) -> str | None:
    """The error code the engine would answer for ``data`` now, or None if legal.

    The engine itself judges, on a shadow round built from the view alone
    (:mod:`server.rules.shadow`: the hidden tiles are arbitrary and the
    acting seat's checks never read them), so the bots never re-implement
    the rules.
    """
    if view.seat is None:
        return "not_your_turn"
    return would_accept(view, data)
