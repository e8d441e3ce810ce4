"""rooms.last_alive: when the server playing the room was last known alive.

The live rooms write it periodically and at shutdown; a restarted server extends
each turn deadline by the downtime since then (not since the last logged action).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column with no default: a plain ALTER TABLE ... ADD COLUMN on both
    # SQLite and PostgreSQL (no table rebuild).
    op.add_column('rooms', sa.Column('last_alive', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # Native DROP COLUMN (SQLite >= 3.35, PostgreSQL). Not a batch rebuild: on SQLite that
    # would drop and recreate `rooms`, and the foreign keys' ON DELETE CASCADE would empty
    # the tables that reference it.
    op.drop_column('rooms', 'last_alive')
