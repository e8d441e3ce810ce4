"""Quick reactions: a seat's fixed phrase or emoji reaches everyone in
the room, spectators included; free text is refused, a spectator cannot react, and a
seat past the burst limit is told so while the connection stays open."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import Server, running_server, two_player_room

from server.rooms.core.reactions import BURST, Reactions


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(base_settings(data_dir=tmp_path, database_url="")) as server:
        yield server


def _reaction(m: dict[str, Any]) -> bool:
    return m["type"] == "reaction"


def _error(m: dict[str, Any]) -> bool:
    return m["type"] == "error"


async def test_a_reaction_reaches_every_seat_and_spectator(srv: Server) -> None:
    room, a, b, _, _ = await two_player_room(srv)
    _, eve = await srv.player("Eve")
    s = await srv.client(eve, room)
    await s.hello()
    await b.send({"type": "react", "reaction": "well_played"})
    for c in (a, b, s):
        got = await c.wait(_reaction)
        assert got == {"type": "reaction", "seat": 1, "reaction": "well_played"}
    await s.send({"type": "react", "reaction": "wow"})
    err = await s.wait(_error)
    assert err["code"] == "not_seated"
    assert [m for m in a.frames if _reaction(m)] == [
        {"type": "reaction", "seat": 1, "reaction": "well_played"}
    ]


async def test_free_text_is_not_a_reaction(srv: Server) -> None:
    _room, a, b, _, _ = await two_player_room(srv)
    await a.send({"type": "react", "reaction": "you are slow"})
    err = await a.wait(_error)
    assert err["code"] == "bad_message" and "reaction" in err["message"]
    assert not [m for m in b.frames if _reaction(m)]


async def test_past_the_burst_a_reaction_is_refused_and_the_socket_stays(srv: Server) -> None:
    _room, a, b, _, _ = await two_player_room(srv)
    for _ in range(BURST + 1):
        await a.send({"type": "react", "reaction": "hello"})
    err = await a.wait(_error)
    assert err["code"] == "reactions_limited"
    shown = [m for m in a.frames if _reaction(m)]
    assert len(shown) == BURST
    await a.send({"type": "ping"})
    await a.wait(lambda m: m["type"] == "pong")
    await b.wait(lambda m: len([x for x in b.frames if _reaction(x)]) == BURST)


def test_the_limit_is_per_seat_and_a_minute_long() -> None:
    r = Reactions(per_minute=4)
    assert [r.allowed(0, t) for t in (0.0, 1.0, 2.0)] == [True, True, True]
    assert r.allowed(0, 9.9) is False  # a fourth within 10 s
    assert r.allowed(1, 9.9) is True  # another seat is not held back
    assert r.allowed(0, 10.5) is True  # the burst has passed: 4 in the minute
    assert r.allowed(0, 30.0) is False  # a fifth in the same minute
    assert r.allowed(0, 60.5) is True  # the first one left the window
    assert Reactions(per_minute=0).allowed(0, 0.0) is False  # reactions off
