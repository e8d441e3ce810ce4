"""Async engine and session factory built from :class:`~server.settings.Settings`."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import create_engine, event, make_url, text
from sqlalchemy.engine import Connection, Engine, ExceptionContext
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

from server.settings import Settings

log = logging.getLogger(__name__)


SQLITE_BUSY_TIMEOUT = 30.0
"""Seconds a SQLite connection waits for another writer's lock before failing."""

SQLITE_PRAGMAS = (
    "PRAGMA foreign_keys=ON",
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
)
"""Run on every new SQLite connection: foreign keys, WAL, no ``fsync`` at each commit.

With ``synchronous=NORMAL`` in WAL mode a commit appends to the WAL file and is
durable across a crash of the process (not of the machine); only checkpoints sync."""


_ORJSON_OPTIONS = (
    orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
)
# ASCII only, as json.dumps: a lone surrogate (which orjson refuses) becomes an
# escape, which SQLite can store (UTF-8 cannot encode it as it is).
_JSON_FALLBACK = json.JSONEncoder(separators=(",", ":"))


def json_dumps(value: Any) -> str:
    """The engine's JSON serializer (every JSON column): compact JSON, by ``orjson``.

    Several times faster than SQLAlchemy's default ``json.dumps``, which matters on
    the hot path (every move's action is bound with it). The text is
    ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``'s but for the
    spelling of some floats (``1e-7`` for ``1e-07``), the same value read back; a
    non-finite float becomes ``null`` (``json`` would write ``NaN``, which is not
    JSON and PostgreSQL refuses). What ``orjson`` refuses (an int past 64 bits, a
    str with a lone surrogate, a datetime or dataclass, which ``json`` refuses too)
    goes to compact ``json`` with ``json.dumps``'s ``\\u`` escapes of non-ASCII text
    (a lone surrogate is then storable). Rows written before keep ``json.dumps``'s
    spacing and escapes: the values read back are the same.

    >>> json_dumps({"a": [1, 2.5, None, True], 3: "é"})
    '{"a":[1,2.5,null,true],"3":"é"}'
    >>> json_dumps(2**70)
    '1180591620717411303424'
    """
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS).decode()
    except TypeError:
        return _JSON_FALLBACK.encode(value)


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL; None for an in-memory or ``file:`` URI database."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def idle_transaction_ms(settings: Settings) -> int:
    """PostgreSQL's ``idle_in_transaction_session_timeout`` for this server's connections
    (milliseconds): half ``REMI_LEASE_SECONDS``.

    A node paused in the middle of a transaction (SIGSTOP, a long GC pause, a network lost
    with the transaction open) keeps its locks meanwhile, among them the rows of
    ``room_leases`` its writes share-lock (the fence, :mod:`server.storage.leases`). A
    claim of those rooms waits for them, so the rooms would stay with the paused node past
    its lease. PostgreSQL ends such a transaction (and its connection) before the lease
    lapses; the node's write then fails as with any lost connection (the journal writes it
    again, and the fence refuses it if the room has moved)."""
    return max(1, round(settings.lease_seconds * 500))


def build_engine(settings: Settings) -> AsyncEngine:
    """Create the async engine for the configured database.

    SQLite: WAL journal, foreign keys on, a busy timeout, and every transaction
    opened with ``BEGIN IMMEDIATE`` so that concurrent writers queue instead of
    failing on lock upgrade. PostgreSQL: ``database_schema`` becomes the
    connection's search_path, and a transaction left idle is ended
    (:func:`idle_transaction_ms`). JSON columns are written by :func:`json_dumps`.
    """
    url = settings.database_url
    # hide_parameters: a statement's parameters hold a round's seed, secret until the round
    # is over (docs/fairness.md); neither an error's text nor the echo shows them.
    kwargs: dict[str, Any] = {
        "echo": settings.database_echo,
        "json_serializer": json_dumps,
        "hide_parameters": True,
    }
    if settings.is_sqlite:
        path = sqlite_path(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT}
    elif settings.is_postgres:
        kwargs["pool_pre_ping"] = True
        idle = str(idle_transaction_ms(settings))
        server_settings = {"idle_in_transaction_session_timeout": idle}
        if settings.database_schema:
            server_settings["search_path"] = settings.database_schema
        kwargs["connect_args"] = {"server_settings": server_settings}
    engine = create_async_engine(url, **kwargs)
    if settings.is_sqlite:
        _configure_sqlite(engine.sync_engine)
    else:
        event.listen(engine.sync_engine, "handle_error", _busy_connection_is_lost)
    return engine


BUSY_CONNECTION = "another operation is in progress"
"""What asyncpg says of a connection used while an earlier statement's answer is still
awaited on it (that statement's caller was cancelled or paused at the wrong moment)."""


def _busy_connection_is_lost(context: ExceptionContext) -> None:
    """Count a connection asyncpg calls busy (:data:`BUSY_CONNECTION`) as lost: the pool
    throws it away, and every caller's retry of a lost connection applies (the journal's
    writes, the next ping), instead of handing it out again to fail the same way."""
    if BUSY_CONNECTION in str(context.original_exception):
        context.is_disconnect = True
        context.invalidate_pool_on_disconnect = False


def build_sqlite_sync_engine(settings: Settings) -> Engine:
    """A synchronous engine (the standard library's ``sqlite3``) on the same SQLite
    database as :func:`build_engine`'s, with the same pragmas and ``BEGIN IMMEDIATE``.

    For a writer that runs each transaction in one call on a thread of its own (the
    journal): ``aiosqlite`` hands every statement, cursor and commit to its thread and
    back, which costs several times the transaction itself."""
    url = make_url(settings.database_url).set(drivername="sqlite")
    engine = create_engine(
        url,
        echo=settings.database_echo,
        json_serializer=json_dumps,
        hide_parameters=True,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT, "check_same_thread": False},
    )
    _configure_sqlite(engine)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        # Take transaction control away from the driver; see _on_begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in SQLITE_PRAGMAS:
                cursor.execute(pragma)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """Owns the engine and hands out sessions::

    async with db.transaction() as session:
        session.add(obj)
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = build_engine(settings)
        self.sessionmaker = async_sessionmaker(self.engine, expire_on_commit=False)
        self._sync_engine: Engine | None = None

    def sqlite_sync_engine(self) -> Engine | None:
        """SQLite: the synchronous engine on the same database (made on first use,
        :func:`build_sqlite_sync_engine`); None on any other database."""
        if not self.settings.is_sqlite:
            return None
        if self._sync_engine is None:
            self._sync_engine = build_sqlite_sync_engine(self.settings)
        return self._sync_engine

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction, committed on success, rolled back on error."""
        async with self.sessionmaker() as session, session.begin():
            yield session

    async def ping(self) -> None:
        """Run a trivial query; raises if the database is unreachable."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
        if self._sync_engine is not None:
            self._sync_engine.dispose()
