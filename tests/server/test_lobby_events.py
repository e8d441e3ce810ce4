"""Lobby change notifications: the bus carries them, /api/lobby/events streams them (SSE).

With Redis configured, a room created on one server instance reaches a lobby
stream held open on another instance (required in CI).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import base_settings
from redisproc import RedisProcess
from wsharness import Server, running_server

from server.rooms.lobby.service import RoomView

REDIS_URL = os.environ.get("REMI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@contextlib.asynccontextmanager
async def lobby_stream(server: Server) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
    """Open /api/lobby/events and put every data message into a queue."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    opened = asyncio.Event()

    async def read() -> None:
        async with (
            httpx.AsyncClient(base_url=server.base, timeout=None) as http,
            http.stream("GET", "/api/lobby/events") as response,
        ):
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    opened.set()
                elif line.startswith("data: "):
                    queue.put_nowait(json.loads(line[6:]))

    task = asyncio.create_task(read())
    await asyncio.wait_for(opened.wait(), 5)
    await asyncio.sleep(0.1)  # the subscription is registered before the first comment
    try:
        yield queue
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await task


async def test_public_room_changes_are_streamed_private_rooms_are_not(tmp_path: Path) -> None:
    async with (
        running_server(base_settings(data_dir=tmp_path, database_url="")) as server,
        lobby_stream(server) as events,
    ):
        _, token = await server.player("Ana")
        private = await server.room(token, variant="remi45", seats=2, public=False)
        public = await server.room(token, variant="remi45", seats=2)
        message = await asyncio.wait_for(events.get(), 5)
        assert message["room"] == public
        assert message["event"] == "changed"
        assert message["status"] == "waiting"
        assert private not in json.dumps(message)
        _, token2 = await server.player("Bogdan")
        await server.sit(token2, public, 1)
        seated = await asyncio.wait_for(events.get(), 5)
        assert (seated["room"], seated["free_seats"]) == (public, 0)


class Recorder:
    """A RoomEvents listener that keeps (event, room id, status)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []
        self.finished = asyncio.Event()

    async def room_changed(self, room: RoomView) -> None:
        self.seen.append(("changed", room.id, room.status))

    async def room_started(self, room: RoomView) -> None:
        self.seen.append(("started", room.id, room.status))

    async def room_finished(self, room: RoomView) -> None:
        self.seen.append(("finished", room.id, room.status))
        self.finished.set()


async def test_a_finished_match_reaches_the_lobby(tmp_path: Path) -> None:
    recorder = Recorder()
    # Nobody left at the table: the match ends (abandoned) after half a second.
    settings = base_settings(data_dir=tmp_path, database_url="", empty_room_grace_seconds=0.5)
    async with running_server(settings, events=recorder) as server, lobby_stream(server) as events:
        _, token = await server.player("Ana")
        rooms = {}
        for public in (False, True):
            room = await server.room(
                token, variant="remi45", seats=2, fill_with_bots=True, public=public
            )
            client = await server.client(token, room)
            await client.hello()
            await server.start(token, room)
            await client.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_start")
            await client.send({"type": "leave"})
            end = await client.wait(
                lambda m: m["type"] == "event" and m["event"]["do"] == "match_over", timeout=15
            )
            assert end["event"]["reason"] == "abandoned"
            await client.close()
            rooms[public] = room
        while True:  # the public room's earlier changes come first
            message = await asyncio.wait_for(events.get(), 5)
            assert message["room"] != rooms[False], "a private room is never announced"
            if message["event"] == "finished":
                break
        assert message == {
            "event": "finished",
            "room": rooms[True],
            "status": "finished",
            "free_seats": 0,
        }
        # Every listener hears of both rooms' ends, private ones included.
        for _ in range(50):
            if sum(1 for e in recorder.seen if e[0] == "finished") == 2:
                break
            await asyncio.sleep(0.1)
        finished = [e for e in recorder.seen if e[0] == "finished"]
        assert sorted(finished) == sorted(("finished", room, "finished") for room in rooms.values())
        sheet = await server.scores(rooms[True])
        assert sheet["finished"]


async def test_a_room_on_one_instance_reaches_a_lobby_on_another_through_redis(
    tmp_path: Path, redis_problem: str | None
) -> None:
    if redis_problem is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Redis is not reachable: {redis_problem} (CI=true: required)")
        pytest.skip(f"Redis is not reachable: {redis_problem}")
    one = base_settings(data_dir=tmp_path / "one", database_url="", redis_url=REDIS_URL)
    two = base_settings(data_dir=tmp_path / "two", database_url="", redis_url=REDIS_URL)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    async with (
        running_server(one) as watcher,
        running_server(two) as host,
        lobby_stream(watcher) as events,
    ):
        _, token = await host.player("Ana")
        room = await host.room(token, variant="remi101", seats=3)
        while True:  # other test runs may share this Redis: wait for our room
            message = await asyncio.wait_for(events.get(), 5)
            if message["room"] == room:
                break
        assert message["status"] == "waiting"


async def test_a_lobby_stream_open_across_a_redis_restart_receives_later_events(
    tmp_path: Path, own_redis: RedisProcess
) -> None:
    settings = base_settings(data_dir=tmp_path, database_url="", redis_url=own_redis.url)
    async with running_server(settings) as server, lobby_stream(server) as events:
        _, token = await server.player("Ana")
        before = await server.room(token, variant="remi45", seats=2)
        assert (await asyncio.wait_for(events.get(), 5))["room"] == before
        own_redis.restart()  # the stream's subscription and the publisher's connection drop
        assert await asyncio.wait_for(events.get(), 10) == {"event": "resync"}
        after = await server.room(token, variant="remi45", seats=2)  # the first publish
        message = await asyncio.wait_for(events.get(), 5)
        assert (message["room"], message["event"]) == (after, "changed")
