"""Session.text (server/ws.py): what each message does, with a fake connection and actor."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from server.protocol import (
    ActionMessage,
    Hello,
    LeaveMessage,
    QueryMessage,
    RackMessage,
    ReactMessage,
)
from server.rooms.actor import PONG
from server.ws import Session


class FakeConn:
    def __init__(self) -> None:
        self.closed = False
        self.sent: list[str] = []
        self.close_code: int | None = None

    def send(self, text: str) -> None:
        self.sent.append(text)

    def close(self, code: int) -> None:
        self.closed = True
        self.close_code = code


class FakeActor:
    def __init__(self) -> None:
        self.posted: list[tuple[Any, ...]] = []

    def receive(self, conn: Any, msg: Any, t0: float | None = None) -> None:
        self.posted.append((conn, msg, t0))

    def gone(self, conn: Any) -> None:
        self.posted.append((conn,))


def _session(messages: int = 100, max_bytes: int = 16384) -> tuple[Session, FakeConn, FakeActor]:
    settings = SimpleNamespace(
        rate_limit_messages=messages, rate_limit_window_seconds=20.0, max_frame_bytes=max_bytes
    )
    conn, actor = FakeConn(), FakeActor()
    return Session(conn, actor, settings), conn, actor  # type: ignore[arg-type]


ACTION = '{"type":"action","seq":3,"base_version":7,"action":{"do":"discard","tile":40}}'
SPACED_ACTION = '{"type": "action", "seq": 4, "base_version": 7, "action": {"do": "draw"}}'
RACK = '{"type":"rack","seq":5,"layout":[40,null,3]}'
QUERY = '{"type":"query","seq":6,"query":"row_preview","index":2}'


def _error(text: str) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(text)
    assert frame["type"] == "error"
    return frame


@pytest.mark.parametrize("text", [ACTION, SPACED_ACTION, RACK, QUERY])
def test_moves_before_hello_are_refused(text: str) -> None:
    session, conn, actor = _session()
    session.text(text)
    assert actor.posted == []
    error = _error(conn.sent[0])
    assert (error["seq"], error["code"], error["message"]) == (
        json.loads(text)["seq"],
        "bad_message",
        "send hello first",
    )


def test_each_message_goes_where_it_belongs() -> None:
    session, conn, actor = _session()
    session.text('{"type":"ping"}')
    assert conn.sent == [PONG] and actor.posted == []
    session.text('{"type":"hello","last_version":null}')
    assert session.said_hello
    assert actor.posted[-1][0] is conn and isinstance(actor.posted[-1][1], Hello)
    for text in (ACTION, SPACED_ACTION):
        session.text(text)
        posted_conn, msg, t0 = actor.posted[-1]
        assert posted_conn is conn
        assert type(msg) is ActionMessage and msg.seq == json.loads(text)["seq"]
        assert isinstance(t0, float)
    session.text(RACK)
    assert type(actor.posted[-1][1]) is RackMessage
    session.text(QUERY)
    assert type(actor.posted[-1][1]) is QueryMessage
    session.text('{"type":"react","reaction":"thanks"}')
    assert type(actor.posted[-1][1]) is ReactMessage
    session.text('{"type":"leave"}')
    assert type(actor.posted[-1][1]) is LeaveMessage
    assert conn.sent == [PONG]


def test_a_bad_frame_gets_the_protocol_error() -> None:
    session, conn, actor = _session()
    session.text('{"type":"action","seq":3,"base_version":7,"action":{"do":"discard","tile":true}}')
    assert actor.posted == []
    assert _error(conn.sent[0]) == {
        "type": "error",
        "seq": 3,
        "code": "bad_action",
        "message": "'tile' must be a non-negative integer",
    }


def test_size_and_budget() -> None:
    session, conn, _ = _session(max_bytes=40)
    session.text('{"type":"ping","pad":"' + "é" * 10 + '"}')  # 34 characters, 44 bytes
    assert conn.close_code == 1009 and conn.sent == []
    session, conn, _ = _session(messages=2)
    for _ in range(3):
        session.text('{"type":"ping"}')
    assert conn.sent[:2] == [PONG, PONG]
    assert _error(conn.sent[2])["code"] == "rate_limited" and conn.close_code == 1008
    session.text('{"type":"ping"}')  # closed: nothing more
    assert len(conn.sent) == 3


def test_a_binary_frame_is_refused_with_a_clear_error() -> None:
    session, conn, actor = _session()
    session.binary(b'{"type":"ping"}')
    error = _error(conn.sent[0])
    assert (error["seq"], error["code"]) == (None, "bad_message")
    assert "binary" in error["message"] and "text frame" in error["message"]
    assert actor.posted == [] and not conn.closed
    session, conn, _ = _session(max_bytes=40)
    session.binary(b"x" * 41)
    assert conn.close_code == 1009 and conn.sent == []


def test_every_frame_text_or_binary_counts_against_the_budget() -> None:
    session, conn, _ = _session(messages=3)
    session.binary(b"\x00")
    session.text('{"type":"ping"}')
    session.binary(b"\x01")
    assert not conn.closed and len(conn.sent) == 3
    session.binary(b"\x02")  # the fourth frame in the window
    assert _error(conn.sent[3])["code"] == "rate_limited" and conn.close_code == 1008
    session.binary(b"\x03")  # closed: nothing more
    session.text('{"type":"ping"}')
    assert len(conn.sent) == 4
