"""A waiting room only its owner can start closes once the owner has had no socket on it
for ``owner_gone_seconds``: it leaves the lobby, and its seated players are told
``owner_gone`` and closed with 4410; a room whose owner is there stays. On both stores;
the test moves the clock instead of waiting."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from conftest import base_settings
from sqlalchemy import update
from wsharness import Client, running_server, still_open

from server.settings import Settings
from server.storage.database import Database
from server.storage.models import Room, utcnow

GONE = 60.0


async def _hello(client: Client) -> None:
    mark = len(client.frames)
    await client.send({"type": "hello", "last_version": None})
    await client.wait(lambda m: m["type"] == "snapshot", since=mark)


async def _backdate(settings: Settings) -> None:
    """Every room made longer ago than the setting."""
    db = Database(settings)
    try:
        async with db.transaction() as session:
            await session.execute(
                update(Room).values(created_at=utcnow() - timedelta(seconds=2 * GONE))
            )
    finally:
        await db.dispose()


async def test_a_waiting_room_whose_owner_is_gone_closes_and_tells_its_players(
    settings: Settings,
) -> None:
    async with running_server(settings.model_copy(update={"owner_gone_seconds": GONE})) as srv:
        _, ana = await srv.player("Ana")
        _, bob = await srv.player("Bob")
        _, cy = await srv.player("Cy")
        left = await srv.room(ana, variant="remi", seats=3, public=True)
        kept = await srv.room(cy, variant="remi", seats=2, public=True)
        await srv.sit(bob, left, 1)
        on_bob = await srv.client(bob, left)  # Ana, the owner, never comes
        on_cy = await srv.client(cy, kept)  # Cy, the owner, is there
        await _hello(on_bob)
        await _hello(on_cy)
        await _backdate(srv.settings)  # both rooms are older than the setting

        assert await srv.live.close_abandoned() == 0  # gone from now on
        assert await srv.live.close_abandoned(time.monotonic() + GONE + 1) == 1

        assert on_bob.closed is not None
        code, _ = await asyncio.wait_for(on_bob.closed, 10)
        assert code == 4410
        assert [m["code"] for m in on_bob.frames if m["type"] == "error"] == ["owner_gone"]
        listed = (await srv.http.get("/api/rooms")).json()["rooms"]
        assert [r["id"] for r in listed] == [kept]
        view: dict[str, Any] = (await srv.http.get(f"/api/rooms/{left}")).json()
        assert view["status"] == "finished"
        assert await still_open(on_cy)
        await on_cy.close()


async def test_a_room_another_node_plays_is_left_to_that_node(
    tmp_path: Path, redis_url: str
) -> None:
    """With several nodes, the node that plays the room (it holds the sockets) judges it;
    the others leave it alone."""
    settings = base_settings(
        data_dir=tmp_path, database_url="", redis_url=redis_url, owner_gone_seconds=GONE
    )
    async with running_server(settings) as one, running_server(settings) as two:
        _, ana = await one.player("Ana")
        _, bob = await one.player("Bob")
        room = await one.room(ana, variant="remi", seats=2, public=True)
        await two.sit(bob, room, 1)
        on_bob = await two.client(bob, room)
        await _hello(on_bob)
        assert room in two.live.actors and room not in one.live.actors  # two plays it
        await _backdate(one.settings)
        later = time.monotonic() + GONE + 1
        assert await one.live.close_abandoned() == 0
        assert await one.live.close_abandoned(later) == 0  # not its room
        assert await still_open(on_bob)
        assert await two.live.close_abandoned() == 0
        assert await two.live.close_abandoned(later) == 1
        assert on_bob.closed is not None
        assert (await asyncio.wait_for(on_bob.closed, 10))[0] == 4410
        assert [m["code"] for m in on_bob.frames if m["type"] == "error"] == ["owner_gone"]
