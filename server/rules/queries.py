"""Questions the table UI and the bots ask, answered from a seat's view.

They take a :class:`~server.rules.views.SeatView`, never the full state, so
the browser (under Pyodide) and the bots can ask them with what they see.

>>> from server.rules.state import new_round
>>> from server.rules.views import view_for
>>> s = new_round("remi45", players=2, seed=3)
>>> v = view_for(s, 0)
>>> reachable_row_indices(v)
[]
>>> lock = opening_lock(v, [])
>>> lock["locked"], lock["code"], lock["threshold"]
(True, 'below_threshold', 45)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.rules.errors import ErrorCode, RuleError
from server.rules.melds import DOUBLE, RUN, MeldShape, meld_value, read_meld
from server.rules.tiles import face_of
from server.rules.views import SeatView


def reachable_row_indices(view: SeatView) -> list[int]:
    """Row indices the seat may take now (A.9, B.4): phase, first turn, opening, depth."""
    seat = view.seat
    if seat is None or view.over or view.turn != seat or view.phase != "take" \
            or view.row_length == 0:
        return []
    family = view.variant.family
    if family.first_turn_restricted and view.seats[seat].first_turn:
        return []
    top = view.row_length - 1
    if not family.row_break:
        return [top]  # B.4: only the last discard
    if not view.seats[seat].opened:
        return [top]
    return list(range(view.row_offset, view.row_length))


def row_take_preview(view: SeatView, index: int) -> list[int]:
    """The tiles that would come into the hand when taking row ``index`` (A.9)."""
    if not view.row_offset <= index < view.row_length:
        return []
    return view.row[index - view.row_offset:]


def evaluate_formation(view: SeatView, tiles: Sequence[int],
                       kind: str | None = None) -> dict[str, Any]:
    """Is this rack formation a meld, which kind, and what is it worth (A.5, A.6, B.3, B.5)."""
    rules = view.variant.meld_rules
    try:
        shape = read_meld(list(tiles), kind, rules)
    except RuleError as err:
        return {"valid": False, "code": err.code.value, "message": err.message,
                "kind": None, "value": 0}
    return {"valid": True, "code": None, "message": "", "kind": shape.kind,
            "value": meld_value(shape, rules)}


def opening_lock(view: SeatView, formations: Sequence[Sequence[int]],
                 taken: int | None = None) -> dict[str, Any]:
    """Whether laying ``formations`` now would be refused by the opening rules, and why.

    The answer names what is missing (A.8: the points or the run; B.6: the
    points or the doubles) with the numbers the lay button shows. With ``taken``
    (the row tile or last discard a take would bring, A.9, B.4), ``taken_used``
    says whether a valid formation holds it; when none does the lay is locked
    too (``taken_tile_unused``, unless the opening already locks it).
    """
    variant = view.variant
    family = variant.family
    seat = view.seat if view.seat is not None else 0
    shapes: list[MeldShape] = []
    taken_used = False
    for tiles in formations:
        try:
            shapes.append(read_meld(list(tiles), None, variant.meld_rules))
        except RuleError:
            continue
        taken_used = taken_used or (taken is not None and taken in tiles)
    value = sum(meld_value(s, variant.meld_rules) for s in shapes if s.kind != DOUBLE)
    doubles = sum(1 for s in shapes if s.kind == DOUBLE)
    points_needed, doubles_needed = variant.threshold, variant.doubles_threshold
    thresholds = getattr(family, "thresholds", None)
    if thresholds is not None:
        points_needed, doubles_needed = thresholds(view)
    info: dict[str, Any] = {
        "locked": False, "code": None, "message": "", "value": value,
        "threshold": points_needed, "has_run": any(s.kind == RUN for s in shapes),
        "run_required": variant.run_required, "doubles": doubles,
        "doubles_needed": doubles_needed if variant.doubles_threshold else None,
        "opened": bool(view.seats[seat].opened) if view.seat is not None else False,
        "taken_used": taken_used if taken is not None else None,
    }
    try:
        if not info["opened"]:
            family.check_opening(view, seat, shapes)
        elif shapes:
            family.check_later_melds(view, seat, shapes)
    except RuleError as err:
        info.update(locked=True, code=err.code.value, message=err.message)
    if taken is not None and not taken_used and not info["locked"]:
        info.update(locked=True, code=ErrorCode.TAKEN_TILE_UNUSED.value,
                    message="the taken tile must be used in a new meld in the same move")
    return info


def row_take_block(view: SeatView, index: int) -> dict[str, str] | None:
    """Why the seat may not take row ``index`` now (A.4, A.9, B.4), or None when it may.

    The same order of checks as the move itself, so the table can say why a
    row tile is not offered (a deep take before the opening: ``not_opened``).
    """
    seat = view.seat
    family = view.variant.family

    def no(code: ErrorCode, message: str) -> dict[str, str]:
        return {"code": code.value, "message": message}

    if view.over:
        return no(ErrorCode.ROUND_OVER, "the round is over")
    if seat is None or view.turn != seat:
        return no(ErrorCode.NOT_YOUR_TURN, f"it is seat {view.turn}'s turn")
    if view.phase != "take":
        return no(ErrorCode.WRONG_PHASE, "you have already taken")
    if family.first_turn_restricted and view.seats[seat].first_turn:
        return no(ErrorCode.FIRST_TURN,
                  "nothing reaches the table in a seat's first turn (draw and discard)")
    if view.row_length == 0:
        return no(ErrorCode.EMPTY_ROW, "the discard row is empty")
    if not 0 <= index < view.row_length:
        return no(ErrorCode.BAD_ACTION, f"the row has no tile {index}")
    if index < view.row_length - 1:
        if not family.row_break:
            return no(ErrorCode.BAD_ACTION, "only the last discard may be taken")
        if not view.seats[seat].opened:
            return no(ErrorCode.NOT_OPENED,
                      "only a seat that has opened may reach below the top of the row")
        if index < view.row_offset:
            return no(ErrorCode.TOO_DEEP, "that tile is deeper than the row lets you see")
    return None


def hand_value(view: SeatView) -> int:
    """What the seat's hand would cost if the round ended now (A.6 / B.5)."""
    family = view.variant.family
    return sum(family.hand_value(face_of(t)) for t in view.hand)
