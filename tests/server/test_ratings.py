"""Ratings, on both stores: a finished match changes its players'
ratings as openskill's Plackett–Luce model says (the expected values computed here with
openskill itself), exactly once per match whatever the retries, the concurrency and a
crash between the match's end and its rating; practice and bot-only matches change
nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import pytest
from conftest import played
from openskill.models import PlackettLuce
from sqlalchemy import func, select, update

import server.economy.settlement as settlement
from server.accounts.identity import IdentityService, PlayerInfo
from server.economy.ledger import Economy
from server.economy.settlement import MatchFinish
from server.rooms.lobby.options import RoomSettings
from server.rooms.lobby.service import RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.storage.migrate import migrate
from server.storage.models import MatchResult, Rating, RatingChange, Room, Seat

DEFAULT = PlackettLuce()  # openskill's defaults: what a new player starts at


@dataclass
class Club:
    db: Database
    rooms: RoomService
    log: GameLog
    players: list[PlayerInfo]


@pytest.fixture
async def club(settings: Settings) -> AsyncIterator[Club]:
    db = Database(settings)
    await migrate(settings, db.engine)
    identity = IdentityService(db, economy=Economy(db, settings))
    players = [(await identity.create_player(n))[0] for n in ("Ana", "Bob", "Cip", "Dan")]
    try:
        yield Club(db, RoomService(db, settings), GameLog(db), players)
    finally:
        await db.dispose()


async def _match(
    club: Club,
    seated: Sequence[PlayerInfo],
    seats: int,
    totals: Sequence[int],
    *,
    kind: str = "normal",
    variant: str = "remi",
    bot_level: str = "normal",
    record: bool = True,
) -> str:
    """A room of ``seats`` seats, ``seated`` in the first ones and bots after them, one
    round with these scores, and (``record``) its result recorded."""
    # an Arena table has a stake and no bots (docs/tournaments.md)
    arena = {"stake": 10, "fill_with_bots": False} if kind == "arena" else {}
    if kind == "practice":  # a practice room is private (server/rooms/lobby/options.py)
        arena = {"public": False}
    room = await club.rooms.create_room(
        seated[0],
        RoomSettings.model_validate(
            {
                "variant": variant,
                "seats": seats,
                "fill_with_bots": True,
                "kind": kind,
                "bot_level": bot_level,
                **arena,
            }
        ),
    )
    for i, p in enumerate(seated[1:], start=1):
        await club.rooms.take_seat(room.id, i, p, room.invite_code)
    await club.rooms.start(room.id, seated[0])
    rid = await club.log.begin_round(room.id, 1, variant, "seed", 0, {})
    await played(club.db, rid, range(len(seated)))
    await club.log.finish_round(rid, {"out": 0, "breakdown": []}, list(totals))
    if record:
        winners = [i for i, t in enumerate(totals) if t == max(totals)]
        assert await club.log.record_match(MatchFinish(room.id, totals, winners, 1))
    return room.id


async def _rating(club: Club, player: PlayerInfo, variant: str = "remi") -> Rating | None:
    async with club.db.transaction() as session:
        row = await session.get(Rating, (player.id, variant))
        if row is not None:
            session.expunge(row)
        return row


async def _changes(club: Club, room_id: str | None = None) -> int:
    async with club.db.transaction() as session:
        query = select(func.count()).select_from(RatingChange)
        if room_id is not None:
            query = query.where(RatingChange.room_id == room_id)
        return int(await session.scalar(query) or 0)


async def test_ratings_follow_openskill_with_ties_shared_and_bots_fixed(club: Club) -> None:
    ana, bob, cip, dan = club.players
    # Match 1: three players and a hard bot; Ana and Cip tie for first.
    await _match(club, [ana, bob, cip], 4, [50, 10, 50, -20], bot_level="hard")
    m = PlackettLuce()
    hard_bot = m.rating(mu=30.0, sigma=25.0 / 3.0)  # docs/economy.md: a hard bot's rating
    expected = m.rate([[m.rating()], [m.rating()], [m.rating()], [hard_bot]], ranks=[1, 3, 1, 4])
    for player, team in zip((ana, bob, cip), expected, strict=False):
        got = await _rating(club, player)
        assert got is not None and got.matches == 1
        assert got.mu == pytest.approx(team[0].mu) and got.sigma == pytest.approx(team[0].sigma)
        assert got.rating == pytest.approx(team[0].ordinal())
    ana1, bob1 = expected[0][0], expected[1][0]
    assert ana1.mu > DEFAULT.mu and bob1.mu > DEFAULT.mu  # both ahead of the hard bot
    assert expected[2][0].mu == pytest.approx(ana1.mu)

    # Match 2: Bob beats Ana and Dan (new), the ratings going in are the stored ones.
    await _match(club, [bob, ana, dan], 3, [30, -5, 0])
    expected2 = m.rate(
        [
            [m.rating(mu=bob1.mu, sigma=bob1.sigma)],
            [m.rating(mu=ana1.mu, sigma=ana1.sigma)],
            [m.rating()],
        ],
        ranks=[1, 3, 2],
    )
    for player, team in zip((bob, ana, dan), expected2, strict=True):
        got = await _rating(club, player)
        assert got is not None
        assert (got.mu, got.sigma) == (pytest.approx(team[0].mu), pytest.approx(team[0].sigma))
    assert (await _rating(club, bob)).matches == 2  # type: ignore[union-attr]
    assert await _rating(club, cip, "remi101") is None  # ratings are per variant


async def test_a_match_is_rated_once_under_concurrent_finishes(club: Club) -> None:
    ana, bob = club.players[:2]
    room_id = await _match(club, [ana, bob], 2, [40, 0], record=False)
    recorded = await asyncio.gather(
        *(club.log.record_match(MatchFinish(room_id, [40, 0], [0], 1)) for _ in range(4))
    )
    assert sorted(recorded) == [False, False, False, True]
    assert not await club.log.record_match(MatchFinish(room_id, [40, 0], [0], 1))  # a retry, later
    assert await _changes(club, room_id) == 2
    assert (await _rating(club, ana)).matches == 1  # type: ignore[union-attr]
    expected = PlackettLuce().rate([[DEFAULT.rating()], [DEFAULT.rating()]], ranks=[1, 2])
    assert (await _rating(club, ana)).mu == pytest.approx(expected[0][0].mu)  # type: ignore[union-attr]


async def test_a_crash_between_the_end_and_the_rating_loses_both_then_rates_once(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana, bob = club.players[:2]
    room_id = await _match(club, [ana, bob], 2, [0, 25], record=False)

    def crash(*args: object) -> int:
        raise RuntimeError("the server died here")

    monkeypatch.setattr(settlement, "rate_match", crash)
    with pytest.raises(RuntimeError):
        await club.log.record_match(MatchFinish(room_id, [0, 25], [1], 1))
    async with club.db.transaction() as session:  # the result went with the rating
        assert await session.get(MatchResult, room_id) is None
        assert (await session.get(Room, room_id)).status == "playing"  # type: ignore[union-attr]
    monkeypatch.undo()
    # The restarted room ends the match again (server/rooms/actor.py _boot): rated then.
    assert await club.log.record_match(MatchFinish(room_id, [0, 25], [1], 1))
    assert await _changes(club, room_id) == 2
    assert (await _rating(club, bob)).mu > DEFAULT.mu  # type: ignore[union-attr]


async def test_two_matches_of_one_player_ending_at_once_both_count(club: Club) -> None:
    ana, bob, cip = club.players[:3]
    first = await _match(club, [ana, bob], 2, [10, 0], record=False)
    second = await _match(club, [ana, cip], 2, [10, 0], record=False)
    await asyncio.gather(
        club.log.record_match(MatchFinish(first, [10, 0], [0], 1)),
        club.log.record_match(MatchFinish(second, [10, 0], [0], 1)),
    )
    rating = await _rating(club, ana)
    assert rating is not None and rating.matches == 2
    async with club.db.transaction() as session:
        chain = list(
            await session.scalars(
                select(RatingChange)
                .where(RatingChange.player_id == ana.id)
                .order_by(RatingChange.id)
            )
        )
    assert chain[1].mu_before == pytest.approx(chain[0].mu)  # no update lost
    assert rating.mu == pytest.approx(chain[1].mu)


async def test_practice_bot_only_and_roundless_matches_are_not_rated(club: Club) -> None:
    ana, bob = club.players[:2]
    await _match(club, [ana, bob], 2, [10, 0], kind="practice")
    assert await _changes(club) == 0 and await _rating(club, ana) is None
    arena = await _match(club, [ana, bob], 2, [10, 0], kind="arena")
    assert await _changes(club, arena) == 2  # Arena matches are rated
    # A match whose every seat is a bot (say the players' seats were given up).
    bots = await _match(club, [ana, bob], 2, [10, 0], record=False)
    async with club.db.transaction() as session:
        await session.execute(
            update(Seat).where(Seat.room_id == bots).values(player_id=None, bot_level="easy")
        )
    assert await club.log.record_match(MatchFinish(bots, [10, 0], [0], 1))
    assert await _changes(club, bots) == 0
    # A match that ended before its first round did.
    room = await club.rooms.create_room(
        ana, RoomSettings(variant="remi", seats=2, fill_with_bots=True)
    )
    await club.rooms.start(room.id, ana)
    assert await club.log.record_match(MatchFinish(room.id, [0, 0], [0, 1], 0))
    assert await _changes(club, room.id) == 0


async def test_a_match_a_player_mostly_did_not_play_is_not_rated_for_them(
    club: Club,
) -> None:
    """Bob made moves of his own in one round of three (a stand-in bot played the rest):
    he is not rated for the match; Ana, who played every round, is."""
    ana, bob = club.players[0], club.players[1]
    room = await club.rooms.create_room(
        ana, RoomSettings.model_validate({"variant": "remi", "seats": 2})
    )
    await club.rooms.take_seat(room.id, 1, bob)
    await club.rooms.start(room.id, ana)
    for number in (1, 2, 3):
        rid = await club.log.begin_round(room.id, number, "remi", "seed", 0, {})
        await played(club.db, rid, [0] if number > 1 else [0, 1])
        await played(club.db, rid, [1], source="bot")
        await club.log.finish_round(rid, {"out": 1, "breakdown": []}, [-20, 50])
    assert await club.log.record_match(MatchFinish(room.id, [-60, 150], [1], 3))
    assert await _rating(club, bob) is None
    rated = await _rating(club, ana)
    assert rated is not None and rated.matches == 1
    assert await _changes(club, room.id) == 1
