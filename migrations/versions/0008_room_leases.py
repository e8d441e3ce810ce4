"""Several server nodes on one database: room leases with fencing epochs, the nodes'
heartbeats, and the epoch of each logged write.

* ``cluster_nodes``: one row per running server process (node): its id, a name for
  people, when it started and until when it is known alive (``expires_at``, pushed
  forward by its heartbeat every third of ``REMI_LEASE_SECONDS``).
* ``room_leases``: which node plays a room (``node``, null once released) and the
  room's fencing ``epoch``, which grows by one with every new owner. Every write of
  the room checks, in its own transaction, that the epoch is still the writer's
  (server/rooms/leases.py): a stale owner's write is refused by the database.
* ``actions.epoch``, ``rounds.epoch``: the epoch a move or a round was written under
  (null on rows written before): what the multi-node tests read back.

New tables and nullable columns without defaults: no table rebuild on SQLite.

Revision ID: 0008
Revises: 0009 (written on 0006 beside 0007 and 0009, chained after them at the merge)
Create Date: 2027-01-10
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "cluster_nodes",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cluster_nodes")),
    )
    op.create_table(
        "room_leases",
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("node", sa.String(length=32), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_room_leases_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("room_id", name=op.f("pk_room_leases")),
    )
    op.create_index(op.f("ix_room_leases_node"), "room_leases", ["node"], unique=False)
    op.add_column("actions", sa.Column("epoch", sa.BigInteger(), nullable=True))
    op.add_column("rounds", sa.Column("epoch", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    # Native DROP COLUMN, no batch rebuild (see 0004).
    op.drop_column("rounds", "epoch")
    op.drop_column("actions", "epoch")
    op.drop_index(op.f("ix_room_leases_node"), table_name="room_leases")
    op.drop_table("room_leases")
    op.drop_table("cluster_nodes")
