"""Sessions over HTTP: a token per device, signing in on another device, the list,
rotation, signing one device out, or every device (server/api/sessions.py)."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from sqlalchemy import select

from server.services import Services
from server.storage.models import PlayerSession


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _player(client: httpx.AsyncClient, name: str = "Ana") -> tuple[str, str]:
    r = await client.post(
        "/api/players", json={"display_name": name}, headers={"User-Agent": "Phone/1.0"}
    )
    assert r.status_code == 201, r.text
    client.cookies.clear()
    return r.json()["player"]["id"], r.json()["token"]


async def _second_device(client: httpx.AsyncClient, token: str) -> str:
    r = await client.post(
        "/api/sessions", json={"token": token}, headers={"User-Agent": "Laptop/2.0"}
    )
    assert r.status_code == 201, r.text
    new: str = r.json()["token"]
    assert r.headers["set-cookie"].startswith(f"remi_token={new};")
    client.cookies.clear()
    return new


async def _status(client: httpx.AsyncClient, token: str) -> tuple[int, Any]:
    r = await client.get("/api/me", headers=_bearer(token))
    return r.status_code, r.json().get("id") or r.json().get("code")


async def test_another_device_signs_in_with_a_token_of_its_own(
    client: httpx.AsyncClient,
) -> None:
    pid, phone = await _player(client)
    laptop = await _second_device(client, phone)
    assert laptop != phone
    assert await _status(client, phone) == (200, pid)
    assert await _status(client, laptop) == (200, pid)
    bad = await client.post("/api/sessions", json={"token": "nope"})
    assert (bad.status_code, bad.json()["code"]) == (401, "invalid_token")


async def test_the_list_names_each_device_and_no_token(client: httpx.AsyncClient) -> None:
    _, phone = await _player(client)
    laptop = await _second_device(client, phone)
    r = await client.get("/api/sessions", headers=_bearer(laptop))
    assert r.status_code == 200
    sessions = r.json()["sessions"]
    assert [s["label"] for s in sessions] == ["Laptop/2.0", "Phone/1.0"]
    assert [s["current"] for s in sessions] == [True, False]
    assert set(sessions[0]) == {"id", "label", "created_at", "issued_at", "last_used_at", "current"}
    assert phone not in r.text and laptop not in r.text
    assert hashlib.sha256(phone.encode()).hexdigest() not in r.text
    assert (await client.get("/api/sessions")).status_code == 401


async def test_sign_out_on_this_device_only(client: httpx.AsyncClient) -> None:
    pid, phone = await _player(client)
    laptop = await _second_device(client, phone)
    r = await client.post("/api/session/revoke", headers=_bearer(laptop))
    assert r.status_code == 204
    assert 'remi_token=""' in r.headers["set-cookie"] or "max-age=0" in (
        r.headers["set-cookie"].lower()
    )
    client.cookies.clear()
    assert await _status(client, laptop) == (401, "invalid_token")
    reopened = await client.post("/api/session", json={"token": laptop})
    assert (reopened.status_code, reopened.json()["code"]) == (401, "invalid_token")
    assert await _status(client, phone) == (200, pid)  # the other device stays signed in
    listed = (await client.get("/api/sessions", headers=_bearer(phone))).json()["sessions"]
    assert [s["label"] for s in listed] == ["Phone/1.0"]


async def test_sign_out_another_device_by_its_id(client: httpx.AsyncClient) -> None:
    pid, phone = await _player(client)
    laptop = await _second_device(client, phone)
    _, eve = await _player(client, "Eve")
    listed = (await client.get("/api/sessions", headers=_bearer(phone))).json()["sessions"]
    laptop_id = next(s["id"] for s in listed if not s["current"])
    # Someone else's session id is no session of yours.
    foreign = await client.delete(f"/api/sessions/{laptop_id}", headers=_bearer(eve))
    assert (foreign.status_code, foreign.json()["code"]) == (404, "session_not_found")
    assert await _status(client, laptop) == (200, pid)
    gone = await client.delete(f"/api/sessions/{laptop_id}", headers=_bearer(phone))
    assert gone.status_code == 204
    assert await _status(client, laptop) == (401, "invalid_token")
    assert await _status(client, phone) == (200, pid)
    again = await client.delete(f"/api/sessions/{laptop_id}", headers=_bearer(phone))
    assert again.status_code == 404


async def test_sign_out_everywhere_revokes_every_device(client: httpx.AsyncClient) -> None:
    pid, phone = await _player(client)
    laptop = await _second_device(client, phone)
    r = await client.post(
        "/api/session/revoke-all", headers={**_bearer(laptop), "User-Agent": "Laptop/2.0"}
    )
    assert r.status_code == 200, r.text
    fresh = r.json()["token"]
    client.cookies.clear()
    assert await _status(client, phone) == (401, "invalid_token")
    assert await _status(client, laptop) == (401, "invalid_token")
    assert await _status(client, fresh) == (200, pid)
    listed = (await client.get("/api/sessions", headers=_bearer(fresh))).json()["sessions"]
    assert [(s["label"], s["current"]) for s in listed] == [("Laptop/2.0", True)]


async def test_rotation_replaces_this_devices_token_only(
    client: httpx.AsyncClient, app: object
) -> None:
    pid, phone = await _player(client)
    laptop = await _second_device(client, phone)
    before = (await client.get("/api/sessions", headers=_bearer(laptop))).json()["sessions"]
    r = await client.post("/api/session/rotate", headers=_bearer(laptop))
    assert r.status_code == 200, r.text
    rotated = r.json()["token"]
    assert rotated not in (laptop, phone)
    assert r.headers["set-cookie"].startswith(f"remi_token={rotated};")
    client.cookies.clear()
    assert await _status(client, laptop) == (401, "invalid_token")
    assert await _status(client, rotated) == (200, pid)
    assert await _status(client, phone) == (200, pid)
    after = (await client.get("/api/sessions", headers=_bearer(rotated))).json()["sessions"]
    # The same session (id, creation), with a newer token.
    assert [s["id"] for s in after] == [s["id"] for s in before]
    assert after[0]["created_at"] == before[0]["created_at"]
    assert after[0]["issued_at"] > before[0]["issued_at"]
    services = app.state.services  # type: ignore[attr-defined]
    assert isinstance(services, Services)
    async with services.db.transaction() as session:
        hashes = set(await session.scalars(select(PlayerSession.token_hash)))
    assert hashlib.sha256(rotated.encode()).hexdigest() in hashes
    assert hashlib.sha256(laptop.encode()).hexdigest() not in hashes


async def test_a_rotation_that_lost_the_race_changes_nothing(
    client: httpx.AsyncClient, app: object
) -> None:
    """Two tabs rotate the same token at once: the second finds it replaced, gets 401 and
    sets no cookie, so the browser keeps the token the first one set."""
    _, phone = await _player(client)
    services = app.state.services  # type: ignore[attr-defined]
    assert isinstance(services, Services)
    authed = await services.identity.resolve(phone)
    assert authed is not None
    first = await services.identity.rotate(authed)
    assert first is not None
    assert await services.identity.rotate(authed) is None
    assert await services.identity.authenticate(first) is not None
    late = await client.post("/api/session/rotate", headers=_bearer(phone))
    assert (late.status_code, late.json()["code"]) == (401, "invalid_token")
    assert "set-cookie" not in late.headers
