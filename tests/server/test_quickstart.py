"""Quick start, on both stores: two players pressing at once land at
the same table; a table opened by quick start fills with bots after its wait, or starts
at once when full; the same request sent again gives the same table, even after it
started; a waiting normal room (it waits for an owner who may have gone) is
never joined; a full waiting room is not in the lobby."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from conftest import Players
from fastapi import FastAPI
from sqlalchemy import select, update

from server.accounts.identity import IdentityService
from server.app import create_app
from server.economy.ledger import Economy
from server.rooms.lobby.quickstart import QuickStart
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.migrate import migrate
from server.storage.models import QuickRequest, Room, utcnow

WAIT = 2.0
"""The quick start's wait in these tests: long enough that presses made one after the other
on a loaded machine still find the table waiting; the tests that need it to end poll."""
POLL_SECONDS = 30.0
"""How long a test waits for a table to start with bots (polling every 50 ms)."""


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    """The app with a short quick start wait and no pause between moves."""
    quick = settings.model_copy(update={"quick_start_wait_seconds": WAIT, "bot_delay_seconds": 0.0})
    application = create_app(quick)
    async with application.router.lifespan_context(application):
        yield application


async def _press(
    client: httpx.AsyncClient,
    token: str,
    variant: str = "remi",
    stake: int = 0,
    request_id: str | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"variant": variant, "stake": stake}
    if request_id is not None:
        body["request_id"] = request_id
    return await client.post("/api/quickstart", json=body, headers=Players.auth(token))


async def _room(client: httpx.AsyncClient, room_id: str) -> dict[str, Any]:
    response = await client.get(f"/api/rooms/{room_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_two_presses_at_once_land_at_the_same_table(
    client: httpx.AsyncClient, players: Players
) -> None:
    (a, ta), (b, tb) = await players.create("Ana"), await players.create("Bob")
    first, second = await asyncio.gather(_press(client, ta), _press(client, tb))
    assert first.status_code == second.status_code == 200, (first.text, second.text)
    assert first.json()["id"] == second.json()["id"]
    room = await _room(client, first.json()["id"])
    seated = {s["player"]["id"]: s["seat"] for s in room["seats"] if s["player"]}
    assert set(seated) == {a, b}
    assert first.json()["your_seat"] != second.json()["your_seat"]
    assert room["settings"]["kind"] == "quick" and room["settings"]["variant"] == "remi"


async def test_four_presses_at_once_fill_one_table_which_starts_at_once(
    client: httpx.AsyncClient, players: Players
) -> None:
    tokens = [(await players.create(f"P{i}"))[1] for i in range(5)]
    answers = await asyncio.gather(*(_press(client, t, "remi101") for t in tokens))
    assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
    rooms: dict[str, int] = {}
    for r in answers:
        rooms[r.json()["id"]] = rooms.get(r.json()["id"], 0) + 1
    assert sorted(rooms.values()) == [1, 4]  # four at one table, the fifth opens the next
    full = next(room_id for room_id, n in rooms.items() if n == 4)
    room = await _room(client, full)
    assert room["status"] == "playing"  # full: started at once, no bot
    assert all(s["player"] is not None and s["bot_level"] is None for s in room["seats"])
    assert room["settings"]["joker_button"] is True  # 101 has the button (B.9)


async def test_a_table_nobody_else_joins_starts_with_bots_after_the_wait(
    client: httpx.AsyncClient, players: Players
) -> None:
    a, ta = await players.create("Ana")
    answer = await _press(client, ta, "etalat")
    assert answer.status_code == 200, answer.text
    room = answer.json()
    assert room["status"] == "waiting" and room["your_seat"] == 0
    # The waiting room's countdown: seconds until the bots come, from the server's clock.
    assert room["starts_in"] is not None and 0 <= room["starts_in"] <= WAIT
    for _ in range(int(POLL_SECONDS / 0.05)):
        room = await _room(client, room["id"])
        if room["status"] != "waiting":
            break
        await asyncio.sleep(0.05)
    assert room["status"] == "playing"
    assert room["seats"][0]["player"]["id"] == a
    assert [s["bot_level"] for s in room["seats"][1:]] == ["normal"] * 3
    assert room["starts_in"] is None  # started: no countdown


async def test_pressing_again_gives_the_same_table(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, ta = await players.create("Ana")
    first, again = await _press(client, ta), await _press(client, ta)
    assert first.json()["id"] == again.json()["id"]
    assert [s["player"] is not None for s in again.json()["seats"]] == [True, False, False, False]


async def test_a_retried_request_after_its_table_started_gives_that_table(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, ta = await players.create("Ana")
    first = await _press(client, ta, request_id="press-1")
    assert first.status_code == 200, first.text
    others = [(await players.create(f"P{i}"))[1] for i in range(3)]
    for token in others:  # the table fills and starts at once
        assert (await _press(client, token)).status_code == 200
    assert (await _room(client, first.json()["id"]))["status"] == "playing"
    again = await _press(client, ta, request_id="press-1")
    assert again.status_code == 200, again.text
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["status"] == "playing" and again.json()["your_seat"] == 0
    # A new press (a new request id) opens the player's next table.
    fresh = await _press(client, ta, request_id="press-2")
    assert fresh.status_code == 200, fresh.text
    assert fresh.json()["id"] != first.json()["id"] and fresh.json()["status"] == "waiting"
    # Another player's request with the same id is another request.
    other = await _press(client, others[0], request_id="press-1")
    assert other.json()["id"] == fresh.json()["id"]


async def test_a_request_id_is_forgotten_after_its_time(settings: Settings) -> None:
    """Past ``quick_start_request_seconds`` the same id is a new request (its row goes)."""
    db = Database(settings)
    await migrate(settings, db.engine)
    try:
        identity = IdentityService(db, economy=Economy(db, settings))
        ana, _ = await identity.create_player("Ana")
        quick = QuickStart(db, settings, RoomService(db, settings))
        first = await quick.join(ana, "remi", request_id="r1")
        assert (await quick.join(ana, "remi", request_id="r1")).id == first.id
        kept = timedelta(seconds=settings.quick_start_request_seconds + 1)
        async with db.transaction() as session:  # the room started; the request is old
            await session.execute(update(Room).values(status="playing"))
            await session.execute(update(QuickRequest).values(created_at=utcnow() - kept))
        later = await quick.join(ana, "remi", request_id="r1")
        assert later.id != first.id
        async with db.transaction() as session:
            rows = (await session.scalars(select(QuickRequest))).all()
        assert [(r.request_id, r.room_id) for r in rows] == [("r1", later.id)]
    finally:
        await db.dispose()


async def test_a_waiting_normal_room_is_never_joined_only_quick_rooms(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, ta = await players.create("Ana")
    _, tb = await players.create("Bob")
    _, tc = await players.create("Cip")
    created = await client.post(
        "/api/rooms",
        json={"variant": "remi", "seats": 2, "kind": "normal"},
        headers=Players.auth(ta),
    )
    assert created.status_code == 201, created.text
    private = await client.post(
        "/api/rooms",
        json={"variant": "remi45", "seats": 2, "public": False},
        headers=Players.auth(ta),
    )
    assert private.status_code == 201
    # A normal room waits for its owner (who may have gone): a quick start does not seat
    # anyone there; it opens a quick room, which the server starts itself.
    joined = await _press(client, tb, "remi")
    assert joined.json()["id"] != created.json()["id"]
    assert joined.json()["kind"] == "quick" and joined.json()["your_seat"] == 0
    other = await _press(client, tc, "remi45")  # the private remi45 room is not joined
    assert other.json()["id"] != private.json()["id"]
    staked = await _press(client, tc, "remi", stake=100)  # another stake: another table
    assert staked.json()["id"] not in (created.json()["id"], other.json()["id"])
    assert staked.json()["settings"]["min_balance"] == 100


async def test_a_stake_above_the_balance_is_refused(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, ta = await players.create("Ana")
    answer = await _press(client, ta, stake=10**9)
    assert answer.status_code == 409
    assert answer.json()["code"] == "balance_too_low"
    bad = await _press(client, ta, variant="chess")
    assert bad.status_code == 422


async def test_a_restarted_server_starts_the_tables_whose_wait_ended_meanwhile(
    settings: Settings,
) -> None:
    """``start_at`` is stored: a table opened by a server that stopped before its wait was
    over is started by the next one (with bots), not left waiting."""
    db = Database(settings)
    await migrate(settings, db.engine)
    try:
        identity = IdentityService(db, economy=Economy(db, settings))
        ana, _ = await identity.create_player("Ana")
        quick = QuickStart(db, settings, RoomService(db, settings))  # nobody starts it here
        room = await quick.join(ana, "remi51")
        async with db.transaction() as session:
            await session.execute(update(Room).where(Room.id == room.id).values(start_at=utcnow()))
    finally:
        await db.dispose()
    application = create_app(settings.model_copy(update={"quick_start_wait_seconds": WAIT}))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            for _ in range(int(POLL_SECONDS / 0.05)):
                view = await _room(client, room.id)
                if view["status"] != "waiting":
                    break
                await asyncio.sleep(0.05)
    assert view["status"] == "playing"
    assert [s["bot_level"] for s in view["seats"]] == [None, "normal", "normal", "normal"]


async def test_a_full_waiting_room_leaves_the_lobby(
    client: httpx.AsyncClient, players: Players
) -> None:
    """The lobby offers a waiting room only while a join can succeed."""
    _, ta = await players.create("Ana")
    _, tb = await players.create("Bob")
    created = await client.post(
        "/api/rooms", json={"variant": "remi", "seats": 2}, headers=Players.auth(ta)
    )
    room = created.json()["id"]
    listed = (await client.get("/api/rooms")).json()["rooms"]
    assert room in [r["id"] for r in listed]
    taken = await client.post(f"/api/rooms/{room}/seats/1", headers=Players.auth(tb))
    assert taken.status_code == 200, taken.text
    listed = (await client.get("/api/rooms")).json()["rooms"]
    assert room not in [r["id"] for r in listed]
