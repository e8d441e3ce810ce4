"""Ids at the HTTP edge: a NUL byte or any character outside
``[A-Za-z0-9_-]`` in a room id, player id, invite code or token is refused with 422
on both stores, never reaches the database (PostgreSQL refused NUL with a 500)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

Players = Any  # the ``players`` fixture (tests/server/conftest.py)

BAD_IDS = ["%00", "a%00b", "%C3%A9t%C3%A9", "a.b", "x" * 65]
"""A NUL byte, a NUL inside an id, non-ASCII letters, a dot, an over-long id."""


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_a_bad_room_id_is_422_not_500(
    client: httpx.AsyncClient, players: Players, bad: str
) -> None:
    _, token = await players.create()
    auth = players.auth(token)
    answers = [
        await client.get(f"/api/rooms/{bad}"),
        await client.get(f"/api/rooms/{bad}/scores"),
        await client.post(f"/api/rooms/{bad}/seats/0", headers=auth),
        await client.post(f"/api/rooms/{bad}/leave", headers=auth),
        await client.post(f"/api/rooms/{bad}/start", headers=auth),
    ]
    for response in answers:
        assert response.status_code == 422, (response.request.url, response.text)
        assert response.json()["code"] == "invalid_request"


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_a_bad_player_id_in_match_history_is_422_not_500(
    client: httpx.AsyncClient, bad: str
) -> None:
    response = await client.get(f"/api/players/{bad}/matches")
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "invalid_request"


@pytest.mark.parametrize("bad", ["\x00", "ab\x00cd", "été", "a b"])
async def test_a_bad_invite_code_or_token_is_422_not_500(
    client: httpx.AsyncClient, players: Players, bad: str
) -> None:
    _, token = await players.create()
    auth = players.auth(token)
    room = await client.post("/api/rooms", json={"public": False}, headers=auth)
    assert room.status_code == 201, room.text
    room_id = room.json()["id"]
    answers = [
        await client.post("/api/rooms/join-by-code", json={"code": bad}, headers=auth),
        await client.post(f"/api/rooms/{room_id}/seats/1", json={"code": bad}, headers=auth),
        await client.get(f"/api/rooms/{room_id}", params={"code": bad}),
        await client.get(f"/api/rooms/{room_id}/scores", params={"code": bad}),
        await client.post("/api/session", json={"token": bad}),
    ]
    for response in answers:
        assert response.status_code == 422, (response.request.url, response.text)
        assert response.json()["code"] == "invalid_request"
