"""Room sockets and sessions (the room core, server/rooms/core/room.py): a revoked
token's sockets are closed (4403), and a seat's ``hello`` from another device closes the
seat's older connections from a different device (4409), never those of the same device
or of none."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from conftest import base_settings
from wsharness import Client, Server, running_server, still_open


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(base_settings(data_dir=tmp_path, database_url="")) as server:
        yield server


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _hello(client: Client, device: str | None) -> dict[str, Any]:
    mark = len(client.frames)
    hello: dict[str, Any] = {"type": "hello", "last_version": None}
    if device is not None:
        hello["device"] = device
    await client.send(hello)
    return await client.wait(lambda m: m["type"] == "snapshot", since=mark)


async def _closed(client: Client) -> tuple[int | None, str]:
    assert client.closed is not None
    return await asyncio.wait_for(client.closed, 10)


async def _second_device(srv: Server, token: str) -> str:
    r = await srv.http.post("/api/sessions", json={"token": token})
    assert r.status_code == 201, r.text
    srv.http.cookies.clear()
    new: str = r.json()["token"]
    return new


def _errors(client: Client) -> list[str]:
    return [m["code"] for m in client.frames if m["type"] == "error"]


async def test_signing_a_device_out_closes_its_sockets_only(srv: Server) -> None:
    _, phone = await srv.player("Ana")
    laptop = await _second_device(srv, phone)
    room = await srv.room(phone, variant="remi", seats=2)
    on_phone = await srv.client(phone, room)
    on_laptop = await srv.client(laptop, room)
    await _hello(on_phone, None)
    await _hello(on_laptop, None)
    r = await srv.http.post("/api/session/revoke", headers=_bearer(laptop))
    assert r.status_code == 204
    assert (await _closed(on_laptop))[0] == 4403
    assert _errors(on_laptop) == ["session_revoked"]
    assert await still_open(on_phone)
    # The revoked token opens no new socket.
    again = await srv.client(laptop, room)
    assert (await _closed(again))[0] == 4401
    await on_phone.close()


async def test_signing_out_everywhere_closes_every_socket_of_the_player(srv: Server) -> None:
    _, phone = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    laptop = await _second_device(srv, phone)
    room = await srv.room(phone, variant="remi", seats=2)
    await srv.sit(bob, room, 1)
    clients = [await srv.client(t, room) for t in (phone, laptop, bob)]
    for c in clients:
        await _hello(c, None)
    r = await srv.http.post("/api/session/revoke-all", headers=_bearer(phone))
    assert r.status_code == 200, r.text
    for c in clients[:2]:
        assert (await _closed(c))[0] == 4403
        assert _errors(c) == ["session_revoked"]
    assert await still_open(clients[2])  # another player's socket stays
    fresh = await srv.client(r.json()["token"], room)
    assert (await _hello(fresh, None))["you"]["seat"] == 0
    for c in (clients[2], fresh):
        await c.close()


async def test_rotating_a_token_keeps_the_devices_sockets(srv: Server) -> None:
    _, phone = await srv.player("Ana")
    room = await srv.room(phone, variant="remi", seats=2)
    c = await srv.client(phone, room)
    await _hello(c, "tab-one")
    r = await srv.http.post("/api/session/rotate", headers=_bearer(phone))
    assert r.status_code == 200, r.text
    assert await still_open(c)
    assert _errors(c) == []
    await c.close()


async def test_a_hello_from_another_device_takes_the_seat(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    room = await srv.room(ana, variant="remi", seats=2)
    first = await srv.client(ana, room)
    assert (await _hello(first, "device-A"))["you"]["seat"] == 0
    second = await srv.client(ana, room)
    await _hello(second, "device-B")
    assert (await _closed(first))[0] == 4409
    assert _errors(first) == ["played_elsewhere"]
    assert await still_open(second)
    # Taking it back: a new connection of the first device displaces the second.
    back = await srv.client(ana, room)
    await _hello(back, "device-A")
    assert (await _closed(second))[0] == 4409
    assert await still_open(back)
    await back.close()


async def test_the_same_device_or_no_device_displaces_nobody(srv: Server) -> None:
    _, ana = await srv.player("Ana")
    _, bob = await srv.player("Bob")
    room = await srv.room(ana, variant="remi", seats=2)
    await srv.sit(bob, room, 1)
    same_1 = await srv.client(ana, room)
    await _hello(same_1, "device-A")
    same_2 = await srv.client(ana, room)
    await _hello(same_2, "device-A")  # the same device (a reconnect): nobody displaced
    unnamed = await srv.client(ana, room)
    await _hello(unnamed, None)  # names no device: displaces nobody
    other_seat = await srv.client(bob, room)
    await _hello(other_seat, "device-B")  # another seat's device: not this seat's
    for c in (same_1, same_2, unnamed, other_seat):
        assert await still_open(c)
    # A named other device displaces the seat's named connections, not the unnamed one.
    elsewhere = await srv.client(ana, room)
    await _hello(elsewhere, "device-C")
    for c in (same_1, same_2):
        assert (await _closed(c))[0] == 4409
    for c in (unnamed, other_seat, elsewhere):
        assert await still_open(c)
        assert _errors(c) == []
    for c in (unnamed, other_seat, elsewhere):
        await c.close()


async def test_a_revocation_reaches_the_sockets_of_another_instance(
    tmp_path: Path, redis_url: str
) -> None:
    settings = base_settings(data_dir=tmp_path, database_url="", redis_url=redis_url)
    async with running_server(settings) as one, running_server(settings) as two:
        _, phone = await one.player("Ana")
        room = await one.room(phone, variant="remi", seats=2)
        c = await two.client(phone, room)  # the socket is on the second instance
        await _hello(c, None)
        await asyncio.wait_for(two.live.watching.wait(), 10)
        r = await one.http.post("/api/session/revoke", headers=_bearer(phone))
        assert r.status_code == 204
        assert (await _closed(c))[0] == 4403
        assert _errors(c) == ["session_revoked"]
