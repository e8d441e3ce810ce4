"""player_sessions: one token per device (session) of a player, instead of one per player.

* ``player_sessions``: a row per device a player signed in on: the SHA-256 of its token
  (unique), the player, a label (the browser's User-Agent, cut short), when the session
  was created, when its current token was issued (rotation renews it) and when it was
  last used. Signing a device out deletes its row; deleting a player deletes its rows.
* Each player's existing token becomes the player's first session (its id is the
  player's id, its label ``migrated``): every token handed out before keeps working.
  ``players.token_hash`` then holds ``moved:<player id>`` (unique, never a hash): it is
  no longer read. The column stays: dropping a UNIQUE column on SQLite needs a table
  rebuild, and rebuilding ``players`` would fight the foreign keys that point to it.

Downgrade puts back into ``players.token_hash`` the token of each player's most
recently issued session (the other devices' tokens stop working), then drops the table.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_sessions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_sessions_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_player_sessions_token_hash")),
    )
    op.create_index(op.f("ix_player_sessions_player_id"), "player_sessions", ["player_id"])
    op.execute(
        "INSERT INTO player_sessions (id, player_id, token_hash, label, created_at, issued_at, "
        "last_used_at) SELECT id, id, token_hash, 'migrated', created_at, created_at, NULL "
        "FROM players"
    )
    op.execute("UPDATE players SET token_hash = 'moved:' || id")


def downgrade() -> None:
    op.execute(
        "UPDATE players SET token_hash = (SELECT s.token_hash FROM player_sessions s "
        "WHERE s.player_id = players.id ORDER BY s.issued_at DESC, s.id LIMIT 1) "
        "WHERE EXISTS (SELECT 1 FROM player_sessions s WHERE s.player_id = players.id)"
    )
    op.drop_index(op.f("ix_player_sessions_player_id"), table_name="player_sessions")
    op.drop_table("player_sessions")
