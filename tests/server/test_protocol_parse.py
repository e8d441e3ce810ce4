"""``parse_client`` (server/protocol/client.py) on any frame.

Over generated frames, valid ones of every message type and action kind and broken
ones (wrong types, bools and floats for ints, huge ints, extra, missing and duplicate
keys, non-ASCII, nested junk, cut or not JSON at all), ``parse_client`` returns a
message or raises :class:`ProtocolError` (nothing else), and a valid frame's message
dumps back to what was sent. The errors of a list of frames are pinned: a malformed
action's in the rules' own words (the offline practice gives the same), the rest as
pydantic words them.
A message's action is the rules' own reading of it (:func:`server.rules.parse_action`):
the same action object, or its ``bad_action`` in the same words.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

from server import protocol
from server.protocol import (
    MAX_SEQ,
    ProtocolError,
    parse_client,
)
from server.rooms.actor import error_frame
from server.rules import RuleError, parse_action

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
draw_discard = st.one_of(  # the commonest actions
    st.just({"do": "draw"}),
    st.builds(lambda t: {"do": "discard", "tile": t}, tiles),
)
actions = st.one_of(
    draw_discard,
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
    action_message(draw_discard),  # the commonest frames, often
    action_message(draw_discard),
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
    message = draw(messages)  # type first, as clients write it
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


# --------------------------------------------------------------------------- the tests


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_any_frame_is_a_message_or_a_protocol_error(frame: str | bytes) -> None:
    kind, got = outcome(parse_client, frame)
    if kind == "error":
        answer = json.loads(got)
        assert answer["type"] == "error" and answer["code"] in ("bad_message", "bad_action")
        assert answer["message"]


@settings(max_examples=1000, deadline=None)
@given(messages)
def test_a_valid_message_dumps_back_to_what_was_sent(message: dict[str, Any]) -> None:
    kind, got = outcome(parse_client, json.dumps(message))
    if kind == "ok":
        assert isinstance(got, BaseModel)
        dumped = got.model_dump(exclude_unset=True)
        if "action" in message:  # the engine's action, dumped in its JSON form
            assert parse_action(dumped.pop("action")) == parse_action(message["action"])
            message = {k: v for k, v in message.items() if k != "action"}
        assert dumped == {"type": message["type"], **message}


GOLDEN: list[tuple[str, str]] = [
    (
        ('{"type":"action","seq":true,"base_version":1,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":false,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"base_version: '
            'Input should be a valid integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1.0,"base_version":1,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1e2,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"base_version: '
            'Input should be a valid integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":-1,"base_version":1,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":-1,"code":"bad_message","message":"seq: Input sh'
            'ould be greater than or equal to 0"}'
        ),
    ),
    (
        ('{"type":"action","seq":9007199254740992,"base_version":1,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":9007199254740992,"code":"bad_message","message":'
            '"seq: Input should be less than or equal to 9007199254740991"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":-5,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"base_version: '
            'Input should be greater than or equal to 0"}'
        ),
    ),
    (
        ('{"type":"action","seq":"1","base_version":1,"action":{"do":"draw"}}'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Input '
            'should be a valid integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"draw","tile":3}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"unknown field(s'
            ') for draw: tile"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"discard"}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"\'tile\' must be '
            'a non-negative integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":true}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"\'tile\' must be '
            'a non-negative integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":1024}}'),
        ('{"type":"error","seq":1,"code":"bad_action","message":"\'tile\' must be at most 1023"}'),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":40.0}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"\'tile\' must be '
            'a non-negative integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":"40"}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"\'tile\' must be '
            'a non-negative integer"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"discard","tile":40,"x":1}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"unknown field(s'
            ') for discard: x"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"fly"}}'),
        ('{"type":"error","seq":1,"code":"bad_action","message":"unknown action \'fly\'"}'),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{}}'),
        ('{"type":"error","seq":1,"code":"bad_action","message":"unknown action None"}'),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":[]}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"an action is an'
            " object with a 'do' field\"}"
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"joker_button","x":null}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"unknown field(s'
            ') for joker_button: x"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1}'),
        ('{"type":"error","seq":1,"code":"bad_action","message":"action: Field required"}'),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"},"extra":0}'),
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
        ('{"type":"action","type":"ping"}'),
        ("ok:PingMessage(type='ping')"),
    ),
    (
        ('{"type":"ping","type":"action"}'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"seq: Field '
            'required; base_version: Field required; action: Field required"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"dïscard","tile":4}}'),
        ('{"type":"error","seq":1,"code":"bad_action","message":"unknown action \'dïscard\'"}'),
    ),
    (
        ('{"type":"actïon","seq":1}'),
        (
            '{"type":"error","seq":1,"code":"bad_message","message":"type: \'actïon\''
            " is not a message type (hello, action, rack, query, leave, next_round,"
            ' react, ping)"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"}'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"the frame i'
            's not valid JSON"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"draw"}} x'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"the frame i'
            's not valid JSON"}'
        ),
    ),
    (
        ('["type","action"]'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"a message i'
            "s a JSON object with a 'type'\"}"
        ),
    ),
    (
        ('"action"'),
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
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"lay","melds":[[1,1,2]]}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"a tile id appea'
            'rs twice in the action"}'
        ),
    ),
    (
        ('{"type":"action","seq":1,"base_version":1,"action":{"do":"lay","melds":[]}}'),
        (
            '{"type":"error","seq":1,"code":"bad_action","message":"\'melds\' must be'
            ' a non-empty list of melds"}'
        ),
    ),
    (
        (
            '{"type":"action","seq":1,"base_version":1,"action":{"do":"lay","melds"'
            ':[[1,2,3]],"atu":1}}'
        ),
        ('{"type":"error","seq":1,"code":"bad_action","message":"\'atu\' must be true or false"}'),
    ),
    (
        ('{"type":"rack","seq":2,"layout":[1,true]}'),
        (
            '{"type":"error","seq":2,"code":"bad_message","message":"layout.1: Inpu'
            't should be a valid integer"}'
        ),
    ),
    (
        ('{"type":"hello","last_version":-1}'),
        (
            '{"type":"error","seq":null,"code":"bad_message","message":"last_versio'
            'n: Input should be greater than or equal to 0"}'
        ),
    ),
    (
        ('{"type":"query","seq":3,"query":"nope"}'),
        (
            '{"type":"error","seq":3,"code":"bad_message","message":"query: Input s'
            "hould be 'formations', 'row_preview' or 'arrange'\"}"
        ),
    ),
    (
        ('{"type":"leave","seq":4}'),
        (
            '{"type":"error","seq":4,"code":"bad_message","message":"seq: Extra inp'
            'uts are not permitted"}'
        ),
    ),
]


@pytest.mark.parametrize("frame,expected", GOLDEN)
def test_answers_are_pinned(frame: str, expected: str) -> None:
    kind, got = outcome(parse_client, frame)
    assert (got if kind == "error" else f"ok:{got!r}") == expected


@settings(max_examples=1000, deadline=None)
@given(actions)
def test_the_action_is_the_rules_reading(raw: dict[str, Any]) -> None:
    """The protocol's action is what the rules read from the client's JSON (RULES.md
    A.18/B.14), or their ``bad_action`` in the same words: one validator, the one the
    offline practice runs too."""
    frame = json.dumps({"type": "action", "seq": 1, "base_version": 1, "action": raw})
    kind, got = outcome(parse_client, frame)
    try:
        expected = parse_action(raw)
    except RuleError as err:
        assert kind == "error"
        assert json.loads(got) == {
            "type": "error",
            "seq": 1,
            "code": "bad_action",
            "message": err.message,
        }
        return
    assert kind == "ok" and got.action == expected


def test_the_schema_models_accept_what_the_rules_accept() -> None:
    """The action models (the JSON schema, the docs, the browser's types) describe every
    example the rules accept."""
    adapter = TypeAdapter(protocol.GameAction)
    for model in protocol.ACTION_MODELS:
        for example in model.model_config["json_schema_extra"]["examples"]:  # type: ignore[index]
            adapter.validate_python(example)
            parse_action(example)
