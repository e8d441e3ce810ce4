"""Tournaments (docs/tournaments.md): tournaments, their entries, stages and tables.

* ``tournaments``: one row a tournament, ``key`` unique (a series' number or time: a
  tournament is opened once whoever opens it), its tables' settings, the entry fee, the
  prize table, ``registered`` (entries, taken by a conditional update), ``stage`` (the
  one being played) and ``pool`` (the fees at its start).
* ``tournament_entries``: a player's registration (withdrawn ones stay, so that a fee's
  ledger key names each registration); the place and prize at the end.
* ``tournament_stages``: a stage is made once (its primary key), with its tables.
* ``tournament_tables``: each table of a stage is a room (``room_id`` unique).

The Arena needs no table: its stake and payout table are room settings, its stakes and
pot ledger rows. Downgrade drops the four tables (the ledger rows stay).

Revision ID: 0009
Revises: 0007 (the lead chains 0008 between at merge)
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=160), nullable=False),
        sa.Column("series", sa.String(length=120), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("settings", _JSON, nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("registered", sa.Integer(), nullable=False),
        sa.Column("fee", sa.Integer(), nullable=False),
        sa.Column("prizes", _JSON, nullable=False),
        sa.Column("pool", sa.Integer(), nullable=False),
        sa.Column("stage", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('sitngo', 'scheduled')", name=op.f("ck_tournaments_kind")),
        sa.CheckConstraint(
            "status IN ('registering', 'running', 'finished', 'cancelled')",
            name=op.f("ck_tournaments_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("key", name=op.f("uq_tournaments_key")),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_at"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("registrations", sa.Integer(), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("prize", sa.Integer(), nullable=True),
        sa.Column("out_stage", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "status IN ('registered', 'withdrawn')", name=op.f("ck_tournament_entries_status")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entries_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_tournament_entries_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "player_id", name=op.f("pk_tournament_entries")),
    )
    op.create_index(
        op.f("ix_tournament_entries_player_id"), "tournament_entries", ["player_id"]
    )
    op.create_table(
        "tournament_stages",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("final", sa.Boolean(), nullable=False),
        sa.Column("advance", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_stages_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_stages")),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("stage", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_tables_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_tournament_tables_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "stage", "number", name=op.f("pk_tournament_tables")
        ),
        sa.UniqueConstraint("room_id", name=op.f("uq_tournament_tables_room_id")),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_stages")
    op.drop_index(op.f("ix_tournament_entries_player_id"), table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
