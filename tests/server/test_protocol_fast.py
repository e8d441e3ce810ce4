"""The fast path of ``parse_client`` (:func:`server.protocol.fast_client`) against the
pydantic path (:func:`server.protocol.parse_client_pydantic`).

Over generated frames, valid ones of every message type and action kind and broken
ones (wrong types, bools and floats for ints, huge ints, extra, missing and duplicate
keys, non-ASCII, nested junk, cut or not JSON at all), the fast path either declines
(None) or returns the message the pydantic path returns: same types, fields, fields
set, dump and repr. And ``parse_client`` answers every frame as the pydantic path
does: the same message, or the same error frame, byte for byte. The errors of a list
of frames are pinned as the code before the fast path gave them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from server import protocol
from server.protocol import (
    MAX_SEQ,
    ActionMessage,
    DiscardAction,
    ProtocolError,
    action_dict,
    fast_client,
    parse_client,
    parse_client_pydantic,
)
from server.rooms.actor import error_frame

# --------------------------------------------------------------------------- writing frames


class Obj(list[tuple[str, Any]]):
    """A JSON object written pair by pair, in this order, duplicate keys kept."""


class Raw(str):
    """A token written as is (``1e2``, ``-0``, ``NaN``...)."""

    __slots__ = ()


Style = tuple[str, str, bool]
STYLES: list[Style] = [
    (",", ":", True),
    (", ", ": ", True),
    (",", ":", False),
    (" ,\n", " :\t", False),
]
COMPACT: Style = STYLES[0]


def dump(value: Any, style: Style = COMPACT) -> str:
    """JSON text of ``value`` (dicts, :class:`Obj`, lists, :class:`Raw` and scalars)."""
    item_sep, key_sep, ascii_only = style
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        value = Obj(value.items())
    if isinstance(value, Obj):
        pairs = (
            json.dumps(k, ensure_ascii=ascii_only) + key_sep + dump(v, style) for k, v in value
        )
        return "{" + item_sep.join(pairs) + "}"
    if isinstance(value, list):
        return "[" + item_sep.join(dump(v, style) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def to_obj(value: Any) -> Any:
    """``value`` with every dict made an :class:`Obj` (to be mutated pair by pair)."""
    if isinstance(value, dict):
        return Obj((k, to_obj(v)) for k, v in value.items())
    if isinstance(value, list) and not isinstance(value, Obj):
        return [to_obj(v) for v in value]
    return value


# --------------------------------------------------------------------------- comparing


def outcome(parse: Any, text: str | bytes) -> tuple[str, Any]:
    """("ok", message) or ("error", the error frame the server would send)."""
    try:
        msg = parse(text)
    except ProtocolError as err:
        return "error", error_frame(err.seq, err.code, err.message)
    return "ok", msg


def shape(value: Any) -> Any:
    """Types, values and fields set of a model, all the way down."""
    if isinstance(value, BaseModel):
        fields = {k: shape(v) for k, v in value.__dict__.items()}
        return (type(value), list(value.__dict__), sorted(value.__pydantic_fields_set__), fields)
    if isinstance(value, list):
        return [shape(v) for v in value]
    return (type(value), value)


def assert_same_message(got: BaseModel, want: BaseModel) -> None:
    assert type(got) is type(want)
    assert got == want
    assert shape(got) == shape(want)
    assert repr(got) == repr(want)
    assert got.model_dump_json() == want.model_dump_json()
    assert got.__pydantic_extra__ == want.__pydantic_extra__
    assert got.__pydantic_private__ == want.__pydantic_private__


def check(text: str | bytes) -> bool:
    """The property, for one frame; True when the fast path took it."""
    fast = fast_client(text)  # never raises
    want_kind, want = outcome(parse_client_pydantic, text)
    if fast is not None:
        assert want_kind == "ok", (text, want)
        assert_same_message(fast, want)
    got_kind, got = outcome(parse_client, text)
    assert got_kind == want_kind, (text, got, want)
    if got_kind == "ok":
        assert_same_message(got, want)
    else:
        assert got == want
    return fast is not None


# --------------------------------------------------------------------------- generating


tiles = st.integers(0, 1023)
small_tiles = st.integers(0, 40)  # so that a tile appears twice now and then
seqs = st.one_of(st.integers(0, 1000), st.integers(0, MAX_SEQ))
versions = st.one_of(st.integers(0, 5000), st.integers(0, 2**80))
meld = st.one_of(
    st.lists(small_tiles, min_size=1, max_size=5),
    st.fixed_dictionaries(
        {"tiles": st.lists(small_tiles, min_size=1, max_size=5)},
        optional={"kind": st.sampled_from([None, "set", "run", "double"])},
    ),
)
layoff_spec = st.fixed_dictionaries(
    {"tile": tiles, "meld": tiles}, optional={"end": st.sampled_from([None, "low", "high"])}
)
hot_actions = st.one_of(  # the fast path's
    st.just({"do": "draw"}),
    st.builds(lambda t: {"do": "discard", "tile": t}, tiles),
)
actions = st.one_of(
    hot_actions,
    st.just({"do": "joker_button"}),
    st.fixed_dictionaries(
        {"do": st.just("lay"), "melds": st.lists(meld, min_size=1, max_size=3)},
        optional={"atu": st.booleans()},
    ),
    st.fixed_dictionaries(
        {"do": st.just("take_row"), "index": tiles},
        optional={"melds": st.lists(meld, max_size=2)},
    ),
    st.fixed_dictionaries(
        {"do": st.just("layoff"), "tile": tiles, "meld": tiles},
        optional={"end": st.sampled_from([None, "low", "high"])},
    ),
    st.fixed_dictionaries({"do": st.just("buy_joker"), "tile": tiles, "meld": tiles}),
    st.fixed_dictionaries(
        {"do": st.just("take_discard")},
        optional={
            "melds": st.lists(meld, max_size=2),
            "layoffs": st.lists(layoff_spec, max_size=2),
        },
    ),
)


def action_message(action: Any) -> Any:
    return st.fixed_dictionaries(
        {"type": st.just("action"), "seq": seqs, "base_version": versions, "action": action}
    )


messages = st.one_of(
    action_message(hot_actions),  # the fast path's frames, often
    action_message(hot_actions),
    action_message(actions),
    st.fixed_dictionaries(
        {"type": st.just("hello")},
        optional={"last_version": st.none() | versions, "patches": st.booleans()},
    ),
    st.fixed_dictionaries(
        {"type": st.just("rack"), "seq": seqs, "layout": st.lists(st.none() | tiles, max_size=6)}
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("query"),
            "seq": seqs,
            "query": st.sampled_from(["formations", "row_preview"]),
        },
        optional={
            "formations": st.none() | st.lists(st.lists(tiles, max_size=4), max_size=3),
            "index": st.none() | tiles,
        },
    ),
    st.just({"type": "leave"}),
    st.just({"type": "ping"}),
)

NUMBER_TOKENS = ["1.0", "0.0", "-0", "-0.0", "1e2", "1E0", "40.0", "4e1", "1.5", "NaN", "Infinity"]
junk = st.one_of(
    st.booleans(),
    st.none(),
    st.integers(-3, 3),
    st.integers(-(2**70), 2**70),
    st.sampled_from(
        [1023, 1024, MAX_SEQ, MAX_SEQ + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**100, -(2**64)]
    ),
    st.floats(),
    st.sampled_from([Raw(t) for t in NUMBER_TOKENS]),
    st.text(max_size=4),
    st.sampled_from(
        [
            "draw",
            "discard",
            "joker_button",
            "lay",
            "action",
            "ping",
            "hello",
            "dr\u00e1w",
            "DRAW",
            "",
            "low",
            "set",
            "\u00e9\u6f22\U0001f600",
        ]
    ),
    st.lists(st.integers(0, 5), max_size=3),
    st.dictionaries(
        st.sampled_from(["do", "tile", "type", "seq"]),
        st.integers(0, 3) | st.sampled_from(["draw", "discard"]),
        max_size=2,
    ),
)
KEYS = [
    "type",
    "seq",
    "base_version",
    "action",
    "do",
    "tile",
    "meld",
    "melds",
    "x",
    "Type",
    "kind",
    "tiles",
    "layout",
    "\u00e9t\u00e9",
    "",
]


def containers(value: Any, out: list[Any]) -> list[Any]:
    """Every object and array inside ``value``, ``value`` included."""
    if isinstance(value, list):  # an Obj is a list too
        out.append(value)
        for item in value:
            containers(item[1] if isinstance(value, Obj) else item, out)
    return out


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` (of :func:`to_obj`) changed in place at one place."""
    node = draw(st.sampled_from(containers(value, [])))
    op = draw(st.sampled_from(["replace", "delete", "insert", "shuffle"]))
    if op == "shuffle":
        node[:] = draw(st.permutations(node))
        return value
    if op == "delete" and node:
        del node[draw(st.integers(0, len(node) - 1))]
        return value
    item = to_obj(draw(junk))
    if op == "replace" and node:
        i = draw(st.integers(0, len(node) - 1))
        node[i] = (node[i][0], item) if isinstance(node, Obj) else item
        return value
    at = draw(st.integers(0, len(node)))
    if isinstance(node, Obj):  # an extra key, or a duplicate one before or after
        keys = [k for k, _ in node] + KEYS
        node.insert(at, (draw(st.sampled_from(keys)), item))
    else:
        node.insert(at, item)
    return value


@st.composite
def frames(draw: st.DrawFn) -> str | bytes:
    """Any message, changed in up to three places, in any style, then maybe padded, cut,
    encoded (maybe to invalid UTF-8) or replaced by random text."""
    message = draw(messages)  # type first, as clients write it (the fast path's condition)
    value = to_obj({"type": message["type"], **message})
    for _ in range(draw(st.integers(0, 3))):
        value = draw(mutated(value))
    text = dump(value, draw(st.sampled_from(STYLES)))
    how = draw(st.sampled_from(["as is", "as is", "as is", "padded", "cut", "bytes", "junk"]))
    if how == "padded":
        text = (
            draw(st.sampled_from([" ", "\n", "\ufeff", "x", "\x00"]))
            + text
            + draw(st.sampled_from(["", " ", "\r\n", "}", ",", "\x00"]))
        )
    elif how == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif how == "junk":
        text = draw(st.text(max_size=30))
    elif how == "bytes":
        data = text.encode()
        if draw(st.booleans()):  # invalid UTF-8 somewhere
            at = draw(st.integers(0, len(data)))
            data = data[:at] + b"\xff" + data[at:]
        return data
    return text


@st.composite
def hot_frames(draw: st.DrawFn) -> str:
    """A draw or discard frame as the fast path takes them, compact and ``type`` first,
    changed in one or two places."""
    message = draw(action_message(hot_actions))
    value = to_obj({k: message[k] for k in ("type", "seq", "base_version", "action")})
    for _ in range(draw(st.integers(1, 2))):
        value = draw(mutated(value))
    return dump(value)


# --------------------------------------------------------------------------- the tests


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_the_fast_path_agrees_with_pydantic(frame: str | bytes) -> None:
    check(frame)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hot_frames())
def test_the_fast_path_agrees_with_pydantic_on_changed_hot_frames(frame: str) -> None:
    check(frame)


@settings(max_examples=300, deadline=None)
@given(action_message(hot_actions), st.booleans())
def test_valid_draws_and_discards_take_the_fast_path(message: dict[str, Any], web: bool) -> None:
    # bench/load.py's order, or the web client's: JSON.stringify({type, base_version, action, seq})
    order = (
        ("type", "base_version", "action", "seq")
        if web
        else ("type", "seq", "base_version", "action")
    )
    message = {k: message[k] for k in order}
    took = check(dump(message))
    assert took == (message["base_version"] < 2**64)  # orjson reads a bigger int as a float


HOT = [
    {"type": "action", "seq": 7, "base_version": 12, "action": {"do": "discard", "tile": 40}},
    {"type": "action", "seq": 0, "base_version": 0, "action": {"do": "draw"}},
    {"type": "action", "seq": MAX_SEQ, "base_version": 2**64 - 1, "action": {"do": "draw"}},
    {"type": "action", "seq": 8, "base_version": 9, "action": {"do": "discard", "tile": 1023}},
]
JUNK: list[Any] = [
    True,
    False,
    None,
    0,
    1,
    -1,
    40,
    1023,
    1024,
    MAX_SEQ,
    MAX_SEQ + 1,
    2**63,
    2**64 - 1,
    2**64,
    2**80,
    -(2**64),
    1.5,
    *(Raw(t) for t in NUMBER_TOKENS),
    "",
    "40",
    "draw",
    "discard",
    "joker_button",
    "lay",
    "action",
    "ping",
    "dr\u00e1w",
    "\u00e9\U0001f600",
    [],
    [40],
    {},
    {"do": "draw"},
    {"do": "discard", "tile": 40},
    [[[[]]]],
]


def variants(frame: dict[str, Any]) -> list[str]:
    """``frame`` with each value replaced by each junk, each key left out, and an extra
    or a duplicate key at each place, in two styles."""
    obj = to_obj(frame)
    out: list[str] = []

    def emit() -> None:
        out.extend(dump(obj, style) for style in (COMPACT, STYLES[3]))

    emit()
    for node in containers(obj, []):
        for i, (key, value) in enumerate(list(node)):
            for junk_value in JUNK:
                node[i] = (key, to_obj(junk_value))
                emit()
            node[i] = (key, value)
            del node[i]
            emit()
            node.insert(i, (key, value))
        for at in range(len(node) + 1):
            keys = [k for k, _ in node]
            for key in [*keys, "x", "Type"]:
                for extra in [*(v for _, v in node), True, 1.0, None, "draw", 2**64]:
                    node.insert(at, (key, extra))
                    emit()
                    del node[at]
    return out


@pytest.mark.parametrize("frame", HOT, ids=lambda f: f"{f['action']['do']}-{f['seq']}")
def test_every_broken_variant_of_a_hot_frame(frame: dict[str, Any]) -> None:
    texts = variants(frame)
    taken = sum(check(text) for text in texts)
    # the frame itself and its harmless duplicates ({"seq": 7, "seq": 7}) take the fast path
    assert 0 < taken < len(texts) // 10


GOLDEN: list[tuple[str, str]] = [
    (
        '{"type":"action","seq":true,"base_version":1,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":false,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"base_version: '
            'Input should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1.0,"base_version":1,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1e2,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"base_version: '
            'Input should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":-1,"base_version":1,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":-1,"code":"bad_message","message":"seq: Input sh'
            'ould be greater than or equal to 0"}'
        ),
    ),
    (
        '{"type":"action","seq":9007199254740992,"base_version":1,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":9007199254740992,"code":"bad_message","message":'
            '"seq: Input should be less than or equal to 9007199254740991"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":-5,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"base_version: '
            'Input should be greater than or equal to 0"}'
        ),
    ),
    (
        '{"type":"action","seq":"1","base_version":1,"action":{"do":"draw"}}',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"draw","tile":3}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.draw.til'
            'e: Extra inputs are not permitted"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"discard"}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.discard.'
            'tile: Field required"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":true}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.discard.'
            'tile: Input should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":1024}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.discard.'
            'tile: Input should be less than or equal to 1023"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":40.0}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.discard.'
            'tile: Input should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":"40"}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.discard.'
            'tile: Input should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":40,"x":1}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.discard.'
            'x: Extra inputs are not permitted"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"fly"}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action: Input t'
            "ag 'fly' found using 'do' does not match any of the expected tags: 'dr"
            "aw', 'discard', 'lay', 'take_row', 'layoff', 'buy_joker', 'take_discar"
            "d', 'joker_button'\"}"
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action: Unable '
            "to extract tag using discriminator 'do'\"}"
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":[]}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action: Input s'
            'hould be a valid dictionary or object to extract fields from"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"joker_button","x":null}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.joker_bu'
            'tton.x: Extra inputs are not permitted"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1}',
        '{"type":"error","seq":1,"code":"bad_action","message":"action: Field required"}',
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"},"extra":0}',
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"extra: Extra i'
            'nputs are not permitted"}'
        ),
    ),
    (
        (
            '{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"},"type'
            '":"action","seq":true}'
        ),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        '{"type":"action","type":"ping"}',
        "ok:PingMessage(type='ping')",
    ),
    (
        '{"type":"ping","type":"action"}',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Field '
            'required; base_version: Field required; action: Field required"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"dïscard","tile":4}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action: Input t'
            "ag 'dïscard' found using 'do' does not match any of the expected tags:"
            " 'draw', 'discard', 'lay', 'take_row', 'layoff', 'buy_joker', 'take_di"
            "scard', 'joker_button'\"}"
        ),
    ),
    (
        '{"type":"actïon","seq":1}',
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"type: \'actïon\''
            ' is not a message type (hello, action, rack, query, leave, ping)"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"}',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"the frame i'
            's not valid JSON"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"}} x',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"the frame i'
            's not valid JSON"}'
        ),
    ),
    (
        '["type","action"]',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"a message i'
            "s a JSON object with a 'type'\"}"
        ),
    ),
    (
        '"action"',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"a message i'
            "s a JSON object with a 'type'\"}"
        ),
    ),
    (
        "",
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"the frame i'
            's not valid JSON"}'
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"lay","melds":[[1,1,2]]}}',
        (
            "ok:ActionMessage(type='action', seq=1, base_version=1, action=LayActio"
            "n(do='lay', melds=[[1, 1, 2]], atu=False))"
        ),
    ),
    (
        '{"type":"action","seq":1,"base_version":1,"action":{"do":"lay","melds":[]}}',
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"action.lay.meld'
            's: List should have at least 1 item after validation, not 0"}'
        ),
    ),
    (
        (
            '{"type":"action","seq":1,"base_version":1,"action":{"do":"lay","melds"'
            ':[[1,2,3]],"atu":1}}'
        ),
        (
            "ok:ActionMessage(type='action', seq=1, base_version=1, action=LayActio"
            "n(do='lay', melds=[[1, 2, 3]], atu=True))"
        ),
    ),
    (
        '{"type":"rack","seq":2,"layout":[1,true]}',
        (
            '{"type":"error","seq":2,"code":"bad_message","message":"layout.1: Inpu'
            't should be a valid integer"}'
        ),
    ),
    (
        '{"type":"hello","last_version":-1}',
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"last_versio'
            'n: Input should be greater than or equal to 0"}'
        ),
    ),
    (
        '{"type":"query","seq":3,"query":"nope"}',
        (
            '{"type":"error","seq":3,"code":"bad_message","message":"query: Input s'
            "hould be 'formations' or 'row_preview'\"}"
        ),
    ),
    (
        '{"type":"leave","seq":4}',
        (
            '{"type":"error","seq":4,"code":"bad_message","message":"seq: Extra inp'
            'uts are not permitted"}'
        ),
    ),
]


@pytest.mark.parametrize("frame,expected", GOLDEN)
def test_answers_are_the_ones_before_the_fast_path(frame: str, expected: str) -> None:
    kind, got = outcome(parse_client, frame)
    assert (got if kind == "error" else f"ok:{got!r}") == expected
    check(frame)


def test_a_shared_action_model_stays_apart() -> None:
    frame = '{"type":"action","seq":%d,"base_version":5,"action":{"do":"discard","tile":12}}'
    one, two = fast_client(frame % 1), fast_client(frame % 2)
    assert isinstance(one, ActionMessage) and isinstance(two, ActionMessage)
    assert one.action == two.action == DiscardAction(do="discard", tile=12)
    assert one != two and one.seq == 1 and two.seq == 2
    moved = one.action.model_copy(update={"tile": 13})
    assert moved.tile == 13 and two.action.tile == 12  # type: ignore[attr-defined]
    assert two.action.model_fields_set == {"do", "tile"}
    with pytest.raises(ValueError):  # frozen, like any validated one
        two.action.tile = 3  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", [ActionMessage, protocol.DrawAction, DiscardAction])
def test_the_built_models_need_no_more_than_fast_client_sets(model: type[BaseModel]) -> None:
    """fast_client builds these as model_construct does, minus what they do not use."""
    assert model.__pydantic_post_init__ is None
    assert not model.__private_attributes__
    assert model.model_config.get("extra") == "forbid"
    assert not model.__pydantic_root_model__


@settings(max_examples=1000, deadline=None)
@given(actions)
def test_action_dict_is_the_model_dump(raw: dict[str, Any]) -> None:
    model = protocol._action_adapter.validate_python(raw)
    got = action_dict(model)
    want = model.model_dump(exclude_none=True)
    assert json.dumps(got) == json.dumps(want)  # same keys in the same order, all the way down
    for value in got.values():  # new lists: changing the dict leaves the model alone
        if isinstance(value, list):
            value.append(0)
    assert model.model_dump(exclude_none=True) == want


def test_action_dict_of_another_model_is_its_dump() -> None:
    spec = protocol.MeldSpec(tiles=[1, 2, 3])
    assert action_dict(spec) == {"tiles": [1, 2, 3]}
