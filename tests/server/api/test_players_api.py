"""Guest identity over HTTP: creation, cookie, bearer, /api/me, sessions."""

from __future__ import annotations

import hashlib

import httpx
from sqlalchemy import select

from server.app import create_app
from server.services import Services
from server.settings import Settings
from server.storage.models import Player, PlayerSession


async def test_create_player_returns_token_and_sets_cookie(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/players", json={"display_name": "  Ana  Maria "})
    assert response.status_code == 201
    body = response.json()
    assert body["player"]["display_name"] == "Ana Maria"
    token = body["token"]
    assert len(token) >= 43  # 32 random bytes, base64url
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"remi_token={token};")
    lowered = cookie.lower()
    assert "httponly" in lowered
    assert "samesite=lax" in lowered
    assert "path=/" in lowered
    assert "max-age=" in lowered


async def test_only_the_hash_is_stored(client: httpx.AsyncClient, app: object) -> None:
    response = await client.post("/api/players", json={"display_name": "Ion"})
    body = response.json()
    services = app.state.services  # type: ignore[attr-defined]
    assert isinstance(services, Services)
    async with services.db.transaction() as session:
        row = await session.scalar(select(Player).where(Player.id == body["player"]["id"]))
        device = await session.scalar(
            select(PlayerSession).where(PlayerSession.player_id == body["player"]["id"])
        )
    assert row is not None and device is not None
    assert device.token_hash == hashlib.sha256(body["token"].encode()).hexdigest()
    assert row.token_hash == f"moved:{row.id}"  # the tokens live in player_sessions
    assert body["token"] not in (row.token_hash, row.id, row.display_name, device.id)


async def test_tokens_are_unique(client: httpx.AsyncClient) -> None:
    tokens = set()
    for i in range(5):
        response = await client.post("/api/players", json={"display_name": f"P{i}"})
        tokens.add(response.json()["token"])
    assert len(tokens) == 5


async def test_me_with_cookie(client: httpx.AsyncClient) -> None:
    created = (await client.post("/api/players", json={"display_name": "Ana"})).json()
    response = await client.get("/api/me")  # the client kept the cookie
    assert response.status_code == 200
    assert response.json()["id"] == created["player"]["id"]


async def test_me_with_bearer_is_the_same_player_anywhere(client: httpx.AsyncClient) -> None:
    created = (await client.post("/api/players", json={"display_name": "Ana"})).json()
    client.cookies.clear()
    headers = {"Authorization": f"Bearer {created['token']}"}
    response = await client.get("/api/me", headers=headers)
    assert response.status_code == 200
    assert response.json()["id"] == created["player"]["id"]


async def test_bearer_wins_over_cookie(client: httpx.AsyncClient) -> None:
    a = (await client.post("/api/players", json={"display_name": "A"})).json()
    b = (await client.post("/api/players", json={"display_name": "B"})).json()
    client.cookies.set("remi_token", a["token"])
    response = await client.get("/api/me", headers={"Authorization": f"Bearer {b['token']}"})
    assert response.json()["id"] == b["player"]["id"]


async def test_me_without_token_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/me")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


async def test_whoami_answers_a_first_visit_without_an_error(client: httpx.AsyncClient) -> None:
    nobody = await client.get("/api/whoami")
    assert nobody.status_code == 200
    assert nobody.json() == {"player": None}
    client.cookies.set("remi_token", "not-a-token")  # a cookie that names nobody: nobody
    assert (await client.get("/api/whoami")).json() == {"player": None}
    client.cookies.clear()
    created = (await client.post("/api/players", json={"display_name": "Ana"})).json()
    known = await client.get("/api/whoami")
    assert known.status_code == 200
    assert known.json()["player"]["id"] == created["player"]["id"]
    assert known.json()["player"]["display_name"] == "Ana"


async def test_me_with_bad_bearer_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/me", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_me_with_bad_cookie_is_401(client: httpx.AsyncClient) -> None:
    client.cookies.set("remi_token", "forged")
    response = await client.get("/api/me")
    assert response.status_code == 401


async def test_display_name_validation(client: httpx.AsyncClient) -> None:
    bad_names = ["", "   ", "x" * 33, "a\x00b", "\u202eevil.exe", "M" * 200]
    for bad in [*bad_names, "Ana\u2028B", "Ana\u2029B"]:
        response = await client.post("/api/players", json={"display_name": bad})
        assert response.status_code == 422, bad
        body = response.json()
        assert body["code"] == "invalid_request"
        assert body["errors"][0]["field"] == "display_name"
    missing = await client.post("/api/players", json={})
    assert missing.status_code == 422
    assert "display_name" in missing.json()["detail"]


async def test_session_moves_identity_to_another_browser(client: httpx.AsyncClient) -> None:
    created = (await client.post("/api/players", json={"display_name": "Ana"})).json()
    client.cookies.clear()
    response = await client.post("/api/session", json={"token": created["token"]})
    assert response.status_code == 200
    assert "httponly" in response.headers["set-cookie"].lower()
    me = await client.get("/api/me")
    assert me.json()["id"] == created["player"]["id"]
    bad = await client.post("/api/session", json={"token": "nope"})
    assert bad.status_code == 401
    gone = await client.delete("/api/session")
    assert gone.status_code == 204
    client.cookies.clear()  # httpx honours the expiry lazily
    assert (await client.get("/api/me")).status_code == 401


async def test_cookie_settings_are_applied(settings: Settings) -> None:
    custom = settings.model_copy(
        update={"cookie_secure": True, "cookie_name": "rt", "cookie_samesite": "strict"}
    )
    application = create_app(custom)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as c:
            response = await c.post("/api/players", json={"display_name": "Ana"})
            cookie = response.headers["set-cookie"].lower()
            assert cookie.startswith("rt=")
            assert "secure" in cookie
            assert "samesite=strict" in cookie
            assert (await c.get("/api/me")).status_code == 200


async def test_sign_out_everywhere_revokes_every_copy_of_the_token(
    client: httpx.AsyncClient,
) -> None:
    created = await client.post("/api/players", json={"display_name": "Ana"})
    old = created.json()["token"]
    client.cookies.clear()
    other_device = {"Authorization": f"Bearer {old}"}  # the same token, on another device
    assert (await client.get("/api/me", headers=other_device)).status_code == 200
    revoked = await client.post("/api/session/revoke-all", headers=other_device)
    assert revoked.status_code == 200, revoked.text
    new = revoked.json()["token"]
    assert new != old
    assert revoked.headers["set-cookie"].startswith(f"remi_token={new};")
    client.cookies.clear()
    gone = await client.get("/api/me", headers=other_device)
    assert (gone.status_code, gone.json()["code"]) == (401, "invalid_token")
    reopened = await client.post("/api/session", json={"token": old})
    assert (reopened.status_code, reopened.json()["code"]) == (401, "invalid_token")
    client.cookies.clear()
    me = await client.get("/api/me", headers={"Authorization": f"Bearer {new}"})
    assert me.json()["id"] == created.json()["player"]["id"]
    assert (await client.post("/api/session/revoke-all")).status_code == 401
