"""The Arena on both stores: a stake per seat from the offered list,
taken from each balance into a pot when the match starts; the pot paid by the match's
standings in the transaction that records the result, once whoever retries it; a table
abandoned by every human paid by the standings of that moment; the ledger's sums hold."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from wsharness import FAST, play_until, running_server

from server.accounts.identity import IdentityService, PlayerInfo
from server.economy.ledger import Economy
from server.economy.settlement import MatchFinish
from server.errors import ServerError
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate
from server.storage.models import LedgerEntry

START = 1000
Players = Any  # the ``players`` fixture (tests/server/conftest.py)


@dataclass
class Table:
    db: Database
    economy: Economy
    rooms: RoomService
    gamelog: GameLog
    players: list[PlayerInfo]


@pytest.fixture
async def table(settings: Settings) -> AsyncIterator[Table]:
    settings = settings.model_copy(update={"arena_payout_4": [60, 30, 10]})
    db = Database(settings)
    await migrate(settings, db.engine)
    economy = Economy(db, settings)
    identity = IdentityService(db, economy=economy)
    players = [(await identity.create_player(n))[0] for n in ("Ana", "Bob", "Cip", "Dan")]
    try:
        yield Table(db, economy, RoomService(db, settings), GameLog(db), players)
    finally:
        await db.dispose()


async def _arena(t: Table, seats: int, stake: int = 100) -> str:
    room = await t.rooms.create_room(
        t.players[0], RoomSettings(variant="remi", seats=seats, kind="arena", stake=stake)
    )
    for i in range(1, seats):
        await t.rooms.take_seat(room.id, i, t.players[i])
    return room.id


async def _rows(t: Table, room_id: str) -> list[tuple[str, int, int | None]]:
    async with t.db.transaction() as s:
        rows = await s.execute(
            select(LedgerEntry.reason, LedgerEntry.amount, LedgerEntry.seat)
            .where(LedgerEntry.room_id == room_id)
            .order_by(LedgerEntry.id)
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]


async def _balances(t: Table) -> list[int]:
    return [(await t.economy.account(p.id)).balance for p in t.players]


async def _sums_hold(t: Table) -> None:
    for p in t.players:
        acc, sums = await t.economy.account(p.id), await t.economy.sums(p.id)
        assert acc.balance == sums.balance


async def test_the_stakes_go_into_the_pot_and_the_pot_to_the_standings(table: Table) -> None:
    t = table
    room = await _arena(t, 4)
    view = await t.rooms.get_room(room, t.players[0].id)
    assert (view.settings.stake, view.settings.payout, view.settings.min_balance) == (
        100,
        [60, 30, 10],
        100,
    )
    assert await _balances(t) == [START] * 4  # nothing taken before the start
    await t.rooms.start(room, t.players[0])
    assert await _balances(t) == [START - 100] * 4
    assert await _rows(t, room) == [("arena_stake", -100, s) for s in range(4)]
    # the match's standings (Cip first, Ana and Dan tied second): 240, 80 + 80 (30% + 10%)
    await asyncio.gather(
        *(t.gamelog.record_match(MatchFinish(room, [50, -20, 90, 50], [2], 3)) for _ in range(8))
    )
    assert await _balances(t) == [
        START - 100 + 80,
        START - 100,
        START - 100 + 240,
        START - 100 + 80,
    ]
    paid = [r for r in await _rows(t, room) if r[0] == "arena_pot"]
    assert sorted(paid, key=lambda r: r[2] or 0) == [
        ("arena_pot", 80, 0),
        ("arena_pot", 240, 2),
        ("arena_pot", 80, 3),
    ]
    await _sums_hold(t)


async def test_two_seats_winner_takes_the_pot_a_tie_shares_it(table: Table) -> None:
    t = table
    won, tied = await _arena(t, 2, 50), await _arena(t, 2, 10)
    await t.rooms.start(won, t.players[0])
    await t.rooms.start(tied, t.players[0])
    assert await t.gamelog.record_match(MatchFinish(won, [-10, 30], [1], 1))
    assert not await t.gamelog.record_match(MatchFinish(won, [30, -10], [0], 1))  # recorded once
    # abandoned at once: a tie
    assert await t.gamelog.record_match(MatchFinish(tied, [0, 0], [0, 1], 0))
    assert await _balances(t) == [START - 50, START + 50, START, START]
    await _sums_hold(t)


async def test_a_start_the_balance_no_longer_covers_takes_nothing(table: Table) -> None:
    t = table
    room = await _arena(t, 3, 500)
    await t.economy.buy_jokers(t.players[2].id, 11, "spend")  # 550: 450 left
    with pytest.raises(ServerError) as err:
        await t.rooms.start(room, t.players[0])
    assert err.value.code.value == "insufficient_balance"
    assert await _rows(t, room) == []
    assert (await t.rooms.get_room(room)).status == "waiting"
    await _sums_hold(t)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"kind": "arena", "stake": 77}, "the stake must be one of 10, 50, 100, 500"),
        ({"kind": "arena"}, "an arena table, and only one, has a stake"),
        ({"stake": 10}, "an arena table, and only one, has a stake"),
        ({"kind": "arena", "stake": 10, "fill_with_bots": True}, "no fill_with_bots"),
        ({"payout": [100]}, "only an arena table has a payout table"),
    ],
)
async def test_arena_settings_are_checked(
    client: httpx.AsyncClient, players: Players, body: dict[str, Any], message: str
) -> None:
    _, token = await players.create()
    response = await client.post("/api/rooms", json=body, headers=players.auth(token))
    assert response.status_code == 422, response.text
    assert message in response.text


async def test_arena_info_and_a_seat_needs_the_stake(
    client: httpx.AsyncClient, players: Players
) -> None:
    info = (await client.get("/api/arena")).json()
    assert info == {
        "stakes": [10, 50, 100, 500],
        "payouts": {"2": [100], "3": [100], "4": [70, 30]},
    }
    _, ana = await players.create("Ana")
    _, bob = await players.create("Bob")
    room = await client.post(
        "/api/rooms",
        headers=players.auth(ana),
        json={"kind": "arena", "stake": 500, "seats": 2, "payout": [1]},
    )
    assert room.status_code == 201, room.text
    assert room.json()["settings"]["payout"] == [100]  # the server's, whatever was sent
    rid = room.json()["id"]
    bought = await client.post(
        "/api/account/jokers", headers=players.auth(bob), json={"count": 11, "request_id": "spend"}
    )
    assert bought.status_code == 200, bought.text
    seat = await client.post(f"/api/rooms/{rid}/seats/1", headers=players.auth(bob))
    assert seat.status_code == 409 and seat.json()["code"] == "balance_too_low"


async def test_a_table_every_human_left_pays_by_the_standings_then(settings: Settings) -> None:
    """Both players play the first round, then leave: their seats stay theirs (bots play
    them) and the stakes in the pot; with no human left the match ends (abandoned) and
    the pot goes by the totals at that moment."""
    live = {**FAST, "empty_room_grace_seconds": 1.0, "reconnect_grace_seconds": 0.0}
    async with running_server(settings, live) as srv:
        ana_id, ana = await srv.player("Ana")
        bob_id, bob = await srv.player("Bob")
        room = await srv.room(
            ana,
            variant="remi",
            seats=2,
            kind="arena",
            stake=50,
            end={"kind": "rounds", "rounds": 50},
            turn_seconds=60,
        )
        await srv.sit(bob, room, 1)
        a, b = await srv.client(ana, room), await srv.client(bob, room)
        await a.hello()
        await b.hello()
        await srv.start(ana, room)

        def round_over() -> bool:
            return any(m["type"] == "event" and m["event"]["do"] == "round_over" for m in a.frames)

        await asyncio.gather(play_until(a, round_over), play_until(b, round_over))
        over = await a.wait(lambda m: m["type"] == "event" and m["event"]["do"] == "round_over")
        totals = over["event"]["totals"]
        for c in (a, b):
            await c.send({"type": "leave"})
        end = await a.wait(
            lambda m: m["type"] == "event" and m["event"]["do"] == "match_over", timeout=30
        )
        assert end["event"]["reason"] == "abandoned"
        final = end["event"]["totals"]  # the standings of that moment (the rounds over)
        assert len(totals) == 2
        balances = []
        for token in (ana, bob):
            r = await srv.http.get("/api/account", headers={"Authorization": f"Bearer {token}"})
            balances.append(r.json()["balance"])
        grant = srv.settings.daily_grant
        if final[0] == final[1]:
            assert balances == [START + grant, START + grant]
        else:
            best = 0 if final[0] > final[1] else 1
            expected = [START + grant - 50] * 2
            expected[best] += 100
            assert balances == expected
        sheet = await srv.scores(room)
        assert sheet["totals"] == final and sheet["finished"]
        await a.close()
        await b.close()
        assert ana_id != bob_id
