"""Bad input on the WebSocket: handshake checks, validation errors, size and rate limits."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from conftest import base_settings
from websockets.asyncio.client import connect
from wsharness import Server, running_server

from server.ws import Budget


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[Server]:
    settings = base_settings(
        data_dir=tmp_path,
        database_url="",
        allowed_origins="http://good.example",
        rate_limit_messages=20,
        rate_limit_window_seconds=20,
    )
    async with running_server(settings) as server:
        yield server


async def _room(srv: Server) -> tuple[str, str]:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    return room, ana


async def test_origin_allowlist(srv: Server) -> None:
    """Another site's page is refused in words (the page can explain it), before any
    token is read; a listed origin is let in."""
    room, ana = await _room(srv)
    evil = await srv.client(ana, room, origin="http://evil.example")
    code, _ = await evil.closed  # type: ignore[misc]
    assert code == 4003
    assert [m["code"] for m in evil.frames] == ["origin_refused"]
    assert "REMI_ALLOWED_ORIGINS" in evil.frames[0]["message"]
    good = await srv.client(ana, room, origin="http://good.example")
    assert (await good.hello())["type"] == "snapshot"
    await good.close()


async def test_the_servers_own_origin_is_allowed_on_any_port(srv: Server) -> None:
    """Issue 18 item 9: a server started on another port than the configured origins'
    serves a page whose socket works (before, 403 and a page stuck on "reconnecting")."""
    room, ana = await _room(srv)
    own = srv.base.rstrip("/")  # http://127.0.0.1:<a free port>, listed nowhere
    assert own not in srv.settings.allowed_origins
    c = await srv.client(ana, room, origin=own)
    assert (await c.hello())["type"] == "snapshot"
    await c.close()
    # The same host on another port is another origin.
    other = own.rsplit(":", 1)[0] + ":1"
    refused = await srv.client(ana, room, origin=other)
    code, _ = await refused.closed  # type: ignore[misc]
    assert code == 4003


async def test_unauthenticated_and_unknown_room(srv: Server) -> None:
    room, ana = await _room(srv)
    anon = await srv.client(None, room)
    assert anon.closed is not None
    code, _ = await anon.closed
    assert code == 4401 and anon.frames[0]["code"] == "not_authenticated"
    bad = await srv.client("not-a-token", room)
    code, _ = await bad.closed  # type: ignore[misc]
    assert code == 4401
    missing = await srv.client(ana, "no-such-room")
    code, _ = await missing.closed  # type: ignore[misc]
    assert code == 4404 and missing.frames[0]["code"] == "room_not_found"


async def test_malformed_messages_get_clear_errors(srv: Server) -> None:
    room, ana = await _room(srv)
    c = await srv.client(ana, room)

    async def reply(frame: str) -> dict[str, object]:
        mark = len(c.frames)
        await c.send(frame)
        return await c.wait(lambda m: m["type"] == "error", since=mark)

    r = await reply("{not json")
    assert r == {
        "type": "error",
        "seq": None,
        "code": "bad_message",
        "message": "the frame is not valid JSON",
    }
    r = await reply("[1, 2]")
    assert r["code"] == "bad_message"
    r = await reply(json.dumps({"type": "teleport"}))
    assert r["code"] == "bad_message" and "teleport" in str(r["message"])
    r = await reply(
        json.dumps({"type": "action", "seq": 1, "base_version": 0, "action": {"do": "draw"}})
    )
    assert r["code"] == "bad_message" and "hello" in str(r["message"]) and r["seq"] == 1
    await c.hello()
    r = await reply(
        json.dumps({"type": "action", "seq": "one", "base_version": 0, "action": {"do": "draw"}})
    )
    assert r["code"] == "bad_message" and "seq" in str(r["message"])
    r = await reply(
        json.dumps({"type": "action", "seq": 2, "base_version": 0, "action": {"do": "fly"}})
    )
    assert r["code"] == "bad_action" and r["seq"] == 2
    r = await reply(
        json.dumps(
            {"type": "action", "seq": 3, "base_version": 0, "action": {"do": "discard", "tile": -4}}
        )
    )
    assert r["code"] == "bad_action" and "tile" in str(r["message"])
    r = await reply(json.dumps({"type": "hello", "last_version": 1, "extra": True}))
    assert r["code"] == "bad_message" and "extra" in str(r["message"])
    r = await reply(json.dumps({"type": "rack", "seq": 4, "layout": [1, 1]}))
    assert r["code"] in ("bad_message", "not_seated")
    mark = len(c.frames)
    await c.ws.send(b"\x00\x01")
    r = await c.wait(lambda m: m["type"] == "error", since=mark)
    assert r["code"] == "bad_message"
    # Still connected and served.
    await c.send({"type": "ping"})
    await c.wait(lambda m: m["type"] == "pong")
    await c.close()


async def test_oversize_frame_closes_the_connection(srv: Server) -> None:
    room, ana = await _room(srv)
    c = await srv.client(ana, room)
    await c.hello()
    big = json.dumps({"type": "ping", "pad": "x" * (17 * 1024)})
    await c.send(big)
    code, _ = await c.closed  # type: ignore[misc]
    assert code == 1009
    assert not any(m["type"] == "error" for m in c.frames)  # closed before any parsing


async def test_oversize_frame_is_refused_by_the_app_as_well(srv: Server) -> None:
    # Below uvicorn's limit (16 KB plus a margin it does not have), the app checks again:
    # a raw websockets connection with a server limit raised shows the app-level close.
    room, ana = await _room(srv)
    srv.uvicorn.config.ws_max_size = 10 * 2**20
    try:
        async with connect(
            f"{srv.ws_base}/ws/rooms/{room}",
            additional_headers={"Authorization": f"Bearer {ana}"},
            compression=None,
        ) as ws:
            await ws.send(json.dumps({"type": "ping", "pad": "y" * 20000}))
            with pytest.raises(Exception):  # noqa: B017 - closed by the server
                while True:
                    await ws.recv()
            assert ws.close_code == 1009
    finally:
        srv.uvicorn.config.ws_max_size = srv.settings.max_frame_bytes


async def test_message_budget_closes_with_1008(srv: Server) -> None:
    room, ana = await _room(srv)
    c = await srv.client(ana, room)
    for _ in range(25):  # the budget is 20 per 20 s here
        try:
            await c.send({"type": "ping"})
        except Exception:
            break
    code, _ = await c.closed  # type: ignore[misc]
    assert code == 1008
    assert c.frames[-1]["code"] == "rate_limited"
    assert sum(1 for m in c.frames if m["type"] == "pong") == 20


async def test_binary_frames_count_against_the_budget(srv: Server) -> None:
    room, ana = await _room(srv)
    c = await srv.client(ana, room)
    for i in range(25):  # the budget is 20 per 20 s here
        try:
            await c.ws.send(bytes([i]))
        except Exception:
            break
    code, _ = await c.closed  # type: ignore[misc]
    assert code == 1008
    errors = [m for m in c.frames if m["type"] == "error"]
    assert [m["code"] for m in errors] == ["bad_message"] * 20 + ["rate_limited"]
    assert "binary" in str(errors[0]["message"])


def test_budget_refills() -> None:
    b = Budget(3, 3.0)
    assert [b.take() for _ in range(4)] == [True, True, True, False]
    b.last -= 1.0  # one second later: one more message
    assert b.take() and not b.take()


async def test_permessage_deflate_is_off(srv: Server) -> None:
    room, ana = await _room(srv)
    async with connect(
        f"{srv.ws_base}/ws/rooms/{room}",
        additional_headers={"Authorization": f"Bearer {ana}"},
    ) as ws:  # the client offers permessage-deflate; the server declines
        assert ws.response is not None
        assert "Sec-WebSocket-Extensions" not in ws.response.headers


async def test_a_move_whose_handling_fails_is_still_answered(
    srv: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move the server fails on unexpectedly gets ``internal_error``, never silence; the
    room goes on and the next move is played."""
    from collections.abc import Generator

    from wsharness import simple_move, two_player_room

    from server.rooms.core.room import RoomCore

    _, a, b, _, _ = await two_player_room(srv)
    mover = a if a.my_turn() else b
    assert mover.view is not None
    real = RoomCore._player_move
    calls = 0

    def failing_once(self: RoomCore, *args: object) -> Generator[object, object, str]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("a bug")
        return (yield from real(self, *args))  # type: ignore[arg-type]

    monkeypatch.setattr(RoomCore, "_player_move", failing_once)
    reply = await mover.act(simple_move(mover.view))
    assert reply["type"] == "error" and reply["code"] == "internal_error", reply
    reply = await mover.act(simple_move(mover.view))
    assert reply["type"] == "ack", reply
