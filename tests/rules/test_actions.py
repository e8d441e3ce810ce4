"""parse_action and action_to_dict (server/rules/actions.py) answer as they did before
their hot cases got early returns: the same action or the same error for any input,
and the same JSON, keys in the same order. The oracle below is the code as it was."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.actions import (
    ACTION_NAMES,
    Action,
    BuyJoker,
    Discard,
    Draw,
    JokerButton,
    Lay,
    LayOff,
    LayoffSpec,
    TakeDiscard,
    TakeRow,
    _bad,
    _end,
    _melds,
    action_tiles,
    action_to_dict,
    parse_action,
)
from server.rules.errors import RuleError

# --------------------------------------------------------------------------- the oracle


def _old_int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(f"'{key}' must be a non-negative integer")
    return value


def old_parse_action(data: Mapping[str, Any]) -> Action:
    if not isinstance(data, Mapping):
        raise _bad("an action is an object with a 'do' field")
    do = data.get("do")
    action: Action
    if do == "draw":
        action = Draw()
    elif do == "discard":
        action = Discard(_old_int(data, "tile"))
    elif do == "lay":
        atu = data.get("atu", False)
        if not isinstance(atu, bool):
            raise _bad("'atu' must be true or false")
        action = Lay(_melds(data, True), atu)
    elif do == "take_row":
        action = TakeRow(_old_int(data, "index"), _melds(data, False))
    elif do == "layoff":
        action = LayOff(_old_int(data, "tile"), _old_int(data, "meld"), _end(data))
    elif do == "buy_joker":
        action = BuyJoker(_old_int(data, "tile"), _old_int(data, "meld"))
    elif do == "take_discard":
        raw = data.get("layoffs", [])
        if not isinstance(raw, list | tuple):
            raise _bad("'layoffs' must be a list")
        layoffs = []
        for item in raw:
            if not isinstance(item, Mapping):
                raise _bad("a lay-off is an object with 'tile' and 'meld'")
            layoffs.append(LayoffSpec(_old_int(item, "tile"), _old_int(item, "meld"), _end(item)))
        action = TakeDiscard(_melds(data, False), tuple(layoffs))
    elif do == "joker_button":
        action = JokerButton()
    else:
        raise _bad(f"unknown action {do!r}")
    ids = action_tiles(action)
    if len(ids) != len(set(ids)):
        raise _bad("a tile id appears twice in the action")
    return action


def old_action_to_dict(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"do": ACTION_NAMES[type(action)]}
    if isinstance(action, Discard):
        out["tile"] = action.tile
    elif isinstance(action, LayOff | BuyJoker):
        out["tile"] = action.tile
        out["meld"] = action.meld
        if isinstance(action, LayOff) and action.end is not None:
            out["end"] = action.end
    if isinstance(action, Lay | TakeRow | TakeDiscard):
        out["melds"] = [{"kind": m.kind, "tiles": list(m.tiles)} if m.kind else list(m.tiles)
                        for m in action.melds]
    if isinstance(action, Lay) and action.atu:
        out["atu"] = True
    if isinstance(action, TakeRow):
        out["index"] = action.index
    if isinstance(action, TakeDiscard) and action.layoffs:
        out["layoffs"] = [{"tile": lo.tile, "meld": lo.meld, **({"end": lo.end} if lo.end else {})}
                          for lo in action.layoffs]
    return out


# --------------------------------------------------------------------------- inputs


class Number(enum.IntEnum):  # an int that is not exactly int
    SEVEN = 7


ints = st.one_of(st.integers(-2, 60), st.just(Number.SEVEN), st.booleans(), st.just(2**70))
junk = st.one_of(st.none(), st.floats(allow_nan=False), st.text(max_size=3), st.just([]),
                 st.just({}), st.sampled_from(["low", "high", "mid", "set", "run", "draw"]))
value = st.one_of(ints, junk)
meld = st.one_of(
    st.lists(ints, max_size=4),
    st.lists(ints, max_size=4).map(tuple),
    st.fixed_dictionaries({}, optional={"tiles": st.lists(ints, max_size=4),
                                        "kind": st.sampled_from([None, "set", "run", "double",
                                                                 "pair"])}),
    junk,
)
melds = st.one_of(st.lists(meld, max_size=3), st.lists(meld, max_size=3).map(tuple), junk)
layoff = st.one_of(st.fixed_dictionaries({}, optional={"tile": value, "meld": value,
                                                       "end": value}), junk)
fields = {"tile": value, "meld": value, "index": value, "end": value, "atu": value,
          "melds": melds, "layoffs": st.one_of(st.lists(layoff, max_size=2), junk),
          "x": value}
actions = st.builds(
    lambda do, rest: {"do": do, **rest} if do is not None else rest,
    st.sampled_from([*ACTION_NAMES.values(), "fly", "", None, 1, "DRAW"]),
    st.fixed_dictionaries({}, optional=fields),
)
inputs = st.one_of(actions, actions.map(MappingProxyType), junk, st.lists(st.integers()))


def outcome(parse: Any, data: Any) -> tuple[Any, ...]:
    try:
        action = parse(data)
    except RuleError as err:
        return ("error", err.code, err.message)
    return ("ok", type(action), action)


# --------------------------------------------------------------------------- the tests


@settings(max_examples=3000, deadline=None)
@given(inputs)
def test_parse_action_answers_as_before(data: Any) -> None:
    got = outcome(parse_action, data)
    assert got == outcome(old_parse_action, data)
    if got[0] == "ok":
        action = got[2]
        assert json.dumps(action_to_dict(action)) == json.dumps(old_action_to_dict(action))
        assert parse_action(action_to_dict(action)) == action


def test_every_kind_parses_and_dumps_as_before() -> None:
    for data in [
        {"do": "draw"}, {"do": "discard", "tile": 40}, {"do": "joker_button"},
        {"do": "lay", "melds": [[1, 2, 3], {"kind": "set", "tiles": [4, 17, 30]}], "atu": True},
        {"do": "take_row", "index": 2, "melds": [[30, 31, 32]]},
        {"do": "layoff", "tile": 3, "meld": 0, "end": "high"},
        {"do": "layoff", "tile": 3, "meld": 0},
        {"do": "buy_joker", "tile": 3, "meld": 1},
        {"do": "take_discard", "melds": [[18, 19, 20]], "layoffs": [{"tile": 21, "meld": 0}]},
    ]:
        action = parse_action(data)
        assert action == old_parse_action(data)
        dumped = action_to_dict(action)
        assert json.dumps(dumped) == json.dumps(old_action_to_dict(action))
        assert parse_action(dumped) == action
