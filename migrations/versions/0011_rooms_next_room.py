"""Play again: ``rooms.next_room_id``, the room a finished room's first "play again" made
(server/rooms/lobby/service.py ``RoomService.play_again``). Downgrade drops the column.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("next_room_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    # In place (SQLite 3.35+ drops a column that is in no index or constraint).
    op.drop_column("rooms", "next_room_id")
