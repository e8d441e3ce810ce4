"""The one settings object of the server.

Every value can be set from the environment with the ``REMI_`` prefix, e.g.
``REMI_DATABASE_URL``.  A :class:`Settings` is built once (by the CLI, or by a
test) and handed to :func:`server.app.create_app`, which injects it; nothing
reads the environment anywhere else.

>>> s = Settings(data_dir=Path("/tmp/remi-doc"), allowed_origins="http://a, http://b")
>>> s.database_url
'sqlite+aiosqlite:////tmp/remi-doc/remi.sqlite3'
>>> s.allowed_origins
['http://a', 'http://b']
>>> s.is_sqlite
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

TurnSeconds = Literal[15, 30, 60, 120]
"""The turn times a room may choose."""

_DEFAULT_ORIGINS = [
    "http://localhost:8000",
    "http://127.0.0.1:8000",
    "http://localhost:5173",
    "http://127.0.0.1:5173",
]


class TournamentSeries(BaseModel):
    """A tournament the server keeps open (``REMI_TOURNAMENT_SERIES``): a sit-and-go of
    ``players`` (4, 8 or 16) starts once they have all registered; a scheduled one
    starts daily at ``at`` (UTC) with whoever registered (at most ``players``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["sitngo", "scheduled"]
    variant: str = Field(default="remi", description="An id of GET /api/variants.")
    players: int = Field(ge=2, le=64)
    fee: int = Field(ge=0, le=1_000_000, description="Entry fee, from the balance.")
    table_seats: int = Field(default=4, ge=2, le=4)
    rounds: int = Field(default=2, ge=1, le=50, description="Rounds each table plays.")
    turn_seconds: TurnSeconds = 30
    at: str | None = Field(default=None, pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")

    @model_validator(mode="after")
    def _check(self) -> TournamentSeries:
        if self.kind == "sitngo" and self.players not in (4, 8, 16):
            raise ValueError("a sit-and-go has 4, 8 or 16 players")
        if (self.kind == "scheduled") != (self.at is not None):
            raise ValueError("a scheduled tournament, and only one, has its time `at`")
        return self

    @property
    def series(self) -> str:
        """The series' name, from what it is (tournaments of one series follow each other)."""
        when = f"@{self.at}" if self.at else ""
        return (
            f"{self.kind}-{self.variant}-{self.players}-{self.fee}-"
            f"{self.table_seats}x{self.rounds}-{self.turn_seconds}{when}"
        )


class Settings(BaseSettings):
    """Server configuration (environment prefix ``REMI_``)."""

    model_config = SettingsConfigDict(
        env_prefix="REMI_",
        extra="ignore",
        validate_default=True,
    )

    # --- storage -----------------------------------------------------------
    data_dir: Path = Field(
        default=Path("data"),
        description="Directory for the embedded SQLite database and other local files.",
    )
    database_url: str = Field(
        default="",
        description=(
            "SQLAlchemy async URL. Empty means sqlite+aiosqlite at <data_dir>/remi.sqlite3; "
            "use postgresql+asyncpg://user:pass@host/db for PostgreSQL."
        ),
    )
    database_schema: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,62}$",
        description="PostgreSQL only: schema to use (search_path); created by the migrations.",
    )
    database_echo: bool = Field(default=False, description="Log every SQL statement.")
    migrate_on_startup: bool = Field(
        default=True, description="Apply Alembic migrations when the app starts."
    )
    migrations_dir: Path | None = Field(
        default=None,
        description="Alembic script directory; default: the repository's migrations/.",
    )
    redis_url: str | None = Field(
        default=None,
        description="Optional Redis URL (redis://host:6379/0); /healthz checks it when set.",
    )

    # --- several nodes (docs/operations.md, "Several nodes") ------------------
    node_name: str = Field(
        default="",
        max_length=128,
        description="A name for this server process in logs and in cluster_nodes; empty: "
        "host name and process id.",
    )
    probe_seconds: float = Field(
        default=0.5,
        gt=0,
        le=10.0,
        description="How long /readyz, /healthz and /metrics wait for the database or Redis "
        "before counting it as not answering: each answers within a second, whatever they do.",
    )
    handshake_seconds: float = Field(
        default=5.0,
        gt=0,
        le=60.0,
        description="How long a room socket's handshake waits for the database (the token, "
        "the room) before it answers database_unavailable and closes with 1013.",
    )
    lease_seconds: float = Field(
        default=6.0,
        ge=1.0,
        le=60.0,
        description="How long a node's leases of its rooms hold without a heartbeat (one "
        "every third of it): a node that dies loses its rooms to another node this long "
        "after its last heartbeat (with Redis; without Redis a node owns every room).",
    )

    # --- HTTP --------------------------------------------------------------
    host: str = Field(default="127.0.0.1", description="Address `serve` binds to.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `serve` binds to.")
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(_DEFAULT_ORIGINS),
        description="Origins allowed on the WebSocket handshake and for CORS besides the "
        "server's own address, which is always allowed whatever its port (comma-separated "
        "or a JSON list); a page of another origin is told why (close 4003).",
    )
    max_body_bytes: int = Field(
        default=4096,
        ge=256,
        description="Largest HTTP request body accepted; a larger one (by Content-Length, or "
        "counted as it streams in) is refused with 413 before it is read whole.",
    )
    create_limit_per_address: int = Field(
        default=30,
        ge=1,
        description="Requests of each kind that create something (a player, a room, a "
        "session, a quick start) one client address may make per window (then 429 with "
        "Retry-After).",
    )
    create_limit_per_identity: int = Field(
        default=10,
        ge=1,
        description="Rooms, sessions and quick starts one player may ask for per window "
        "(then 429).",
    )
    create_limit_window_seconds: float = Field(
        default=60.0, gt=0, description="Length of the window of the creation limits."
    )
    code_limit_per_address: int = Field(
        default=20,
        ge=1,
        description="Wrong invite codes one client address may try per code window (join "
        "by code, a seat or a room read with a code; then 429 with Retry-After).",
    )
    code_limit_per_player: int = Field(
        default=10, ge=1, description="Wrong invite codes one player may try per code window."
    )
    code_limit_window_seconds: float = Field(
        default=600.0, gt=0, description="Length of the window of the invite-code limits."
    )
    cookie_name: str = Field(default="remi_token", description="Name of the identity cookie.")
    cookie_secure: bool = Field(
        default=False, description="Mark the identity cookie Secure (set true behind HTTPS)."
    )
    cookie_samesite: Literal["lax", "strict"] = Field(
        default="lax", description="SameSite attribute of the identity cookie."
    )
    cookie_max_age_seconds: int = Field(
        default=400 * 24 * 3600, ge=60, description="Max-Age of the identity cookie."
    )
    session_touch_seconds: float = Field(
        default=300.0,
        ge=0,
        description="A session's last_used_at is written at most this often (a token's "
        "use is otherwise only read).",
    )

    # --- accounts and the balance (docs/economy.md) ----------------------------
    login_limit_per_address: int = Field(
        default=20,
        ge=1,
        description="Sign-ins and account claims one client address may try per login "
        "window (then 429 with Retry-After).",
    )
    login_limit_per_username: int = Field(
        default=5,
        ge=1,
        description="Sign-ins one username may be tried with per login window, from any "
        "address (then 429 with Retry-After).",
    )
    login_limit_window_seconds: float = Field(
        default=300.0, gt=0, description="Length of the window of the sign-in limits."
    )
    starting_balance: int = Field(
        default=1000, ge=0, description="Balance a new player starts with (a ledger row)."
    )
    starting_joker_credits: int = Field(
        default=1, ge=0, description="Joker credits a new player starts with (B.9)."
    )
    daily_grant: int = Field(
        default=100,
        ge=0,
        description="Points added to a player's balance once per UTC day (on the first "
        "read of the account that day).",
    )
    daily_joker_credits: int = Field(
        default=1, ge=0, description="Joker credits added with the daily grant."
    )
    joker_credit_price: int = Field(
        default=50, ge=0, description="Balance points one joker credit costs."
    )

    # --- the Arena and tournaments (docs/tournaments.md) -------------------------
    arena_stakes: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [10, 50, 100, 500],
        description="The stakes an Arena table may choose (comma-separated): each seat's "
        "stake is taken from its player's balance into the table's pot at the start.",
    )
    arena_payout_3: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [100],
        description="How an Arena table of 3 seats shares its pot: per cent for the 1st, "
        "2nd, ... place (comma-separated, adding up to 100).",
    )
    arena_payout_4: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [70, 30],
        description="How an Arena table of 4 seats shares its pot (as REMI_ARENA_PAYOUT_3); "
        "2 seats: the winner takes the pot.",
    )
    tournament_series: list[TournamentSeries] = Field(
        default_factory=lambda: [
            TournamentSeries(kind="sitngo", players=4, fee=50),
            TournamentSeries(kind="sitngo", players=8, fee=100),
            TournamentSeries(kind="scheduled", players=16, fee=100, at="19:00"),
        ],
        description="The tournaments the server keeps open for registration (a JSON list): "
        "each sit-and-go always has one open; each scheduled one opens a day ahead of its "
        "daily time (UTC).",
    )
    tournament_prizes: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [50, 30, 20],
        description="A tournament's prize table: per cent of the entry fees for the 1st, "
        "2nd, ... place at the final table (comma-separated, adding up to 100).",
    )
    tournament_min_players: int = Field(
        default=2,
        ge=1,
        description="A scheduled tournament with fewer players registered at its time is "
        "cancelled and their fees refunded.",
    )
    tournament_bot_wait_seconds: float = Field(
        default=30.0,
        ge=0,
        description="How long a tournament table waits for a registered player who has not "
        "come before a bot plays their seat (the player takes it back on arrival).",
    )
    tournament_tick_seconds: float = Field(
        default=2.0,
        gt=0,
        description="How often the server looks at the tournaments in the database to move "
        "them on (open, start, next stage, prizes).",
    )

    # --- quick start, ratings (docs/economy.md) -------------------------------
    quick_start_wait_seconds: float = Field(
        default=10.0,
        ge=0,
        description="A quick start room waits this long for players after its first one "
        "sat down, then starts with bots in the seats still empty (at once when full).",
    )
    owner_gone_seconds: float = Field(
        default=300.0,
        gt=0,
        description="A waiting room that only its owner can start closes once its owner "
        "has had no socket on it for this long: it leaves the lobby and its seated players "
        "are told why (owner_gone).",
    )
    quick_start_request_seconds: float = Field(
        default=600.0,
        gt=0,
        description="A quick start request id is remembered this long per player: the "
        "same request again (a retry) gives the same room, even after it started.",
    )
    quick_start_seats: int = Field(
        default=4, ge=2, le=4, description="Seats of a room opened by quick start."
    )
    quick_start_rounds: int = Field(
        default=3, ge=1, le=1000, description="Rounds a quick start match lasts."
    )
    leaderboard_min_matches: int = Field(
        default=1,
        ge=1,
        description="Rated matches a player needs in a variant to be on its leaderboard.",
    )

    # --- game timing -------------------------------------------------------
    default_turn_seconds: TurnSeconds = Field(
        default=60, description="Turn time of a room that does not choose one."
    )
    unresponsive_after_timeouts: int = Field(
        default=2, ge=1, description="Consecutive turn timeouts that mark a seat unresponsive."
    )
    reconnect_grace_seconds: float = Field(
        default=10.0,
        ge=0,
        description="After a disconnect, how long before the seat is marked away.",
    )
    empty_room_grace_seconds: float = Field(
        default=120.0, ge=0, description="A room with no human left ends after this long."
    )
    replay_buffer_events: int = Field(
        default=512, ge=0, description="Events a room keeps to replay to a reconnecting client."
    )
    snapshot_recent_events: int = Field(
        default=40,
        ge=0,
        description="Most of the current round's last events a snapshot carries (``recent``, "
        "each as its seat sees it) for the client's move log; 0 for none.",
    )

    reactions_per_minute: int = Field(
        default=6,
        ge=0,
        description="Quick reactions (``react``) a seat may show in any 60 s, at most 3 of "
        "them within 10 s; past that one is refused with ``reactions_limited``. 0 turns "
        "reactions off.",
    )

    # --- live rooms (pacing, memory) ----------------------------------------
    bot_delay_seconds: float = Field(
        default=0.8,
        ge=0,
        description="Pause before each move of a bot, counted from the room's last move: "
        "consecutive bot actions (a draw, a lay, a discard) are at least this far apart, "
        "so a person can follow them (0 in tests).",
    )
    bot_searches: Literal["process", "thread", "loop"] = Field(
        default="process",
        description="Where bots search: one worker process (default), a thread, or the "
        "event loop (a long search there holds every room).",
    )
    round_pause_seconds: float = Field(
        default=5.0, ge=0, description="Pause between a round's end and the next deal."
    )
    turn_time_scale: float = Field(
        default=1.0, gt=0, description="Multiplier of every room's turn time (tests use < 1)."
    )
    idle_actor_seconds: float = Field(
        default=30.0, ge=0, description="A non-playing room with no connection stops after this."
    )
    version_block: int = Field(
        default=1000, ge=32, description="Versions reserved in the database at a time."
    )
    gc_policy: bool = Field(
        default=True,
        description="The server process's garbage-collector policy (server/gcpolicy.py): "
        "what start-up built is frozen and the young generation is larger, so that full "
        "collections, which stop every room, are rare; false keeps CPython's defaults.",
    )
    heartbeat_seconds: float = Field(
        default=10.0,
        gt=0,
        description="How often the live rooms record that the server is alive, with each "
        "turn's clock (also at shutdown); a restarted turn has the time it had then.",
    )
    send_queue_limit: int = Field(
        default=512,
        ge=8,
        description="Frames waiting to be sent to a client before it is closed as too slow "
        "to read (1008).",
    )

    # --- WebSocket safety --------------------------------------------------
    rate_limit_messages: int = Field(
        default=100, ge=1, description="Frames (text or binary) a connection may send per window."
    )
    rate_limit_window_seconds: float = Field(
        default=20.0, gt=0, description="Length of the message-budget window."
    )
    max_frame_bytes: int = Field(
        default=16 * 1024, ge=256, description="Larger WebSocket frames close the connection."
    )

    # --- logging -----------------------------------------------------------
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", description="Root log level."
    )
    log_format: Literal["json", "text"] = Field(
        default="json", description="json: one JSON object a line; text: key=value."
    )

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator(
        "arena_stakes", "arena_payout_3", "arena_payout_4", "tournament_prizes", mode="before"
    )
    @classmethod
    def _split_numbers(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("arena_payout_3", "arena_payout_4", "tournament_prizes")
    @classmethod
    def _a_payout_table(cls, value: list[int]) -> list[int]:
        if not value or any(v < 0 for v in value) or sum(value) != 100:
            raise ValueError("a payout table is per cents of the pool adding up to 100")
        return value

    @field_validator("arena_stakes")
    @classmethod
    def _stakes(cls, value: list[int]) -> list[int]:
        if not value or any(v < 1 for v in value):
            raise ValueError("stakes are whole points of 1 or more")
        return sorted(set(value))

    @field_validator("default_turn_seconds", mode="before")
    @classmethod
    def _int_from_env(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _default_database_url(self) -> Settings:
        if not self.database_url:
            path = (self.data_dir / "remi.sqlite3").resolve()
            self.database_url = f"sqlite+aiosqlite:///{path}"
        return self

    @property
    def is_sqlite(self) -> bool:
        """True when the database is SQLite."""
        return self.database_url.startswith("sqlite")

    @property
    def is_postgres(self) -> bool:
        """True when the database is PostgreSQL."""
        return self.database_url.startswith("postgresql")
