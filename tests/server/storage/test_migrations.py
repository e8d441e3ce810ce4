"""Alembic migrations on SQLite and PostgreSQL: apply, idempotent, match the models, and
each step down and up again keeping the rows. The only tests that migrate an empty store:
the others' stores are copies of a template migrated once (tests/server/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from server.accounts.identity import IdentityService, hash_token
from server.settings import Settings
from server.storage.database import Database, build_engine
from server.storage.migrate import alembic_config, current_revision, head_revision, migrate
from server.storage.models import Base

TABLES = {
    "players",
    "player_sessions",
    "ledger",
    "rooms",
    "seats",
    "rounds",
    "actions",
    "round_scores",
    "match_results",
    "tournaments",
    "tournament_entries",
    "tournament_stages",
    "tournament_tables",
    "ratings",
    "rating_changes",
    "room_leases",
    "cluster_nodes",
    "quick_requests",
    "alembic_version",
}


@pytest.fixture
def settings(empty_settings: Settings) -> Settings:
    """An empty store: these tests run the migrations themselves."""
    return empty_settings


def _diff(conn: Connection) -> list[Any]:
    ctx = MigrationContext.configure(conn, opts={"compare_type": True})
    return list(compare_metadata(ctx, Base.metadata))


async def test_migrate_creates_schema_matching_models(settings: Settings) -> None:
    engine = build_engine(settings)
    try:
        assert await current_revision(engine) is None
        revision = await migrate(settings, engine)
        assert revision == head_revision(settings)
        assert await current_revision(engine) == revision
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            assert tables == TABLES
            assert await conn.run_sync(_diff) == []
        # Applying again is a no-op.
        assert await migrate(settings, engine) == revision
    finally:
        await engine.dispose()


def _downgrade(conn: Connection, settings: Settings) -> None:
    cfg = alembic_config(settings)
    cfg.attributes["connection"] = conn
    command.downgrade(cfg, "base")


async def test_downgrade_then_upgrade(settings: Settings) -> None:
    engine = build_engine(settings)
    try:
        await migrate(settings, engine)
        async with engine.begin() as conn:
            await conn.run_sync(_downgrade, settings)
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
        assert tables <= {"alembic_version"}
        assert await migrate(settings, engine) == head_revision(settings)
    finally:
        await engine.dispose()


async def test_migrate_with_its_own_engine(settings: Settings) -> None:
    assert await migrate(settings) == head_revision(settings)


def _downgrade_to(conn: Connection, settings: Settings, revision: str) -> None:
    cfg = alembic_config(settings)
    cfg.attributes["connection"] = conn
    command.downgrade(cfg, revision)


async def test_last_alive_comes_and_goes_without_touching_the_rows(settings: Settings) -> None:
    """0002 adds rooms.last_alive in place: no table rebuild (SQLite's would cascade)."""
    engine = build_engine(settings)
    try:
        await migrate(settings, engine, "0001")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO players (id, display_name, token_hash, created_at) "
                    "VALUES ('p', 'Ana', 'h', CURRENT_TIMESTAMP)"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO rooms (id, owner_id, public, settings, status, created_at, "
                    "version) VALUES ('r', 'p', true, '{}', 'playing', CURRENT_TIMESTAMP, 1)"
                )
            )
            await conn.execute(text("INSERT INTO seats (room_id, seat) VALUES ('r', 0)"))
        assert await migrate(settings, engine) == head_revision(settings)
        async with engine.begin() as conn:
            await conn.execute(text("UPDATE rooms SET last_alive = CURRENT_TIMESTAMP"))
            await conn.run_sync(_downgrade_to, settings, "0001")
        async with engine.connect() as conn:
            columns = await conn.run_sync(
                lambda c: {col["name"] for col in inspect(c).get_columns("rooms")}
            )
            assert "last_alive" not in columns
            assert (await conn.execute(text("SELECT count(*) FROM seats"))).scalar() == 1
            assert (await conn.execute(text("SELECT count(*) FROM rooms"))).scalar() == 1
    finally:
        await engine.dispose()


async def test_client_seq_becomes_bigint_keeping_the_rows(settings: Settings) -> None:
    """0003 widens actions.client_seq to BIGINT: the rows stay, a 2**40 seq then fits."""
    engine = build_engine(settings)
    try:
        await migrate(settings, engine, "0002")
        async with engine.begin() as conn:
            for sql in (
                "INSERT INTO players (id, display_name, token_hash, created_at) "
                "VALUES ('p', 'Ana', 'h', CURRENT_TIMESTAMP)",
                "INSERT INTO rooms (id, owner_id, public, settings, status, created_at, "
                "version) VALUES ('r', 'p', true, '{}', 'playing', CURRENT_TIMESTAMP, 1)",
                "INSERT INTO rounds (id, room_id, number, variant, seed, first_seat, options, "
                "finished, created_at) VALUES (1, 'r', 1, 'remi', 's', 0, '{}', false, "
                "CURRENT_TIMESTAMP)",
                "INSERT INTO actions (round_id, seq, seat, action, client_seq, source, "
                "created_at) VALUES (1, 1, 0, '{}', 7, 'player', CURRENT_TIMESTAMP)",
            ):
                await conn.execute(text(sql))
        assert await migrate(settings, engine) == head_revision(settings)
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO actions (round_id, seq, seat, action, client_seq, source, "
                    "created_at) VALUES (1, 2, 0, '{}', :big, 'player', CURRENT_TIMESTAMP)"
                ),
                {"big": 2**40},
            )
            rows = await conn.execute(text("SELECT seq, client_seq FROM actions ORDER BY seq"))
            assert rows.all() == [(1, 7), (2, 2**40)]
            assert (await conn.execute(text("SELECT count(*) FROM rounds"))).scalar() == 1
            await conn.execute(text("DELETE FROM actions WHERE seq = 2"))
            await conn.run_sync(_downgrade_to, settings, "0002")
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT seq, client_seq FROM actions"))
            assert rows.all() == [(1, 7)]
    finally:
        await engine.dispose()


async def test_resend_and_clock_columns_come_and_go_keeping_the_rows(settings: Settings) -> None:
    """0004 adds actions.version, rooms.turn_left and rooms.turn_since in place: the rows
    stay (a logged move's version is null: answered as before), and go again on downgrade."""
    engine = build_engine(settings)
    try:
        await migrate(settings, engine, "0003")
        async with engine.begin() as conn:
            for sql in (
                "INSERT INTO players (id, display_name, token_hash, created_at) "
                "VALUES ('p', 'Ana', 'h', CURRENT_TIMESTAMP)",
                "INSERT INTO rooms (id, owner_id, public, settings, status, created_at, "
                "version) VALUES ('r', 'p', true, '{}', 'playing', CURRENT_TIMESTAMP, 1)",
                "INSERT INTO seats (room_id, seat) VALUES ('r', 0)",
                "INSERT INTO rounds (id, room_id, number, variant, seed, first_seat, options, "
                "finished, created_at) VALUES (1, 'r', 1, 'remi', 's', 0, '{}', false, "
                "CURRENT_TIMESTAMP)",
                "INSERT INTO actions (round_id, seq, seat, action, client_seq, source, "
                "created_at) VALUES (1, 1, 0, '{}', 7, 'player', CURRENT_TIMESTAMP)",
            ):
                await conn.execute(text(sql))
        assert await migrate(settings, engine) == head_revision(settings)
        async with engine.begin() as conn:
            rows = await conn.execute(text("SELECT client_seq, version FROM actions"))
            assert rows.all() == [(7, None)]
            await conn.execute(text("UPDATE rooms SET turn_left = 12.5, turn_since = created_at"))
            assert (await conn.execute(text("SELECT turn_left FROM rooms"))).scalar() == 12.5
            await conn.run_sync(_downgrade_to, settings, "0003")
        async with engine.connect() as conn:
            rooms = await conn.run_sync(
                lambda c: {col["name"] for col in inspect(c).get_columns("rooms")}
            )
            actions = await conn.run_sync(
                lambda c: {col["name"] for col in inspect(c).get_columns("actions")}
            )
            assert not {"turn_left", "turn_since"} & rooms and "version" not in actions
            assert (await conn.execute(text("SELECT count(*) FROM seats"))).scalar() == 1
            assert (await conn.execute(text("SELECT count(*) FROM actions"))).scalar() == 1
    finally:
        await engine.dispose()


async def test_each_players_token_becomes_its_first_session(settings: Settings) -> None:
    """0005 moves every player's token into player_sessions: a token handed out before
    still authenticates its player, and downgrade puts it back."""
    engine = build_engine(settings)
    try:
        await migrate(settings, engine, "0004")
        async with engine.begin() as conn:
            for pid, name in (("p1", "Ana"), ("p2", "Bob")):
                await conn.execute(
                    text(
                        "INSERT INTO players (id, display_name, token_hash, created_at) "
                        "VALUES (:id, :name, :hash, CURRENT_TIMESTAMP)"
                    ),
                    {"id": pid, "name": name, "hash": hash_token(f"old-token-of-{pid}")},
                )
        assert await migrate(settings, engine) == head_revision(settings)
        async with engine.connect() as conn:
            rows = await conn.execute(
                text("SELECT id, player_id, token_hash, label FROM player_sessions ORDER BY id")
            )
            assert rows.all() == [
                ("p1", "p1", hash_token("old-token-of-p1"), "migrated"),
                ("p2", "p2", hash_token("old-token-of-p2"), "migrated"),
            ]
            moved = await conn.execute(text("SELECT token_hash FROM players ORDER BY id"))
            assert moved.scalars().all() == ["moved:p1", "moved:p2"]
        db = Database(settings)
        try:
            identity = IdentityService(db)
            authed = await identity.resolve("old-token-of-p1")
            assert authed is not None and (authed.player.id, authed.session_id) == ("p1", "p1")
            assert await identity.authenticate("moved:p1") is None
            rotated = await identity.rotate(authed)
            assert rotated is not None
        finally:
            await db.dispose()
        async with engine.begin() as conn:
            await conn.run_sync(_downgrade_to, settings, "0004")
        async with engine.connect() as conn:
            back = await conn.execute(text("SELECT id, token_hash FROM players ORDER BY id"))
            assert back.all() == [
                ("p1", hash_token(rotated)),
                ("p2", hash_token("old-token-of-p2")),
            ]
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            assert "player_sessions" not in tables
    finally:
        await engine.dispose()


async def test_round_scores_learn_who_opened_and_went_out_from_their_results(
    settings: Settings,
) -> None:
    """0007 fills round_scores.opened and went_out of the rounds already played from their
    stored results (the engine's notes before it said ``opened``), and its downgrade drops
    them with the ratings, keeping the rows."""
    engine = build_engine(settings)
    result = (
        '{"out": 1, "breakdown": [{"seat": 0, "note": "opened: hand"}, '
        '{"seat": 1, "note": "closed (normal)"}, {"seat": 2, "note": "not opened"}]}'
    )
    try:
        await migrate(settings, engine, "0006")
        async with engine.begin() as conn:
            for sql in (
                "INSERT INTO players (id, display_name, token_hash, created_at) "
                "VALUES ('p', 'Ana', 'h', CURRENT_TIMESTAMP)",
                "INSERT INTO rooms (id, owner_id, public, settings, status, created_at, "
                "version) VALUES ('r', 'p', true, '{}', 'playing', CURRENT_TIMESTAMP, 1)",
                "INSERT INTO rounds (id, room_id, number, variant, seed, first_seat, options, "
                f"finished, result, created_at) VALUES (1, 'r', 1, 'remi101', 's', 0, '{{}}', "
                f"true, '{result}', CURRENT_TIMESTAMP)",
                "INSERT INTO round_scores (room_id, round_number, seat, score) VALUES "
                "('r', 1, 0, -12), ('r', 1, 1, 50), ('r', 1, 2, -100)",
            ):
                await conn.execute(text(sql))
        assert await migrate(settings, engine) == head_revision(settings)
        async with engine.begin() as conn:
            rows = await conn.execute(
                text("SELECT seat, opened, went_out FROM round_scores ORDER BY seat")
            )
            assert [tuple(r) for r in rows] == [
                (0, True, False),
                (1, True, True),
                (2, False, False),
            ]
            await conn.run_sync(_downgrade_to, settings, "0006")
        async with engine.connect() as conn:
            cols = await conn.run_sync(
                lambda c: {col["name"] for col in inspect(c).get_columns("round_scores")}
            )
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            assert not {"opened", "went_out"} & cols and "ratings" not in tables
            assert (await conn.execute(text("SELECT count(*) FROM round_scores"))).scalar() == 3
    finally:
        await engine.dispose()
