"""Leaderboards, profiles and match history over HTTP, on both
stores: keyset pages that neither repeat nor skip a row; a profile's figures from the
rounds and matches played; a private room's match listed only to its players."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from conftest import Players, played
from fastapi import FastAPI
from openskill.models import PlackettLuce

from server.economy.ledger import change
from server.economy.settlement import MatchFinish
from server.rooms.lobby.service import NoRoomEvents
from server.services import Services
from server.storage.models import Rating, utcnow


def services_of(app: FastAPI) -> Services:
    services = app.state.services
    assert isinstance(services, Services)
    return services


async def _all_pages(client: httpx.AsyncClient, url: str, key: str, limit: int) -> list[Any]:
    """Every row of a paginated list, page by page; each page at most ``limit`` rows."""
    rows: list[Any] = []
    cursor = None
    for _ in range(50):
        params: dict[str, Any] = {"limit": limit}
        if cursor:
            params["cursor"] = cursor
        page = await client.get(url, params=params)
        assert page.status_code == 200, page.text
        body = page.json()
        assert len(body[key]) <= limit
        rows += body[key]
        cursor = body["next_cursor"]
        if cursor is None:
            return rows
    raise AssertionError("the pages never end")


async def test_rating_leaderboard_pages(
    app: FastAPI, client: httpx.AsyncClient, players: Players
) -> None:
    services = services_of(app)
    ids = [(await players.create(f"P{i}"))[0] for i in range(7)]
    ratings = [3.5, 1.0, 3.5, -2.0, 7.25, 1.0, 0.0]  # two ties
    async with services.db.transaction() as session:
        for pid, r in zip(ids, ratings, strict=True):
            session.add(
                Rating(
                    player_id=pid,
                    variant="remi",
                    mu=r + 3,
                    sigma=1.0,
                    rating=r,
                    matches=1,
                    updated_at=utcnow(),
                )
            )
        session.add(
            Rating(
                player_id=ids[0],
                variant="remi101",
                mu=9,
                sigma=1,
                rating=6,
                matches=1,
                updated_at=utcnow(),
            )
        )
    rows = await _all_pages(client, "/api/leaderboards/rating/remi", "rows", 3)
    expected = sorted(zip(ratings, ids, strict=True), key=lambda t: (-t[0], t[1]))
    assert [(r["rating"], r["player_id"]) for r in rows] == expected
    assert [r["place"] for r in rows] == list(range(1, 8))
    assert rows[0]["display_name"] == "P4" and rows[0]["matches"] == 1
    other = (await client.get("/api/leaderboards/rating/remi101")).json()
    assert [r["player_id"] for r in other["rows"]] == [ids[0]] and other["next_cursor"] is None
    assert (await client.get("/api/leaderboards/rating/chess")).status_code == 422
    bad = await client.get("/api/leaderboards/rating/remi", params={"cursor": "not-a-cursor"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"


async def test_balance_leaderboard_pages_over_players_who_played(
    app: FastAPI, client: httpx.AsyncClient, players: Players
) -> None:
    services = services_of(app)
    ids = [(await players.create(f"P{i}"))[0] for i in range(6)]
    results = [120, -40, 0, 120, 75]  # the sixth player never played: not listed

    def settle(conn: Any) -> None:
        for n, (pid, amount) in enumerate(zip(ids, results, strict=False)):
            change(conn, pid, f"round:test:{n}", "round", amount=amount)

    async with services.db.engine.begin() as conn:
        await conn.run_sync(settle)
    rows = await _all_pages(client, "/api/leaderboards/balance", "rows", 2)
    start = services.settings.starting_balance
    expected = sorted(
        ((start + a, pid) for pid, a in zip(ids, results, strict=False)),
        key=lambda t: (-t[0], t[1]),
    )
    assert [(r["balance"], r["player_id"]) for r in rows] == expected
    assert [r["place"] for r in rows] == [1, 2, 3, 4, 5]


async def _played(
    app: FastAPI,
    client: httpx.AsyncClient,
    tokens: Sequence[str],
    rounds: Sequence[tuple[list[int], int | None, list[bool]]],
    **settings: Any,
) -> str:
    """A room of the players (bots in the seats left), these rounds (scores, the seat
    that went out, who opened), its match recorded."""
    services = services_of(app)
    services.rooms.events = NoRoomEvents()  # the game log is written here, not by an actor
    body = {"variant": "remi", "seats": 3, "fill_with_bots": True, **settings}
    if body.get("kind") == "practice":  # a practice room is private (server/rooms/lobby/options.py)
        body["public"] = False
    made = await client.post("/api/rooms", json=body, headers=Players.auth(tokens[0]))
    assert made.status_code == 201, made.text
    room = made.json()
    for i, token in enumerate(tokens[1:], start=1):
        taken = await client.post(
            f"/api/rooms/{room['id']}/seats/{i}",
            json={"code": room.get("invite_code")},
            headers=Players.auth(token),
        )
        assert taken.status_code == 200, taken.text
    started = await client.post(f"/api/rooms/{room['id']}/start", headers=Players.auth(tokens[0]))
    assert started.status_code == 200, started.text
    log = services.gamelog
    totals = [0] * body["seats"]
    for n, (scores, out, opened) in enumerate(rounds, start=1):
        rid = await log.begin_round(room["id"], n, body["variant"], f"s{n}", 0, {})
        await played(services.db, rid, range(len(tokens)))  # each player's own moves
        breakdown = [{"seat": i, "opened": o} for i, o in enumerate(opened)]
        await log.finish_round(rid, {"out": out, "scores": scores, "breakdown": breakdown}, scores)
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
    winners = [i for i, t in enumerate(totals) if t == max(totals)]
    assert await log.record_match(MatchFinish(room["id"], totals, winners, len(rounds)))
    return str(room["id"])


async def test_profile_figures(app: FastAPI, client: httpx.AsyncClient, players: Players) -> None:
    ana, ta = await players.create("Ana")
    bob, tb = await players.create("Bob")
    await _played(
        app,
        client,
        [ta, tb],
        [
            ([60, -10, -100], 0, [True, True, False]),
            ([-20, 80, 5], 1, [True, True, True]),
        ],
    )  # Ana 40, Bob 70: Bob wins
    await _played(app, client, [ta], [([90, -5, -30], 0, [True, False, True])])  # Ana wins
    await _played(
        app, client, [ta, tb], [([999, 0, 0], 0, [True, True, True])], kind="practice", public=False
    )  # practice: not counted
    profile = (await client.get(f"/api/players/{ana}/profile")).json()
    assert profile["display_name"] == "Ana"
    [remi] = profile["variants"]
    assert remi["variant"] == "remi"
    assert (remi["matches"], remi["wins"], remi["rounds"]) == (2, 1, 3)
    assert remi["average_round_score"] == pytest.approx((60 - 20 + 90) / 3)
    assert remi["opening_rate"] == pytest.approx(1.0)
    assert remi["going_out_rate"] == pytest.approx(2 / 3)
    assert remi["rated_matches"] == 2 and len(profile["history"]) == 2
    assert profile["history"][0]["rating"] == pytest.approx(remi["rating"])  # newest first
    assert profile["history"][1]["rank"] == 2  # the first match: second to Bob
    bob_profile = (await client.get(f"/api/players/{bob}/profile")).json()
    [b] = bob_profile["variants"]
    assert (b["matches"], b["wins"], b["rounds"]) == (1, 1, 2)
    assert b["opening_rate"] == pytest.approx(1.0) and b["going_out_rate"] == pytest.approx(0.5)
    m = PlackettLuce()
    normal_bot = m.rating(mu=25.0, sigma=25.0 / 3.0)
    [[_], [bob_after], [_]] = m.rate([[m.rating()], [m.rating()], [normal_bot]], ranks=[2, 1, 3])
    assert b["rating"] == pytest.approx(bob_after.ordinal())
    assert (await client.get("/api/players/nobody/profile")).status_code == 404


async def test_history_pages_and_private_matches(
    app: FastAPI, client: httpx.AsyncClient, players: Players
) -> None:
    ana, ta = await players.create("Ana")
    bob, tb = await players.create("Bob")
    _, tc = await players.create("Cip")
    public = [await _played(app, client, [ta], [([n, 0, 0], 0, [True] * 3)]) for n in range(5)]
    private = await _played(app, client, [ta, tb], [([1, 0, 0], 0, [True] * 3)], public=False)

    url = f"/api/players/{ana}/matches"
    anyone = await _all_pages(client, url, "matches", 2)
    assert [m["room_id"] for m in anyone] == [*reversed(public)]  # newest first, no private

    async def as_player(token: str) -> list[str]:
        client.headers["Authorization"] = f"Bearer {token}"
        try:
            return [m["room_id"] for m in await _all_pages(client, url, "matches", 2)]
        finally:
            del client.headers["Authorization"]

    assert await as_player(ta) == [private, *reversed(public)]
    assert await as_player(tb) == [private, *reversed(public)]  # Bob played it too
    assert await as_player(tc) == [*reversed(public)]
    bob_history = (await client.get(f"/api/players/{bob}/matches")).json()
    assert bob_history["matches"] == [] and bob_history["next_cursor"] is None
    profile = (await client.get(f"/api/players/{ana}/profile")).json()
    assert profile["history"][0]["room_id"] is None  # a private match, to a stranger
    assert {h["room_id"] for h in profile["history"][1:]} == set(public)
    client.headers["Authorization"] = f"Bearer {tb}"
    mine = (await client.get(f"/api/players/{ana}/profile")).json()
    del client.headers["Authorization"]
    assert mine["history"][0]["room_id"] == private
