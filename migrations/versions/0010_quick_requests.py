"""Quick start requests: ``quick_requests`` maps a player's quick start request id to
the room it gave, so that a retried request gives the same room even after the room
started (server/rooms/lobby/quickstart.py). Downgrade drops the table.

Revision ID: 0010
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "quick_requests",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_quick_requests_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_quick_requests_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "request_id", name=op.f("pk_quick_requests")),
    )
    op.create_index(op.f("ix_quick_requests_room_id"), "quick_requests", ["room_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_quick_requests_room_id"), table_name="quick_requests")
    op.drop_table("quick_requests")
