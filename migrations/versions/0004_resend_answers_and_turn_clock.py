"""actions.version and rooms.turn_left / rooms.turn_since: answers and clocks that
survive a restart.

* ``actions.version``: the room version after the move (the version its ``ack``
  carried), so that a resend of a logged move is answered with its original ``ack``
  however long ago, and after any number of restarts. Null on rows logged before.
* ``rooms.turn_left``, ``rooms.turn_since``: written with ``rooms.last_alive`` by each
  heartbeat: the seconds the turn being played had left then, and when that turn's
  clock was (re)started. A restarted server gives the turn the time it had when it
  was last seen alive, whatever the number of restarts within the turn.

Three nullable columns with no default: a plain ``ALTER TABLE ... ADD COLUMN`` on
both SQLite and PostgreSQL (no table rebuild, no rewrite).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("version", sa.Integer(), nullable=True))
    op.add_column("rooms", sa.Column("turn_left", sa.Float(), nullable=True))
    op.add_column("rooms", sa.Column("turn_since", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # Native DROP COLUMN (SQLite >= 3.35, PostgreSQL), not a batch rebuild: on SQLite that
    # would recreate `rooms`, and the foreign keys' ON DELETE CASCADE would empty the
    # tables that reference it (see 0002).
    op.drop_column("rooms", "turn_since")
    op.drop_column("rooms", "turn_left")
    op.drop_column("actions", "version")
