"""The balance ("cont") and joker credits, on both stores:
settlement exactly once per room, round and seat whatever the retries, the concurrency
and the crashes; the balance always the sum of its ledger; a joker credit spent once,
and refused without one."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import played
from sqlalchemy import func, select

import server.economy.settlement as settlement
import server.rooms.journal as journal_module
from server.accounts.identity import IdentityService, PlayerInfo
from server.economy.ledger import Economy, NoJokerCredit
from server.economy.settlement import JokerSpend, RoundFinish
from server.errors import ServerError
from server.rooms.journal import Journal
from server.rooms.lobby.options import ASKED_KINDS, RoomSettings
from server.rooms.lobby.service import RoomService
from server.rooms.match import joker_availability
from server.settings import Settings
from server.storage.database import Database
from server.storage.migrate import migrate
from server.storage.models import LedgerEntry, Player, Round

START = 1000


@dataclass
class Bank:
    db: Database
    settings: Settings
    economy: Economy
    identity: IdentityService
    rooms: RoomService
    players: list[PlayerInfo]


async def _bank(settings: Settings) -> Bank:
    db = Database(settings)
    await migrate(settings, db.engine)
    economy = Economy(db, settings)
    identity = IdentityService(db, economy=economy)
    players = [(await identity.create_player(n))[0] for n in ("Ana", "Bob", "Cip")]
    return Bank(db, settings, economy, identity, RoomService(db, settings), players)


@pytest.fixture
async def bank(settings: Settings) -> AsyncIterator[Bank]:
    b = await _bank(settings)
    try:
        yield b
    finally:
        await b.db.dispose()


async def _room(bank: Bank, kind: str = "normal", seated: int = 2, seats: int = 3) -> str:
    """A playing room of ``seats`` seats: the first ``seated`` players, bots after them."""
    owner = bank.players[0]
    arena = {"stake": 10, "fill_with_bots": False} if kind == "arena" else {}
    if arena:  # an arena table is played by players only, who all pay the stake
        seats = seated
    if kind == "practice":  # a practice room is private (server/rooms/lobby/options.py)
        arena = {"public": False}
    settings = RoomSettings.model_validate(
        {"variant": "remi101", "seats": seats, "fill_with_bots": True, "kind": kind, **arena}
    )
    if kind in ASKED_KINDS:
        room_id, code = (v := await bank.rooms.create_room(owner, settings)).id, v.invite_code
    else:  # quick start and tournament tables are made by the server itself
        async with bank.db.transaction() as session:
            made = await bank.rooms.new_room(session, owner.id, settings)
            room_id, code = made.id, made.invite_code
    for i in range(1, seated):
        await bank.rooms.take_seat(room_id, i, bank.players[i], code)
    await bank.rooms.start(room_id, owner)
    return room_id


async def _check_sums(bank: Bank) -> None:
    """Every player's balance and credits equal the sums of their ledger."""
    for p in bank.players:
        acc, sums = await bank.economy.account(p.id), await bank.economy.sums(p.id)
        assert (acc.balance, acc.joker_credits) == (sums.balance, sums.joker_credits)


async def _round_rows(bank: Bank, room_id: str) -> list[tuple[Any, ...]]:
    async with bank.db.transaction() as s:
        rows = await s.execute(
            select(
                LedgerEntry.player_id,
                LedgerEntry.round_number,
                LedgerEntry.seat,
                LedgerEntry.amount,
            )
            .where(LedgerEntry.room_id == room_id, LedgerEntry.reason == "round")
            .order_by(LedgerEntry.round_number, LedgerEntry.seat)
        )
        return [tuple(r) for r in rows]


async def test_a_new_player_has_the_starting_balance_in_its_ledger(bank: Bank) -> None:
    ana = bank.players[0]
    acc = await bank.economy.account(ana.id)
    assert (acc.balance, acc.joker_credits) == (START, bank.settings.starting_joker_credits)
    rows = await bank.economy.ledger(ana.id)
    assert [(r.reason, r.amount) for r in rows] == [("start", START)]
    assert await bank.economy.daily_grant(ana.id, "2030-01-01")
    assert not await bank.economy.daily_grant(ana.id, "2030-01-01")  # once a day
    grants = await asyncio.gather(
        *(bank.economy.daily_grant(ana.id, "2030-01-02") for _ in range(5))
    )
    assert grants.count(True) == 1
    acc = await bank.economy.account(ana.id)
    assert acc.balance == START + 2 * bank.settings.daily_grant
    await _check_sums(bank)


async def test_settlement_once_under_concurrent_retries(bank: Bank) -> None:
    room = await _room(bank)
    j = Journal(bank.db, writers=3, max_batch=4)
    j.start()
    try:
        rid = await j.begin_round(room, 1, "remi101", "s", 0, {})
        await played(bank.db, rid, [0, 1])
        scores = [-40, 101, -61]
        finish = RoundFinish(rid, {"r": 1}, scores)
        await asyncio.gather(*(j.finish_round(finish) for _ in range(12)))
        # and a journal of its own (another server taking over), after the others
        await Journal(bank.db).finish_round(RoundFinish(rid, {"r": 1}, scores))
    finally:
        await j.stop()
    ana, bob = bank.players[0].id, bank.players[1].id
    assert await _round_rows(bank, room) == [(ana, 1, 0, -40), (bob, 1, 1, 101)]  # bot: none
    assert (await bank.economy.account(ana)).balance == START - 40
    assert (await bank.economy.account(bob)).balance == START + 101
    await _check_sums(bank)


async def test_a_crash_before_the_commit_settles_nothing_then_once(
    bank: Bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settlement is in the round's transaction: a failure between the round's
    scores and the settlement (a crash) rolls both back; the restarted room's finish
    then settles once."""
    room = await _room(bank)
    rid = await Journal(bank.db).begin_round(room, 1, "remi101", "s", 0, {})
    await played(bank.db, rid, [0, 1])
    real = settlement.settle_round

    def crash(conn: Any, *args: Any) -> int:
        real(conn, *args)  # the rows are written ... and the process dies before commit
        raise OSError("the server died")

    monkeypatch.setattr(settlement, "settle_round", crash)
    with pytest.raises(OSError):
        await Journal(bank.db).finish_round(RoundFinish(rid, {"r": 1}, [5, 7, 9]))
    async with bank.db.transaction() as s:
        assert not (await s.scalar(select(Round.finished).where(Round.id == rid)))
    assert await _round_rows(bank, room) == []
    monkeypatch.setattr(settlement, "settle_round", real)
    j = Journal(bank.db)
    j.start()
    try:
        await asyncio.gather(
            j.finish_round(RoundFinish(rid, {"r": 1}, [5, 7, 9])),
            j.finish_round(RoundFinish(rid, {"r": 1}, [5, 7, 9])),
        )
    finally:
        await j.stop()
    assert [r[3] for r in await _round_rows(bank, room)] == [5, 7]
    await _check_sums(bank)


async def test_practice_and_arena_rooms_settle_nothing(bank: Bank) -> None:
    for kind in ("practice", "arena", "tournament"):
        room = await _room(bank, kind)
        j = Journal(bank.db)
        rid = await j.begin_round(room, 1, "remi101", "s", 0, {})
        await j.finish_round(RoundFinish(rid, {}, [10, 20, 30]))
        assert await _round_rows(bank, room) == []
    # only the arena's stake was taken (docs/tournaments.md): no round settled
    assert (await bank.economy.account(bank.players[0].id)).balance == START - 10


async def test_ledger_equals_balance_over_random_matches_and_restarts(
    settings: Settings,
) -> None:
    """Random matches of random kinds, each round finished by several journals at once
    (retries), the database reopened at random (restarts), purchases and joker spends
    between: every balance is the sum of its ledger and the expected one."""
    rng = random.Random(24)
    bank = await _bank(settings)
    expected = {p.id: START for p in bank.players}
    try:
        for match in range(4):
            kind = rng.choice(["normal", "quick", "practice"])
            seated = rng.randint(1, 3)
            room = await _room(bank, kind, seated)
            for number in range(1, rng.randint(2, 4)):
                scores = [rng.randint(-150, 250) for _ in range(3)]
                rid = await Journal(bank.db).begin_round(room, number, "remi101", "s", 0, {})
                await played(bank.db, rid, range(seated))
                journals = [Journal(bank.db) for _ in range(rng.randint(1, 3))]
                for j in journals:
                    j.start()
                finish = RoundFinish(rid, {}, scores)
                await asyncio.gather(*(j.finish_round(finish) for j in journals))
                for j in journals:
                    await j.stop()
                if kind != "practice":
                    for seat in range(seated):
                        expected[bank.players[seat].id] += scores[seat]
                if rng.random() < 0.4:  # a restart: a new connection pool, new services
                    await bank.db.dispose()
                    bank.db = Database(settings)
                    bank.economy = Economy(bank.db, settings)
                    bank.rooms = RoomService(bank.db, settings)
            buyer = rng.choice(bank.players)
            if (await bank.economy.account(buyer.id)).balance >= 50:
                await bank.economy.buy_jokers(buyer.id, 1, f"m{match}")
                await bank.economy.buy_jokers(buyer.id, 1, f"m{match}")  # a retry: once
                expected[buyer.id] -= settings.joker_credit_price
        for p in bank.players:
            assert (await bank.economy.account(p.id)).balance == expected[p.id]
        await _check_sums(bank)
    finally:
        await bank.db.dispose()


async def test_joker_credit_spent_once_and_refused_without_one(bank: Bank) -> None:
    room = await _room(bank)
    ana, bob = bank.players[0].id, bank.players[1].id
    async with bank.db.transaction() as s:  # Ana: 1 credit (the start); Bob: none
        await s.execute(Player.__table__.update().where(Player.id == bob).values(joker_credits=0))
        await s.execute(
            LedgerEntry.__table__.insert().values(
                player_id=bob,
                key=f"test:{bob}",
                reason="test",
                amount=0,
                credits=-1,
                created_at=func.now(),
            )
        )
    assert joker_availability([ana, bob, None], await bank.economy.credits_of([ana, bob])) == (
        1,
        0,
        1,
    )
    j = Journal(bank.db)
    j.start()
    try:
        rid = await j.begin_round(room, 1, "remi101", "s", 0, {})
        press = {"do": "joker_button"}
        with pytest.raises(NoJokerCredit):
            await j.append_action(rid, 1, 1, press, 1, "player", 2, JokerSpend(bob, room, 1, 1))
        await j.append_action(rid, 1, 0, press, 1, "player", 2, JokerSpend(ana, room, 1, 0))
        # a second room of Ana's pressing at once: the one credit is spent there already
        other = await _room(bank)
        rid2 = await j.begin_round(other, 1, "remi101", "s", 0, {})
        with pytest.raises(NoJokerCredit):
            await j.append_action(rid2, 1, 0, press, 1, "player", 2, JokerSpend(ana, other, 1, 0))
    finally:
        await j.stop()
    async with bank.db.transaction() as s:
        logged = await s.scalar(select(func.count()).select_from(journal_module._ACTIONS))
    assert logged == 1  # the refused presses were not logged
    spent = [e for e in await bank.economy.ledger(ana) if e.reason == "joker_spent"]
    assert [(e.credits, e.room_id, e.round_number, e.seat) for e in spent] == [(-1, room, 1, 0)]
    assert (await bank.economy.account(ana)).joker_credits == 0
    await _check_sums(bank)


async def test_buying_joker_credits(bank: Bank) -> None:
    ana = bank.players[0].id
    price = bank.settings.joker_credit_price
    acc = await bank.economy.buy_jokers(ana, 3, "r1")
    assert (acc.balance, acc.joker_credits) == (START - 3 * price, 1 + 3)
    with pytest.raises(ServerError) as err:
        await bank.economy.buy_jokers(ana, 100, "r2")
    assert err.value.code.value == "insufficient_balance"
    bought = [e for e in await bank.economy.ledger(ana) if e.reason == "joker_bought"]
    assert [(e.amount, e.credits) for e in bought] == [(-3 * price, 3)]
    await _check_sums(bank)


async def test_an_idle_seat_settles_its_losses_but_no_gains(bank: Bank) -> None:
    """A round in which a seat's player made no move of their own (a stand-in bot and
    timeouts played it) settles the seat's loss but not its gain, in the round's own
    transaction; a seat whose player moved settles its score."""
    room = await _room(bank, seated=3)
    ana, bob, cip = (p.id for p in bank.players)
    j = Journal(bank.db)
    rid = await j.begin_round(room, 1, "remi101", "s", 0, {})
    await played(bank.db, rid, [0])  # Ana played
    await played(bank.db, rid, [1, 2], source="bot")  # Bob and Cip were away ...
    await played(bank.db, rid, [1], source="timeout")  # ... or let their time run out
    await j.finish_round(RoundFinish(rid, {}, [-40, 120, -61]))
    assert await _round_rows(bank, room) == [(ana, 1, 0, -40), (bob, 1, 1, 0), (cip, 1, 2, -61)]
    # The next round Bob plays one move himself: his win counts.
    rid2 = await j.begin_round(room, 2, "remi101", "s", 0, {})
    await played(bank.db, rid2, [2], source="bot")
    await played(bank.db, rid2, [1])
    await j.finish_round(RoundFinish(rid2, {}, [-10, 80, 25]))
    assert (await _round_rows(bank, room))[3:] == [
        (ana, 2, 0, -10),
        (bob, 2, 1, 80),
        (cip, 2, 2, 0),
    ]
    assert (await bank.economy.account(bob)).balance == START + 80
    assert (await bank.economy.account(cip)).balance == START - 61
    await _check_sums(bank)
