"""Initial schema: players, rooms, seats, rounds, actions, round_scores, match_results.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSON everywhere, JSONB on PostgreSQL.
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table('players',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('display_name', sa.String(length=64), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_players_token_hash'))
    )
    op.create_table('rooms',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('invite_code', sa.String(length=32), nullable=True),
    sa.Column('owner_id', sa.String(length=32), nullable=False),
    sa.Column('public', sa.Boolean(), nullable=False),
    sa.Column('settings', JSON, nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.CheckConstraint("status IN ('waiting', 'playing', 'finished')", name=op.f('ck_rooms_status')),
    sa.ForeignKeyConstraint(['owner_id'], ['players.id'], name=op.f('fk_rooms_owner_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rooms')),
    sa.UniqueConstraint('invite_code', name=op.f('uq_rooms_invite_code'))
    )
    op.create_index('ix_rooms_lobby', 'rooms', ['public', 'status', 'created_at'])
    op.create_index(op.f('ix_rooms_owner_id'), 'rooms', ['owner_id'])

    op.create_table('match_results',
    sa.Column('room_id', sa.String(length=32), nullable=False),
    sa.Column('totals', JSON, nullable=False),
    sa.Column('winners', JSON, nullable=False),
    sa.Column('rounds_played', sa.Integer(), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], name=op.f('fk_match_results_room_id_rooms'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('room_id', name=op.f('pk_match_results'))
    )
    op.create_table('round_scores',
    sa.Column('room_id', sa.String(length=32), nullable=False),
    sa.Column('round_number', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seat', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('score', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], name=op.f('fk_round_scores_room_id_rooms'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('room_id', 'round_number', 'seat', name=op.f('pk_round_scores'))
    )
    op.create_table('rounds',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('room_id', sa.String(length=32), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('variant', sa.String(length=32), nullable=False),
    sa.Column('seed', sa.String(length=128), nullable=False),
    sa.Column('first_seat', sa.Integer(), nullable=False),
    sa.Column('options', JSON, nullable=False),
    sa.Column('finished', sa.Boolean(), nullable=False),
    sa.Column('result', JSON, nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], name=op.f('fk_rounds_room_id_rooms'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounds')),
    sa.UniqueConstraint('room_id', 'number', name=op.f('uq_rounds_room_id_number'))
    )
    op.create_table('seats',
    sa.Column('room_id', sa.String(length=32), nullable=False),
    sa.Column('seat', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('player_id', sa.String(length=32), nullable=True),
    sa.Column('bot_level', sa.String(length=16), nullable=True),
    sa.Column('rack', JSON, nullable=True),
    sa.CheckConstraint("bot_level IS NULL OR bot_level IN ('easy', 'normal', 'hard')", name=op.f('ck_seats_bot_level')),
    sa.CheckConstraint('seat >= 0 AND seat < 4', name=op.f('ck_seats_seat_range')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_seats_player_id_players')),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], name=op.f('fk_seats_room_id_rooms'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('room_id', 'seat', name=op.f('pk_seats')),
    sa.UniqueConstraint('room_id', 'player_id', name=op.f('uq_seats_room_id_player_id'))
    )
    op.create_index(op.f('ix_seats_player_id'), 'seats', ['player_id'])

    op.create_table('actions',
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('action', JSON, nullable=False),
    sa.Column('client_seq', sa.Integer(), nullable=True),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_actions_round_id_rounds'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('round_id', 'seq', name=op.f('pk_actions'))
    )


def downgrade() -> None:
    op.drop_table('actions')
    op.drop_index(op.f('ix_seats_player_id'), table_name='seats')

    op.drop_table('seats')
    op.drop_table('rounds')
    op.drop_table('round_scores')
    op.drop_table('match_results')
    op.drop_index(op.f('ix_rooms_owner_id'), table_name='rooms')
    op.drop_index('ix_rooms_lobby', table_name='rooms')

    op.drop_table('rooms')
    op.drop_table('players')
