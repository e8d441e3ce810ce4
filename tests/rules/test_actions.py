"""parse_action, check_action and action_to_dict (server/rules/actions.py).

parse_action is checked against a plain oracle (every branch written out, RULES.md
A.18/B.14 and §C's malformed input) for any input: the same action or the same
error, and the same JSON back, keys in the same order. check_action, given the
typed mirror of any JSON input, answers exactly as parse_action does (§C: "the same
checks hold whether an action arrives as a dict or as a typed object")."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from server.rules.actions import (
    ACTION_NAMES,
    MAX_ID,
    MAX_LAYOFFS,
    Action,
    BuyJoker,
    Discard,
    Draw,
    JokerButton,
    Lay,
    LayOff,
    LayoffSpec,
    MeldSpec,
    TakeDiscard,
    TakeRow,
    _bad,
    _end,
    _melds,
    action_tiles,
    action_to_dict,
    check_action,
    parse_action,
)
from server.rules.errors import ErrorCode, RuleError

# --------------------------------------------------------------------------- the oracle


def _old_int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(f"'{key}' must be a non-negative integer")
    if value > MAX_ID:
        raise _bad(f"'{key}' must be at most {MAX_ID}")
    return value


FIELDS = {
    "draw": {"do"},
    "discard": {"do", "tile"},
    "lay": {"do", "melds", "atu"},
    "take_row": {"do", "index", "melds"},
    "layoff": {"do", "tile", "meld", "end"},
    "buy_joker": {"do", "tile", "meld"},
    "take_discard": {"do", "melds", "layoffs"},
    "joker_button": {"do"},
}


def old_parse_action(data: Mapping[str, Any]) -> Action:
    if not isinstance(data, Mapping):
        raise _bad("an action is an object with a 'do' field")
    do = data.get("do")
    if not isinstance(do, str) or do not in FIELDS:  # (_melds: the module's own)
        raise _bad(f"unknown action {do!r}")
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
        if len(raw) > MAX_LAYOFFS:
            raise _bad(f"an action makes at most {MAX_LAYOFFS} lay-offs")
        layoffs = []
        for item in raw:
            if not isinstance(item, Mapping):
                raise _bad("a lay-off is an object with 'tile' and 'meld'")
            layoffs.append(LayoffSpec(_old_int(item, "tile"), _old_int(item, "meld"), _end(item)))
            if not set(item) <= {"tile", "meld", "end"}:
                raise _bad("a lay-off has only 'tile', 'meld' and 'end'")
        action = TakeDiscard(_melds(data, False), tuple(layoffs))
    elif do == "joker_button":
        action = JokerButton()
    if not set(data) <= FIELDS[do]:  # after the values of the fields
        raise _bad(f"unknown field(s) for {do}: {', '.join(sorted(set(data) - FIELDS[do]))}")
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


# --------------------------------------------------------------------------- inputs


class Number(enum.IntEnum):  # an int that is not exactly int
    SEVEN = 7


ints = st.one_of(
    st.integers(-2, 60),
    st.just(Number.SEVEN),
    st.booleans(),
    st.just(2**70),
    st.sampled_from([MAX_ID, MAX_ID + 1]),
)
junk = st.one_of(
    st.none(),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.just([]),
    st.just({}),
    st.sampled_from(["low", "high", "mid", "set", "run", "draw"]),
)
value = st.one_of(ints, junk)
kinds = st.sampled_from([None, "set", "run", "double", "pair"])
meld = st.one_of(
    st.lists(ints, max_size=4),
    st.lists(ints, max_size=4).map(tuple),
    st.fixed_dictionaries({}, optional={"tiles": st.lists(ints, max_size=4), "kind": kinds}),
    st.fixed_dictionaries({"tiles": st.lists(ints, min_size=1, max_size=3), "x": value}),
    junk,
)
melds = st.one_of(st.lists(meld, max_size=3), st.lists(meld, max_size=3).map(tuple), junk)
layoff = st.one_of(
    st.fixed_dictionaries({}, optional={"tile": value, "meld": value, "end": value}), junk
)
fields = {
    "tile": value,
    "meld": value,
    "index": value,
    "end": value,
    "atu": value,
    "melds": melds,
    "layoffs": st.one_of(st.lists(layoff, max_size=2), junk),
    "x": value,
}


def _one_kind(do: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly the action's own fields (so that the value checks run), now and then any."""
    own = {k: fields[k] for k in FIELDS.get(do, set()) if k != "do"}
    return st.one_of(
        st.fixed_dictionaries({"do": st.just(do)}, optional=own),
        st.fixed_dictionaries({"do": st.just(do)}, optional=fields),
    )


names = st.sampled_from([*ACTION_NAMES.values(), "fly", "", None, 1, "DRAW"])
actions = st.one_of(
    names.flatmap(_one_kind), st.fixed_dictionaries({}, optional=fields)
)  # no "do" at all
inputs = st.one_of(actions, actions.map(MappingProxyType), junk, st.lists(st.integers()))


def outcome(parse: Any, data: Any) -> tuple[Any, ...]:
    try:
        action = parse(data)
    except RuleError as err:
        return ("error", err.code, err.message)
    return ("ok", type(action), action)


# --------------------------------------------------------------------------- the tests


@pytest.mark.volume
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
        {"do": "draw"},
        {"do": "discard", "tile": 40},
        {"do": "joker_button"},
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


# --------------------------------------------------------------------------- typed objects
CLASSES = {name: cls for cls, name in ACTION_NAMES.items()}


def _spec(raw: Any) -> Any:
    if isinstance(raw, Mapping):
        return MeldSpec(raw.get("tiles"), raw.get("kind"))
    if isinstance(raw, list | tuple):
        return MeldSpec(raw)
    return raw


def _mirror_melds(raw: Any) -> Any:
    return tuple(_spec(m) for m in raw) if isinstance(raw, list | tuple) else raw


def mirror(data: Mapping[str, Any]) -> Any:
    """The action object holding the very values of a JSON action, unchecked (a
    dataclass does not check the types of its fields)."""
    cls = CLASSES[data["do"]]
    get = data.get
    if cls in (Draw, JokerButton):
        return cls()
    if cls is Discard:
        return Discard(get("tile"))
    if cls is LayOff:
        return LayOff(get("tile"), get("meld"), get("end"))
    if cls is BuyJoker:
        return BuyJoker(get("tile"), get("meld"))
    if cls is Lay:
        return Lay(_mirror_melds(get("melds", [])), get("atu", False))
    if cls is TakeRow:
        return TakeRow(get("index"), _mirror_melds(get("melds", [])))
    raw = get("layoffs", [])
    layoffs = (
        tuple(
            LayoffSpec(lo.get("tile"), lo.get("meld"), lo.get("end"))
            if isinstance(lo, Mapping)
            else lo
            for lo in raw
        )
        if isinstance(raw, list | tuple)
        else raw
    )
    return TakeDiscard(_mirror_melds(get("melds", [])), layoffs)


def _json_only(data: Mapping[str, Any]) -> bool:
    """Inputs that only JSON can carry: unknown fields, meld objects with other keys."""
    if not set(data) <= FIELDS[data["do"]]:
        return True
    raw = data.get("melds")
    return isinstance(raw, list | tuple) and any(
        isinstance(m, Mapping) and not set(m) <= {"kind", "tiles"} for m in raw
    )


typed_inputs = names.filter(lambda d: d in CLASSES).flatmap(_one_kind)


@pytest.mark.volume
@settings(max_examples=1000, deadline=None)
@given(typed_inputs)
def test_a_typed_action_is_checked_exactly_like_its_json(data: dict[str, Any]) -> None:
    """§C: check_action refuses the typed mirror of a JSON action with the very code and
    message parse_action gives, and accepts what parse_action accepts, as the same
    action (its JSON form)."""
    assume(not _json_only(data))
    typed = mirror(data)
    got, want = outcome(check_action, typed), outcome(parse_action, data)
    assert got[0] == want[0]
    if got[0] == "error":
        assert got[1:] == want[1:]
    else:
        assert got[2] is typed
        assert action_to_dict(typed) == action_to_dict(want[2])


@pytest.mark.parametrize(
    "action",
    [
        Discard(-1),
        Discard(1.0),
        Discard(True),
        Discard("7"),
        LayOff(3, -1),
        LayOff(3, 0, "mid"),
        BuyJoker(3.0, 0),
        TakeRow(-1, ()),
        TakeRow(0, ([1, 2, 3],)),
        Lay(()),
        Lay((MeldSpec((1, 2, 1)),)),
        Lay((MeldSpec((5, 57), "double"),), atu=1),
        Lay((MeldSpec((5, 5), "double"),)),
        Lay((MeldSpec((5, 57), "pair"),)),
        Lay((MeldSpec(()),)),
        Lay((MeldSpec((1, 2.0, 3)),)),
        TakeDiscard((MeldSpec((1, 2, 3)),), (LayoffSpec(3, 0),)),
        TakeDiscard((), ({"tile": 3, "meld": 0},)),
        TakeDiscard((), [LayoffSpec(3, -2)]),
        ("draw",),
        None,
    ],
)
def test_check_action_refuses_malformed_objects(action: Any) -> None:
    with pytest.raises(RuleError) as err:
        check_action(action)
    assert err.value.code == ErrorCode.BAD_ACTION
