"""Accounts and the balance ("cont"): usernames and passwords, balances, the ledger.

* ``players``: ``username`` (null for a guest; unique, kept case-folded), ``password_hash``
  (Argon2id, null for a guest), ``balance`` and ``joker_credits`` (both 0 for the
  players already there: their ledger is empty, and a balance is the sum of its ledger).
* ``ledger``: append-only, one row per change of a player's balance or joker credits:
  the ``amount`` and ``credits`` added (either may be negative), the ``reason``, the
  room, round and seat it comes from, and a unique ``key`` that makes a change happen
  at most once (``round:<room>:<round>:<seat>`` for a settlement, ``grant:<player>:<day>``
  for a daily grant, and so on: docs/economy.md).

Downgrade drops the ledger and the new columns in place (the balances are lost).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-20
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("players", sa.Column("username", sa.String(length=32), nullable=True))
    op.add_column("players", sa.Column("password_hash", sa.String(length=255), nullable=True))
    op.add_column(
        "players", sa.Column("balance", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column(
        "players",
        sa.Column("joker_credits", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_players_username", "players", ["username"], unique=True)
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=160), nullable=False),
        sa.Column("reason", sa.String(length=24), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("credits", sa.Integer(), nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=True),
        sa.Column("round_number", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_ledger_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
        sa.UniqueConstraint("key", name=op.f("uq_ledger_key")),
    )
    op.create_index(op.f("ix_ledger_player_id"), "ledger", ["player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_ledger_player_id"), table_name="ledger")
    op.drop_table("ledger")
    op.drop_index("ix_players_username", table_name="players")
    # In place (SQLite 3.35+ drops a column that is in no index or constraint): a
    # table rebuild of ``players`` would fight the foreign keys that point to it.
    for column in ("joker_credits", "balance", "password_hash", "username"):
        op.drop_column("players", column)
