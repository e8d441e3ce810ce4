"""Alembic environment (async engine).

Two ways in:

* the server (``server.storage.migrate``) opens a connection on its own async
  engine and passes it in ``config.attributes["connection"]``;
* a developer's ``alembic upgrade head`` from the repository root: the URL
  comes from ``REMI_DATABASE_URL`` (``server.settings.Settings``) and an async
  engine is created here, the standard async env.py pattern.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from server.settings import Settings
from server.storage.database import build_engine
from server.storage.models import Base

config = context.config
target_metadata = Base.metadata

# Advisory lock key so that two servers starting together migrate one after the other.
_PG_LOCK_KEY = 0x52454D49  # "REMI"


def _settings() -> Settings:
    settings = config.attributes.get("settings")
    if isinstance(settings, Settings):
        return settings
    return Settings()


def run_migrations_offline() -> None:
    """Emit SQL to stdout (``alembic upgrade head --sql``)."""
    context.configure(
        url=_settings().database_url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    settings = _settings()
    is_pg = connection.dialect.name == "postgresql"
    is_sqlite = connection.dialect.name == "sqlite"
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=is_sqlite,
        # SQLite's DDL is transactional once the driver's own BEGIN handling is off,
        # which server.storage.database does (every transaction is BEGIN IMMEDIATE).
        transactional_ddl=True if is_sqlite else None,
        compare_type=True,
    )
    with context.begin_transaction():
        if is_pg:
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            if settings.database_schema:
                connection.execute(
                    text(f'CREATE SCHEMA IF NOT EXISTS "{settings.database_schema}"')
                )
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = build_engine(_settings())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        asyncio.run(run_async_migrations())
    else:
        do_run_migrations(connection)


if config.config_file_name is not None and config.attributes.get("connection") is None:
    fileConfig(config.config_file_name)

if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
