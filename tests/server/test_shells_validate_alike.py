"""A client's action is validated once, by the rules (:func:`server.rules.parse_action`),
whichever shell runs the room: the server's socket (``Session.text``, server/ws.py, through
the protocol's models) and the offline practice (``PracticeRoom.message``,
server/practice/room.py, under Pyodide) answer the same bad input with the same error
frame, and read the same good input as the same engine action."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from server.practice.room import PracticeRoom, parse
from server.protocol import ActionMessage
from server.rules.actions import MAX_ID, MAX_LAYOFFS, MAX_MELD_TILES, MAX_MELDS
from server.ws import Session


class _Conn:
    id = 1
    closed = False

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)

    def close(self, code: int) -> None:  # pragma: no cover - no test closes it
        self.closed = True


class _Actor:
    def __init__(self) -> None:
        self.received: list[Any] = []

    def receive(self, conn: Any, msg: Any, t0: float | None = None) -> None:
        self.received.append(msg)

    def gone(self, conn: Any) -> None:  # pragma: no cover - no test closes it
        pass


def _server(message: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """The frames the server's socket answers ``message`` with, after a hello, and the
    messages it hands the room."""
    settings = SimpleNamespace(
        rate_limit_messages=100, rate_limit_window_seconds=20.0, max_frame_bytes=65536
    )
    conn, actor = _Conn(), _Actor()
    session = Session(conn, actor, settings)  # type: ignore[arg-type]
    session.text('{"type":"hello"}')
    actor.received.clear()
    session.text(json.dumps(message))
    return [json.loads(f) for f in conn.sent], actor.received


def _practice(message: dict[str, Any]) -> list[dict[str, Any]]:
    room = PracticeRoom(
        {
            "variant": "remi45",
            "seats": 2,
            "bot_levels": ["easy"],
            "end": {"kind": "rounds", "rounds": 1},
        },
        "same-input",
        now=0.0,
    )
    return room.message(message, now=0.0)


def _act(action: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "action", "seq": 7, "base_version": 1, "action": action, **extra}


BAD_ACTIONS: list[Any] = [
    {"do": "fly"},
    {},
    [],
    "draw",
    None,
    {"do": "draw", "tile": 3},
    {"do": "discard"},
    {"do": "discard", "tile": True},
    {"do": "discard", "tile": 40.0},
    {"do": "discard", "tile": "40"},
    {"do": "discard", "tile": -1},
    {"do": "discard", "tile": MAX_ID + 1},
    {"do": "discard", "tile": 40, "x": 1},
    {"do": "lay", "melds": []},
    {"do": "lay", "melds": [[1, 1, 2]]},
    {"do": "lay", "melds": [[1, 2, 3]], "atu": 1},
    {"do": "lay", "melds": [{"kind": "pair", "tiles": [1, 2]}]},
    {"do": "lay", "melds": [list(range(MAX_MELD_TILES + 1))]},
    {"do": "lay", "melds": [[i] for i in range(MAX_MELDS + 1)]},
    {"do": "lay", "melds": [[1, 2, MAX_ID + 1]]},
    {"do": "layoff", "tile": 3, "meld": 0, "end": "middle"},
    {"do": "take_row", "index": -2},
    {"do": "take_discard", "layoffs": "none"},
    {"do": "take_discard", "layoffs": [{"tile": i, "meld": 0} for i in range(MAX_LAYOFFS + 1)]},
    {"do": "take_discard", "layoffs": [{"tile": 1, "meld": 0, "x": 0}]},
    {"do": "buy_joker", "tile": 3},
]


@pytest.mark.parametrize("action", BAD_ACTIONS)
def test_both_shells_refuse_a_bad_action_alike(action: Any) -> None:
    """The same ``bad_action`` error frame, word for word, and nothing played."""
    frames, received = _server(_act(action))
    assert received == []
    assert frames[-1]["type"] == "error" and frames[-1]["code"] == "bad_action"
    assert _practice(_act(action)) == frames[-1:]


@pytest.mark.parametrize(
    "message",
    [
        {"type": "action", "seq": 7, "base_version": "1", "action": {"do": "draw"}},
        {"type": "action", "seq": 7, "base_version": -1, "action": {"do": "draw"}},
        {"type": "action", "seq": "7", "base_version": 1, "action": {"do": "draw"}},
        {"type": "action", "base_version": 1, "action": {"do": "draw"}},
        {"type": "dance"},
    ],
)
def test_both_shells_refuse_a_bad_message_with_the_same_code(message: dict[str, Any]) -> None:
    frames, received = _server(message)
    assert received == []
    [practice] = _practice(message)
    assert (practice["type"], practice["code"], practice["seq"]) == (
        frames[-1]["type"],
        frames[-1]["code"],
        frames[-1]["seq"],
    )
    assert practice["code"] == "bad_message"


GOOD_ACTIONS: list[dict[str, Any]] = [
    {"do": "draw"},
    {"do": "discard", "tile": 40},
    {"do": "lay", "melds": [[0, 1, 2], {"kind": "set", "tiles": [9, 22, 35]}], "atu": True},
    {"do": "take_row", "index": 2, "melds": [[30, 31, 32]]},
    {"do": "layoff", "tile": 3, "meld": 0, "end": "high"},
    {"do": "take_discard", "melds": [[18, 19, 20]], "layoffs": [{"tile": 21, "meld": 0}]},
    {"do": "joker_button"},
]


@pytest.mark.parametrize("action", GOOD_ACTIONS)
def test_both_shells_read_a_good_action_as_the_same_engine_action(action: Any) -> None:
    """The server's validated message carries the engine's action object itself (no form
    in between), the one the practice's shell hands its core."""
    frames, received = _server(_act(action))
    assert frames == []
    [msg] = received
    assert isinstance(msg, ActionMessage)
    command = parse(_act(action))
    assert not isinstance(command, str)
    assert msg.action == command.action  # type: ignore[union-attr]
