"""The durable game log on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from server.accounts.identity import IdentityService, PlayerInfo
from server.economy.settlement import MatchFinish
from server.errors import ServerError
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import DuplicateAction, GameLog, TurnClock
from server.storage.migrate import migrate


@dataclass
class Env:
    db: Database
    identity: IdentityService
    rooms: RoomService
    log: GameLog


@pytest.fixture
async def env(settings: Settings) -> AsyncIterator[Env]:
    db = Database(settings)
    await migrate(settings, db.engine)
    try:
        yield Env(db, IdentityService(db), RoomService(db, settings), GameLog(db))
    finally:
        await db.dispose()


async def _playing_room(env: Env, seats: int = 2) -> tuple[str, PlayerInfo]:
    owner, _ = await env.identity.create_player("Owner")
    room = await env.rooms.create_room(
        owner, RoomSettings(seats=seats, fill_with_bots=True, variant="remi")
    )
    await env.rooms.start(room.id, owner)
    return room.id, owner


async def test_action_log_round_trip(env: Env) -> None:
    room_id, _ = await _playing_room(env)
    assert await env.log.unfinished_rooms() == [room_id]
    rid = await env.log.begin_round(room_id, 1, "remi", "12345678901234567890", 0, {"a": 1})
    await env.log.append_action(rid, 1, 0, {"do": "discard", "tile": 7}, client_seq=1)
    await env.log.append_action(rid, 2, 1, {"do": "draw"}, source="bot")
    with pytest.raises(DuplicateAction):
        await env.log.append_action(rid, 2, 1, {"do": "draw"}, source="bot")
    await env.log.set_rack(room_id, 0, {"slots": [7, None, 3]})

    record = await env.log.load(room_id)
    assert record.status == "playing"
    current = record.current_round
    assert current is not None and current.id == rid
    assert current.seed == "12345678901234567890"
    assert current.options == {"a": 1}
    assert [(a.seq, a.seat, a.action, a.client_seq, a.source) for a in current.actions] == [
        (1, 0, {"do": "discard", "tile": 7}, 1, "player"),
        (2, 1, {"do": "draw"}, None, "bot"),
    ]
    assert current.actions[0].created_at.tzinfo is not None
    assert record.seats[0].rack == {"slots": [7, None, 3]}
    assert record.seats[1].bot_level == "normal"
    assert record.totals == [0, 0]


async def test_rounds_scores_and_exactly_once_match(env: Env) -> None:
    room_id, _ = await _playing_room(env, seats=3)
    r1 = await env.log.begin_round(room_id, 1, "remi", "s1", 0, {})
    await env.log.finish_round(r1, {"out": 0}, [150, -20, -100])
    await env.log.finish_round(r1, {"out": 0}, [150, -20, -100])  # idempotent
    r2 = await env.log.begin_round(room_id, 2, "remi", "s2", 1, {})
    record = await env.log.load(room_id)
    assert record.totals == [150, -20, -100]
    assert record.current_round is not None and record.current_round.id == r2
    assert record.rounds[0].finished and record.rounds[0].result == {"out": 0}
    await env.log.finish_round(r2, {"out": 1}, [0, 50, 0])

    results = await asyncio.gather(
        *(env.log.record_match(MatchFinish(room_id, [150, 30, -100], [0], 2)) for _ in range(4))
    )
    assert sorted(results) == [False, False, False, True]
    assert await env.log.unfinished_rooms() == []
    sheet = await env.rooms.score_sheet(room_id)
    assert sheet.finished and sheet.totals == [150, 30, -100] and sheet.winners == [0]
    assert [line.scores for line in sheet.rounds] == [[150, -20, -100], [0, 50, 0]]


async def test_round_number_is_unique(env: Env) -> None:
    room_id, _ = await _playing_room(env)
    await env.log.begin_round(room_id, 1, "remi", "s", 0, {})
    with pytest.raises(Exception):  # noqa: B017 - IntegrityError from either driver
        await env.log.begin_round(room_id, 1, "remi", "s", 0, {})


async def test_version_only_rises(env: Env) -> None:
    room_id, _ = await _playing_room(env)
    before = (await env.log.load(room_id)).version
    await env.log.set_version(room_id, before + 10)
    await env.log.set_version(room_id, before + 5)
    assert (await env.log.load(room_id)).version == before + 10


async def test_concurrent_seat_grab_has_one_winner(env: Env) -> None:
    owner, _ = await env.identity.create_player("Owner")
    room = await env.rooms.create_room(owner, RoomSettings(seats=2))
    grabbers = [(await env.identity.create_player(f"P{i}"))[0] for i in range(6)]
    outcomes = await asyncio.gather(
        *(env.rooms.take_seat(room.id, 1, p) for p in grabbers), return_exceptions=True
    )
    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(e, ServerError) and e.code == "seat_taken" for e in losers), losers
    final = await env.rooms.get_room(room.id)
    assert final.seats[1].player is not None
    assert final.seats[1].player.id == winners[0].seats[1].player.id  # type: ignore[union-attr]


async def test_a_heartbeat_keeps_each_rooms_turn_clock(env: Env) -> None:
    """mark_alive with clocks: load gives the turn's clock back (what a restart gives the
    turn); a bare list of ids clears it, a room with no turn running has none."""
    room_id, _ = await _playing_room(env)
    other, _ = await _playing_room(env)
    since = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    when = since + timedelta(seconds=3)
    await env.log.mark_alive({room_id: TurnClock(27.25, since), other: None}, when)
    record = await env.log.load(room_id)
    assert record.last_alive == when and record.clock == TurnClock(27.25, since)
    assert (await env.log.load(other)).clock is None
    await env.log.mark_alive([room_id])
    assert (await env.log.load(room_id)).clock is None


async def test_a_logged_move_keeps_its_version(env: Env) -> None:
    room_id, _ = await _playing_room(env)
    rid = await env.log.begin_round(room_id, 1, "remi", "12345678901234567890", 0, {})
    await env.log.append_action(rid, 1, 0, {"do": "draw"}, client_seq=5, version=42)
    current = (await env.log.load(room_id)).current_round
    assert current is not None and current.actions[0].version == 42
