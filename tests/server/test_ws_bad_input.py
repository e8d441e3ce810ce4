"""Bad input on the room socket, on both stores: a bad room id or
invite code closes with 4404 (PostgreSQL refused a NUL byte with an internal error),
and deeply nested JSON gets ``bad_message`` with the socket left open."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from wsharness import Server, running_server

from server.settings import Settings


@pytest.fixture
async def srv(settings: Settings) -> AsyncIterator[Server]:
    async with running_server(settings) as server:
        yield server


@pytest.mark.parametrize("bad", ["%00", "a%00b", "%C3%A9t%C3%A9", "x" * 65])
async def test_a_bad_room_id_on_the_socket_closes_4404(srv: Server, bad: str) -> None:
    _, ana = await srv.player("Ana")
    c = await srv.client(ana, bad)
    assert c.closed is not None
    code, _ = await c.closed
    assert code == 4404
    assert c.frames[0]["code"] == "room_not_found"


@pytest.mark.parametrize("bad", ["%00", "ab%00cd", "%C3%A9t%C3%A9"])
async def test_a_bad_invite_code_on_the_socket_closes_4404(srv: Server, bad: str) -> None:
    _, ana = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    room = await srv.room(ana, variant="remi", seats=2, public=False)
    c = await srv.client(bob, room, query=f"?code={bad}")
    assert c.closed is not None
    code, _ = await c.closed
    assert code == 4404
    assert c.frames[0]["code"] == "room_not_found"


@pytest.mark.parametrize(
    "frame",
    [
        "[" * 2000 + "]" * 2000,  # 2,000 levels in 4 KB
        '{"type": "ping", "x": ' + "[" * 2000 + "]" * 2000 + "}",
        '{"type": "action", "seq": 1, "base_version": 0, "action": '
        + '{"a": ' * 1500
        + "1"
        + "}" * 1500
        + "}",
    ],
    ids=["array", "in_a_ping", "in_an_action"],
)
async def test_deeply_nested_json_gets_bad_message_and_the_socket_stays_open(
    srv: Server, frame: str
) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2, fill_with_bots=True)
    c = await srv.client(ana, room)
    await c.hello()
    mark = len(c.frames)
    await c.send(frame)
    reply = await c.wait(lambda m: m["type"] == "error", since=mark)
    assert reply["code"] == "bad_message"
    mark = len(c.frames)
    await c.send({"type": "ping"})
    assert (await c.wait(lambda m: m["type"] == "pong", since=mark))["type"] == "pong"
    assert c.closed is not None and not c.closed.done()
    await c.ws.close()
