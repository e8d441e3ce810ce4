"""Spectators: anyone may watch a public table live with the spectator
view — no hand, no stock order, a move log from the snapshot's ``recent`` — and nobody
outside a private room can open its socket. The leak scan (test_ws_leak.py) checks every
frame a spectator receives against every hidden tile."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import BOT_ROUNDS, Server, running_server


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[Server]:
    settings = base_settings(data_dir=tmp_path, database_url="")
    async with running_server(settings, {**BOT_ROUNDS, "bot_delay_seconds": 0.05}) as server:
        yield server


def _events(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in frames if m["type"] == "event"]


async def _bots_table(srv: Server, public: bool) -> str:
    """A started two-seat room of Ana and a bot; Ana is away (no socket): the bots play."""
    _, ana = await srv.player("Ana")
    room = await srv.room(
        ana, variant="remi45", seats=2, fill_with_bots=True, bot_level="easy", public=public
    )
    await srv.start(ana, room)
    return room


async def test_a_spectator_watches_a_public_table_with_its_move_log(srv: Server) -> None:
    room = await _bots_table(srv, public=True)
    _, eve = await srv.player("Eve")
    watcher = await srv.client(eve, room)
    # Let the table run a little before the spectator says hello: the snapshot's recent.
    await asyncio.sleep(1.0)
    snap = await watcher.hello()
    assert snap["you"]["seat"] is None and snap["rack"] is None
    view = snap["view"]
    assert view["seat"] is None and view["hand"] == []
    assert "stock" not in view and isinstance(view["stock_count"], int)
    assert snap["recent"], "the move log starts from the round's events so far"
    assert snap["recent"][0]["event"]["do"] == "round_start"
    await watcher.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "discard")
    for m in _events(watcher.frames):
        if m["event"]["do"] == "draw":
            assert "tile" not in m["event"]  # the drawn tile is the drawer's only
        if m["view"] is not None:
            assert m["view"]["hand"] == []
    err = await watcher.act({"do": "draw"})
    assert err["code"] == "not_seated"


async def test_nobody_outside_a_private_room_can_watch_it(srv: Server) -> None:
    room = await _bots_table(srv, public=False)
    _, eve = await srv.player("Eve")
    c = await srv.client(eve, room)
    assert c.closed is not None
    code, _ = await c.closed
    assert code == 4404
    assert c.frames[0]["code"] == "room_not_found"
