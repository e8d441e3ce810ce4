"""Accounts over HTTP: a guest claims a username and a password and
signs in with them on another device (the same player: seats and balance carry over);
the password changes; sign-ins are limited per address and per username; a request
authenticated by the cookie from another site's page is refused (server/api/origin.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from server.app import create_app
from server.services import Services
from server.settings import Settings
from server.storage.models import Player

PASSWORD = "correct horse battery"


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _guest(client: httpx.AsyncClient, name: str = "Ana") -> tuple[str, str]:
    r = await client.post("/api/players", json={"display_name": name})
    assert r.status_code == 201, r.text
    client.cookies.clear()
    return r.json()["player"]["id"], r.json()["token"]


async def test_claim_then_sign_in_on_another_device(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings
) -> None:
    pid, token = await _guest(client)
    room = await client.post("/api/rooms", json={"seats": 2}, headers=_bearer(token))
    assert room.status_code == 201
    acc = await client.get("/api/account", headers=_bearer(token))
    assert acc.status_code == 200 and acc.json()["username"] is None
    balance = acc.json()["balance"]
    assert balance == settings.starting_balance + settings.daily_grant
    r = await client.post(
        "/api/account", json={"username": "Ana.M", "password": PASSWORD}, headers=_bearer(token)
    )
    assert r.status_code == 201, r.text
    assert r.json()["username"] == "ana.m" and r.json()["player"]["id"] == pid
    again = await client.post(
        "/api/account", json={"username": "other", "password": PASSWORD}, headers=_bearer(token)
    )
    assert again.status_code == 409 and again.json()["code"] == "already_claimed"
    _, bob = await _guest(client, "Bob")
    taken = await client.post(
        "/api/account", json={"username": "ANA.m", "password": PASSWORD}, headers=_bearer(bob)
    )
    assert taken.status_code == 409 and taken.json()["code"] == "username_taken"
    short = await client.post(
        "/api/account", json={"username": "bob", "password": "short"}, headers=_bearer(bob)
    )
    assert short.status_code == 422 and "short" not in short.text.replace("password", "")

    services: Services = app.state.services
    async with services.db.transaction() as s:
        stored = await s.scalar(select(Player.password_hash).where(Player.id == pid))
    assert stored is not None and stored.startswith("$argon2id$") and PASSWORD not in stored

    # another device: a new session of the same player, its room and balance with it
    wrong = await client.post(
        "/api/account/login", json={"username": "ana.m", "password": "wrong password"}
    )
    assert wrong.status_code == 401 and wrong.json()["code"] == "bad_credentials"
    nobody = await client.post(
        "/api/account/login", json={"username": "nobody", "password": PASSWORD}
    )
    assert nobody.status_code == 401 and nobody.json() == wrong.json()
    signed = await client.post(
        "/api/account/login", json={"username": " Ana.M ", "password": PASSWORD}
    )
    assert signed.status_code == 201, signed.text
    assert signed.json()["player"]["id"] == pid
    other = signed.json()["token"]
    assert client.cookies.get(settings.cookie_name) == other
    me = await client.get("/api/account")  # by the cookie
    assert me.json()["balance"] == balance and me.json()["username"] == "ana.m"
    client.cookies.clear()
    mine = await client.get(f"/api/rooms/{room.json()['id']}", headers=_bearer(other))
    assert mine.status_code == 200 and mine.json()["seats"][0]["player"]["id"] == pid
    sessions = (await client.get("/api/sessions", headers=_bearer(other))).json()["sessions"]
    assert len(sessions) == 2

    # a password change signs the other devices out
    bad = await client.post(
        "/api/account/password",
        json={"current_password": "nope nope", "new_password": "a new password"},
        headers=_bearer(other),
    )
    assert bad.status_code == 401
    ok = await client.post(
        "/api/account/password",
        json={"current_password": PASSWORD, "new_password": "a new password"},
        headers=_bearer(other),
    )
    assert ok.status_code == 204, ok.text
    assert (await client.get("/api/me", headers=_bearer(token))).status_code == 401
    assert (await client.get("/api/me", headers=_bearer(other))).status_code == 200
    old = await client.post("/api/account/login", json={"username": "ana.m", "password": PASSWORD})
    assert old.status_code == 401
    new = await client.post(
        "/api/account/login", json={"username": "ana.m", "password": "a new password"}
    )
    assert new.status_code == 201


@pytest.fixture
async def strict_app(settings: Settings) -> AsyncIterator[FastAPI]:
    tight = Settings.model_validate(
        {**settings.model_dump(), "login_limit_per_username": 2, "login_limit_per_address": 4}
    )
    app = create_app(tight)
    async with app.router.lifespan_context(app):
        yield app


async def test_sign_ins_are_limited_per_username_and_per_address(strict_app: FastAPI) -> None:
    transport = httpx.ASGITransport(app=strict_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        body = {"username": "ana.m", "password": "wrong password"}
        codes = [(await client.post("/api/account/login", json=body)).status_code for _ in range(3)]
        assert codes == [401, 401, 429]
        r = await client.post("/api/account/login", json=body)
        assert r.json()["code"] == "too_many_requests" and "username" in r.json()["detail"]
        assert int(r.headers["Retry-After"]) >= 1
        # another username from the same address: the address's budget (4) is spent
        r = await client.post("/api/account/login", json={**body, "username": "bob.b"})
        assert r.status_code == 429 and "address" in r.json()["detail"]


async def test_cookie_requests_from_another_site_are_refused(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    r = await client.post("/api/players", json={"display_name": "Ana"})
    token = r.json()["token"]  # the cookie is set on the client
    evil = {"Origin": "https://evil.example"}
    refused = await client.post("/api/rooms", json={"seats": 2}, headers=evil)
    assert refused.status_code == 403 and refused.json()["code"] == "origin_refused"
    by_referer = await client.post(
        "/api/rooms", json={"seats": 2}, headers={"Referer": "https://evil.example/page"}
    )
    assert by_referer.status_code == 403
    own = await client.post(
        "/api/rooms", json={"seats": 2}, headers={"Origin": "http://testserver"}
    )
    assert own.status_code == 201, own.text
    allowed = await client.post(
        "/api/rooms", json={"seats": 2}, headers={"Origin": settings.allowed_origins[0]}
    )
    assert allowed.status_code == 201
    assert (await client.get("/api/me", headers=evil)).status_code == 200  # a read passes
    client.cookies.clear()  # a bearer token: no cookie to ride on
    bearer = await client.post("/api/rooms", json={"seats": 2}, headers={**evil, **_bearer(token)})
    assert bearer.status_code == 201


async def test_a_room_may_ask_a_minimum_balance(client: httpx.AsyncClient) -> None:
    _, ana = await _guest(client)
    _, bob = await _guest(client, "Bob")
    r = await client.post(
        "/api/rooms", json={"seats": 2, "min_balance": 1050}, headers=_bearer(ana)
    )
    assert r.status_code == 409 and r.json()["code"] == "balance_too_low"
    await client.get("/api/account", headers=_bearer(ana))  # the day's grant: 1100
    room = await client.post(
        "/api/rooms", json={"seats": 2, "min_balance": 1050}, headers=_bearer(ana)
    )
    assert room.status_code == 201
    sit = await client.post(f"/api/rooms/{room.json()['id']}/seats/1", headers=_bearer(bob))
    assert sit.status_code == 409 and sit.json()["code"] == "balance_too_low"


async def test_the_ledger_pages_and_joker_purchases(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    _, ana = await _guest(client)
    await client.get("/api/account", headers=_bearer(ana))
    buy = await client.post(
        "/api/account/jokers", json={"count": 2, "request_id": "b1"}, headers=_bearer(ana)
    )
    assert buy.status_code == 200, buy.text
    price = settings.joker_credit_price
    assert buy.json()["joker_credits"] == settings.starting_joker_credits + 1 + 2
    first = (await client.get("/api/account/ledger?limit=2", headers=_bearer(ana))).json()
    assert [e["reason"] for e in first["entries"]] == ["joker_bought", "daily_grant"]
    assert first["entries"][0]["amount"] == -2 * price and first["next_before"] is not None
    rest = await client.get(
        f"/api/account/ledger?limit=2&before={first['next_before']}", headers=_bearer(ana)
    )
    assert [e["reason"] for e in rest.json()["entries"]] == ["start"]
    assert rest.json()["next_before"] is None
    poor = await client.post(
        "/api/account/jokers", json={"count": 100, "request_id": "b2"}, headers=_bearer(ana)
    )
    assert poor.status_code == 409 and poor.json()["code"] == "insufficient_balance"


async def test_money_and_count_fields_take_json_integers_only(
    client: httpx.AsyncClient,
) -> None:
    """A string or a boolean where a count or an amount belongs is refused (422), and
    nothing is bought; a ledger cursor beyond 64 bits is a 422 too, not a 500."""
    _, ana = await _guest(client)
    before = (await client.get("/api/account", headers=_bearer(ana))).json()
    for i, count in enumerate(["5", True, 2.0, "2"]):
        bad = await client.post(
            "/api/account/jokers",
            json={"count": count, "request_id": f"s{i}"},
            headers=_bearer(ana),
        )
        assert bad.status_code == 422, (count, bad.text)
        assert bad.json()["code"] == "invalid_request"
    after = (await client.get("/api/account", headers=_bearer(ana))).json()
    assert after["joker_credits"] == before["joker_credits"]
    assert after["balance"] == before["balance"]
    for stake in ["10", True]:
        bad = await client.post(
            "/api/quickstart", json={"variant": "remi", "stake": stake}, headers=_bearer(ana)
        )
        assert bad.status_code == 422, (stake, bad.text)
    for settings in (
        {"seats": "2"},
        {"seats": True},
        {"min_balance": "10"},
        {"end": {"kind": "rounds", "rounds": "3"}},
    ):
        bad = await client.post("/api/rooms", json=settings, headers=_bearer(ana))
        assert bad.status_code == 422, (settings, bad.text)
    for cursor in (2**31, 2**63, 2**64, 10**30):
        page = await client.get(f"/api/account/ledger?before={cursor}", headers=_bearer(ana))
        assert page.status_code == 422, (cursor, page.text)
        assert page.json()["code"] == "invalid_request"
    last = await client.get(f"/api/account/ledger?before={2**31 - 1}", headers=_bearer(ana))
    assert last.status_code == 200, last.text
