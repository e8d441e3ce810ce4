"""Tournaments on both stores, without live rooms: each table's
match result is recorded by the test, with the totals it chooses. Registration takes the
fee, the stages seat the players and advance them by their standings, the final table's
standings share the pool, and every step is made once however often, and however
concurrently, it is tried; the ledger's sums hold throughout."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from server.accounts.identity import IdentityService, PlayerInfo
from server.economy.ledger import Economy
from server.economy.settlement import MatchFinish
from server.errors import ServerError
from server.rooms.lobby.service import NoRoomEvents, RoomView
from server.services import build_services
from server.settings import Settings, TournamentSeries
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate
from server.storage.models import (
    LedgerEntry,
    Room,
    Seat,
    Tournament,
    TournamentEntry,
    TournamentStage,
    TournamentTable,
)
from server.tournaments import store
from server.tournaments.runner import TournamentRunner
from server.tournaments.service import Tournaments

START = 1000
T0 = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)


@dataclass
class League:
    db: Database
    settings: Settings
    economy: Economy
    identity: IdentityService
    gamelog: GameLog
    tournaments: Tournaments
    players: list[PlayerInfo]


@pytest.fixture
async def league(settings: Settings) -> AsyncIterator[League]:
    db = Database(settings)
    await migrate(settings, db.engine)
    economy = Economy(db, settings)
    identity = IdentityService(db, economy=economy)
    players = [(await identity.create_player(f"P{i}"))[0] for i in range(17)]
    try:
        yield League(
            db, settings, economy, identity, GameLog(db), Tournaments(db, settings), players
        )
    finally:
        await db.dispose()


async def _open(lg: League, **spec: Any) -> str:
    series = TournamentSeries(**{"kind": "sitngo", "players": 8, "fee": 100, **spec})
    tid = await lg.tournaments.run(store.open_series, series, [50, 30, 20], T0)
    assert tid is not None
    return tid


async def _register(lg: League, tid: str, players: Sequence[PlayerInfo]) -> None:
    for p in players:
        await lg.tournaments.register(tid, p)


async def _sums_hold(lg: League) -> None:
    """Every balance is the sum of its ledger."""
    for p in lg.players:
        acc, sums = await lg.economy.account(p.id), await lg.economy.sums(p.id)
        assert acc.balance == sums.balance


async def _tournament(lg: League, tid: str) -> Any:
    async with lg.db.engine.connect() as conn:
        return (await conn.execute(select(Tournament.__table__).where(Tournament.id == tid))).one()


async def _tables(lg: League, tid: str, stage: int) -> list[tuple[str, list[str | None]]]:
    """The stage's tables: (room id, its seats' players)."""
    async with lg.db.transaction() as s:
        rooms = list(
            await s.scalars(
                select(TournamentTable.room_id)
                .where(TournamentTable.tournament_id == tid, TournamentTable.stage == stage)
                .order_by(TournamentTable.number)
            )
        )
        out = []
        for room_id in rooms:
            seats = await s.scalars(
                select(Seat.player_id).where(Seat.room_id == room_id).order_by(Seat.seat)
            )
            out.append((room_id, list(seats)))
    return out


async def _finish(lg: League, room_id: str, totals: list[int]) -> None:
    best = max(totals)
    winners = [i for i, t in enumerate(totals) if t == best]
    assert await lg.gamelog.record_match(MatchFinish(room_id, totals, winners, 1))


async def _advance(lg: League, tid: str) -> list[str]:
    return await lg.tournaments.run(store.advance, tid, T0) or []


async def test_registration_takes_the_fee_and_withdrawing_gives_it_back(league: League) -> None:
    lg = league
    tid = await _open(lg, players=4, fee=100)
    ana, bob = lg.players[0], lg.players[1]
    view = await lg.tournaments.register(tid, ana)
    assert (view.registered, view.you, view.pool) == (1, True, 100)
    await lg.tournaments.register(tid, ana)  # again: nothing more
    assert (await lg.economy.account(ana.id)).balance == START - 100
    await lg.tournaments.withdraw(tid, ana)
    await lg.tournaments.register(tid, ana)  # a second registration: a fee of its own
    await lg.tournaments.withdraw(tid, ana)
    assert (await lg.economy.account(ana.id)).balance == START
    reasons = [(e.reason, e.amount) for e in reversed(await lg.economy.ledger(ana.id))]
    assert reasons == [
        ("start", START),
        ("tournament_fee", -100),
        ("tournament_refund", 100),
        ("tournament_fee", -100),
        ("tournament_refund", 100),
    ]
    # a balance that does not cover the fee: nothing changes
    await lg.economy.buy_jokers(bob.id, 19, "spend")  # 19 x 50: 50 left
    with pytest.raises(ServerError) as err:
        await lg.tournaments.register(tid, bob)
    assert err.value.code.value == "insufficient_balance"
    assert (await _tournament(lg, tid)).registered == 0
    await _sums_hold(lg)


async def test_a_sit_and_go_is_full_at_its_size_and_closed_once_started(league: League) -> None:
    lg = league
    tid = await _open(lg, players=4, fee=10)
    # more players than places, all at once: exactly four get in
    results = await asyncio.gather(
        *(lg.tournaments.register(tid, p) for p in lg.players[:7]), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, ServerError)]
    assert len(refused) == 3 and {r.code.value for r in refused} == {"tournament_full"}
    t = await _tournament(lg, tid)
    assert t.registered == 4
    async with lg.db.engine.connect() as conn:
        paid = (
            await conn.execute(
                select(func.count())
                .select_from(LedgerEntry)
                .where(LedgerEntry.reason == "tournament_fee")
            )
        ).scalar()
    assert paid == 4
    rooms = await lg.tournaments.run(store.start, tid, T0, 2)
    assert rooms is not None and len(rooms) == 1  # four players: the final table at once
    with pytest.raises(ServerError) as err:
        await lg.tournaments.register(tid, lg.players[8])
    assert err.value.code.value == "registration_closed"
    async with lg.db.engine.connect() as conn:
        one = (
            (
                await conn.execute(
                    select(TournamentEntry.player_id).where(TournamentEntry.tournament_id == tid)
                )
            )
            .scalars()
            .first()
        )
    with pytest.raises(ServerError) as err:  # started: the fee stays in the pool
        await lg.tournaments.withdraw(tid, next(p for p in lg.players if p.id == one))
    assert err.value.code.value == "registration_closed"
    await _sums_hold(lg)


async def test_a_sit_and_go_of_8_advances_by_standings_and_pays_the_final_table(
    league: League,
) -> None:
    lg = league
    tid = await _open(lg, players=8, fee=100)
    await _register(lg, tid, lg.players[:8])
    assert await lg.tournaments.run(store.start, tid, T0, 2)
    assert await lg.tournaments.run(store.start, tid, T0, 2) == []  # started already
    t = await _tournament(lg, tid)
    assert (t.status, t.stage, t.pool) == ("running", 1, 800)
    first = await _tables(lg, tid, 1)
    assert len(first) == 2 and all(None not in seats for _, seats in first)
    assert sorted(p for _, seats in first for p in seats if p) == sorted(
        p.id for p in lg.players[:8]
    )
    # the stage goes on only once every table is over
    (r1, s1), (r2, s2) = first
    await _finish(lg, r1, [10, 40, -5, 40])  # seats 1 and 3 tie: seat 1 is the better seed
    assert await _advance(lg, tid) == []
    await _finish(lg, r2, [7, 0, 90, 3])
    final_rooms = await _advance(lg, tid)
    assert len(final_rooms) == 1
    assert await _advance(lg, tid) == []  # the final is being played
    ((rf, sf),) = await _tables(lg, tid, 2)
    # seeded: 1st places (by total), then 2nd places: s2[2] (90), s1[1] (40), s1[3], s2[0]
    assert sf == [s2[2], s1[1], s1[3], s2[0]]
    async with lg.db.engine.connect() as conn:
        outs = dict(
            (
                await conn.execute(
                    select(TournamentEntry.player_id, TournamentEntry.out_stage).where(
                        TournamentEntry.tournament_id == tid
                    )
                )
            ).all()
        )
    assert {p for p, stage in outs.items() if stage == 1} == {s1[0], s1[2], s2[1], s2[3]}
    # the final: 2nd and 3rd tie, sharing 30% + 20% of 800
    await _finish(lg, rf, [5, 60, 20, 20])
    assert await _advance(lg, tid) == []
    t = await _tournament(lg, tid)
    assert t.status == "finished"
    prizes = {p: (await lg.economy.account(p)).balance - (START - 100) for p in sf if p}
    assert prizes == {sf[1]: 400, sf[2]: 200, sf[3]: 200, sf[0]: 0}
    detail = await lg.tournaments.detail(tid, sf[1])
    assert [e.place for e in detail.entries][:4] == [1, 2, 2, 4]
    assert [len(st.tables) for st in detail.stage_list] == [2, 1]
    assert detail.stage_list[1].final and detail.stage_list[1].tables[0].status == "finished"
    assert [s.prize for s in detail.stage_list[1].tables[0].seats] == [0, 400, 200, 200]
    stage1 = detail.stage_list[0].tables[0].seats
    assert [s.advanced for s in stage1] == [False, True, False, True]
    # the fees went out as prizes: the tournament's ledger adds up to nothing
    async with lg.db.engine.connect() as conn:
        net = (
            await conn.execute(
                select(func.sum(LedgerEntry.amount)).where(
                    LedgerEntry.reason.in_(
                        ("tournament_fee", "tournament_refund", "tournament_prize")
                    )
                )
            )
        ).scalar()
        rounds = (
            await conn.execute(
                select(func.count()).select_from(LedgerEntry).where(LedgerEntry.reason == "round")
            )
        ).scalar()
    assert (net, rounds) == (0, 0)
    await _sums_hold(lg)


async def test_the_next_stage_and_the_prizes_are_made_once_under_concurrent_tries(
    league: League,
) -> None:
    lg = league
    tid = await _open(lg, players=8, fee=50)
    await _register(lg, tid, lg.players[:8])
    starts = await asyncio.gather(*(lg.tournaments.run(store.start, tid, T0, 2) for _ in range(5)))
    assert sorted(len(r or []) for r in starts) == [0, 0, 0, 0, 2]
    for room_id, _ in await _tables(lg, tid, 1):
        await _finish(lg, room_id, [1, 2, 3, 4])
    made = await asyncio.gather(*(_advance(lg, tid) for _ in range(6)))
    assert sorted(len(r) for r in made) == [0, 0, 0, 0, 0, 1]
    ((rf, sf),) = await _tables(lg, tid, 2)
    await _finish(lg, rf, [9, 3, 3, 1])
    # the payout tried by six servers at once, then again: paid once
    await asyncio.gather(*(_advance(lg, tid) for _ in range(6)))
    await _advance(lg, tid)
    async with lg.db.engine.connect() as conn:
        prizes = (
            await conn.execute(
                select(LedgerEntry.player_id, LedgerEntry.amount)
                .where(LedgerEntry.reason == "tournament_prize")
                .order_by(LedgerEntry.amount)
            )
        ).all()
        stages = (
            await conn.execute(
                select(func.count())
                .select_from(TournamentStage)
                .where(TournamentStage.tournament_id == tid)
            )
        ).scalar()
    assert stages == 2
    assert sorted(prizes) == sorted([(sf[0], 200), (sf[1], 100), (sf[2], 100)])
    await _sums_hold(lg)


async def test_a_scheduled_tournament_starts_at_its_time_with_bots_filling_tables(
    league: League,
) -> None:
    lg = league
    tid = await _open(lg, kind="scheduled", players=16, fee=20, at="18:00")
    t = await _tournament(lg, tid)
    assert t.starts_at == T0.replace(hour=18)
    # opened once whatever the retries
    spec = TournamentSeries(kind="scheduled", players=16, fee=20, at="18:00")
    assert await lg.tournaments.run(store.open_series, spec, [100], T0) is None
    await _register(lg, tid, lg.players[:5])
    assert await lg.tournaments.run(store.start, tid, T0, 2) == []  # not yet its time
    rooms = await lg.tournaments.run(store.start, tid, T0.replace(hour=18), 2)
    assert rooms is not None and len(rooms) == 2
    tables = await _tables(lg, tid, 1)
    assert [sum(p is not None for p in seats) for _, seats in tables] == [3, 2]
    async with lg.db.transaction() as s:
        bots = list(
            await s.scalars(
                select(Seat.bot_level).where(Seat.room_id.in_(rooms), Seat.player_id.is_(None))
            )
        )
        stored = await s.scalars(select(Room.settings).where(Room.id.in_(rooms)))
        kinds = {r["kind"] for r in stored}
        statuses = set(await s.scalars(select(Room.status).where(Room.id.in_(rooms))))
    assert bots == ["normal"] * 3 and kinds == {"tournament"} and statuses == {"playing"}
    # the next day's tournament of the series opens
    later = await lg.tournaments.run(store.open_series, spec, [100], T0.replace(hour=18))
    assert later is not None and (await _tournament(lg, later)).starts_at == T0.replace(
        hour=18
    ) + timedelta(days=1)


async def test_a_scheduled_tournament_with_too_few_players_is_cancelled_and_refunded(
    league: League,
) -> None:
    lg = league
    tid = await _open(lg, kind="scheduled", players=16, fee=20, at="18:00")
    await _register(lg, tid, lg.players[:1])
    assert await lg.tournaments.run(store.start, tid, T0.replace(hour=19), 2) == []
    t = await _tournament(lg, tid)
    assert (t.status, t.pool) == ("cancelled", 0)
    assert (await lg.economy.account(lg.players[0].id)).balance == START
    await _sums_hold(lg)


async def test_the_runner_moves_tournaments_on_by_its_clock(settings: Settings) -> None:
    """The server's task, with a clock the test sets: it opens the series once, starts
    the scheduled tournament when the clock reaches its time (opening the next day's),
    then pays the final table once its match is recorded."""
    series = [
        TournamentSeries(kind="scheduled", players=16, fee=20, at="18:00"),
        TournamentSeries(kind="sitngo", players=4, fee=10),
    ]
    settings = settings.model_copy(update={"tournament_series": series})
    services = build_services(settings)
    await migrate(settings, services.db.engine)
    now = [T0]
    runner = TournamentRunner(services, clock=lambda: now[0])
    try:
        await runner.tick()
        await runner.tick()
        listed = await services.tournaments.listing(["registering"], None)
        assert sorted(x.kind for x in listed) == ["scheduled", "sitngo"]
        daily = next(x for x in listed if x.kind == "scheduled")
        players = [(await services.identity.create_player(n))[0] for n in ("A", "B", "C")]
        for p in players:
            await services.tournaments.register(daily.id, p)
        now[0] = T0.replace(hour=17, minute=59)
        await runner.tick()
        assert (await services.tournaments.summary(daily.id, None)).status == "registering"
        now[0] = T0.replace(hour=18)
        await runner.tick()
        started = await services.tournaments.detail(daily.id, None)
        assert (started.status, started.pool, len(started.stage_list)) == ("running", 60, 1)
        table = started.stage_list[0].tables[0]
        assert [s.player is None for s in table.seats].count(True) == 1  # a bot fills it
        listed = await services.tournaments.listing(["registering"], None)
        assert sorted(x.starts_at for x in listed if x.starts_at) == [
            T0.replace(hour=18) + timedelta(days=1)
        ]
        await runner.tick()  # the final is being played: nothing to do
        seats = [s.player.id if s.player else None for s in table.seats]
        totals = [30 if p == players[1].id else 0 for p in seats]
        winners = [seats.index(players[1].id)]
        await services.gamelog.record_match(MatchFinish(table.room_id, totals, winners, 1))
        await runner.tick()
        await runner.tick()
        done = await services.tournaments.detail(daily.id, None)
        assert done.status == "finished"
        balances = [(await services.economy.account(p.id)).balance for p in players]
        # B won 50% of 60; A and C tie for the 2nd and 3rd places: 30% + 20%, shared
        assert balances == [START - 20 + 15, START - 20 + 30, START - 20 + 15]
    finally:
        await runner.stop()
        await services.db.dispose()


async def test_a_table_the_live_side_missed_is_told_again(settings: Settings) -> None:
    """The live side could not be told that a stage's table is playing (say it failed):
    the next tick tells it again, until it has been told."""
    settings = settings.model_copy(
        update={"tournament_series": [TournamentSeries(kind="sitngo", players=4, fee=0)]}
    )
    services = build_services(settings)
    await migrate(settings, services.db.engine)
    told: list[str] = []
    failing = [True]

    class Live(NoRoomEvents):
        async def room_started(self, room: RoomView) -> None:
            told.append(room.id)
            if failing[0]:
                raise OSError("the live side is away")

    services.rooms.events = Live()
    runner = TournamentRunner(services, clock=lambda: T0)
    try:
        await runner.tick()
        (sng,) = await services.tournaments.listing(["registering"], None)
        for n in "ABCD":
            player, _ = await services.identity.create_player(n)
            await services.tournaments.register(sng.id, player)
        await runner.tick()
        assert len(told) == 1
        await runner.tick()
        assert len(told) == 2 and told[0] == told[1]
        failing[0] = False
        await runner.tick()
        await runner.tick()
        assert len(told) == 3
    finally:
        await runner.stop()
        await services.db.dispose()


async def test_a_sit_and_go_of_16_goes_through_three_stages(league: League) -> None:
    """Random standings (seeded) at every table: 4 tables, 2, then the final; the pool
    is paid out whole to the finalists, and only to them."""
    rng = random.Random(19)
    lg = league
    tid = await _open(lg, players=16, fee=30)
    await _register(lg, tid, lg.players[:16])
    assert await lg.tournaments.run(store.start, tid, T0, 2)
    sizes = []
    for stage in (1, 2, 3):
        tables = await _tables(lg, tid, stage)
        sizes.append(len(tables))
        for room_id, _ in tables:
            await _finish(lg, room_id, [rng.randint(-50, 200) for _ in range(4)])
        await _advance(lg, tid)
    assert sizes == [4, 2, 1]
    t = await _tournament(lg, tid)
    assert (t.status, t.pool) == ("finished", 480)
    ((_, finalists),) = await _tables(lg, tid, 3)
    won = {p.id: (await lg.economy.account(p.id)).balance - (START - 30) for p in lg.players[:16]}
    assert sum(won.values()) == 480
    assert {p for p, w in won.items() if w} <= set(finalists)
    await _sums_hold(lg)


async def test_the_tournament_routes(client: httpx.AsyncClient, players: Any) -> None:
    """The server's own series are open at its start; a tournament that does not exist,
    and a registration without a player, are refused in words."""
    listed: list[dict[str, Any]] = []
    for _ in range(100):  # the task's first tick opens them
        listed = (await client.get("/api/tournaments")).json()["tournaments"]
        if len(listed) == 3:
            break
        await asyncio.sleep(0.05)
    assert sorted((x["kind"], x["players"], x["fee"]) for x in listed) == [
        ("scheduled", 16, 100),
        ("sitngo", 4, 50),
        ("sitngo", 8, 100),
    ]
    assert all(x["prizes"] == [50, 30, 20] and x["you"] is False for x in listed)
    missing = await client.get("/api/tournaments/nothere")
    assert (missing.status_code, missing.json()["code"]) == (404, "tournament_not_found")
    anonymous = await client.post(f"/api/tournaments/{listed[0]['id']}/register")
    assert anonymous.status_code == 401
    _, token = await players.create("Ana")
    mine = await client.post(
        f"/api/tournaments/{listed[0]['id']}/register", headers=players.auth(token)
    )
    assert mine.status_code == 200 and mine.json()["you"] is True
    again = await client.get(f"/api/tournaments/{listed[0]['id']}", headers=players.auth(token))
    assert again.json()["entries"][0]["player"]["display_name"] == "Ana"
    assert (await client.get("/api/tournaments?status=finished")).json() == {"tournaments": []}
