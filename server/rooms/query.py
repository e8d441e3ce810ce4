"""Answers to a ``query`` message: the engine's helpers on the asking seat's view.

A query changes nothing; it is answered from the view the seat may see (§D), so a
spectator's query knows no hand.
"""

from __future__ import annotations

from typing import Any

from server.protocol import QueryMessage
from server.rooms import frames
from server.rules import RoundState, spectator_view, view_for
from server.rules.queries import (
    arrange,
    evaluate_formation,
    opening_lock,
    reachable_row_indices,
    row_take_block,
    row_take_preview,
)


def answer(state: RoundState | None, seat: int | None, msg: QueryMessage) -> str:
    """The frame that answers ``msg``: a ``query_result``, or an ``error``."""
    if state is None:
        return frames.error(msg.seq, "room_closed", "no round is being played")
    view = view_for(state, seat) if seat is not None else spectator_view(state)
    result: dict[str, Any]
    if msg.query == "formations":
        formations = msg.formations or []
        result = {
            "formations": [evaluate_formation(view, f) for f in formations],
            "lock": opening_lock(view, formations, msg.taken),
        }
    elif msg.query == "arrange":
        result = arrange(view)
    else:
        if msg.index is None:
            return frames.error(msg.seq, "bad_message", "index: required for row_preview")
        result = {
            "index": msg.index,
            "tiles": row_take_preview(view, msg.index),
            "reachable": reachable_row_indices(view),
            "block": row_take_block(view, msg.index),
        }
    return frames.query_result(msg.seq, result)
