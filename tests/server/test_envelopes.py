"""The envelopes between nodes (server/rooms/cluster/envelopes.py): each kind goes to the link's
JSON and back unchanged, and a malformed one is not read (the bridge drops it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.rooms.cluster.envelopes import (
    Call,
    ConnClose,
    ConnFrame,
    ConnMessage,
    Envelope,
    Notice,
    Return,
    from_wire,
    to_wire,
)

ENVELOPES: list[Envelope] = [
    ConnMessage("room1", "node-a", 3, 1, "p1", "s1", "hello", '{"type":"hello"}'),
    ConnMessage("room1", "node-a", 3, 2, "p1", None, "gone", None),
    ConnFrame(3, 7, '{"type":"pong"}'),
    ConnClose(3, 1012),
    Call(
        "abc",
        "node-b",
        "take_seat",
        "room1",
        {"seat": 1},
        {"id": "p1", "display_name": "Ana", "created_at": "2026-01-01T00:00:00+00:00"},
    ),
    Return("abc", ok={"id": "room1"}),
    Return("abc", err=("seat_taken", "seat 1 is taken")),
    Return("abc", moved=True),
    Notice("started", "room1", {"id": "room1"}),
]


@pytest.mark.parametrize("env", ENVELOPES, ids=lambda e: type(e).__name__)
def test_each_envelope_goes_to_json_and_back(env: Envelope) -> None:
    wire = json.loads(json.dumps(to_wire(env)))
    assert from_wire(wire) == env


@pytest.mark.parametrize(
    "wire",
    [
        None,
        [],
        {"t": "?"},
        {"t": "m", "r": "room1", "n": "a", "c": "3", "i": 1, "p": "p", "k": "hello"},
        {"t": "f", "c": 3, "i": True, "f": "x"},
        {"t": "x"},
        {"t": "call", "id": "a"},
        {"t": "ret"},
        {"t": "notice", "k": "started", "r": "room1", "v": []},
    ],
)
def test_a_malformed_envelope_is_not_read(wire: Any) -> None:
    assert from_wire(wire) is None
