"""Limits at the HTTP edge: request bodies over
``REMI_MAX_BODY_BYTES`` are refused with 413 before they are read whole (eight 64 MB
POSTs took the server to 1 GB), and the requests that create something are
rate-limited per client address and per player with 429 and ``Retry-After``."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import base_settings
from fastapi import FastAPI
from wsharness import running_server

from server.app import create_app
from server.errors import Throttled
from server.limits import CreateLimits
from server.settings import Settings

LIMIT = 1024


@pytest.fixture
def make_client(tmp_path: Path) -> Callable[..., Any]:
    """An in-process client of an app with these settings, from this client address."""

    def make(address: str = "127.0.0.1", **overrides: Any) -> Any:
        return _Client(base_settings(data_dir=tmp_path, database_url="", **overrides), address)

    return make


class _Client:
    """The app of a test and an in-process HTTP client to it (async context manager)."""

    def __init__(self, settings: Any, address: str) -> None:
        self.app: FastAPI = create_app(settings)
        self.address = address

    async def __aenter__(self) -> httpx.AsyncClient:
        self._life = self.app.router.lifespan_context(self.app)
        await self._life.__aenter__()
        transport = httpx.ASGITransport(app=self.app, client=(self.address, 4000))
        self._http = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        return self._http

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()
        await self._life.__aexit__(*exc)


# --- request bodies ----------------------------------------------------------------


async def test_a_body_over_the_limit_by_content_length_is_413(make_client: Any) -> None:
    async with make_client(max_body_bytes=LIMIT) as http:
        body = '{"display_name": "' + "a" * LIMIT + '"}'
        response = await http.post(
            "/api/players", content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413, response.text
        assert response.json()["code"] == "body_too_large"
        # a body within the limit still works
        ok = await http.post("/api/players", json={"display_name": "Ana"})
        assert ok.status_code == 201, ok.text


async def test_a_chunked_body_over_the_limit_is_413_before_it_is_read_whole(
    make_client: Any,
) -> None:
    pulled = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal pulled
        yield b'{"display_name": "'
        for _ in range(10_000):  # 10 MB, in 1 KB chunks, with no Content-Length
            pulled += 1
            yield b"a" * 1024
        yield b'"}'

    async with make_client(max_body_bytes=LIMIT) as http:
        response = await http.post(
            "/api/players", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert "content-length" not in response.request.headers
        assert response.status_code == 413, response.text
        assert response.json()["code"] == "body_too_large"
        assert pulled <= 2, f"{pulled} KB were read of a body refused after {LIMIT} bytes"


async def test_a_64_mb_content_length_is_refused_by_the_real_server_unread(
    tmp_path: Path,
) -> None:
    settings = base_settings(data_dir=tmp_path, database_url="")
    async with running_server(settings) as srv:
        host, port = srv.base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 67108864\r\n\r\n" + b"a" * 4096
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 413"), head
        writer.close()


# --- creation rates ----------------------------------------------------------------


async def test_creating_players_is_limited_per_address_with_retry_after(
    make_client: Any,
) -> None:
    async with make_client(create_limit_per_address=3, create_limit_window_seconds=60) as http:
        for i in range(3):
            ok = await http.post("/api/players", json={"display_name": f"P{i}"})
            assert ok.status_code == 201, ok.text
        refused = await http.post("/api/players", json={"display_name": "P3"})
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "too_many_requests"
        # three per moving 60 s window: the next one once the first leaves the window
        assert 55 <= int(refused.headers["Retry-After"]) <= 60


async def test_another_address_has_its_own_budget(tmp_path: Path) -> None:
    settings = base_settings(data_dir=tmp_path, database_url="", create_limit_per_address=1)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        answers = []
        for address in ("10.0.0.1", "10.0.0.1", "10.0.0.2"):
            transport = httpx.ASGITransport(app=app, client=(address, 4000))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
                r = await http.post("/api/players", json={"display_name": "Ana"})
                answers.append(r.status_code)
        assert answers == [201, 429, 201]


async def test_creating_rooms_is_limited_per_player(make_client: Any) -> None:
    async with make_client(create_limit_per_identity=2, create_limit_per_address=100) as http:
        tokens = []
        for name in ("Ana", "Bob"):
            r = await http.post("/api/players", json={"display_name": name})
            tokens.append(r.json()["token"])
        http.cookies.clear()
        ana, bob = ({"Authorization": f"Bearer {t}"} for t in tokens)
        codes = [(await http.post("/api/rooms", json={}, headers=ana)).status_code for _ in "abc"]
        assert codes == [201, 201, 429]
        # the same address, another player: within its own limit
        assert (await http.post("/api/rooms", json={}, headers=bob)).status_code == 201
        refused = await http.post("/api/rooms", json={}, headers=ana)
        assert refused.json()["code"] == "too_many_requests"
        assert int(refused.headers["Retry-After"]) >= 1


async def test_creating_rooms_is_limited_per_address(make_client: Any) -> None:
    async with make_client(create_limit_per_identity=100, create_limit_per_address=2) as http:
        r = await http.post("/api/players", json={"display_name": "Ana"})
        ana = {"Authorization": f"Bearer {r.json()['token']}"}
        http.cookies.clear()
        codes = [(await http.post("/api/rooms", json={}, headers=ana)).status_code for _ in "abc"]
        assert codes == [201, 201, 429]


async def test_quick_start_is_limited_per_player_and_per_address(make_client: Any) -> None:
    """Quick start may open a room: it has buckets of its own, like room creation."""
    async with make_client(create_limit_per_identity=2, create_limit_per_address=5) as http:
        tokens = []
        for name in ("Ana", "Bob"):
            r = await http.post("/api/players", json={"display_name": name})
            tokens.append(r.json()["token"])
        http.cookies.clear()
        ana, bob = ({"Authorization": f"Bearer {t}"} for t in tokens)
        body = {"variant": "remi"}
        codes = [
            (await http.post("/api/quickstart", json=body, headers=ana)).status_code for _ in "abc"
        ]
        assert codes == [200, 200, 429]
        refused = await http.post("/api/quickstart", json=body, headers=ana)
        assert refused.json()["code"] == "too_many_requests"
        assert int(refused.headers["Retry-After"]) >= 1
        # Every request counted for the address (4 so far): another player of the same
        # address has its last one, then 429.
        assert (await http.post("/api/quickstart", json=body, headers=bob)).status_code == 200
        again = await http.post("/api/quickstart", json=body, headers=bob)
        assert again.status_code == 429 and "address" in again.json()["detail"]
        # Creating a room is another bucket: still allowed.
        assert (await http.post("/api/rooms", json={}, headers=ana)).status_code == 201


async def test_opening_sessions_is_limited_per_address_and_per_player(
    make_client: Any,
) -> None:
    async with make_client(create_limit_per_identity=2, create_limit_per_address=4) as http:
        r = await http.post("/api/players", json={"display_name": "Ana"})
        token = r.json()["token"]
        http.cookies.clear()
        codes = [
            (await http.post("/api/session", json={"token": token})).status_code for _ in "abc"
        ]
        assert codes == [200, 200, 429]  # the player's limit
        wrong = await http.post("/api/session", json={"token": "not-a-token"})
        assert wrong.status_code == 401  # the address's third
        guess = await http.post("/api/session", json={"token": "another-guess"})
        assert guess.status_code == 429  # guessing tokens is limited per address
        assert guess.headers["Retry-After"]


async def test_a_budget_comes_back_once_its_window_has_passed(make_client: Any) -> None:
    client = make_client(create_limit_per_address=2, create_limit_window_seconds=1)
    async with client as http:
        codes = [
            (await http.post("/api/players", json={"display_name": "A"})).status_code for _ in "abc"
        ]
        assert codes == [201, 201, 429]
        await asyncio.sleep(1.2)  # the moving window has passed both requests
        assert (await http.post("/api/players", json={"display_name": "A"})).status_code == 201


# --- across nodes, and invite codes ---------------------------------------------------


async def test_with_redis_the_limits_are_shared_by_the_nodes(redis_url: str) -> None:
    """Three nodes (three apps' limits, each with its own Redis connection) allow what
    one allows: two rooms per address and two sign-in tries per username in all."""
    settings = Settings(redis_url=redis_url, create_limit_per_address=2, login_limit_per_username=2)
    nodes = [CreateLimits(settings) for _ in range(3)]
    address = f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    username = f"user{secrets.token_hex(6)}"
    await nodes[0].per_address("room", address)
    await nodes[1].per_address("room", address)
    with pytest.raises(Throttled) as refused:
        await nodes[2].per_address("room", address)
    assert refused.value.retry_after >= 1
    await nodes[2].per_address("room", "10.0.0.250")  # another address: its own count
    await nodes[0].login(f"{address}-a", username)
    await nodes[1].login(f"{address}-b", username)
    with pytest.raises(Throttled):
        await nodes[2].login(f"{address}-c", username.upper())  # the same name, cased
    for node in nodes:
        await node.storage.reset()  # type: ignore[no-untyped-call]


async def test_wrong_invite_codes_are_limited_per_player_and_address(
    make_client: Any,
) -> None:
    """Join by code, a seat and a room read with a wrong code each count; past the
    player's limit every request with a code is 429, even with the right code; a request
    without a code is not limited."""
    client = make_client(code_limit_per_player=3, code_limit_per_address=5)
    async with client as http:
        owner = (await http.post("/api/players", json={"display_name": "Ana"})).json()["token"]
        guesser = (await http.post("/api/players", json={"display_name": "Bob"})).json()
        auth = {"Authorization": f"Bearer {guesser['token']}"}
        room = (
            await http.post(
                "/api/rooms",
                json={"seats": 3, "public": False},
                headers={"Authorization": f"Bearer {owner}"},
            )
        ).json()
        wrong = [
            await http.post("/api/rooms/join-by-code", json={"code": "wrong1"}, headers=auth),
            await http.post(
                f"/api/rooms/{room['id']}/seats/1", json={"code": "wrong2"}, headers=auth
            ),
            await http.get(f"/api/rooms/{room['id']}?code=wrong3", headers=auth),
        ]
        assert [r.status_code for r in wrong] == [404, 404, 404]
        right = await http.post(
            "/api/rooms/join-by-code", json={"code": room["invite_code"]}, headers=auth
        )
        assert right.status_code == 429 and right.headers["Retry-After"]
        assert right.json()["code"] == "too_many_requests"
        assert (await http.get("/api/rooms", headers=auth)).status_code == 200
        # The address's limit (5) holds for another player from it too.
        other = (await http.post("/api/players", json={"display_name": "Cip"})).json()
        auth2 = {"Authorization": f"Bearer {other['token']}"}
        codes = [
            (
                await http.post("/api/rooms/join-by-code", json={"code": f"w{i}"}, headers=auth2)
            ).status_code
            for i in range(3)
        ]
        assert codes == [404, 404, 429]
