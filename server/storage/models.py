"""Database tables (SQLAlchemy 2 declarative).

The schema itself is created by the Alembic migrations in ``migrations/``;
these classes must stay in step with them (``tests/server/storage`` checks
that the migrated database and this metadata agree).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ROOM_STATUSES = ("waiting", "playing", "finished")
BOT_LEVELS = ("easy", "normal", "hard")

JsonType = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware.

    SQLite keeps no zone, so naive values coming back are tagged as UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    """Declarative base with a fixed constraint naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JsonType,
    }


class Player(Base):
    """A guest identity. Its tokens are its sessions' (:class:`PlayerSession`).

    ``token_hash`` is no longer read: since migration 0005 it holds ``moved:<id>``
    (:func:`moved_token_marker`), the player's token having moved to its first session.
    """

    __tablename__ = "players"
    __table_args__ = (
        Index("ix_players_username", "username", unique=True),
        Index("ix_players_balance", "balance", "id"),  # the balance leaderboard
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    username: Mapped[str | None] = mapped_column(String(32), default=None)
    """Null for a guest; case-folded (server/accounts/credentials.py), unique."""
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)
    """Argon2id (argon2-cffi); null for a guest. Never logged, never sent."""
    balance: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The player's "cont": always the sum of ``ledger.amount`` (server/economy/ledger.py)."""
    joker_credits: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Joker credits of the 101 button (B.9): always the sum of ``ledger.credits``."""


def moved_token_marker(player_id: str) -> str:
    """What ``players.token_hash`` holds since the tokens moved to ``player_sessions``."""
    return f"moved:{player_id}"


class LedgerEntry(Base):
    """One change of a player's balance (``amount``) and/or joker credits (``credits``).

    Append-only: rows are never updated or deleted (but with their player). ``key`` is
    unique: a change named by the same key (a round's settlement of a seat, a day's
    grant) happens at most once, whoever retries it (docs/economy.md lists the keys).
    """

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(160), unique=True)
    reason: Mapped[str] = mapped_column(String(24))
    amount: Mapped[int] = mapped_column(Integer, default=0)
    credits: Mapped[int] = mapped_column(Integer, default=0)
    room_id: Mapped[str | None] = mapped_column(String(32), default=None)
    round_number: Mapped[int | None] = mapped_column(Integer, default=None)
    seat: Mapped[int | None] = mapped_column(Integer, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


TOURNAMENT_KINDS = ("sitngo", "scheduled")
TOURNAMENT_STATUSES = ("registering", "running", "finished", "cancelled")


class Tournament(Base):
    """A tournament (server/tournaments): its tables' settings, entry fee, prize table and
    where it is. ``key`` names it once (its series and number, or its time): the server
    that opens it twice opens it once. ``registered`` counts its entries (a place is
    taken by a conditional update); ``stage`` is the stage being played (0: none yet);
    ``pool`` the entry fees at its start, shared by the final table's standings."""

    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint("kind IN ('sitngo', 'scheduled')", name="kind"),
        CheckConstraint(
            "status IN ('registering', 'running', 'finished', 'cancelled')", name="status"
        ),
        Index("ix_tournaments_status", "status", "starts_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    key: Mapped[str] = mapped_column(String(160), unique=True)
    series: Mapped[str | None] = mapped_column(String(120), default=None)
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="registering")
    settings: Mapped[dict[str, Any]] = mapped_column(JsonType)
    players: Mapped[int] = mapped_column(Integer)
    registered: Mapped[int] = mapped_column(Integer, default=0)
    fee: Mapped[int] = mapped_column(Integer, default=0)
    prizes: Mapped[list[int]] = mapped_column(JsonType)
    pool: Mapped[int] = mapped_column(Integer, default=0)
    stage: Mapped[int] = mapped_column(Integer, default=0)
    starts_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class TournamentEntry(Base):
    """A player's registration: ``registrations`` counts them (a fee's ledger key names
    it); ``place`` and ``prize`` once the final table is over, ``out_stage`` the stage a
    player did not go on from."""

    __tablename__ = "tournament_entries"
    __table_args__ = (CheckConstraint("status IN ('registered', 'withdrawn')", name="status"),)

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    status: Mapped[str] = mapped_column(String(16), default="registered")
    registrations: Mapped[int] = mapped_column(Integer, default=1)
    registered_at: Mapped[datetime] = mapped_column(default=utcnow)
    place: Mapped[int | None] = mapped_column(Integer, default=None)
    prize: Mapped[int | None] = mapped_column(Integer, default=None)
    out_stage: Mapped[int | None] = mapped_column(Integer, default=None)


class TournamentStage(Base):
    """One stage of a tournament: made once (its key), with its tables, in one
    transaction; ``advance``: how many of each table go on (0 at the final table)."""

    __tablename__ = "tournament_stages"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    final: Mapped[bool] = mapped_column(Boolean, default=False)
    advance: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class TournamentTable(Base):
    """A table of a stage: a room of kind ``tournament``."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    stage: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), unique=True)


class PlayerSession(Base):
    """One device's sign-in of a player: only the SHA-256 of its token is stored.

    ``issued_at`` is when the current token was issued (rotation renews it),
    ``last_used_at`` when it last authenticated a request or a socket (updated at most
    every ``session_touch_seconds``). Signing the device out deletes the row.
    """

    __tablename__ = "player_sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str | None] = mapped_column(String(128), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    issued_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(default=None)


class Room(Base):
    """A table: its settings, owner and lifecycle status.

    ``version`` increases with every change of the room's persisted state.
    ``last_alive`` (while playing) is when the server running the room was last
    known alive; ``turn_left`` the seconds the turn being played had left then and
    ``turn_since`` when that turn's clock was (re)started (null: no turn running).
    A restarted server gives the turn the time it had left at ``last_alive``.
    """

    __tablename__ = "rooms"
    __table_args__ = (
        CheckConstraint("status IN ('waiting', 'playing', 'finished')", name="status"),
        Index("ix_rooms_lobby", "public", "status", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    invite_code: Mapped[str | None] = mapped_column(String(32), unique=True)
    owner_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    public: Mapped[bool] = mapped_column(Boolean)
    settings: Mapped[dict[str, Any]] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16), default="waiting")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    version: Mapped[int] = mapped_column(Integer, default=0)
    last_alive: Mapped[datetime | None] = mapped_column(default=None)
    turn_left: Mapped[float | None] = mapped_column(Float, default=None)
    turn_since: Mapped[datetime | None] = mapped_column(default=None)
    start_at: Mapped[datetime | None] = mapped_column(default=None)
    """A waiting quick-start room is started then, empty seats filled with bots
    (server/rooms/lobby/quickstart.py); null for every other room."""
    next_room_id: Mapped[str | None] = mapped_column(String(32), default=None)
    """A finished room played again: the room its first "play again" made, with the same
    settings, where the other players of this one are invited (RoomService.play_again)."""


class Seat(Base):
    """One seat of a room: a player, a bot (``bot_level``) or empty.

    A seat keeps its player while the player is away (a bot plays for them);
    ``bot_level`` with no player is a seat filled by a bot at the start.
    ``rack`` is the seat's rack layout (order and gaps of its tiles).
    """

    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("room_id", "player_id"),
        CheckConstraint("seat >= 0 AND seat < 4", name="seat_range"),
        CheckConstraint(
            "bot_level IS NULL OR bot_level IN ('easy', 'normal', 'hard')", name="bot_level"
        ),
    )

    room_id: Mapped[str] = mapped_column(
        ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), index=True)
    bot_level: Mapped[str | None] = mapped_column(String(16))
    rack: Mapped[dict[str, Any] | None] = mapped_column(JsonType, default=None)


class Round(Base):
    """One deal of a match: everything needed to replay it from its action log."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("room_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(32))
    seed: Mapped[str] = mapped_column(String(128))
    first_seat: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JsonType)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    epoch: Mapped[int | None] = mapped_column(BigInteger, default=None)
    """The room's fencing epoch the round was begun under (:class:`RoomLease`)."""
    result: Mapped[dict[str, Any] | None] = mapped_column(JsonType, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class Action(Base):
    """Append-only action log of a round; ``seq`` counts from 1 within the round.

    ``client_seq`` is the player's ``seq`` (null for a bot's move) and ``version`` the
    room version after the move, the one its ``ack`` carried (null on rows logged
    before migration 0004): a resend of the move is answered from them.
    """

    __tablename__ = "actions"

    round_id: Mapped[int] = mapped_column(
        ForeignKey("rounds.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JsonType)
    client_seq: Mapped[int | None] = mapped_column(BigInteger)  # any 64-bit client seq
    source: Mapped[str] = mapped_column(String(16), default="player")
    version: Mapped[int | None] = mapped_column(Integer, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    epoch: Mapped[int | None] = mapped_column(BigInteger, default=None)
    """The room's fencing epoch the move was written under (:class:`RoomLease`)."""


class RoundScore(Base):
    """A seat's addition to its total in one finished round; whether the seat opened in
    it and went out (a profile's figures; null on rounds whose result did not say)."""

    __tablename__ = "round_scores"

    room_id: Mapped[str] = mapped_column(
        ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    round_number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    score: Mapped[int] = mapped_column(Integer)
    opened: Mapped[bool | None] = mapped_column(Boolean, default=None)
    went_out: Mapped[bool | None] = mapped_column(Boolean, default=None)


def seat_facts(result: dict[str, Any], seat: int) -> dict[str, bool | None]:
    """A seat's ``opened`` and ``went_out`` in a round, from the round's result (the
    engine's ``RoundResult`` as a dict); None where the result does not tell.

    >>> seat_facts({"out": 1, "breakdown": [{"seat": 0, "opened": True}]}, 0)
    {'opened': True, 'went_out': False}
    """
    went_out = result.get("out") == seat
    rows = [b for b in result.get("breakdown") or [] if b.get("seat") == seat]
    opened = rows[0].get("opened") if rows else None
    return {"opened": True if went_out else opened, "went_out": went_out}


class MatchResult(Base):
    """A finished match: one row per room, so it is recorded exactly once."""

    __tablename__ = "match_results"

    room_id: Mapped[str] = mapped_column(
        ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    totals: Mapped[list[int]] = mapped_column(JsonType)
    winners: Mapped[list[int]] = mapped_column(JsonType)
    rounds_played: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[datetime] = mapped_column(default=utcnow)


class Rating(Base):
    """A player's skill rating in one variant (openskill's Plackett–Luce model,
    server/economy/ratings.py): ``mu`` and ``sigma``, and ``rating`` = mu − 3·sigma (openskill's
    ordinal), what the leaderboard sorts by; ``matches`` rated so far."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_board", "variant", "rating", "player_id"),)

    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RatingChange(Base):
    """One player's rating change by one match: the rating's history. Unique per room
    and player, and written in the transaction that records the match's result, so a
    match changes a rating once (docs/economy.md)."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("room_id", "player_id"),
        Index("ix_rating_changes_history", "player_id", "variant", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    """1 for the best total; seats with equal totals share a rank."""
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClusterNode(Base):
    """A running server process (a node) and until when it is known alive.

    Its heartbeat pushes ``expires_at`` forward (server/storage/leases.py); a node whose
    ``expires_at`` has passed is dead to the others, which may then take its rooms.
    """

    __tablename__ = "cluster_nodes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()


class RoomLease(Base):
    """Which node plays a room, and the room's fencing epoch.

    ``epoch`` grows by one with every new owner; every write of the room is made only
    if the epoch is still the writer's, checked in the write's own transaction, so a
    stale owner's write is refused by the database. ``node`` is null once released; the
    lease of a node that is no longer alive (:class:`ClusterNode`) may be taken.
    """

    __tablename__ = "room_leases"

    room_id: Mapped[str] = mapped_column(
        ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    epoch: Mapped[int] = mapped_column(BigInteger)
    node: Mapped[str | None] = mapped_column(String(32), index=True, default=None)
    claimed_at: Mapped[datetime] = mapped_column(default=utcnow)


class QuickRequest(Base):
    """A quick start request a player sent (``request_id``, chosen by the client once per
    press) and the room it gave: the same request again gives the same room, even after
    that room started (server/rooms/lobby/quickstart.py). Kept ``REMI_QUICK_START_REQUEST_SECONDS``;
    older rows are ignored and deleted by the player's next request."""

    __tablename__ = "quick_requests"

    player_id: Mapped[str] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    request_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
