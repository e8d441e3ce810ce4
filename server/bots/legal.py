"""What a seat can do, judged from its view alone (mirrors the engine's checks).

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

from collections.abc import Mapping, Sequence
from typing import Any

from server.rules.actions import (
    BuyJoker,
    Discard,
    Draw,
    JokerButton,
    Lay,
    LayOff,
    MeldSpec,
    TakeDiscard,
    TakeRow,
    action_tiles,
    parse_action,
)
from server.rules.errors import RuleError
from server.rules.melds import SET, MeldShape, TableMeld, fit_layoff, read_meld
from server.rules.tiles import JOKER, face_of
from server.rules.views import SeatView


def table_melds(view: SeatView) -> list[TableMeld]:
    """The table as engine meld objects (copies; changing them changes nothing)."""
    return [TableMeld(m["kind"], list(m["tiles"]), list(m["owners"]), int(m["low"]),
                      int(m["suit"])) for m in view.table]


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


def _read(specs: Sequence[MeldSpec], view: SeatView) -> list[MeldShape]:
    rules = view.variant.meld_rules
    return [read_meld(m.tiles, m.kind, rules) for m in specs]


def _new_melds(view: SeatView, seat: int, shapes: Sequence[MeldShape]) -> None:
    family = view.variant.family
    if view.seats[seat].opened:
        family.check_later_melds(view, seat, shapes)
    else:
        family.check_opening(view, seat, shapes)


def _attach(meld: TableMeld, tile: int, where: str) -> None:
    if where == "low":
        meld.tiles.insert(0, tile)
        meld.owners.insert(0, -1)
        meld.low -= 1
    else:
        meld.tiles.append(tile)
        meld.owners.append(-1)


def check(view: SeatView, data: Mapping[str, Any]) -> str | None:
    """The error code the engine would answer for ``data`` now, or None if legal."""
    try:
        _check(view, data)
    except RuleError as err:
        return err.code.value
    return None


def _err(code: str, message: str = "") -> RuleError:
    from server.rules.errors import ErrorCode
    return RuleError(ErrorCode(code), message or code)


def _check(view: SeatView, data: Mapping[str, Any]) -> None:
    action = parse_action(data)
    variant = view.variant
    family = variant.family
    rules = variant.meld_rules
    seat = view.seat
    kind = type(action)
    if seat is None:
        raise _err("not_your_turn")
    if kind not in family.take_actions and kind not in family.build_actions:
        raise _err("bad_action")
    if view.over or view.phase == "over":
        raise _err("round_over")
    if seat != view.turn:
        raise _err("not_your_turn")
    wanted = "take" if kind in family.take_actions else "build"
    if view.phase != wanted:
        raise _err("wrong_phase")
    me = view.seats[seat]
    if family.first_turn_restricted and me.first_turn and kind in (Lay, TakeRow, LayOff,
                                                                    BuyJoker):
        raise _err("first_turn")
    hand = list(view.hand)
    table = table_melds(view)

    def require(tiles: Sequence[int], extra: Sequence[int] = ()) -> None:
        have = set(hand) | set(extra)
        for t in tiles:
            if t not in have:
                raise _err("tile_not_in_hand")

    if isinstance(action, Draw):
        return
    if isinstance(action, Discard):
        require([action.tile])
        if (face_of(action.tile) == JOKER and variant.joker_discard_restricted
                and any(face_of(t) != JOKER for t in hand)):
            raise _err("joker_discard")
        return
    if isinstance(action, Lay):
        extra: list[int] = []
        if action.atu:
            if view.atu is None:
                raise _err("bad_action")
            if view.atu_taken_by is not None:
                raise _err("atu_taken")
            if view.atu not in action_tiles(action):
                raise _err("bad_action")
            extra.append(view.atu)
        tiles = action_tiles(action)
        require(tiles, extra)
        shapes = _read(action.melds, view)
        _new_melds(view, seat, shapes)
        left = len(hand) - (len(tiles) - len(extra))
        if left < 1:
            raise _err("must_keep_discard")
        if action.atu and left != 1:
            raise _err("atu_not_going_out")
        return
    if isinstance(action, TakeRow):
        if view.row_length == 0:
            raise _err("empty_row")
        index = action.index
        if index >= view.row_length:
            raise _err("bad_action")
        if index < view.row_offset:
            # Below what the seat sees: the engine answers too_deep (or earlier codes);
            # a bot never asks for it.
            raise _err("too_deep")
        coming = view.row[index - view.row_offset:]
        tiles = action_tiles(action)
        require(tiles, coming)
        shapes = _read(action.melds, view)
        deep = index < view.row_length - 1
        if deep and not me.opened:
            raise _err("not_opened")
        _new_melds(view, seat, shapes)
        if coming[0] not in tiles:
            raise _err("taken_tile_unused")
        if len(hand) + len(coming) - len(tiles) < 1:
            raise _err("must_keep_discard")
        return
    if isinstance(action, LayOff):
        if action.meld >= len(table):
            raise _err("bad_action")
        require([action.tile])
        if not me.opened:
            raise _err("not_opened")
        if face_of(action.tile) == JOKER and not family.joker_layoff:
            raise _err("joker_layoff")
        if fit_layoff(table[action.meld], action.tile, action.end, rules,
                      family.joker_layoff) is None:
            raise _err("layoff_does_not_fit")
        if len(hand) < 2:
            raise _err("must_keep_discard")
        return
    if isinstance(action, BuyJoker):
        if action.meld >= len(table):
            raise _err("bad_action")
        meld = table[action.meld]
        require([action.tile])
        if not me.opened:
            raise _err("not_opened")
        face = face_of(action.tile)
        matches: list[int] = []
        if face != JOKER:
            for i, t in enumerate(meld.tiles):
                if face_of(t) != JOKER:
                    continue
                stands = meld.stands_for(i)
                if stands == face or (stands is None and meld.kind == SET
                                      and face % 13 + 1 == meld.low
                                      and face // 13 not in meld.natural_suits()):
                    matches.append(i)
        if not matches:
            raise _err("wrong_replacement")
        consumed = set(view.consumed)
        if not [i for i in matches if meld.tiles[i] not in consumed]:
            raise _err("joker_consumed")
        return
    if isinstance(action, TakeDiscard):
        if view.row_length == 0:
            raise _err("empty_row")
        top = view.row[-1]
        tiles = action_tiles(action)
        require(tiles, [top])
        shapes = _read(action.melds, view)
        was_open = me.opened
        if not was_open and action.layoffs and not action.melds:
            raise _err("not_opened")
        if shapes or not was_open:
            _new_melds(view, seat, shapes)
        in_melds = any(top in m.tiles for m in action.melds)
        in_layoffs = any(lo.tile == top for lo in action.layoffs)
        if not (in_melds or (was_open and in_layoffs)):
            raise _err("taken_tile_unused")
        grown = table + [TableMeld(s.kind, list(s.tiles), [seat] * len(s.tiles), s.low, s.suit)
                         for s in shapes]
        for lo in action.layoffs:
            if lo.meld >= len(grown):
                raise _err("bad_action")
            meld = grown[lo.meld]
            if face_of(lo.tile) == JOKER and not family.joker_layoff:
                raise _err("joker_layoff")
            where = fit_layoff(meld, lo.tile, lo.end, rules, family.joker_layoff)
            if where is None:
                raise _err("layoff_does_not_fit")
            _attach(meld, lo.tile, where)
        if len(hand) + 1 - len(tiles) < 1:
            raise _err("must_keep_discard")
        return
    if isinstance(action, JokerButton):
        if not view.joker_button or view.joker_credits < 1 or view.button_used:
            raise _err("button_unavailable")
        return
    raise _err("bad_action")
