"""Precise family-A positions for the unit tests (RULES.md §1, A).

Tile ids follow docs/engine-api.md: face ``f`` copy ``c`` has id ``c * 52 + f``,
the jokers are 104 and 105. :func:`make_round` builds a
:class:`~server.rules.state.RoundState` from a :class:`~server.rules.state.Deal`
written in faces (hands of any size: the engine does not check them), then
puts tiles on the row and melds on the table directly, so a test starts
exactly where the rule it pins applies.

Actions are written in faces too (:func:`act`, :func:`refuse`), translated to
ids the way the scenario runner does it (the copy that came into the hand
first; in ``take_row`` the taken tile where its face appears). :func:`refuse`
also checks that the refused action changed nothing (§C).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from server.rules import RoundOptions, RoundState, RuleError, get_variant
from server.rules.melds import TableMeld, read_meld
from server.rules.scenario import translate
from server.rules.state import BUILD, TAKE, Deal
from server.rules.tiles import FAMILY_A_FACES, FIRST_JOKER_ID, JOKER, face_of

F = FAMILY_A_FACES


def tid(face: str, copy_no: int = 0) -> int:
    """The id of ``face`` copy ``copy_no`` (``JK`` copy 0 is 104, copy 1 is 105)."""
    f = F.parse(face)
    if f == JOKER:
        return FIRST_JOKER_ID + copy_no
    return copy_no * 52 + f


def fmt(tiles: Iterable[int]) -> list[str]:
    """Faces of tile ids."""
    return [F.format(face_of(t)) for t in tiles]


def faces(text: str | Sequence[str]) -> list[str]:
    """'5H 6H 7H' -> ['5H', '6H', '7H'] (a list passes through)."""
    return text.split() if isinstance(text, str) else list(text)


class Ids:
    """Hands out the ids of faces, copy 0 first, each physical tile once."""

    def __init__(self, short_game: bool = False) -> None:
        self.free: dict[int, list[int]] = {}
        ids = [*range(52), 104, 105] if short_game else list(range(106))
        for t in ids:
            self.free.setdefault(face_of(t), []).append(t)

    def __call__(self, face: str) -> int:
        copies = self.free[F.parse(face)]
        if not copies:
            raise ValueError(f"no copy of {face} left")
        return copies.pop(0)

    def many(self, text: str | Sequence[str]) -> list[int]:
        return [self(f) for f in faces(text)]


def make_round(
    hands: Sequence[str | Sequence[str]],
    *,
    variant: str = "remi45",
    atu: str = "KC",
    stock: str | Sequence[str] = (),
    first: int = 0,
    row: str | Sequence[str] = (),
    table: Sequence[tuple[int, str | Sequence[str]] | tuple[int, str | Sequence[str], str]] = (),
    opened: Sequence[bool] | None = None,
    turn: int | None = None,
    phase: str | None = None,
    fresh: bool = False,
    options: RoundOptions | None = None,
) -> RoundState:
    """A round of ``variant`` with exactly these tiles.

    ``hands`` are dealt as given (``first`` is the first player), then the
    atu, then ``stock`` (top first). ``row`` (oldest first) and ``table``
    melds ``(owner, faces[, kind])`` are placed after the deal; a meld's owner
    counts as opened unless ``opened`` says otherwise. Unless ``fresh``, every
    seat has finished its first turn (A.4) and the position starts at
    ``turn`` (default ``first``) in ``phase`` (default the take step); a
    ``fresh`` round is as dealt: the first player at the build step (A.3).
    """
    v = get_variant(variant)
    options = options or RoundOptions()
    pick = Ids(options.short_game)
    dealt = tuple(tuple(pick.many(h)) for h in hands)
    atu_id = pick(atu)
    row_ids = pick.many(row)
    melds = [(m[0], pick.many(m[1]), m[2] if len(m) > 2 else None) for m in table]
    deal = Deal(first, dealt, atu_id, tuple(pick.many(stock)))
    state = RoundState(v, len(hands), deal, options)
    state.row = row_ids
    for owner, tiles, kind in melds:
        shape = read_meld(tiles, kind, v.meld_rules)
        state.table.append(
            TableMeld(shape.kind, list(shape.tiles), [owner] * len(tiles), shape.low, shape.suit)
        )
        state.opened[owner] = True
        state.opened_with[owner] = "points"
    if opened is not None:
        state.opened = list(opened)
        state.opened_with = ["points" if o else None for o in opened]
    if not fresh:
        state.turns_done = [1] * len(hands)
        state.turn = first if turn is None else turn
        state.phase = TAKE if phase is None else phase
    else:
        state.turn = first if turn is None else turn
        state.phase = BUILD if phase is None else phase
    return state


def snapshot(state: RoundState) -> Any:
    """Everything an action may change (the rules and the deal never change)."""
    fixed = {"variant", "family", "options", "deal", "_result"}
    return copy.deepcopy({k: v for k, v in vars(state).items() if k not in fixed})


def act(state: RoundState, seat: int, do: str, **fields: Any) -> Any:
    """Apply a face-written action (the scenario runner's translation)."""
    return state.apply(seat, translate(state, {"seat": seat, "do": do, **fields}))


def refuse(state: RoundState, seat: int, do: str, **fields: Any) -> str:
    """The code a face-written action is refused with; asserts nothing changed (§C)."""
    action = translate(state, {"seat": seat, "do": do, **fields})
    return refuse_ids(state, seat, action)


def refuse_ids(state: RoundState, seat: Any, action: Any) -> str:
    """The code an id-written action is refused with; asserts nothing changed (§C)."""
    before = snapshot(state)
    with pytest.raises(RuleError) as err:
        state.apply(seat, action)
    assert snapshot(state) == before, "a refused action changed the state"
    return err.value.code.value


def hand_faces(state: RoundState, seat: int) -> list[str]:
    return sorted(fmt(state.hands[seat]))


def table_faces(state: RoundState) -> list[list[str]]:
    return [fmt(m.tiles) for m in state.table]


def credits(state: RoundState) -> list[int]:
    return [state.credits(s) for s in range(state.players)]
