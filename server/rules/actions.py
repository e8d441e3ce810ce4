"""Action forms (RULES.md A.18, B.14) and their parsing from JSON.

Tiles are addressed by id. Malformed input raises ``bad_action`` before any
rule is looked at (§C), whether it arrives as JSON (:func:`parse_action`) or as
an action object (:func:`check_action`: the same checks, codes and messages).

>>> parse_action({"do": "discard", "tile": 7})
Discard(tile=7)
>>> lay = parse_action({"do": "lay", "melds": [[1, 2, 3], {"kind": "set", "tiles": [4, 17, 30]}]})
>>> [(m.tiles, m.kind) for m in lay.melds], lay.atu
([((1, 2, 3), None), ((4, 17, 30), 'set')], False)
>>> parse_action({"do": "lay", "melds": [[1, 1, 2]]})
Traceback (most recent call last):
...
server.rules.errors.RuleError: bad_action: a tile id appears twice in the action
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.rules.errors import ErrorCode, RuleError
from server.rules.melds import KINDS


@dataclass(frozen=True, slots=True)
class MeldSpec:
    tiles: tuple[int, ...]
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class LayoffSpec:
    tile: int
    meld: int
    end: str | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    pass


@dataclass(frozen=True, slots=True)
class Discard:
    tile: int


@dataclass(frozen=True, slots=True)
class Lay:
    melds: tuple[MeldSpec, ...]
    atu: bool = False


@dataclass(frozen=True, slots=True)
class TakeRow:
    index: int
    melds: tuple[MeldSpec, ...]


@dataclass(frozen=True, slots=True)
class LayOff:
    tile: int
    meld: int
    end: str | None = None


@dataclass(frozen=True, slots=True)
class BuyJoker:
    tile: int
    meld: int


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    melds: tuple[MeldSpec, ...]
    layoffs: tuple[LayoffSpec, ...] = ()


@dataclass(frozen=True, slots=True)
class JokerButton:
    pass


Action = Draw | Discard | Lay | TakeRow | LayOff | BuyJoker | TakeDiscard | JokerButton
ACTION_TYPES = frozenset({Draw, Discard, Lay, TakeRow, LayOff, BuyJoker, TakeDiscard, JokerButton})
"""The action classes: an object of one of them is checked by :func:`check_action`,
anything else is parsed as JSON by :func:`parse_action`."""
_ONE_TILE = (Discard, LayOff, BuyJoker)
_TILE_AND_MELD = (LayOff, BuyJoker)
_MELDS = (Lay, TakeRow)
_MELDS_OR_LAYOFFS = (Lay, TakeRow, TakeDiscard)

ACTION_NAMES: dict[type, str] = {
    Draw: "draw",
    Discard: "discard",
    Lay: "lay",
    TakeRow: "take_row",
    LayOff: "layoff",
    BuyJoker: "buy_joker",
    TakeDiscard: "take_discard",
    JokerButton: "joker_button",
}


_FIELDS: dict[str, frozenset[str]] = {
    "draw": frozenset({"do"}),
    "discard": frozenset({"do", "tile"}),
    "lay": frozenset({"do", "melds", "atu"}),
    "take_row": frozenset({"do", "index", "melds"}),
    "layoff": frozenset({"do", "tile", "meld", "end"}),
    "buy_joker": frozenset({"do", "tile", "meld"}),
    "take_discard": frozenset({"do", "melds", "layoffs"}),
    "joker_button": frozenset({"do"}),
}
"""The fields of each action's JSON form (A.18, B.14): any other is ``bad_action`` (§C)."""
_LAYOFF_FIELDS = frozenset({"tile", "meld", "end"})
_MELD_FIELDS = frozenset({"kind", "tiles"})


MAX_ID = 1023
"""The largest tile id, meld index or row index an action may name (a round has far
fewer; the engine then says which do not exist)."""
MAX_MELDS = 30
"""Most melds one action may lay."""
MAX_MELD_TILES = 40
"""Most tiles one meld may list."""
MAX_LAYOFFS = 30
"""Most lay-offs one ``take_discard`` may make."""


def _bad(message: str) -> RuleError:
    return RuleError(ErrorCode.BAD_ACTION, message)


# Value checks, shared by parse_action (JSON) and check_action (typed objects): one
# field is refused with the same code and message whichever way the action arrives.
def _index(value: Any, key: str) -> int:
    if type(value) is int and 0 <= value <= MAX_ID:  # the usual case, one test
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(f"'{key}' must be a non-negative integer")
    if value > MAX_ID:
        raise _bad(f"'{key}' must be at most {MAX_ID}")
    return value


def _int(data: Mapping[str, Any], key: str) -> int:
    return _index(data.get(key), key)


def _end_value(end: Any) -> str | None:
    if end is None:
        return None
    if end not in ("low", "high"):
        raise _bad("'end' must be 'low' or 'high'")
    return str(end)


def _end(data: Mapping[str, Any]) -> str | None:
    return _end_value(data.get("end"))


def _kind(kind: Any) -> str | None:
    if kind is None:
        return None
    if kind not in KINDS:
        raise _bad(f"meld kind must be one of {', '.join(KINDS)}")
    return str(kind)


def _meld_tiles(tiles: Any) -> tuple[int, ...]:
    if not isinstance(tiles, list | tuple) or not tiles:
        raise _bad("a meld is a non-empty list of tile ids")
    if len(tiles) > MAX_MELD_TILES:
        raise _bad(f"a meld lists at most {MAX_MELD_TILES} tiles")
    for t in tiles:
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise _bad("tile ids are non-negative integers")
        if t > MAX_ID:
            raise _bad(f"tile ids are at most {MAX_ID}")
    return tuple(tiles)


def _atu(atu: Any) -> bool:
    if not isinstance(atu, bool):
        raise _bad("'atu' must be true or false")
    return atu


def _meld_list(raw: Any, required: bool) -> None:
    if not isinstance(raw, list | tuple) or (required and not raw):
        raise _bad("'melds' must be a non-empty list of melds")
    if len(raw) > MAX_MELDS:
        raise _bad(f"an action lays at most {MAX_MELDS} melds")


def _layoff_list(raw: Any) -> None:
    if not isinstance(raw, list | tuple):
        raise _bad("'layoffs' must be a list")
    if len(raw) > MAX_LAYOFFS:
        raise _bad(f"an action makes at most {MAX_LAYOFFS} lay-offs")


def _meld(raw: Any) -> MeldSpec:
    if not isinstance(raw, Mapping):
        return MeldSpec(_meld_tiles(raw))
    kind = _kind(raw.get("kind"))
    tiles = _meld_tiles(raw.get("tiles"))
    if not raw.keys() <= _MELD_FIELDS:
        raise _bad("a meld object has only 'kind' and 'tiles'")
    return MeldSpec(tiles, kind)


def _melds(data: Mapping[str, Any], required: bool) -> tuple[MeldSpec, ...]:
    raw = data.get("melds", [])
    _meld_list(raw, required)
    return tuple(_meld(m) for m in raw)


def _no_tile_twice(action: Action) -> Action:
    ids = action_tiles(action)
    if len(ids) != len(set(ids)):
        raise _bad("a tile id appears twice in the action")
    return action


def _unknown(data: Mapping[str, Any], do: str) -> RuleError:
    unknown = sorted(str(k) for k in data.keys() - _FIELDS[do])
    return _bad(f"unknown field(s) for {do}: {', '.join(unknown)}")


def _only_fields(data: Mapping[str, Any], do: str) -> None:
    if not data.keys() <= _FIELDS[do]:
        raise _unknown(data, do)


def parse_action(data: Any) -> Action:
    """Turn a JSON action (A.18/B.14 with tile ids) into an action object.

    Each check is ``bad_action`` (§C), in this order: an object with a known ``do``;
    the values of its fields; no field the action does not have; no tile id twice.
    """
    if type(data) is not dict and not isinstance(data, Mapping):
        raise _bad("an action is an object with a 'do' field")
    do = data.get("do")
    # The usual moves first. A draw has only "do"; a discard with a valid tile has "do"
    # and "tile", so any third key is unknown.
    if do == "draw" or do == "joker_button":
        if len(data) != 1:
            raise _unknown(data, do)
        return Draw() if do == "draw" else JokerButton()
    if do == "discard":
        tile = _int(data, "tile")
        if len(data) != 2:
            raise _unknown(data, do)
        return Discard(tile)
    action: Action
    if do == "lay":
        atu = _atu(data.get("atu", False))
        action = Lay(_melds(data, True), atu)
    elif do == "take_row":
        action = TakeRow(_int(data, "index"), _melds(data, False))
    elif do == "layoff":
        action = LayOff(_int(data, "tile"), _int(data, "meld"), _end(data))
    elif do == "buy_joker":
        action = BuyJoker(_int(data, "tile"), _int(data, "meld"))
    elif do == "take_discard":
        raw = data.get("layoffs", [])
        _layoff_list(raw)
        layoffs = []
        for item in raw:
            if not isinstance(item, Mapping):
                raise _bad("a lay-off is an object with 'tile' and 'meld'")
            layoffs.append(LayoffSpec(_int(item, "tile"), _int(item, "meld"), _end(item)))
            if not item.keys() <= _LAYOFF_FIELDS:
                raise _bad("a lay-off has only 'tile', 'meld' and 'end'")
        action = TakeDiscard(_melds(data, False), tuple(layoffs))
    else:
        raise _bad(f"unknown action {do!r}")
    _only_fields(data, do)
    return _no_tile_twice(action)


def _check_specs(melds: Any, required: bool) -> None:
    _meld_list(melds, required)
    for m in melds:
        if type(m) is not MeldSpec:
            raise _bad("a meld is a non-empty list of tile ids")
        _kind(m.kind)
        _meld_tiles(m.tiles)


def check_action(action: Action) -> Action:
    """Check a typed action exactly as :func:`parse_action` checks its JSON form (§C):
    the same field checks, codes and messages (a dataclass does not check the types
    of its fields). Returns ``action``; raises ``bad_action``.

    >>> check_action(LayOff(tile=3, meld=-1))
    Traceback (most recent call last):
    ...
    server.rules.errors.RuleError: bad_action: 'meld' must be a non-negative integer
    """
    if type(action) not in ACTION_TYPES:
        raise _bad("an action is one of the action classes or a JSON object")
    if isinstance(action, Discard):
        _index(action.tile, "tile")
    elif isinstance(action, LayOff | BuyJoker):
        _index(action.tile, "tile")
        _index(action.meld, "meld")
        if isinstance(action, LayOff):
            _end_value(action.end)
    elif isinstance(action, Lay):
        _atu(action.atu)
        _check_specs(action.melds, True)
    elif isinstance(action, TakeRow):
        _index(action.index, "index")
        _check_specs(action.melds, False)
    elif isinstance(action, TakeDiscard):  # the lay-offs first, as parse_action reads them
        _layoff_list(action.layoffs)
        for lo in action.layoffs:
            if type(lo) is not LayoffSpec:
                raise _bad("a lay-off is an object with 'tile' and 'meld'")
            _index(lo.tile, "tile")
            _index(lo.meld, "meld")
            _end_value(lo.end)
        _check_specs(action.melds, False)
    return _no_tile_twice(action) if isinstance(action, _MELDS_OR_LAYOFFS) else action


def action_tiles(action: Action) -> list[int]:
    """Every tile id an action names."""
    if isinstance(action, _ONE_TILE):
        return [action.tile]
    if isinstance(action, _MELDS):
        return [t for m in action.melds for t in m.tiles]
    if isinstance(action, TakeDiscard):
        return [t for m in action.melds for t in m.tiles] + [lo.tile for lo in action.layoffs]
    return []


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form of an action (inverse of :func:`parse_action`)."""
    if type(action) is Discard:  # the usual moves, at once
        return {"do": "discard", "tile": action.tile}
    if type(action) is Draw:
        return {"do": "draw"}
    out: dict[str, Any] = {"do": ACTION_NAMES[type(action)]}
    if isinstance(action, _TILE_AND_MELD):
        out["tile"] = action.tile
        out["meld"] = action.meld
        if isinstance(action, LayOff) and action.end is not None:
            out["end"] = action.end
    if isinstance(action, _MELDS_OR_LAYOFFS):
        out["melds"] = [
            {"kind": m.kind, "tiles": list(m.tiles)} if m.kind else list(m.tiles)
            for m in action.melds
        ]
    if isinstance(action, Lay) and action.atu:
        out["atu"] = True
    if isinstance(action, TakeRow):
        out["index"] = action.index
    if isinstance(action, TakeDiscard) and action.layoffs:
        out["layoffs"] = [
            {"tile": lo.tile, "meld": lo.meld, **({"end": lo.end} if lo.end else {})}
            for lo in action.layoffs
        ]
    return out
