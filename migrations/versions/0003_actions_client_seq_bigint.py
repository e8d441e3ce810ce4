"""actions.client_seq: BIGINT, to hold any 64-bit client sequence number.

The protocol allows a client ``seq`` up to 2**53 - 1 (a JavaScript safe integer),
past INTEGER's 2**31 - 1 on PostgreSQL. On PostgreSQL this is one
``ALTER TABLE ... ALTER COLUMN ... TYPE BIGINT`` (the table is rewritten under an
exclusive lock). SQLite already stores any 64-bit integer in an INTEGER column:
there the table is rebuilt (Alembic's batch mode) only so that the declared type
matches the models; nothing references ``actions``, so no foreign key cascades.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.alter_column(
            "client_seq", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=True
        )


def downgrade() -> None:
    # Fails on PostgreSQL if a stored client_seq does not fit in INTEGER.
    with op.batch_alter_table("actions") as batch:
        batch.alter_column(
            "client_seq", type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=True
        )
