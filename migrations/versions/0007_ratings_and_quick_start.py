"""Ratings, leaderboards, profiles and quick start (issue 24, items 4 and 5).

* ``ratings``: a player's skill rating per variant (openskill's Plackett–Luce ``mu`` and
  ``sigma``; ``rating`` = mu − 3·sigma, the leaderboard's order, indexed per variant).
* ``rating_changes``: each match's change of each rated player's rating, unique per room
  and player (a match changes a rating once): the rating history of a profile.
* ``round_scores.opened`` and ``round_scores.went_out``: whether the seat opened in the
  round and went out (a profile's openings and going-out rates). The rounds already
  there get them from their stored result (``out``, and each seat's ``note`` in results
  written before the engine said ``opened``).
* ``rooms.start_at``: when a waiting quick-start room starts by itself (bots fill it).
* ``ix_players_balance``: the balance leaderboard.

Downgrade drops them (the ratings are lost).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-21
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _opened(result: dict[str, Any], seat: int) -> tuple[bool | None, bool | None]:
    """(opened, went out) of a seat from a stored round result (None: not told)."""
    out = result.get("out")
    went_out = out == seat
    rows = [b for b in result.get("breakdown") or [] if b.get("seat") == seat]
    if not rows:
        return (True if went_out else None), went_out
    row = rows[0]
    if "opened" in row:
        return bool(row["opened"]), went_out
    return went_out or str(row.get("note", "")).startswith("opened"), went_out


def _backfill() -> None:
    bind = op.get_bind()
    rounds = sa.table(
        "rounds",
        sa.column("room_id", sa.String),
        sa.column("number", sa.Integer),
        sa.column("result", sa.JSON),
        sa.column("finished", sa.Boolean),
    )
    scores = sa.table(
        "round_scores",
        sa.column("room_id", sa.String),
        sa.column("round_number", sa.Integer),
        sa.column("seat", sa.Integer),
        sa.column("opened", sa.Boolean),
        sa.column("went_out", sa.Boolean),
    )
    rows = bind.execute(
        sa.select(rounds.c.room_id, rounds.c.number, rounds.c.result, scores.c.seat)
        .join(
            scores,
            sa.and_(
                scores.c.room_id == rounds.c.room_id, scores.c.round_number == rounds.c.number
            ),
        )
        .where(rounds.c.finished.is_(True))
    ).all()
    for room_id, number, result, seat in rows:
        if isinstance(result, str):
            result = json.loads(result)
        if not isinstance(result, dict):
            continue
        opened, went_out = _opened(result, seat)
        bind.execute(
            sa.update(scores)
            .where(
                scores.c.room_id == room_id,
                scores.c.round_number == number,
                scores.c.seat == seat,
            )
            .values(opened=opened, went_out=went_out)
        )


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "variant", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_board", "ratings", ["variant", "rating", "player_id"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_rating_changes_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_rating_changes_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
        sa.UniqueConstraint(
            "room_id", "player_id", name=op.f("uq_rating_changes_room_id_player_id")
        ),
    )
    op.create_index(
        "ix_rating_changes_history", "rating_changes", ["player_id", "variant", "id"]
    )
    op.add_column("round_scores", sa.Column("opened", sa.Boolean(), nullable=True))
    op.add_column("round_scores", sa.Column("went_out", sa.Boolean(), nullable=True))
    op.add_column("rooms", sa.Column("start_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_players_balance", "players", ["balance", "id"])
    _backfill()


def downgrade() -> None:
    op.drop_index("ix_players_balance", table_name="players")
    # In place (SQLite 3.35+ drops a column that is in no index or constraint).
    op.drop_column("rooms", "start_at")
    op.drop_column("round_scores", "went_out")
    op.drop_column("round_scores", "opened")
    op.drop_index("ix_rating_changes_history", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
