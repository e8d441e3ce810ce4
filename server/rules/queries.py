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
from itertools import combinations
from typing import Any

from server.rules.errors import ErrorCode, RuleError
from server.rules.melds import DOUBLE, RUN, SET, MeldRules, MeldShape, meld_value, read_meld
from server.rules.tiles import JOKER, face_of, make_face, rank_of, suit_of
from server.rules.views import SeatView


def reachable_row_indices(view: SeatView) -> list[int]:
    """Row indices the seat may take now (A.9, B.4): phase, first turn, opening, depth."""
    seat = view.seat
    if (
        seat is None
        or view.over
        or view.turn != seat
        or view.phase != "take"
        or view.row_length == 0
    ):
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
    return view.row[index - view.row_offset :]


def evaluate_formation(
    view: SeatView, tiles: Sequence[int], kind: str | None = None
) -> dict[str, Any]:
    """Is this rack formation a meld, which kind, and what is it worth (A.5, A.6, B.3, B.5)."""
    rules = view.variant.meld_rules
    try:
        shape = read_meld(list(tiles), kind, rules)
    except RuleError as err:
        return {
            "valid": False,
            "code": err.code.value,
            "message": err.message,
            "kind": None,
            "value": 0,
        }
    return {
        "valid": True,
        "code": None,
        "message": "",
        "kind": shape.kind,
        "value": meld_value(shape, rules),
    }


def opening_lock(
    view: SeatView, formations: Sequence[Sequence[int]], taken: int | None = None
) -> dict[str, Any]:
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
        "locked": False,
        "code": None,
        "message": "",
        "value": value,
        "threshold": points_needed,
        "has_run": any(s.kind == RUN for s in shapes),
        "run_required": variant.run_required,
        "doubles": doubles,
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
        info.update(
            locked=True,
            code=ErrorCode.TAKEN_TILE_UNUSED.value,
            message="the taken tile must be used in a new meld in the same move",
        )
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
        return no(
            ErrorCode.FIRST_TURN,
            "nothing reaches the table in a seat's first turn (draw and discard)",
        )
    if view.row_length == 0:
        return no(ErrorCode.EMPTY_ROW, "the discard row is empty")
    if not 0 <= index < view.row_length:
        return no(ErrorCode.BAD_ACTION, f"the row has no tile {index}")
    if index < view.row_length - 1:
        if not family.row_break:
            return no(ErrorCode.BAD_ACTION, "only the last discard may be taken")
        if not view.seats[seat].opened:
            return no(
                ErrorCode.NOT_OPENED,
                "only a seat that has opened may reach below the top of the row",
            )
        if index < view.row_offset:
            return no(ErrorCode.TOO_DEEP, "that tile is deeper than the row lets you see")
    return None


def hand_value(view: SeatView) -> int:
    """What the seat's hand would cost if the round ended now (A.6 / B.5)."""
    family = view.variant.family
    return sum(family.hand_value(face_of(t)) for t in view.hand)


ARRANGE_NODE_LIMIT = 40_000
_MAX_JOKERS_PER_MELD = 2  # the search tries melds with at most this many jokers


def _arrange_candidates(
    counts: list[int], rules: MeldRules, pools: dict[int, list[int]]
) -> list[tuple[str, tuple[int, ...], int]]:
    """Every meld the engine accepts that the face counts allow: (kind, faces, value).

    Faces are in table order, ``JOKER`` where a joker stands; each is checked with
    :func:`read_meld` and valued by :func:`meld_value` (A.5, A.6, B.3, B.5).
    """
    jokers = counts[JOKER]
    cap = min(
        jokers,
        _MAX_JOKERS_PER_MELD,
        _MAX_JOKERS_PER_MELD if rules.max_jokers is None else rules.max_jokers,
    )
    shapes: list[tuple[str, tuple[int, ...]]] = []
    for rank in range(1, 14):
        present = [s for s in range(4) if counts[make_face(rank, s)]]
        for size in (3, 4):
            for k in range(max(1, size - cap), min(size, len(present)) + 1):
                for suits in combinations(present, k):
                    faces = tuple(make_face(rank, s) for s in suits) + (JOKER,) * (size - k)
                    shapes.append((SET, faces))
    for suit in range(4):
        for low in range(1, rules.top_rank + 1):
            faces_run: list[int] = []
            missing = 0
            for rank in range(low, rules.top_rank + 1):
                face = make_face(1 if rank == 14 else rank, suit)
                if counts[face]:
                    faces_run.append(face)
                else:
                    missing += 1
                    if missing > cap:
                        break
                    faces_run.append(JOKER)
                if len(faces_run) >= 3 and len(faces_run) > faces_run.count(JOKER):
                    shapes.append((RUN, tuple(faces_run)))
    if rules.doubles:
        shapes.extend((DOUBLE, (f, f)) for f in range(JOKER) if counts[f] >= 2)
    out: list[tuple[str, tuple[int, ...], int]] = []
    for kind, faces in shapes:
        need: dict[int, int] = {}
        for f in faces:
            need[f] = need.get(f, 0) + 1
        if any(counts[f] < n for f, n in need.items()):
            continue
        taken: dict[int, int] = {}
        ids = []
        for f in faces:
            ids.append(pools[f][taken.get(f, 0)])
            taken[f] = taken.get(f, 0) + 1
        try:
            shape = read_meld(ids, kind, rules)
        except RuleError:
            continue
        out.append((kind, faces, meld_value(shape, rules)))
    return out


def arrange(view: SeatView) -> dict[str, Any]:
    """The seat's hand laid out in the best melds the engine finds, for the rack.

    Chooses melds that share no tile so that what stays in hand is worth the
    least (A.6 / B.5; ties: the most table value), by a depth-first search over
    the hand's faces that remembers each position it met (at most
    ``ARRANGE_NODE_LIMIT``); every meld is one :func:`read_meld` accepts. In a
    variant with doubles (B.3) equal pairs among the tiles left over are offered
    as doubles too. Laying stays the player's choice: this only says where tiles
    go. Returns ``melds`` (each ``tiles`` in table order, ``kind``, ``value``),
    ``left`` (the rest of the hand) and ``complete`` (False when the search
    stopped at its limit, with the best it had found).

    >>> from server.rules.state import new_round
    >>> from server.rules.views import view_for
    >>> from server.rules.tiles import FAMILY_A_FACES as F
    >>> v = view_for(new_round("remi45", players=2, seed=3), 0)
    >>> a = arrange(v)
    >>> [(m["kind"], m["value"], [F.format(face_of(t)) for t in m["tiles"]]) for m in a["melds"]]
    [('run', 40, ['TS', 'JS', 'QS', 'KS'])]
    >>> sorted([t for m in a["melds"] for t in m["tiles"]] + a["left"]) == sorted(v.hand)
    True
    """
    rules = view.variant.meld_rules
    family = view.variant.family
    pools: dict[int, list[int]] = {}
    for t in sorted(view.hand):
        pools.setdefault(face_of(t), []).append(t)
    counts = [len(pools.get(f, [])) for f in range(JOKER + 1)]
    hv = [family.hand_value(f) for f in range(JOKER + 1)]
    cands = _arrange_candidates(counts, rules, pools)
    main = [c for c in cands if c[0] != DOUBLE]
    main.sort(key=lambda c: -sum(hv[f] for f in c[1]) / len(c[1]))
    by_face: list[list[int]] = [[] for _ in range(JOKER)]
    for i, (_, faces, _) in enumerate(main):
        for f in set(faces):
            if f != JOKER:
                by_face[f].append(i)
    needs = [tuple((f, faces.count(f)) for f in set(faces)) for _, faces, _ in main]
    gains = [sum(hv[f] for f in faces) for _, faces, _ in main]
    order = [f for f in range(JOKER) if by_face[f]]
    memo: dict[tuple[int, ...], tuple[int, int, tuple[int, ...]]] = {}

    def best_from(state: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
        """The best (kept-out-of-hand value, table value, melds) from these counts."""
        known = memo.get(state)
        if known is not None:
            return known
        face = next((f for f in order if state[f]), None)
        if face is None or len(memo) > ARRANGE_NODE_LIMIT:
            return 0, 0, ()
        counts = list(state)
        counts[face] -= 1  # this copy stays in hand
        best = best_from(tuple(counts))
        counts[face] += 1
        for i in by_face[face]:
            need = needs[i]
            if any(counts[f] < n for f, n in need):
                continue
            for f, n in need:
                counts[f] -= n
            gain, value, chosen = best_from(tuple(counts))
            for f, n in need:
                counts[f] += n
            option = (gain + gains[i], value + main[i][2], (i, *chosen))
            if option[:2] > best[:2]:
                best = option
        memo[state] = best
        return best

    chosen = best_from(tuple(counts))[2]
    complete = len(memo) <= ARRANGE_NODE_LIMIT
    melds: list[dict[str, Any]] = []
    used: dict[int, int] = {}

    def ids_of(faces: Sequence[int]) -> list[int]:
        out = []
        for f in faces:
            out.append(pools[f][used.get(f, 0)])
            used[f] = used.get(f, 0) + 1
        return out

    for i in chosen:
        kind, faces, value = main[i]
        melds.append({"tiles": ids_of(faces), "kind": kind, "value": value})
    if rules.doubles:
        for f in range(JOKER):
            while len(pools.get(f, [])) - used.get(f, 0) >= 2:
                pair = ids_of((f, f))
                melds.append(
                    {
                        "tiles": pair,
                        "kind": DOUBLE,
                        "value": meld_value(read_meld(pair, DOUBLE, rules), rules),
                    }
                )
    left = [t for f, ids in sorted(pools.items()) for t in ids[used.get(f, 0) :]]

    def meld_order(m: dict[str, Any]) -> tuple[int, int, int]:
        naturals = [face_of(t) for t in m["tiles"] if face_of(t) != JOKER]
        kind_rank = {RUN: 0, SET: 1}.get(m["kind"], 2)
        return (
            kind_rank,
            suit_of(naturals[0]) if m["kind"] == RUN else 0,
            min(rank_of(f) for f in naturals),
        )

    melds.sort(key=meld_order)
    return {"melds": melds, "left": left, "complete": complete}
