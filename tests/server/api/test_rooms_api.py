"""Rooms over HTTP: validation, lobby, seats, private invites, start, scores, history."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from server.economy.settlement import MatchFinish
from server.rooms.lobby.service import NoRoomEvents
from server.services import Services

Players = Any  # the ``players`` fixture (tests/server/conftest.py)


def services_of(app: FastAPI) -> Services:
    services = app.state.services
    assert isinstance(services, Services)
    return services


async def create_room(client: httpx.AsyncClient, token: str, **settings: Any) -> dict[str, Any]:
    response = await client.post(
        "/api/rooms", json=settings, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


# --- validation --------------------------------------------------------------

INVALID: list[tuple[dict[str, Any], str, str]] = [
    ({"variant": "poker"}, "variant", "unknown variant 'poker'"),
    ({"seats": 1}, "seats", "greater than or equal to 2"),
    ({"seats": 5}, "seats", "less than or equal to 4"),
    ({"short_game": True}, "body", "short_game needs exactly 2 seats"),
    ({"short_game": True, "seats": 2, "variant": "remi101"}, "body", "short_game does not exist"),
    ({"end": {"kind": "rounds", "rounds": 0}}, "end.rounds", "greater than or equal to 1"),
    ({"end": {"kind": "target"}}, "end.points", "Field required"),
    ({"end": {"kind": "forever"}}, "end", "does not match any of the expected tags"),
    ({"turn_seconds": 45}, "turn_seconds", "Input should be 15, 30, 60 or 120"),
    ({"bot_level": "godlike"}, "bot_level", "Input should be"),
    ({"row_depth": 0}, "row_depth", "greater than or equal to 1"),
    ({"variant": "remi101", "row_depth": 3}, "body", "row_depth does not apply to remi101"),
    ({"variant": "remi", "joker_button": True}, "body", "joker_button does not exist in remi"),
    ({"colour": "red"}, "colour", "Extra inputs are not permitted"),
    ({"kind": "practice"}, "body", "a practice room is private"),
    ({"kind": "practice", "public": False, "min_balance": 10}, "body", "a practice room"),
]


@pytest.mark.parametrize(("body", "field", "message"), INVALID)
async def test_room_settings_are_validated(
    client: httpx.AsyncClient, players: Players, body: dict[str, Any], field: str, message: str
) -> None:
    _, token = await players.create()
    response = await client.post("/api/rooms", json=body, headers=players.auth(token))
    assert response.status_code == 422, response.text
    out = response.json()
    assert out["code"] == "invalid_request"
    fields = {e["field"]: e["message"] for e in out["errors"]}
    assert field in fields, out
    assert message in fields[field], out
    assert message in out["detail"]


async def test_valid_settings_round_trip(client: httpx.AsyncClient, players: Players) -> None:
    _, token = await players.create()
    cases = [
        {"variant": "remi", "seats": 2, "short_game": True, "row_depth": 3},
        {"variant": "etalat51", "end": {"kind": "rounds", "rounds": 5}, "turn_seconds": 15},
        {
            "variant": "remi101-rising",
            "joker_button": True,
            "end": {"kind": "target", "points": 1000},
        },
        {"variant": "remi45", "fill_with_bots": True, "bot_level": "hard", "seats": 3},
    ]
    for case in cases:
        room = await create_room(client, token, **case)
        for key, value in case.items():
            assert room["settings"][key] == value
    default = await create_room(client, token)
    assert default["settings"]["turn_seconds"] == 60  # the server's default
    assert default["settings"]["end"] == {"kind": "endless"}
    assert default["settings"]["row_depth"] is None


@pytest.mark.parametrize("kind", ["quick", "tournament", "league"])
async def test_only_the_server_makes_quick_and_tournament_rooms(
    client: httpx.AsyncClient, players: Players, kind: str
) -> None:
    _, token = await players.create()
    response = await client.post("/api/rooms", json={"kind": kind}, headers=players.auth(token))
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "invalid_request"


async def test_every_room_view_carries_the_kind_the_server_decided(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, token = await players.create()
    practice = await create_room(
        client, token, seats=2, public=False, fill_with_bots=True, kind="practice"
    )
    bots_only = await create_room(client, token, seats=2, public=False, fill_with_bots=True)
    public = await create_room(client, token)
    assert (practice["kind"], bots_only["kind"], public["kind"]) == ("practice", "normal", "normal")
    assert practice["settings"]["kind"] == "practice"
    await client.post(f"/api/rooms/{practice['id']}/start", headers=players.auth(token))
    await client.post(f"/api/rooms/{bots_only['id']}/start", headers=players.auth(token))
    mine = (await client.get("/api/players/me/rooms", headers=players.auth(token))).json()
    kinds = {r["id"]: r["kind"] for r in mine["rooms"]}
    assert kinds[practice["id"]] == "practice"
    assert kinds[bots_only["id"]] == "normal"  # a private room of bots settles: normal
    lobby = (await client.get("/api/rooms")).json()["rooms"]
    assert [r["kind"] for r in lobby if r["id"] == public["id"]] == ["normal"]
    got = (await client.get(f"/api/rooms/{practice['id']}", headers=players.auth(token))).json()
    assert got["kind"] == "practice"


async def test_create_room_needs_a_player(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/rooms", json={})
    assert response.status_code == 401


# --- lifecycle ---------------------------------------------------------------


async def test_create_list_seat_start(
    client: httpx.AsyncClient, players: Players, app: FastAPI
) -> None:
    owner_id, owner = await players.create("Owner")
    guest_id, guest = await players.create("Guest")
    room = await create_room(client, owner, variant="remi51", seats=3)
    assert room["status"] == "waiting"
    assert room["owner"] == {"id": owner_id, "display_name": "Owner"}
    assert room["your_seat"] == 0
    assert room["free_seats"] == 2
    assert room["invite_code"] is None
    assert [s["player"] for s in room["seats"]][1:] == [None, None]

    lobby = (await client.get("/api/rooms")).json()["rooms"]
    assert [r["id"] for r in lobby] == [room["id"]]

    seated = await client.post(f"/api/rooms/{room['id']}/seats/2", headers=players.auth(guest))
    assert seated.status_code == 200, seated.text
    view = seated.json()
    assert view["your_seat"] == 2
    assert view["seats"][2]["player"]["id"] == guest_id
    assert view["version"] > room["version"]

    taken = await client.post(f"/api/rooms/{room['id']}/seats/0", headers=players.auth(guest))
    assert taken.status_code == 409
    assert taken.json()["code"] == "seat_taken"

    moved = await client.post(f"/api/rooms/{room['id']}/seats/1", headers=players.auth(guest))
    assert moved.json()["your_seat"] == 1
    assert moved.json()["seats"][2]["player"] is None

    bad_seat = await client.post(f"/api/rooms/{room['id']}/seats/3", headers=players.auth(guest))
    assert bad_seat.status_code == 422
    assert bad_seat.json()["code"] == "invalid_seat"

    not_owner = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(guest))
    assert not_owner.status_code == 403
    assert not_owner.json()["code"] == "not_owner"

    empty = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(owner))
    assert empty.status_code == 409
    assert empty.json()["code"] == "seats_empty"
    assert "2" in empty.json()["detail"]

    _, third = await players.create("Third")
    await client.post(f"/api/rooms/{room['id']}/seats/2", headers=players.auth(third))
    started = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(owner))
    assert started.status_code == 200, started.text
    assert started.json()["status"] == "playing"
    assert started.json()["started_at"] is not None

    assert (await client.get("/api/rooms")).json()["rooms"] == []
    _, late = await players.create("Late")
    late_seat = await client.post(f"/api/rooms/{room['id']}/seats/2", headers=players.auth(late))
    assert late_seat.status_code == 409
    again = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(owner))
    assert again.json()["code"] == "room_not_waiting"

    assert await services_of(app).rooms.count_by_status() == {
        "waiting": 0,
        "playing": 1,
        "finished": 0,
    }


async def test_start_fills_empty_seats_with_bots(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, owner = await players.create()
    room = await create_room(client, owner, seats=4, fill_with_bots=True, bot_level="easy")
    started = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(owner))
    assert started.status_code == 200
    seats = started.json()["seats"]
    assert seats[0]["player"] is not None and seats[0]["bot_level"] is None
    assert [s["bot_level"] for s in seats[1:]] == ["easy", "easy", "easy"]


async def test_start_needs_a_human(client: httpx.AsyncClient, players: Players) -> None:
    _, owner = await players.create()
    room = await create_room(client, owner, fill_with_bots=True)
    left = await client.post(f"/api/rooms/{room['id']}/leave", headers=players.auth(owner))
    assert left.json()["your_seat"] is None
    response = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(owner))
    assert response.status_code == 409
    assert response.json()["code"] == "no_players"


async def test_unknown_room_is_404(client: httpx.AsyncClient, players: Players) -> None:
    _, token = await players.create()
    assert (await client.get("/api/rooms/nope")).status_code == 404
    response = await client.post("/api/rooms/nope/seats/0", headers=players.auth(token))
    assert response.status_code == 404
    assert response.json()["code"] == "room_not_found"
    assert (await client.get("/api/rooms/nope/scores")).status_code == 404


async def test_lobby_lists_only_public_waiting_rooms(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, token = await players.create()
    public = await create_room(client, token)
    await create_room(client, token, public=False)
    started = await create_room(client, token, seats=2, fill_with_bots=True)
    await client.post(f"/api/rooms/{started['id']}/start", headers=players.auth(token))
    newer = await create_room(client, token, variant="remi101")
    lobby = (await client.get("/api/rooms")).json()["rooms"]
    assert [r["id"] for r in lobby] == [newer["id"], public["id"]]
    assert all(r["invite_code"] is None for r in lobby)
    assert lobby[0]["free_seats"] == 3


async def test_the_lobby_lists_public_tables_being_played_to_watch(
    client: httpx.AsyncClient, players: Players
) -> None:
    """Issue 20 item 3: ``?status=playing`` lists the public tables a spectator may open;
    private ones and waiting ones are not listed."""
    _, token = await players.create()
    await create_room(client, token)  # waiting
    hidden = await create_room(client, token, seats=2, public=False, fill_with_bots=True)
    live = await create_room(client, token, seats=2, fill_with_bots=True)
    for room in (hidden, live):
        started = await client.post(f"/api/rooms/{room['id']}/start", headers=players.auth(token))
        assert started.status_code == 200, started.text
    playing = (await client.get("/api/rooms", params={"status": "playing"})).json()["rooms"]
    assert [(r["id"], r["status"]) for r in playing] == [(live["id"], "playing")]
    bad = await client.get("/api/rooms", params={"status": "finished"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"


async def test_your_rooms_lists_every_seat_held_playing_first(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, token = await players.create()
    _, other = await players.create()
    waiting = await create_room(client, token)
    practice = await create_room(client, token, seats=2, public=False, fill_with_bots=True)
    await client.post(f"/api/rooms/{practice['id']}/start", headers=players.auth(token))
    joined = await create_room(client, other, seats=3)
    await client.post(f"/api/rooms/{joined['id']}/seats/2", headers=players.auth(token))
    left = await create_room(client, token)
    await client.post(f"/api/rooms/{left['id']}/leave", headers=players.auth(token))
    await create_room(client, other)  # not his
    response = await client.get("/api/players/me/rooms", headers=players.auth(token))
    assert response.status_code == 200, response.text
    rooms = response.json()["rooms"]
    assert [r["id"] for r in rooms] == [practice["id"], joined["id"], waiting["id"]]
    assert [r["status"] for r in rooms] == ["playing", "waiting", "waiting"]
    assert [r["your_seat"] for r in rooms] == [0, 2, 0]
    assert rooms[0]["invite_code"]  # a member sees a private room's code
    assert (await client.get("/api/players/me/rooms")).status_code == 401


# --- private rooms -----------------------------------------------------------


async def test_private_room_invite_code(client: httpx.AsyncClient, players: Players) -> None:
    _, owner = await players.create("Owner")
    guest_id, guest = await players.create("Guest")
    room = await create_room(client, owner, public=False, seats=2)
    code = room["invite_code"]
    assert code is not None and len(code) >= 16  # 96 random bits

    # Outsiders can't see it, seat in it, or find it in the lobby.
    assert (await client.get(f"/api/rooms/{room['id']}")).status_code == 404
    hidden = await client.get(f"/api/rooms/{room['id']}", headers=players.auth(guest))
    assert hidden.status_code == 404
    no_code = await client.post(f"/api/rooms/{room['id']}/seats/1", headers=players.auth(guest))
    assert no_code.status_code == 404
    wrong = await client.post(
        "/api/rooms/join-by-code", json={"code": code + "x"}, headers=players.auth(guest)
    )
    assert wrong.status_code == 404
    assert wrong.json()["code"] == "invite_not_found"

    # The code lets them in; they then see the code too.
    peek = await client.get(f"/api/rooms/{room['id']}", params={"code": code})
    assert peek.status_code == 200
    assert peek.json()["invite_code"] is None
    joined = await client.post(
        "/api/rooms/join-by-code", json={"code": code}, headers=players.auth(guest)
    )
    assert joined.status_code == 200, joined.text
    assert joined.json()["id"] == room["id"]
    assert joined.json()["your_seat"] == 1
    assert joined.json()["invite_code"] == code
    # Joining again changes nothing.
    again = await client.post(
        "/api/rooms/join-by-code", json={"code": code}, headers=players.auth(guest)
    )
    assert again.json()["your_seat"] == 1
    assert again.json()["version"] == joined.json()["version"]
    # Full.
    _, third = await players.create("Third")
    full = await client.post(
        "/api/rooms/join-by-code", json={"code": code}, headers=players.auth(third)
    )
    assert full.status_code == 409
    assert full.json()["code"] == "room_full"
    seen = await client.get(f"/api/rooms/{room['id']}", headers=players.auth(guest))
    assert seen.json()["seats"][1]["player"]["id"] == guest_id


async def test_private_room_seat_with_code(client: httpx.AsyncClient, players: Players) -> None:
    _, owner = await players.create()
    _, guest = await players.create()
    room = await create_room(client, owner, public=False, seats=3)
    response = await client.post(
        f"/api/rooms/{room['id']}/seats/2",
        json={"code": room["invite_code"]},
        headers=players.auth(guest),
    )
    assert response.status_code == 200
    assert response.json()["your_seat"] == 2


async def test_invite_codes_differ(client: httpx.AsyncClient, players: Players) -> None:
    _, owner = await players.create()
    codes = {(await create_room(client, owner, public=False))["invite_code"] for _ in range(4)}
    assert len(codes) == 4


# --- scores and history ------------------------------------------------------


async def test_score_sheet_and_history(
    client: httpx.AsyncClient, players: Players, app: FastAPI
) -> None:
    owner_id, owner = await players.create("Owner")
    guest_id, guest = await players.create("Guest")
    room = await create_room(client, owner, seats=3, fill_with_bots=True, variant="remi101")
    room_id = room["id"]
    await client.post(f"/api/rooms/{room_id}/seats/1", headers=players.auth(guest))
    # This test writes the game log by hand: no room actor may deal round 1.
    services_of(app).rooms.events = NoRoomEvents()
    await client.post(f"/api/rooms/{room_id}/start", headers=players.auth(owner))

    empty = (await client.get(f"/api/rooms/{room_id}/scores")).json()
    assert empty["rounds"] == []
    assert empty["totals"] == [0, 0, 0]
    assert empty["finished"] is False
    assert empty["winners"] is None

    log = services_of(app).gamelog
    r1 = await log.begin_round(room_id, 1, "remi101", "seed-1", 0, {"joker_button": False})
    await log.finish_round(r1, {"winner": 0}, [101, -30, -202])
    r2 = await log.begin_round(room_id, 2, "remi101", "seed-2", 1, {"joker_button": False})
    await log.finish_round(r2, {"winner": 1}, [-12, 101, -5])

    sheet = (await client.get(f"/api/rooms/{room_id}/scores")).json()
    assert sheet["rounds"] == [
        {"number": 1, "scores": [101, -30, -202]},
        {"number": 2, "scores": [-12, 101, -5]},
    ]
    assert sheet["totals"] == [89, 71, -207]
    assert [s["player"]["id"] if s["player"] else None for s in sheet["seats"]] == [
        owner_id,
        guest_id,
        None,
    ]
    assert sheet["seats"][2]["bot_level"] == "normal"

    assert await log.record_match(MatchFinish(room_id, [89, 71, -207], [0], rounds_played=2))
    assert not await log.record_match(MatchFinish(room_id, [1, 2, 3], [2], rounds_played=9))

    final = (await client.get(f"/api/rooms/{room_id}/scores")).json()
    assert final["finished"] is True
    assert final["status"] == "finished"
    assert final["winners"] == [0]
    assert final["totals"] == [89, 71, -207]

    history = await client.get(f"/api/players/{guest_id}/matches")
    assert history.status_code == 200
    matches = history.json()["matches"]
    assert len(matches) == 1
    match = matches[0]
    assert match["room_id"] == room_id
    assert match["variant"] == "remi101"
    assert match["seat"] == 1
    assert match["won"] is False
    assert match["totals"] == [89, 71, -207]
    assert match["rounds_played"] == 2
    owner_history = (await client.get(f"/api/players/{owner_id}/matches")).json()["matches"]
    assert owner_history[0]["won"] is True
    assert (await client.get("/api/players/nobody/matches")).status_code == 404


async def test_private_scores_need_membership(client: httpx.AsyncClient, players: Players) -> None:
    _, owner = await players.create()
    room = await create_room(client, owner, public=False)
    assert (await client.get(f"/api/rooms/{room['id']}/scores")).status_code == 404
    mine = await client.get(f"/api/rooms/{room['id']}/scores", headers=players.auth(owner))
    assert mine.status_code == 200
    with_code = await client.get(
        f"/api/rooms/{room['id']}/scores", params={"code": room["invite_code"]}
    )
    assert with_code.status_code == 200


# --- invite links and playing again ------------------------------------------------


async def test_an_invite_names_the_variant_and_host_only(
    client: httpx.AsyncClient, players: Players
) -> None:
    _, owner = await players.create("Ana")
    room = await create_room(client, owner, public=False, seats=3, variant="remi101")
    seen = await client.get(f"/api/rooms/invite/{room['invite_code']}")  # nobody signed in
    assert seen.status_code == 200, seen.text
    assert seen.json() == {"variant": "remi101", "host": "Ana"}  # nothing else
    wrong = await client.get(f"/api/rooms/invite/{room['invite_code']}x")
    assert wrong.status_code == 404
    assert wrong.json()["code"] == "invite_not_found"
    bad = await client.get("/api/rooms/invite/no%20spaces")
    assert bad.status_code == 422


async def test_play_again_makes_one_room_and_invites_the_same_players(
    client: httpx.AsyncClient, players: Players, app: FastAPI
) -> None:
    ana_id, ana = await players.create("Ana")
    bob_id, bob = await players.create("Bob")
    _, eve = await players.create("Eve")
    settings = {
        "variant": "remi45",
        "seats": 3,
        "end": {"kind": "rounds", "rounds": 2},
        "turn_seconds": 30,
        "fill_with_bots": True,
        "bot_level": "hard",
    }
    room = await create_room(client, ana, **settings)
    room_id = room["id"]
    await client.post(f"/api/rooms/{room_id}/seats/1", headers=players.auth(bob))
    services_of(app).rooms.events = NoRoomEvents()  # no actor deals: the log is written here
    await client.post(f"/api/rooms/{room_id}/start", headers=players.auth(ana))

    early = await client.post(f"/api/rooms/{room_id}/again", headers=players.auth(bob))
    assert early.status_code == 409
    assert early.json()["code"] == "match_not_over"
    log = services_of(app).gamelog
    assert await log.record_match(MatchFinish(room_id, [10, -5, -5], [0], rounds_played=2))
    assert (await client.get(f"/api/rooms/{room_id}", headers=players.auth(ana))).json()[
        "next_room"
    ] is None

    # Bob asks first: a private room with the same settings, his.
    first = await client.post(f"/api/rooms/{room_id}/again", headers=players.auth(bob))
    assert first.status_code == 200, first.text
    new = first.json()
    assert new["id"] != room_id and new["status"] == "waiting"
    assert new["owner"]["id"] == bob_id and new["your_seat"] == 0
    assert new["settings"] == {**room["settings"], "public": False}
    assert new["invite_code"]
    # Ana (a player of the match) sees it; Eve (not one) neither sees it nor gets a seat.
    told = (await client.get(f"/api/rooms/{room_id}", headers=players.auth(ana))).json()
    assert told["next_room"] == new["id"]
    assert (await client.get(f"/api/rooms/{room_id}")).json()["next_room"] is None
    outsider = await client.post(f"/api/rooms/{room_id}/again", headers=players.auth(eve))
    assert outsider.status_code == 403
    assert outsider.json()["code"] == "not_seated"
    # Ana's own press seats her in that room, not in another one; again changes nothing.
    joined = await client.post(f"/api/rooms/{room_id}/again", headers=players.auth(ana))
    assert joined.status_code == 200, joined.text
    assert joined.json()["id"] == new["id"] and joined.json()["your_seat"] == 1
    twice = await client.post(f"/api/rooms/{room_id}/again", headers=players.auth(ana))
    assert twice.json()["your_seat"] == 1 and twice.json()["version"] == joined.json()["version"]
    seated = [s["player"]["id"] if s["player"] else None for s in joined.json()["seats"]]
    assert seated == [bob_id, ana_id, None]


async def test_a_quick_table_is_played_again_as_a_normal_room(
    client: httpx.AsyncClient, players: Players, app: FastAPI
) -> None:
    _, ana = await players.create("Ana")
    pressed = await client.post(
        "/api/quickstart", json={"variant": "remi"}, headers=players.auth(ana)
    )
    room_id = pressed.json()["id"]
    services_of(app).rooms.events = NoRoomEvents()
    log = services_of(app).gamelog
    assert await log.record_match(MatchFinish(room_id, [0, 0, 0, 0], [0], rounds_played=1))
    again = await client.post(f"/api/rooms/{room_id}/again", headers=players.auth(ana))
    assert again.status_code == 200, again.text
    assert again.json()["settings"]["kind"] == "normal"
    assert again.json()["settings"]["public"] is False
    assert again.json()["starts_in"] is None  # its owner starts it
